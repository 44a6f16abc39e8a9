"""``dipole-arbiter check-engine``: the project's engine and the example engine pass it, an
engine broken in any one way that SPEC.md forbids fails the check that covers it, and an engine
that floods or writes endless lines gets FAIL lines and a summary, in bounded time and memory."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_arbiter_games import assert_all_gone

from arbiter.compliance import CheckSettings, check_engine

ROOT = Path(__file__).resolve().parents[1]
BROKEN = ROOT / "tests" / "engines" / "broken_engine.py"
EXAMPLE = ROOT / "examples" / "minimal_engine.py"
HOSTILE = ROOT / "tests" / "engines" / "hostile_engine.py"
PEAK_ARBITER = ROOT / "tests" / "engines" / "peak_arbiter.py"
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
    "flood-perft": "more 'move: count' lines than the",
    "shouts": "UCI_Variant dipole",
    "go-restarts": "go infinite: isready answered during it, a second go refused",
    "multipv-duplicates": "MultiPV 3 (dipole)",
    "multipv-unordered": "MultiPV 3 (dipole)",
    "ignore-searchmoves": "go searchmoves (dipole)",
    "false-mate": "go mate 2 (dipole)",
    "early-ponder": "go ponder, ponderhit (dipole)",
    "silent-ponder-stop": "go ponder, stop (dipole)",
    "illegal-ponder": "go ponder, ponderhit (dipole)",
}

# fault -> the checks it may fail (their names' start: the feature's checks, in both games) and
# the words a FAIL line's detail must have: the fault is named, not just noticed
VERSION_1_2_FAULTS = {
    "multipv-duplicates": ("MultiPV 3 (", "lines 1 and 2 both start with"),
    "multipv-unordered": ("MultiPV 3 (", "scores better than line 1"),
    "ignore-searchmoves": ("go searchmoves (", "(the best move without searchmoves) is not one of searchmoves"),
    "false-mate": ("go mate 2 (", "a false claim: 'score mate 1' with pv d4-e5, which does not win within 1"),
    "early-ponder": ("go ponder, ", "while pondering, before 'ponderhit'"),
    "silent-ponder-stop": ("go ponder, stop (", "no 'bestmove' after 'stop' within 1.0 s"),
    "illegal-ponder": ("go ponder, ", "the ponder move is illegal after"),
}
FEATURE_CHECKS = ("MultiPV 3 (", "go searchmoves (", "go mate 2 (", "go ponder, ponderhit (", "go ponder, stop (")


def settings(*command: str) -> CheckSettings:
    return CheckSettings(tuple(command), variants=("dipole", "impasse"), positions=8, timeout=4.0, margin=150)


@pytest.mark.build  # the project's engine plays: CI runs this on both builds
def test_the_project_engine_passes_every_check_from_the_command_line() -> None:
    done = subprocess.run(
        [
            *ARBITER,
            "check-engine",
            "--engine",
            f"cmd={sys.executable} -m dipole_engine",
            "--positions",
            "60",
            "--margin",
            "500",  # the whole suite runs at once on two cores: processes wait for a core
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    lines = done.stdout.splitlines()
    assert done.returncode == 0, done.stdout + done.stderr
    assert not [line for line in lines if line.startswith(("FAIL", "skip"))]
    checks = [line for line in lines if line.startswith("ok")]
    assert len(checks) >= 45
    for feature in FEATURE_CHECKS:  # the version 1.2 features, in both games
        assert sum(line.startswith(f"ok    {feature}") for line in lines) == 2, feature
    for variant in ("dipole", "dipole-s", "dipole-10", "dipole-10s", "impasse", "impasse-singles"):
        assert any(f"random {variant} positions" in line for line in checks)
    assert lines[-1].endswith("ok, 0 failed, 0 skipped; the engine passed")


def test_the_example_engine_passes_and_its_missing_optional_features_are_skipped() -> None:
    results = check_engine(settings(sys.executable, str(EXAMPLE)))
    assert [r.line() for r in results if r.status == "FAIL"] == []
    skipped = {r.name for r in results if r.status == "skip"}
    assert "go perft 2 (optional)" in skipped and "query fen (optional)" in skipped
    # It claims none of the version 1.2 features: no MultiPV or Ponder option, and the loop
    # refuses its go searchmoves and go mate, so each of their checks is skipped in both games.
    features = [r for r in results if r.name.startswith(FEATURE_CHECKS)]
    assert len(features) == 10 and all(r.status == "skip" and r.detail.startswith("not offered (") for r in features)


def test_the_broken_engine_without_a_fault_passes() -> None:
    results = check_engine(settings(sys.executable, str(BROKEN)))
    assert [r.line() for r in results if r.status != "ok"] == []
    assert sum(r.name.startswith(FEATURE_CHECKS) for r in results) == 10


@pytest.mark.parametrize("fault", sorted(VERSION_1_2_FAULTS))
@pytest.mark.slow
def test_each_version_1_2_fault_fails_only_the_checks_of_its_feature(fault: str) -> None:
    """MultiPV, searchmoves, go mate, pondering: the broken feature's check fails with a
    detail naming the fault, and every other check passes."""
    results = check_engine(settings(sys.executable, str(BROKEN), "--fault", fault))
    failed = [r for r in results if r.status != "ok"]
    feature, detail = VERSION_1_2_FAULTS[fault]
    assert failed and all(r.status == "FAIL" and r.name.startswith(feature) for r in failed), [r.line() for r in failed]
    assert any(detail in r.detail for r in failed), [r.line() for r in failed]


@pytest.mark.parametrize("fault", sorted(FAULTS))
@pytest.mark.slow
def test_each_broken_engine_fails_the_check_that_covers_it(fault: str) -> None:
    results = check_engine(settings(sys.executable, str(BROKEN), "--fault", fault))
    failed = [r for r in results if r.status == "FAIL"]
    assert any(r.name.startswith(FAULTS[fault]) or FAULTS[fault] in r.detail for r in failed), [
        r.line() for r in results
    ]


def test_exit_status_and_summary_of_a_failing_engine() -> None:
    done = subprocess.run(
        [
            *ARBITER,
            "check-engine",
            "--engine",
            f"cmd={sys.executable} {BROKEN} --fault refuse-pass",
            "--variant",
            "dipole",
            "--positions",
            "4",
            "--timeout",
            "2",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert done.returncode == 1
    assert "FAIL  a pass in a moves list (Dipole): 'position fen W:W1d4:B2c5,2e5 moves pass' was refused" in done.stdout
    assert done.stdout.splitlines()[-1].endswith(" 1 failed, 0 skipped; the engine FAILED")  # (Dipole alone)


@pytest.mark.parametrize(
    "words,message",
    [
        (["cmd=dipole-engine", "depth=3"], "depth= is not used by check-engine"),
        (["cmd=/no/such/engine"], "engine program '/no/such/engine' not found"),
        (["name=x"], "no command"),
        (
            [f"cmd={sys.executable} -m dipole_engine", "option.Hash=5000"],
            "--engine option.Hash=5000: 'setoption name Hash value 5000' was refused: setoption Hash: must be at most 1024",
        ),
    ],
)
def test_bad_engine_words_are_one_line_errors(words: list[str], message: str) -> None:
    done = subprocess.run(
        [*ARBITER, "check-engine", "--engine", *words], capture_output=True, text=True, timeout=60, cwd=ROOT
    )
    assert done.returncode == 2
    assert done.stderr.startswith("dipole-arbiter: error: ") and message in done.stderr
    assert len(done.stderr.splitlines()) == 1


# hostile flag -> --timeout, and the detail one of its FAIL lines must have (a regular expression)
HOSTILE_FAULTS = {
    # 2 s, not less: the handshake has the same deadline, and Python starts slowly on a busy machine
    "--flood-info": (
        "2",
        r"no 'bestmove' for 'go depth 1' within 2\.0 s \(it wrote \d{4,} other lines "
        r"meanwhile, \d{4,} of them info\)",
    ),
    "--flood-options": ("10", r"more than 1024 id and option lines or 256 KB of them before 'uciok'"),
    "--long-line": (
        "2",
        r"the engine wrote a line longer than 1048576 bytes while the checker waited for "
        r"'bestmove' for 'go depth 1'",
    ),
    "--endless-line": (
        "2",
        r"the engine wrote a line longer than 1048576 bytes while the checker waited for "
        r"'bestmove' for 'go depth 1'",
    ),
}


@pytest.mark.parametrize("flag", sorted(HOSTILE_FAULTS))
@pytest.mark.slow
def test_a_flooding_or_endless_engine_gets_fail_lines_and_a_summary_in_bounded_time_and_memory(flag: str) -> None:
    """The real command against an engine that floods (info lines during go, option lines during
    the handshake) or writes a line over the transport's 1 MB limit, ended or endless: each fault
    is a FAIL line naming it, the other checks go on with fresh engines, the summary follows, the
    exit status is 1, every deadline holds and the checker's peak memory stays small."""
    timeout, detail = HOSTILE_FAULTS[flag]
    begin = time.monotonic()
    done = subprocess.run(
        [
            sys.executable,
            str(PEAK_ARBITER),
            str(ROOT),
            "check-engine",
            "--engine",
            f"cmd={sys.executable} {HOSTILE} {flag}",
            "--variant",
            "dipole",
            "--positions",
            "1",
            "--timeout",
            timeout,
        ],
        capture_output=True,
        text=True,
        timeout=150,
        cwd=ROOT,
    )
    took = time.monotonic() - begin
    lines = done.stdout.splitlines()
    assert done.returncode == 1, done.stdout + done.stderr
    assert re.fullmatch(r"PEAK \d+\n", done.stderr), done.stderr[-2000:]  # nothing else: no traceback
    peak_kb = int(done.stderr.split()[1])
    assert peak_kb < 200 * 1024, f"peak RSS {peak_kb} kB"
    results = [line for line in lines if line.startswith(("ok  ", "FAIL", "skip"))]
    failed = [line for line in results if line.startswith("FAIL")]
    assert any(re.search(detail, line) for line in failed), "\n".join(results)
    assert lines[-1].startswith(f"{len(results)} checks: ") and lines[-1].endswith("; the engine FAILED")
    # every wait ends at its deadline: a few seconds per check at most, however much is written
    assert took < 5 + len(results) * (float(timeout) + 3), f"{took:.1f} s for {len(results)} checks"
    assert not [line for line in failed if "within -" in line]


