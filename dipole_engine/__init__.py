"""Dipole (and its sibling games): the rules core and a headless engine.

The public API lives in :mod:`dipole_engine.rules` and is re-exported here.
"""

# First: the build's check (dipole_runtime) runs before any compiled module of the rules loads.
import dipole_runtime  # noqa: F401

from .rules import *  # noqa: F403
from .rules import __all__ as __all__
