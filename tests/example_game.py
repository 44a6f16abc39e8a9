"""The example game (examples/connect_four) installed as a package of its own, the way a game
author's package is installed: what the tests of any game use (the ``installed_example`` fixture
of conftest.py)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

EXAMPLE_GAME = Path(__file__).resolve().parent.parent / "examples" / "connect_four"


@dataclass(frozen=True)
class InstalledExample:
    """The example game installed outside the project: ``env`` is the environment in which every
    host command and page finds it (its folder on ``PYTHONPATH``), ``engine`` its engine's
    console script."""

    folder: Path
    env: dict[str, str]
    engine: Path


def install_example(where: Path) -> InstalledExample:
    """pip installs the example (from a copy: the build leaves files beside its source) into a
    folder of its own under ``where``: nothing of the host knows of it but its entry point."""
    source = where / "source"
    shutil.copytree(EXAMPLE_GAME, source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    folder = where / "installed"
    command = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(folder), str(source)]
    run = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(folder), env.get("PYTHONPATH")]))
    return InstalledExample(folder, env, folder / "bin" / "connect-four-engine")
