"""The source type-checks: mypy --strict over every package, the benchmarks and the examples.

The settings and the list of what is checked are pyproject.toml's ([tool.mypy]), the one place
both this test and .ci/run read them from.

The compiled build (mypyc) trusts these types at run time, and the public API promises them.
The tests themselves are not checked: they build deliberately wrong values.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_the_source_type_checks() -> None:
    # mypy's own cache (.mypy_cache, where .ci/run's mypy has just written it): mypy checks
    # each cached module against its source, and a whole check from nothing costs 10 s of CPU.
    result = subprocess.run(
        [sys.executable, "-m", "mypy"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Success: no issues found" in result.stdout
