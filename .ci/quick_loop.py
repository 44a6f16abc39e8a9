"""The quick loop (``pytest -m "not slow"``), timed, with a census of the project's modules it
imports: prints the modules that no quick test imports, in the test process or in any process
it starts (and exits 1 when there is one).

    python .ci/quick_loop.py                 # pytest -m "not slow" with pyproject's options
    python .ci/quick_loop.py -n 2 --durations=20

Test files that have no quick test are left out of the run (``--ignore``): collecting them
would import what only their slow tests use.  A file with quick tests counts with all its
imports, its slow tests' included.  ``.ci/census/sitecustomize.py`` takes the census.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CENSUS = ROOT / ".ci" / "census"

QUICK = ["-m", "not slow"]


def collected_files(*selection: str) -> set[str]:
    """The test files of the tests that ``pytest --collect-only`` selects."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-n", "0", *selection],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        sys.exit(f"quick loop: collecting the tests failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return {line.partition("::")[0] for line in done.stdout.splitlines() if "::" in line}


def source_modules() -> set[str]:
    """Every module of the project's packages, by its dotted name."""
    modules = set()
    for package in (init.parent for init in ROOT.glob("*/__init__.py")):
        for path in package.rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            modules.add(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return modules


def main() -> int:
    slow_only = sorted(collected_files() - collected_files(*QUICK))
    with tempfile.TemporaryDirectory(prefix="import-census-") as census:
        environment = dict(os.environ, DIPOLE_IMPORT_CENSUS=census)
        environment["PYTHONPATH"] = os.pathsep.join(filter(None, [str(CENSUS), os.environ.get("PYTHONPATH")]))
        command = [sys.executable, "-m", "pytest", *QUICK, *(f"--ignore={name}" for name in slow_only), *sys.argv[1:]]
        begin = time.monotonic()
        tests = subprocess.run(command, cwd=ROOT, env=environment, check=False)
        seconds = time.monotonic() - begin
        imported = {line for path in Path(census).iterdir() for line in path.read_text(encoding="utf-8").split()}
    missing = sorted(source_modules() - imported)
    print(
        f"quick loop: {seconds:.0f} s, pytest exit status {tests.returncode}; left out (slow tests only): {', '.join(slow_only) or 'none'}"
    )
    if missing:
        print(f"quick loop: {len(missing)} modules no quick test imports:\n  " + "\n  ".join(missing))
    else:
        print("quick loop: every module of the project is imported by a quick test or a process it starts")
    return 1 if missing or tests.returncode != 0 else 0


if __name__ == "__main__":
    sys.exit(main())
