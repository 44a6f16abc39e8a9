"""``dipole-arbiter check-engine``: the project's engine and the example engine pass it, and an
engine broken in any one way that SPEC.md forbids fails the check that covers it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from arbiter.compliance import CheckSettings, check_engine

ROOT = Path(__file__).resolve().parents[1]
BROKEN = ROOT / "tests" / "engines" / "broken_engine.py"
EXAMPLE = ROOT / "examples" / "minimal_engine.py"
ARBITER = [sys.executable, "-c", "from arbiter.cli import main; main()"]

# fault -> what the line of the failed check starts with (after "FAIL  "), or contains
FAULTS = {
    "no-id-name": "handshake: uci",
    "bad-option-line": "handshake: uci",
    "no-ugi": "handshake: ugi",
    "slow-isready": "isready answered promptly",
    "blocking-search": "go infinite: isready answered during it",
    "refuse-impasse": "UCI_Variant impasse",
    "no-reset-on-newgame": "ucinewgame",
    "refuse-pass": "a pass in a moves list",
    "refuse-crown": "a crown in a moves list",
    "ignore-nodes": "go nodes",
    "ignore-depth": "go depth 2",
    "ignore-stop": "go infinite",
    "slow-movetime": "go movetime",
    "ignore-clock": "go wtime 150",
    "early-infinite": "go infinite",
    "two-bestmoves": "an unrequested 'bestmove",  # the first check that reads after it
    "illegal-moves": "legal moves in",
    "move-when-finished": "bestmove (none) at finished positions",
    "no-crlf": "CR LF",
    "silent-bad-input": "bad input",
    "crash-on-bad-input": "bad input",
    "ignore-quit": "quit",
    "wrong-query": "query fen",
    "wrong-perft": "go perft",
    "shouts": "UCI_Variant dipole",
    "go-restarts": "go infinite: isready answered during it, a second go refused",
}


def settings(*command: str) -> CheckSettings:
    return CheckSettings(tuple(command), variants=("dipole", "impasse"), positions=8, timeout=4.0, margin=150)


def test_the_project_engine_passes_every_check_from_the_command_line() -> None:
    done = subprocess.run([*ARBITER, "check-engine", "--engine",
                           f"cmd={sys.executable} -m dipole_engine", "--positions", "60", "--margin", "250"],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    lines = done.stdout.splitlines()
    assert done.returncode == 0, done.stdout + done.stderr
    assert not [line for line in lines if line.startswith(("FAIL", "skip"))]
    checks = [line for line in lines if line.startswith("ok")]
    assert len(checks) >= 35
    for variant in ("dipole", "dipole-s", "dipole-10", "dipole-10s", "impasse", "impasse-singles"):
        assert any(f"random {variant} positions" in line for line in checks)
    assert lines[-1].endswith("ok, 0 failed, 0 skipped; the engine passed")


def test_the_example_engine_passes_and_its_missing_optional_features_are_skipped() -> None:
    results = check_engine(settings(sys.executable, str(EXAMPLE)))
    assert [r.line() for r in results if r.status == "FAIL"] == []
    skipped = {r.name for r in results if r.status == "skip"}
    assert "go perft 2 (optional)" in skipped and "query fen (optional)" in skipped


def test_the_broken_engine_without_a_fault_passes() -> None:
    results = check_engine(settings(sys.executable, str(BROKEN)))
    assert [r.line() for r in results if r.status != "ok"] == []


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_each_broken_engine_fails_the_check_that_covers_it(fault: str) -> None:
    results = check_engine(settings(sys.executable, str(BROKEN), "--fault", fault))
    failed = [r for r in results if r.status == "FAIL"]
    assert any(r.name.startswith(FAULTS[fault]) or FAULTS[fault] in r.detail for r in failed), \
        [r.line() for r in results]


def test_exit_status_and_summary_of_a_failing_engine() -> None:
    done = subprocess.run([*ARBITER, "check-engine", "--engine",
                           f"cmd={sys.executable} {BROKEN} --fault refuse-pass", "--variant", "dipole",
                           "--positions", "4", "--timeout", "2"],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 1
    assert "FAIL  a pass in a moves list (Dipole): 'position fen W:W1d4:B2c5,2e5 moves pass' was refused" in done.stdout
    assert done.stdout.splitlines()[-1].endswith("failed, 1 skipped; the engine FAILED")


@pytest.mark.parametrize("words,message", [
    (["cmd=dipole-engine", "depth=3"], "depth= is not used by check-engine"),
    (["cmd=/no/such/engine"], "engine program '/no/such/engine' not found"),
    (["name=x"], "no command"),
    ([f"cmd={sys.executable} -m dipole_engine", "option.Hash=5000"],
     "--engine option.Hash=5000: 'setoption name Hash value 5000' was refused: setoption Hash: must be at most 1024"),
])
def test_bad_engine_words_are_one_line_errors(words: list[str], message: str) -> None:
    done = subprocess.run([*ARBITER, "check-engine", "--engine", *words],
                          capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 2
    assert done.stderr.startswith("dipole-arbiter: error: ") and message in done.stderr
    assert len(done.stderr.splitlines()) == 1
