"""What every package of the project shares at run time: which build runs (:mod:`.build`) and
the console scripts' runner (:mod:`.commandline`).  No game lives here.

Importing this package selects the build (:func:`.build.select_build`): it must run before any
compiled module loads, so every package that holds compiled modules (``dipole_engine``,
``gameplug``, ``protocol``, ``arbiter``) imports this one first.
"""

from .build import select_build

select_build()
