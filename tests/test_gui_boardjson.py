"""The board JSON the GUI's board.js draws (arbiter/board/): any game's picture, the side to move,
the last move as the game describes it, the result (draws included), and the images sent once."""

from __future__ import annotations

import json

import pytest

import gameplug
from arbiter.board import board_json, images_of, play_shown, ply_json
from gameplug import Game


def connect_four() -> Game:
    """The example plug-in, found by the registry (the ``example_registered`` fixture)."""
    return gameplug.game("connect-four")


def test_start_position_shape() -> None:
    data = board_json(gameplug.variant("dipole").start())
    assert json.loads(json.dumps(data)) == data  # plain JSON
    assert (data["variant"], data["game"], data["width"], data["height"]) == ("dipole", "dipole", 8, 8)
    assert data["files"] == list("abcdefgh") and data["ranks"] == [str(rank) for rank in range(1, 9)]
    assert len(data["squares"]) == 64
    assert {"name": "a1", "file": 0, "rank": 0, "shade": "dark"} in data["squares"]
    assert {"name": "b1", "file": 1, "rank": 0, "shade": "light"} in data["squares"]
    assert [(p["square"], p["side"], p["colour"], p["count"]) for p in data["pieces"]] == [
        ("c1", "first", "white", 12),
        ("d8", "second", "black", 12),
    ]
    assert data["sides"] == {"w": "White", "b": "Black"}
    assert (data["turn"], data["lastMove"], data["flip"], data["result"], data["images"]) == (
        "w",
        None,
        False,
        None,
        {},
    )


def test_last_move_as_the_game_describes_it() -> None:
    for text, origin, target in (
        ("a7-off:2", "a7", {"kind": "exit", "square": "a7", "edge": "top"}),
        ("c1xe3", "c1", {"kind": "capture", "square": "e3", "edge": None}),
        ("c1-c3", "c1", {"kind": "move", "square": "c3", "edge": None}),
    ):
        state = gameplug.variant("dipole").read_position("W:W3a7,2c1:B1e3")
        data = board_json(state, play_shown(state, state.read_move(text)), flip=True)
        assert data["lastMove"] == {"from": origin, "target": target, "text": text}
        assert data["flip"] is True and data["turn"] == "b"
    passing = gameplug.variant("dipole").read_position("W:W1d4:B2c5,2e5")
    assert play_shown(passing, passing.read_move("pass")) == {"from": None, "target": None, "text": "pass"}
    impasse = gameplug.variant("impasse").read_position("W:W1a7:B1b8,1d8")  # White cannot slide: an impasse
    removal = play_shown(impasse, impasse.legal_moves()[0])
    assert removal == {"from": "a7", "target": {"kind": "remove", "square": "a7", "edge": None}, "text": "xa7"}


def test_impasse_and_ten_by_ten() -> None:
    data = board_json(gameplug.variant("impasse").start())
    assert data["game"] == "impasse" and {p["count"] for p in data["pieces"]} == {1, 2}
    ten = board_json(gameplug.variant("dipole-10").start())
    assert (ten["width"], ten["height"], len(ten["squares"])) == (10, 10, 100)
    assert {p["square"] for p in ten["pieces"]} == {"g1", "f10"}


@pytest.mark.usefixtures("example_registered")
def test_win_and_draw_results_in_the_games_words() -> None:
    state = gameplug.variant("dipole").read_position("W:W1b8:B1a1")
    state.play(state.read_move("b8-off:1"))
    assert board_json(state)["result"] == {"result": "0-1", "winner": "b", "reason": "White has no checkers left"}
    full = connect_four().read_position("connect-four", "yyrryyr/rryyrry/yyrryyr/rryyrry/yyrryyr/rryyrry:r")
    drawn = board_json(full)
    assert drawn["result"] == {"result": "1/2-1/2", "winner": None, "reason": full.outcome().reason}
    assert drawn["sides"] == {"w": "Red", "b": "Yellow"}


@pytest.mark.usefixtures("example_registered")
def test_connect_four_shades_discs_and_drop_markers() -> None:
    state = connect_four().start("connect-four")
    last = play_shown(state, state.read_move("d"))
    data = board_json(state, last)
    assert (data["width"], data["height"], len(data["squares"])) == (7, 6, 42)
    assert {square["shade"] for square in data["squares"]} == {"#1f4fbf"}
    assert [(p["square"], p["kind"], p["colour"]) for p in data["pieces"]] == [("d1", "disc", "red")]
    assert last == {"from": None, "target": {"kind": "drop", "square": "d1", "edge": None}, "text": "d"}


def test_chess_images_are_sent_once_by_key() -> None:
    state = gameplug.variant("chess").start()
    data = board_json(state)
    keys = {piece["image"] for piece in data["pieces"]}
    assert len(keys) == 12 and set(data["images"]) == keys
    assert all(uri.startswith("data:image/svg+xml;base64,") for uri in data["images"].values())
    after = board_json(state, play_shown(state, state.read_move("e2e4")))
    assert after["lastMove"] == {"from": "e2", "target": {"kind": "move", "square": "e4", "edge": None}, "text": "e4"}
    ply = ply_json(after)
    assert "squares" not in ply and "images" not in ply and ply["pieces"] == after["pieces"]
    assert images_of([data, after]) == data["images"]


@pytest.mark.parametrize("variant", ["dipole", "impasse", "chess"])
def test_a_whole_game_stays_plain_json(variant: str) -> None:
    state = gameplug.variant(variant).start()
    for _ in range(30):
        legal = state.legal_moves()
        if not legal:
            break
        data = board_json(state, play_shown(state, legal[len(legal) // 2]))
        assert json.loads(json.dumps(data)) == data
