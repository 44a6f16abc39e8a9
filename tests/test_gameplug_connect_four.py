"""The example plug-in, Connect Four: its draws and wins, its position text and notation, and its
engine on protocol.loop, driven by the arbiter's own engine client."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from gameplug import GameError, OutcomeKind, Side
from protocol import Limit
from protocol.client import EngineClient

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "connect_four"
sys.path.append(str(EXAMPLE))  # (found installed first, when it is)

from connect_four_plug import GAME  # noqa: E402

FULL = "yyrryyr/rryyrry/yyrryyr/rryyrry/yyrryyr/rryyrry:r"  # no four anywhere
THREE = "7/7/7/7/yyy4/rrr4:r"


def test_a_full_board_is_a_draw_and_four_in_a_row_wins() -> None:
    full = GAME.read_position("connect-four", FULL)
    outcome = full.outcome()
    assert (outcome.kind, outcome.result, outcome.reason) == (OutcomeKind.DRAW, "1/2-1/2", "the board is full")
    assert full.legal_moves() == [] and full.move_choices() == []
    almost = GAME.read_position("connect-four", "1" + FULL[1:-1] + "y")  # a6 still empty, Yellow to move
    assert almost.legal_moves() == [0] and not almost.outcome().over
    almost.play(almost.read_move("a"))
    assert almost.outcome().kind is OutcomeKind.DRAW and almost.position_text() == FULL
    almost.undo()
    assert almost.outcome().over is False
    three = GAME.read_position("connect-four", THREE)
    three.play(three.read_notation("4"))
    assert (three.outcome().winner, three.outcome().reason, three.outcome().result) == (
        Side.FIRST,
        "Red connects four",
        "1-0",
    )
    with pytest.raises(GameError, match=r"'a': the game is over \(Red connects four\)"):
        three.read_move("a")


def test_notation_is_lenient_and_protocol_text_strict() -> None:
    state = GAME.read_position("connect-four", THREE)
    assert (
        state.read_notation("4") == state.read_notation("D") == state.read_notation("d1") == state.read_move("d") == 3
    )
    with pytest.raises(GameError, match="a disc dropped in column d lands on d1"):
        state.read_notation("d2")
    with pytest.raises(GameError, match="expected a column letter a-g"):
        state.read_move("D")
    choice = state.describe_move(3)
    assert (choice.move, choice.origin, choice.target) == ("d", None, choice.target)
    assert choice.target is not None and (choice.target.kind, choice.target.square) == ("drop", "d1")
    picture = state.picture()
    assert (picture.width, picture.height, len(picture.squares), len(picture.pieces)) == (7, 6, 42, 6)
    assert {(p.square, p.colour) for p in picture.pieces if p.side is Side.SECOND} == {
        ("a2", "gold"),
        ("b2", "gold"),
        ("c2", "gold"),
    }


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("7/7/7/7/7/r6:r", "1 red and 0 yellow discs with Red to move"),
        ("7/7/7/7/r6/7:y", "a disc floats above an empty cell in column a"),
        ("7/7/7/7/7/8:r", "row 6 from the top has 8 cells, not 7"),
        ("7/7/7/7/yyyy3/rrrr3:r", "both sides have four in a row"),
        ("7/7/7/7/7/7", "expected 6 rows from the top"),
    ],
)
def test_bad_positions_say_what_is_wrong(text: str, why: str) -> None:
    with pytest.raises(GameError, match=why):
        GAME.read_position("connect-four", text)


ENGINE = [sys.executable, "-m", "connect_four_plug.engine"]
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(EXAMPLE), *sys.path])}


def test_the_engine_answers_queries_and_perft_from_the_interface() -> None:
    commands = [
        f"position fen {FULL}",
        *(f"query {item}" for item in ("gameover", "result", "moves", "size", "startpos", "fen")),
        "position startpos moves d d",
        "query p1turn",
        "go perft 2",
        "position startpos moves d h",
        "quit",
    ]
    run = subprocess.run(ENGINE, input="\n".join(commands) + "\n", capture_output=True, text=True, timeout=60, env=ENV)
    assert run.stdout.splitlines() == [
        "response true",
        "response draw",
        "response (none)",
        "response 7x6",
        "response 7/7/7/7/7/7:r",
        f"response {FULL}",
        "response true",
        *(f"{column} 7" for column in "abcdefg"),
        "Nodes searched: 49",
        "info string error position: move 2 of 2, 'h' is not a Connect Four move: expected a column letter a-g; "
        "kept the position after move 1",
    ], run.stdout
    assert run.returncode == 0


def test_the_engine_plays_on_protocol_loop() -> None:
    client = EngineClient(ENGINE, name="connect-four", env=ENV)
    try:
        client.start(timeout=30)
        assert client.options["UCI_Variant"].vars == ("connect-four",)
        client.set_option("UCI_Variant", "connect-four")
        client.new_game(timeout=30)
        answer = client.go(Limit(depth=3), timeout=60, position=(THREE, ()))
        assert answer.bestmove == "d" and answer.scored is not None and answer.scored.score_mate == 1
        state = GAME.start("connect-four")
        moves: list[str] = []
        while not state.outcome().over:  # the engine against itself, each move checked by the rules
            answer = client.go(Limit(depth=2), timeout=30, position=(None, moves))
            assert answer.bestmove is not None
            state.play(state.read_move(answer.bestmove))
            moves.append(answer.bestmove)
        assert client.go(Limit(depth=1), timeout=30, position=(None, moves)).bestmove is None
        assert not client.take_error_reports()
    finally:
        client.kill()
