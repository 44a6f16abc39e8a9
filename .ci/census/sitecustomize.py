"""The import census of ``.ci/quick_loop.py``: Python imports this module at the start of every
process whose ``PYTHONPATH`` holds this folder (the test processes and every engine, arbiter or
server they start), and at the process's exit it adds the names of the modules it imported from
the project's tree to a file of its own in ``$DIPOLE_IMPORT_CENSUS``.

A process that ends without running its exit handlers (killed, or ``os._exit``) is not counted,
so the census may miss a module, never invent one.
"""

from __future__ import annotations

import atexit
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))) + os.sep


def record() -> None:
    folder = os.environ.get("DIPOLE_IMPORT_CENSUS")
    if not folder:
        return
    names = sorted(
        # A module run with -m is ``__main__`` here; its spec has its own name.
        getattr(module.__spec__, "name", name)
        for name, module in list(sys.modules.items())
        if str(getattr(module, "__file__", "")).startswith(ROOT)
    )
    try:
        with open(os.path.join(folder, f"{os.getpid()}.txt"), "a", encoding="utf-8") as file:
            file.write("".join(f"{name}\n" for name in names))
    except OSError:
        pass  # the census is gone (the loop ended): nothing to add to


atexit.register(record)
