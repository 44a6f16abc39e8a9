"""What tests in every directory share: the system's Chromium, found once; the example game
plug-in (examples/connect_four) installed as its own package, once."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

EXAMPLE_GAME = Path(__file__).resolve().parent.parent / "examples" / "connect_four"

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


@dataclass(frozen=True)
class InstalledExample:
    """The example game installed as a package of its own, outside the project: ``env`` is the
    environment in which every host command and page finds it (its folder on ``PYTHONPATH``), and
    ``engine`` its engine's console script."""

    folder: Path
    env: dict[str, str]
    engine: Path


@pytest.fixture(scope="session")
def installed_example(tmp_path_factory: pytest.TempPathFactory) -> InstalledExample:
    """examples/connect_four installed by pip (from a copy: the build leaves files beside its
    source) into a folder of its own, the way a game author's package is installed: nothing of
    the host knows of it but what the game's entry point says."""
    where = tmp_path_factory.mktemp("example-game")
    source = where / "source"
    shutil.copytree(EXAMPLE_GAME, source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    folder = where / "installed"
    command = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(folder), str(source)]
    run = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(folder), env.get("PYTHONPATH")]))
    return InstalledExample(folder, env, folder / "bin" / "connect-four-engine")