# An engine that answers everything but go, and floods info lines on go, never a bestmove; it
# leaves its pid in the directory given.  Every fresh engine the checker starts does the same.
FLOODING_ENGINE = """
import os, sys
open(os.path.join(sys.argv[1], str(os.getpid())), "w").close()
flood = "info depth 1 score cp 0 nodes 1 pv a1-a2\\n" * 500
answers = {"uci": "id name Flood\\nuciok", "ugi": "id name Flood\\nugiok", "isready": "readyok"}
for line in sys.stdin:
    word = (line.split() or [""])[0]
    if word == "go":
        while True:
            sys.stdout.write(flood)
    if word == "quit":
        break
    if word in answers:
        print(answers[word], flush=True)
"""


@pytest.mark.slow
def test_an_engine_flooding_info_lines_ends_the_run_within_its_bound(tmp_path: Path) -> None:
    """Each check's deadline holds however fast the lines come, and their deadlines do not add
    up: the run ends within --run-timeout (and a second or two to stop the engine) with the
    FAIL lines and the summary, and no engine process outlives it.  Without the run's bound
    this run takes over a minute: some 35 checks each wait their 2 s for a bestmove."""
    engine = tmp_path / "flooding_engine.py"
    engine.write_text(FLOODING_ENGINE)
    pids = tmp_path / "pids"
    pids.mkdir()
    run_timeout = 8
    with subprocess.Popen(
        [
            *ARBITER,
            "check-engine",
            "--engine",
            f"cmd={sys.executable} {engine} {pids}",
            "--timeout",
            "2",
            "--run-timeout",
            str(run_timeout),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    ) as process:
        assert process.stdout is not None
        first = process.stdout.readline()  # "Checking ...": the run begins (Python has started)
        begin = time.monotonic()
        rest, errors = process.communicate(timeout=60)
        took = time.monotonic() - begin
    lines = (first + rest).splitlines()
    assert process.returncode == 1, first + rest + errors
    assert errors == ""
    assert took < run_timeout + 2, f"{took:.1f} s"
    failed = [line for line in lines if line.startswith("FAIL")]
    flooded = r"no 'bestmove' for 'go depth 1' within 2\.0 s \(it wrote \d{4,} other lines meanwhile"
    assert any(re.search(flooded, line) for line in failed), rest
    assert (
        failed[-1] == f"FAIL  the checks not run: the run's bound of {run_timeout} s (--run-timeout) passed before them"
    )
    results = [line for line in lines if line.startswith(("ok  ", "FAIL", "skip"))]
    assert (
        lines[-1]
        == f"{len(results)} checks: {len(results) - len(failed)} ok, {len(failed)} failed, 0 skipped; the engine FAILED"
    )
    assert_all_gone(pids, expected_at_least=3)
    shown = subprocess.run([*ARBITER, "check-engine", "--help"], capture_output=True, text=True, timeout=60).stdout
    help_text = " ".join(shown.split())  # the bound, documented: the option, its default and what it does
    assert "the run ends within --run-timeout seconds" in help_text and "[default: 90.0;" in help_text
