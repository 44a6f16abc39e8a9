"""Suite-wide collection order: the modules that hold slow tests first.

The suite runs on parallel workers (pytest-xdist, ``-n`` in pyproject.toml), which take tests
in collection order.  A long test collected last keeps one worker busy while the others have
nothing left, so the run waits on it; started first, the long tests overlap the short ones.
Whole modules move, in their own order, so that a module's fixtures are still set up once a
worker.
"""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    slow_modules = {item.module for item in items if item.get_closest_marker("slow") is not None}
    items.sort(key=lambda item: item.module not in slow_modules)
