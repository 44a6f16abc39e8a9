"""Dipole (and its sibling games): the rules core and a headless engine.

The public API lives in :mod:`dipole_engine.rules` and is re-exported here.
"""

from .rules import *  # noqa: F401,F403
from .rules import __all__ as __all__  # noqa: F401
