"""Position text (FEN) and move text: strict reading, canonical writing, round trips."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dipole_engine.rules import (
    FenError,
    IllegalMoveError,
    InvalidMoveError,
    RulesError,
    UnknownVariantError,
    new_board,
)

pytestmark = pytest.mark.build  # the rules or the engine themselves: CI runs these on both builds


def test_writer_orders_by_rank_then_file() -> None:
    board = new_board("dipole", "B:W1g5,3e1:B1h8,2d6")
    assert board.fen() == "B:W3e1,1g5:B2d6,1h8"


def test_empty_side_is_its_letter_alone() -> None:
    assert new_board("dipole", "W:W:B3d4").fen() == "W:W:B3d4"


@pytest.mark.parametrize(
    ("fen", "fragment"),
    [
        ("", "expected 3 fields"),
        ("W:W12c1", "expected 3 fields"),
        ("W:W12c1:B12d8:x", "expected 3 fields"),
        ("X:W12c1:B12d8", "side to move must be 'W' or 'B'"),
        ("w:W12c1:B12d8", "side to move must be 'W' or 'B'"),
        ("W:B12c1:W12d8", "second field must start with 'W'"),
        ("W:W12c1:12d8", "third field must start with 'B'"),
        ("W:W12c1,:B12d8", "W item 2 ''"),
        ("W:Wc1:B12d8", "expected <height><square>"),
        ("W:W0c1:B12d8", "height must be at least 1"),
        ("W:W13c1:B12d8", "exceeds the largest allowed, 12"),
        ("W:W12c9:B12d8", "'c9' is not a square of the 8x8 board"),
        ("W:W12k1:B12d8", "'k1' is not a square of the 8x8 board"),
        ("W:W12c2:B12d8", "c2 is a light square"),
        ("W:W6c1,6c1:B12d8", "occupied twice"),
        ("W:W6c1:B6c1", "occupied twice"),
        ("W:W8c1,8e1:B12d8", "W has 16 checkers, more than the 12"),
        ("W:W:B", "both sides have no checkers"),
        ("W:W12c01:B12d8", "'c01' is not a square of the 8x8 board"),
    ],
)
def test_bad_fen_is_a_clear_error(fen: str, fragment: str) -> None:
    with pytest.raises(FenError) as error:
        new_board("dipole", fen)
    message = str(error.value)
    assert fragment in message
    assert "\n" not in message


def test_ten_by_ten_squares() -> None:
    board = new_board("dipole-10", "W:W3j10,2a1:B1e9")
    assert board.fen() == "W:W2a1,3j10:B1e9"
    with pytest.raises(FenError, match="not a square of the 10x10 board"):
        new_board("dipole-10", "W:W1k1:B1e9")


def test_unknown_variant() -> None:
    with pytest.raises(UnknownVariantError, match="known variants: dipole, dipole-s"):
        new_board("chess")


@pytest.mark.parametrize(
    ("fen", "text", "canonical"),
    [
        ("W:W12c1:B12d8", "c1-c3", "c1-c3"),
        ("W:W12c1:B12d8", "c1c3", "c1-c3"),
        ("W:W12c1:B12d8", "c1-off:12", "c1-off:12"),
        ("W:W12c1:B12d8", "c1-off", "c1-off:12"),
        ("W:W12c1:B12d8", " c1-d2 ", "c1-d2"),
        ("W:W2c3,3e5:B1a7", "c3e5", "c3+e5"),
        ("W:W2d4:B2b2,3f6", "d4b2", "d4xb2"),
        ("W:W1d4:B2c5,2e5", "pass", "pass"),
    ],
)
def test_move_text_forms(fen: str, text: str, canonical: str) -> None:
    assert str(new_board("dipole", fen).parse_move(text)) == canonical


@pytest.mark.parametrize(
    ("fen", "text", "error", "fragment"),
    [
        ("W:W12c1:B12d8", "", InvalidMoveError, "not a Dipole move"),
        ("W:W12c1:B12d8", "c1--c3", InvalidMoveError, "not a Dipole move"),
        ("W:W12c1:B12d8", "C1-C3", InvalidMoveError, "not a Dipole move"),
        ("W:W12c1:B12d8", "c1-c9", InvalidMoveError, "c9 is not a square of the 8x8 board"),
        ("W:W12c1:B12d8", "c1-c2", IllegalMoveError, "c2 is a light square"),
        ("W:W12c1:B12d8", "d8-d6", IllegalMoveError, "White has no stack on d8"),
        ("W:W12c1:B12d8", "e1-e3", IllegalMoveError, "White has no stack on e1"),
        ("W:W12c1:B12d8", "c1-f2", IllegalMoveError, "not on one straight line"),
        ("W:W2c1:B12d8", "c1-c5", IllegalMoveError, "needs 4 checkers; the stack on c1 has 2"),
        ("W:W2d4:B3f6", "d4xf6", IllegalMoveError, "has 3 checkers, more than the 2 moved"),
        ("W:W2d4:B3h8", "d4-b2", IllegalMoveError, "forward or diagonally forward only"),
        ("W:W12c1:B12d8", "c1xc3", InvalidMoveError, "this is a basic move; write c1-c3"),
        ("W:W2c3,3e5:B1a7", "c3-e5", InvalidMoveError, "this is a merge; write c3+e5"),
        ("W:W12c1:B12d8", "c1-off:2", IllegalMoveError, "stay on the board"),
        ("W:W12c1:B12d8", "c1-off:13", IllegalMoveError, "cannot move 13 off"),
        ("W:W12c1:B12d8", "pass", IllegalMoveError, "may not pass"),
        ("W:W:B3d4", "d4-d2", IllegalMoveError, "the game is over (Black has won)"),
    ],
)
def test_bad_move_is_a_clear_error(fen: str, text: str, error: type, fragment: str) -> None:
    board = new_board("dipole", fen)
    before = board.fen()
    with pytest.raises(error) as raised:
        board.parse_move(text)
    assert fragment in str(raised.value)
    assert "\n" not in str(raised.value)
    assert board.fen() == before


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), variant=st.sampled_from(["dipole", "dipole-s", "dipole-10", "dipole-10s"]))
def test_fen_and_move_text_round_trip_over_playouts(seed: int, variant: str) -> None:
    rng = random.Random(seed)
    board = new_board(variant)
    for _ in range(150):
        fen = board.fen()
        reread = new_board(variant, fen)
        assert reread.fen() == fen and reread.key == board.key
        moves = board.legal_moves()
        if not moves:
            break
        for move in moves:
            assert board.parse_move(str(move)) == move
        board.push(rng.choice(moves))


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=40))
def test_fuzzed_fen_raises_only_fen_error(text: str) -> None:
    try:
        board = new_board("dipole", text)
    except FenError:
        return
    assert new_board("dipole", board.fen()).fen() == board.fen()


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet="abcdefghijx0123456789-+:offpas ", max_size=12))
def test_fuzzed_move_text_raises_only_move_errors(text: str) -> None:
    board = new_board("dipole", "W:W3c3,2e1:B2d6,1h8")
    try:
        move = board.parse_move(text)
    except RulesError:
        return
    assert move in board.legal_moves()
