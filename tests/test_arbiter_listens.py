"""The arbiter listens to engines: their error reports are shown, a refused set-up stops the
event with the engine's own reason, contradictory or ambiguous engine settings are refused up
front, and ``tc=inf`` alone is a usable limit."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BROKEN = ROOT / "tests" / "engines" / "broken_engine.py"
ARBITER = [sys.executable, "-c", "from arbiter.cli import main; main()"]
OWN = f"cmd={sys.executable} -m dipole_engine"


def arbiter(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ARBITER, *args], capture_output=True, text=True, timeout=timeout, cwd=ROOT)


def broken(fault: str, name: str) -> list[str]:
    return ["--engine", f"cmd={sys.executable} {BROKEN} --fault {fault}", f"name={name}"]


def test_a_refused_variant_stops_the_match_with_the_engines_own_reason() -> None:
    result = arbiter(
        "match",
        "--variant",
        "impasse",
        *broken("refuse-impasse", "picky"),
        "--engine",
        OWN,
        "name=own",
        "--depth",
        "1",
        "--games",
        "2",
    )
    assert result.returncode == 2, result
    assert result.stderr.splitlines() == [
        (
            "dipole-arbiter: error: engine 'picky' refused 'setoption name UCI_Variant value impasse': setoption: "
            "UCI_Variant must be one of dipole, dipole-s, dipole-10, dipole-10s, impasse, impasse-singles, "
            "found 'impasse-is-refused'"
        )
    ]
    assert "Finished game" not in result.stdout


def test_an_engine_error_report_during_a_game_is_a_warning_naming_the_engine() -> None:
    result = arbiter(
        "match",
        *broken("complains", "chatty"),
        "--engine",
        OWN,
        "name=own",
        "--depth",
        "1",
        "--games",
        "2",
        "--opening-plies",
        "2",
        "--seed",
        "1",
    )
    assert result.returncode == 0, result
    warnings = [line for line in result.stderr.splitlines() if line.startswith("Warning:")]
    assert warnings
    assert all(line.endswith("the engine reports an error: the hash table is on fire") for line in warnings)
    assert any(line.startswith("Warning: game 1: chatty (White): ") for line in warnings)
    assert any(line.startswith("Warning: game 2: chatty (Black): ") for line in warnings)


def test_a_variant_option_contradicting_the_variant_is_refused_before_any_game() -> None:
    result = arbiter(
        "match",
        "--variant",
        "dipole",
        "--engine",
        OWN,
        "name=a",
        "option.UCI_Variant=impasse",
        "--engine",
        OWN,
        "name=b",
        "--depth",
        "1",
    )
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        (
            "dipole-arbiter: error: engine 'a': option.UCI_Variant=impasse contradicts --variant dipole; "
            "the arbiter sets UCI_Variant from --variant (drop the option)"
        )
    ]
    assert result.stdout == ""


def test_a_variant_option_agreeing_with_the_variant_is_accepted() -> None:
    result = arbiter(
        "match",
        "--variant",
        "dipole-s",
        "--engine",
        OWN,
        "name=a",
        "option.UCI_Variant=DIPOLE-S",
        "--engine",
        OWN,
        "name=b",
        "--depth",
        "1",
        "--games",
        "2",
    )
    assert result.returncode == 0, result
    assert "variant dipole-s" in result.stdout


def test_two_engines_given_the_same_name_is_an_error() -> None:
    result = arbiter("match", "--engine", OWN, "name=twin", "--engine", OWN, "name=twin", "--depth", "1")
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        (
            "dipole-arbiter: error: --engine #2: name=twin is already the name of --engine #1; "
            "every engine needs its own name"
        )
    ]


def test_engines_named_after_the_same_command_are_renamed_with_a_warning() -> None:
    result = arbiter("match", "--engine", OWN, "--engine", OWN, "--depth", "1", "--games", "2")
    assert result.returncode == 0, result
    assert result.stderr.splitlines()[0] == (
        f"Warning: two engines are called 'dipole_engine' (named after their command); the one run as "
        f"'{sys.executable} -m dipole_engine' is called 'dipole_engine-2' (give name= to choose)"
    )
    assert "Match: dipole_engine vs dipole_engine-2" in result.stdout


@pytest.mark.slow
def test_tc_inf_alone_is_an_infinite_search_stopped_at_the_stall_timeout(tmp_path: Path) -> None:
    result = arbiter(
        "match",
        "--engine",
        OWN,
        "name=a",
        "--engine",
        OWN,
        "name=b",
        "--tc",
        "inf",
        "--stall-timeout",
        "0.2",  # the engine has this plus the 1 s stop grace to answer: a busy machine needs it
        "--games",
        "2",
        "--pgn",
        str(tmp_path / "g.pgn"),
        "--log",
        str(tmp_path / "logs"),
    )
    assert result.returncode == 0, result
    assert "Engine a: " in result.stdout and "tc=inf" in result.stdout
    finished = [line for line in result.stdout.splitlines() if line.startswith("Finished game")]
    assert len(finished) == 2 and all("has no checkers left" in line for line in finished), finished
    log = (tmp_path / "logs" / "a.log").read_text()
    assert " > go infinite\n" in log and " > stop\n" in log
    assert '[TimeControl "-"]' in (tmp_path / "g.pgn").read_text()
