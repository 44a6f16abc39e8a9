"""The questions SPEC.md and RULES.md answer that are behaviour, checked against the rules,
the engine, the client and the arbiter: the crown square of a crowning moved piece, positions
without checkers, the checker limits, only the mover's clock, CR LF and letter case in both
directions."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from arbiter.compliance import CheckSettings, check_engine
from dipole_engine.rules import FenError, IllegalMoveError, InvalidMoveError, new_board
from protocol import EngineClient, Limit

pytestmark = pytest.mark.build  # the rules or the engine themselves: CI runs these on both builds

ROOT = Path(__file__).resolve().parents[1]
BROKEN = ROOT / "tests" / "engines" / "broken_engine.py"
ENGINE = [sys.executable, "-m", "dipole_engine"]
ARBITER = [sys.executable, "-c", "from arbiter.cli import main; main()"]


def talk(*lines: str) -> list[str]:
    """The engine's output for ``lines`` (then end of input)."""
    done = subprocess.run(
        ENGINE, input="".join(line + "\n" for line in lines), capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0
    return done.stdout.splitlines()


def test_a_moved_piece_that_crowns_names_its_own_target_square() -> None:
    board = new_board("impasse", "W:W2c3,1h8:B1a7")
    assert "c3-a1=a1" in [str(move) for move in board.legal_moves()]
    board.push_text("c3-a1=a1")
    assert board.fen() == "B:W2h8:B1a7"
    with pytest.raises(IllegalMoveError, match="legal: c3-a1=a1"):
        new_board("impasse", "W:W2c3,1h8:B1a7").parse_move("c3-a1=h8")
    assert talk(
        "setoption name UCI_Variant value impasse", "position fen W:W2c3,1h8:B1a7 moves c3-a1=a1", "query fen"
    ) == ["response B:W2h8:B1a7"]


def test_a_position_where_neither_side_has_a_checker_is_refused() -> None:
    with pytest.raises(FenError, match="both sides have no checkers"):
        new_board("dipole", "W:W:B")
    assert new_board("dipole", "W:W:B1a1").winner() is not None  # one empty side: a finished game
    out = talk("position fen W:W:B", "query fen")
    assert out[0].startswith("info string error position: FEN: both sides have no checkers")
    assert out[1] == "response W:W12c1:B12d8"  # the previous position stays


@pytest.mark.parametrize(
    "variant,good,bad,message",
    [
        ("dipole", "W:W12c1:B12d8", "W:W12c1,1e1:B12d8", "W has 13 checkers, more than the 12"),
        ("dipole-10s", "W:W20e1:B20f10", "W:W20e1:B20f10,1a1", "B has 21 checkers, more than the 20"),
        ("impasse", "W:W2c3:B1h8", "W:W3c3:B1h8", "height 3 exceeds the largest allowed, 2"),
    ],
)
def test_the_checker_limits_per_side_and_per_stack(variant: str, good: str, bad: str, message: str) -> None:
    assert new_board(variant, good).fen() == good
    with pytest.raises(FenError, match=message):
        new_board(variant, bad)


@pytest.mark.parametrize("moves,clock", [("", "wtime 1000"), (" moves c1-c3", "btime 1000 binc 0")])
def test_a_go_with_only_the_movers_clock_answers_within_it(moves: str, clock: str) -> None:
    with EngineClient(ENGINE) as engine:
        engine.set_position(None, moves.split()[1:])
        result = engine.go(
            Limit(**{word: int(value) for word, value in zip(clock.split()[::2], clock.split()[1::2])}), timeout=5
        )
    assert result.bestmove is not None
    assert result.elapsed < 1.0


def test_moves_are_lower_case_and_the_engine_refuses_other_spellings() -> None:
    with pytest.raises(InvalidMoveError):
        new_board("dipole").parse_move("C1-C3")
    out = talk("position startpos moves C1-C3", "query fen")
    assert out[0].startswith("info string error position: move 1 of 1, ")
    assert out[1] == "response W:W12c1:B12d8"


def test_an_upper_case_bestmove_is_an_illegal_move_for_the_arbiter() -> None:
    done = subprocess.run(
        [
            *ARBITER,
            "match",
            "--engine",
            f"cmd={sys.executable} {BROKEN} --fault shouts",
            "name=loud",
            "--engine",
            " ".join(["cmd=" + ENGINE[0], *ENGINE[1:]]),
            "name=own",
            "--depth",
            "1",
            "--games",
            "2",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    finished = [line for line in done.stdout.splitlines() if line.startswith("Finished game")]
    assert len(finished) == 2
    assert all("makes an illegal move: " in line and "-" in line.split(": ")[-1] for line in finished), finished


def test_cr_lf_from_an_engine_is_read_as_lf() -> None:
    command = [sys.executable, str(BROKEN), "--fault", "crlf-output"]
    with EngineClient(command) as engine:
        assert engine.id["name"] == "Broken Engine"
        engine.set_position(None)
        assert engine.go(Limit(depth=1), timeout=10).bestmove == str(new_board().legal_moves()[0])
    results = check_engine(CheckSettings(tuple(command), variants=("dipole",), positions=4, timeout=5))
    assert [r.line() for r in results if r.status == "FAIL"] == []


def test_cr_lf_into_the_engine_is_read_as_lf() -> None:
    started = time.monotonic()
    assert talk("position startpos moves c1-c3\r", "query p1turn\r") == ["response false"]
    assert time.monotonic() - started < 30
