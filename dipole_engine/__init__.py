"""Dipole (and its sibling games): the rules core and a headless engine.

The public API lives in :mod:`dipole_engine.rules` and is re-exported here.
"""

from .build_info import select_build

select_build()  # before any compiled module can be imported (build_info.py)

from .rules import *  # noqa: E402, F403
from .rules import __all__ as __all__  # noqa: E402
