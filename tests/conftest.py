"""What tests in every directory share: the system's Chromium, found once."""

from __future__ import annotations

import os
import shutil

import pytest

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
