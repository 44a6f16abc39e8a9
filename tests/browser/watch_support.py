"""What the watch page's tests share: the arbiter run as a user runs it, with the toy engine."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from gui_support import TOY_ENGINE

ARBITER = [sys.executable, "-c", "from arbiter.cli import main; main()"]


def toy(name: str, pid_dir: Path, *flags: str) -> list[str]:
    """``--engine`` words for the toy engine (it notes its pid in ``pid_dir``)."""
    pid_dir.mkdir(exist_ok=True)
    return [
        "--engine",
        f"cmd={sys.executable} {TOY_ENGINE} --pid-dir {pid_dir} --seed {name} {' '.join(flags)}".strip(),
        f"name={name}",
    ]


def arbiter(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ARBITER, *args], capture_output=True, text=True, timeout=timeout, check=False)
