"""The board JSON the GUI's board.js draws (arbiter/board/): its shape for both games."""

from __future__ import annotations

import json

import pytest

from arbiter.board import board_json, move_ends
from dipole_engine.rules import new_board

pytestmark = pytest.mark.build  # the rules or the engine themselves: CI runs these on both builds


def test_start_position_shape() -> None:
    data = board_json(new_board("dipole"))
    assert json.loads(json.dumps(data)) == data  # plain JSON
    assert data == {
        "variant": "dipole",
        "game": "dipole",
        "width": 8,
        "height": 8,
        "squares": [{"square": "c1", "color": "w", "height": 12}, {"square": "d8", "color": "b", "height": 12}],
        "turn": "w",
        "lastMove": None,
        "flip": False,
        "winner": None,
    }


def test_last_move_ends_for_every_kind() -> None:
    board = new_board("dipole", "W:W3a7,2c1:B1e3")
    for text, origin, target in (("a7-off:2", "a7", None), ("c1xe3", "c1", "e3"), ("c1-c3", "c1", "c3")):
        move = board.parse_move(text)
        board.push(move)
        data = board_json(board, move, flip=True)
        assert data["lastMove"] == {"from": origin, "to": target, "text": text}
        assert data["flip"] is True and data["turn"] == "b"
        board.pop()
    passing = new_board("dipole", "W:W1d4:B2c5,2e5")
    assert move_ends(passing, passing.parse_move("pass")) == (None, None)
    impasse = new_board("impasse", "W:W1a7:B1b8,1d8")  # White cannot slide: an impasse
    removal = impasse.legal_moves()[0]
    assert str(removal) == "xa7" and move_ends(impasse, removal) == ("a7", None)


def test_impasse_and_ten_by_ten() -> None:
    board = new_board("impasse")
    data = board_json(board)
    assert data["game"] == "impasse" and {s["height"] for s in data["squares"]} == {1, 2}
    ten = board_json(new_board("dipole-10"))
    assert (ten["width"], ten["height"]) == (10, 10)
    assert {s["square"] for s in ten["squares"]} == {"g1", "f10"}


def test_winner() -> None:
    board = new_board("dipole", "W:W1b8:B1a1")
    board.push(board.parse_move("b8-off:1"))
    assert board_json(board)["winner"] == "b"
