"""Impasse: each special rule on a position built by hand, plus playout properties."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dipole_engine.rules import (
    BLACK,
    WHITE,
    FenError,
    IllegalMoveError,
    ImpasseBoard,
    ImpasseMove,
    ImpasseMoveKind,
    InvalidMoveError,
    new_board,
)

pytestmark = pytest.mark.build  # the rules or the engine themselves: CI runs these on both builds


def texts(fen: str) -> set[str]:
    return {str(m) for m in new_board("impasse", fen).legal_moves()}


def after(fen: str, move: str) -> str:
    board = new_board("impasse", fen)
    board.push_text(move)
    return board.fen()


def test_start_positions() -> None:
    board = new_board("impasse")
    assert board.checkers(WHITE) == board.checkers(BLACK) == 12
    assert len(board.legal_moves()) == 22
    singles = new_board("impasse-singles")
    assert singles.fen().startswith("W:W1a1,1c1,1e1,1g1,1b2,1d2,1f2,1h2,1a3,1c3,1e3,1g3:")


def test_singles_slide_forward_doubles_backward_over_empty_squares() -> None:
    moves = texts("W:W1c3,2f6:B1e5,1h8")
    assert {"c3-b4", "c3-a5", "c3-d4"} <= moves
    assert "c3-e5" not in moves and "c3-f6" not in moves  # blocked by e5: no jumping
    assert {"f6-g5", "f6-h4"} <= moves
    assert "f6-e5" not in moves and "f6-d4" not in moves  # e5 is occupied
    assert "f6-e7" not in moves and "c3-b2" not in moves  # wrong directions


def test_bear_off_after_a_slide_to_the_nearest_row() -> None:
    assert after("W:W2d2:B1a7", "d2-c1") == "B:W1c1:B1a7"
    board = new_board("impasse", "W:W2d2:B1a7")
    board.push_text("d2-e1")
    assert board.checkers(WHITE) == 1


def test_transpose_and_bear_off_after_a_transpose() -> None:
    assert after("W:W1c3,2d4:B1h8", "d4+c3") == "B:W2c3,1d4:B1h8"
    # onto a single on the nearest row: the new double there loses its top checker at once
    board = new_board("impasse", "W:W1a1,2b2:B1h8")
    board.push_text("b2+a1")
    assert board.fen() == "B:W1a1,1b2:B1h8"
    assert board.checkers(WHITE) == 2


def test_crown_with_a_single_from_anywhere() -> None:
    moves = texts("W:W1a1,1c3,1g7:B1a7")
    assert {"g7-h8=a1", "g7-h8=c3", "g7-f8=a1", "g7-f8=c3"} <= moves
    assert "g7-h8" not in moves
    assert after("W:W1a1,1c3,1g7:B1a7", "g7-h8=a1") == "B:W1c3,2h8:B1a7"


def test_crown_owed_then_paid_by_the_first_new_single() -> None:
    board = new_board("impasse", "W:W2c5,1g7:B1a7")
    board.push_text("g7-h8")  # no other single: the crown waits
    assert board.fen() == "B:W2c5,1h8:B1a7"
    board.push_text("a7-b6")
    # the double reaches the nearest row, bears off, and the new single must crown h8
    moves = {str(m) for m in board.legal_moves()}
    assert "c5-g1=g1" in moves and "c5-g1" not in moves
    assert str(board.parse_move("c5-g1")) == "c5-g1=g1"  # the only choice may go unsaid
    board.push_text("c5-g1=g1")
    assert board.fen() == "B:W2h8:B1b6"


def test_crown_after_a_transpose_onto_the_furthest_row() -> None:
    # the double on d8 gives its top to c7; d8 is left a single on the furthest row
    moves = texts("W:W1c7,2d8,1e3:B1a1")
    assert "d8+c7=e3" in moves and "d8+c7" not in moves
    assert after("W:W1c7,2d8,1e3:B1a1", "d8+c7=e3") == "B:W2c7,2d8:B1a1"


def test_impasse_removal_and_two_singles_on_the_furthest_row() -> None:
    fen = "W:W1b8,2d8:B1c7,1e7"
    assert texts(fen) == {"xb8", "xd8=b8", "xd8=d8"}
    assert after(fen, "xb8") == "B:W2d8:B1c7,1e7"
    assert after(fen, "xd8=b8") == "B:W2d8:B1c7,1e7"
    assert after(fen, "xd8=d8") == "B:W2b8:B1c7,1e7"
    board = new_board("impasse", fen)
    assert all(m.kind == ImpasseMoveKind.REMOVE for m in board.legal_moves())


def test_removing_your_last_checker_wins() -> None:
    board = new_board("impasse", "W:W1a1:B2b2")
    assert [str(m) for m in board.legal_moves()] == ["xa1"]
    board.push_text("xa1")
    assert board.winner() == WHITE
    assert board.legal_moves() == []
    board.pop()
    assert board.winner() is None and board.fen() == "W:W1a1:B2b2"


@pytest.mark.parametrize(
    ("fen", "fragment"),
    [
        ("W:W2c1:B1a7", "White double on c1 stands on White's nearest row"),
        ("W:W1a1:B2d8", "Black double on d8 stands on Black's nearest row"),
        ("W:W1b8,1a1:B1a7", "White single on b8 stands on White's furthest row"),
        ("W:W1b8,1d8:B1a7", "White single on d8 stands on White's furthest row"),
        ("W:W3c3:B1a7", "exceeds the largest allowed, 2"),
        ("W:W:B", "both sides have no checkers"),
    ],
)
def test_unreachable_positions_are_rejected(fen: str, fragment: str) -> None:
    with pytest.raises(FenError, match=fragment):
        new_board("impasse", fen)


@pytest.mark.parametrize(
    ("fen", "text", "error", "fragment"),
    [
        ("W:W1c3,2f6:B1e5,1h8", "c3-e5", IllegalMoveError, "slides diagonally forward over empty squares"),
        ("W:W1c3,2f6:B1e5,1h8", "f6-e7", IllegalMoveError, "double slides diagonally backward"),
        ("W:W1c3,2f6:B1e5,1h8", "xc3", IllegalMoveError, "may not remove a checker"),
        ("W:W1c3,2f6:B1e5,1h8", "c3+d4", IllegalMoveError, "a transpose starts from a double"),
        ("W:W1c3,2f6:B1e5,1h8", "e5-d4", IllegalMoveError, "White has no checker on e5"),
        ("W:W1c3,2f6:B1e5,1h8", "c3-b4=a1", IllegalMoveError, "no single crowns after this move"),
        ("W:W1c3,2f6:B1e5,1h8", "c3b4", InvalidMoveError, "not an Impasse move"),
        ("W:W1b8,2d8:B1c7,1e7", "xd8", InvalidMoveError, "say which single crowns: xd8=b8, xd8=d8"),
        ("W:W1b8,2d8:B1c7,1e7", "d8-e7", IllegalMoveError, "at an impasse and must remove"),
        ("W:W1a1,1c3,1g7:B1a7", "g7-h8=e5", IllegalMoveError, "the single on e5 cannot crown here"),
        ("W:W1a1,1c3,1g7:B1a7", "g7-h9", InvalidMoveError, "h9 is not a square"),
    ],
)
def test_bad_move_text_is_a_clear_error(fen: str, text: str, error: type, fragment: str) -> None:
    with pytest.raises(error, match=fragment):
        new_board("impasse", fen).parse_move(text)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), variant=st.sampled_from(["impasse", "impasse-singles"]))
@pytest.mark.slow
def test_playouts_keep_invariants_and_round_trip(seed: int, variant: str) -> None:
    rng = random.Random(seed)
    board = ImpasseBoard(variant)
    snapshots = []
    recent: list[list[ImpasseMove]] = []  # the moves of the last positions: a search's killers
    for _ in range(300):
        fen = board.fen()
        fresh = ImpasseBoard(variant, fen)  # also re-checks the FEN invariants
        assert (fresh.key, fresh.occupied, fresh.occupancy) == (board.key, board.occupied, board.occupancy)
        moves = board.legal_moves()
        if not moves:
            assert board.winner() is not None
            assert board.removing_moves() == board.quiet_moves() == []
            break
        assert len({m.text for m in moves}) == len(moves)
        for move in moves:
            assert board.parse_move(move.text) == move
        # The search's split of the moves: those that take checkers off, then the others.
        assert [id(m) for m in board.removing_moves()] == [id(m) for m in moves if m.removed], fen
        assert [id(m) for m in board.quiet_moves()] == [id(m) for m in moves if not m.removed], fen
        recent = [moves, *recent[:5]]
        for move in {id(m): m for ms in recent for m in ms}.values():
            assert board.is_legal(move) == any(m is move for m in moves), (fen, move)
        snapshots.append((fen, board.key, list(board.material), [list(s) for s in board.occupied], board.occupancy))
        board.push(rng.choice(moves))
        assert sum(abs(v) for v in board.cells) == board.checkers(WHITE) + board.checkers(BLACK)
    while snapshots:
        board.pop()
        assert (board.fen(), board.key, list(board.material), board.occupied, board.occupancy) == snapshots.pop()
