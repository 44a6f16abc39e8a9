"""What tests in every directory share: the system's Chromium, found once; the example game
plug-in (examples/connect_four) installed as its own package, once."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator

import pytest
from example_game import InstalledExample, install_example

import gameplug

BROWSERS = ("chromium-headless-shell", "chromium", "chromium-browser")
"""Where to look, best first: Debian's old headless shell (``chromium-headless-shell``, what
Playwright itself runs headless) renders the same pages as the full browser for less CPU, and
takes the same ``--headless`` command lines (``--screenshot``, ``--dump-dom``)."""


@pytest.fixture(scope="session")
def chromium_executable() -> str:
    """The system Chromium's path; skips the test without one, except under CI (``CI`` set),
    where the test fails: ``.ci/run`` installs Chromium, so a skip there would hide a test."""
    path = next(filter(None, map(shutil.which, BROWSERS)), None)
    if path is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed, and CI must run the browser tests (.ci/run installs it)")
        pytest.skip("no chromium on PATH")
    return path


@pytest.fixture(scope="session")
def installed_example(tmp_path_factory: pytest.TempPathFactory) -> InstalledExample:
    """examples/connect_four installed by pip as a package of its own (see example_game.py)."""
    return install_example(tmp_path_factory.mktemp("example-game"))


@pytest.fixture
def example_registered(installed_example: InstalledExample) -> Iterator[InstalledExample]:
    """The installed example found by this process's registry too, for the test's length."""
    sys.path.insert(0, str(installed_example.folder))
    gameplug.reload()
    try:
        yield installed_example
    finally:
        sys.path.remove(str(installed_example.folder))
        gameplug.reload()
