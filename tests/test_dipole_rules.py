"""Dipole move generation and make/unmake, checked against the rules case by case and against
an independent reference generator over many random playouts."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference_dipole import reference_moves

from dipole_engine.rules import (
    BLACK,
    PASS,
    WHITE,
    Board,
    DipoleBoard,
    IllegalMoveError,
    MoveKind,
    RulesError,
    new_board,
)

pytestmark = pytest.mark.build  # the rules or the engine themselves: CI runs these on both builds


def texts(board: DipoleBoard) -> set[str]:
    return {str(move) for move in board.legal_moves()}


def test_start_position_moves() -> None:
    board = new_board("dipole")
    moves = texts(board)
    assert len(moves) == 20
    # 12 checkers on c1: even counts go straight up, every count diagonally; no captures yet.
    assert {"c1-c3", "c1-c5", "c1-c7", "c1-d2", "c1-b2", "c1-a3", "c1-h6"} <= moves
    assert "c1-c2" not in moves  # straight moves of odd length land on a light square
    assert "c1-off:7" in moves and "c1-off:12" in moves
    assert "c1-off:2" not in moves  # two squares diagonally left ends on a3, still on the board


def test_capture_any_direction_only_equal_or_smaller() -> None:
    # White 2 on d4; Black 2 on b2 (backward diagonal, distance 2), 3 on f6 (too tall).
    board = new_board("dipole", "W:W2d4:B2b2,3f6")
    moves = texts(board)
    assert "d4xb2" in moves
    assert "d4xf6" not in moves
    assert "d4-b2" not in moves
    board.push(board.parse_move("d4xb2"))
    assert board.fen() == "B:W2b2:B3f6"
    assert board.checkers(BLACK) == 3


def test_backward_and_sideways_only_as_captures() -> None:
    board = new_board("dipole", "W:W2d4,2f4:B1h8")
    moves = texts(board)
    assert "d4-d2" not in moves and "d4-b4" not in moves and "d4-b2" not in moves
    assert "d4+f4" not in moves  # sideways merge is not allowed either
    assert "d4-d6" in moves and "d4-f6" in moves and "d4-b6" in moves


def test_intervening_stacks_never_block() -> None:
    board = new_board("dipole", "W:W4c1:B1d2,1c3,1b2,1c5")
    assert "c1-c5" not in texts(board)  # c5 holds a black single: that is a capture
    assert "c1xc5" in texts(board)
    assert "c1-g5" in texts(board)


def test_merge_onto_own_stack_forward_only() -> None:
    board = new_board("dipole", "W:W2c3,1d4,3e5:B1a7")
    moves = texts(board)
    assert "c3+e5" in moves
    board.push(board.parse_move("c3+e5"))
    assert board.fen() == "B:W1d4,5e5:B1a7"


def test_exits_over_far_and_side_edges_are_one_move_per_count() -> None:
    board = new_board("dipole", "W:W1b8,3a3:B1h2")
    moves = texts(board)
    assert "b8-off:1" in moves  # far edge: every forward direction leaves
    assert "a3-off:1" in moves  # side edge: up-left leaves, up-right stays on (b4)
    assert "a3-b4" in moves
    exits = [
        m for m in board.legal_moves() if m.kind == MoveKind.EXIT and m.origin == board.geometry.parse_square("b8")
    ]
    assert len(exits) == 1


def test_forced_pass_is_the_only_move_and_a_ply() -> None:
    board = new_board("dipole", "W:W1d4:B2c5,2e5")
    assert board.legal_moves() == [PASS]
    assert board.must_pass() and board.parse_move("pass") == PASS
    with pytest.raises(IllegalMoveError):
        board.parse_move("d4-d6")  # the move its text names, found without generating, is not legal
    board.push(PASS)
    assert board.turn == BLACK
    assert board.fen() == "B:W1d4:B2c5,2e5"
    assert "pass" not in texts(board)


def test_moving_last_checkers_off_loses() -> None:
    board = new_board("dipole", "W:W1b8:B1a1")
    board.push(board.parse_move("b8-off"))
    assert board.is_game_over()
    assert board.winner() == BLACK
    assert board.legal_moves() == []
    assert board.count_legal_moves() == 0


def test_capturing_last_enemy_stack_wins() -> None:
    board = new_board("dipole", "B:W1c3:B2e5")
    board.push(board.parse_move("e5xc3"))
    assert board.winner() == BLACK


def test_no_moves_when_a_side_is_empty() -> None:
    assert new_board("dipole", "W:W:B3d4").legal_moves() == []
    assert new_board("dipole", "W:W3d4:B").winner() == WHITE


def random_playout(board: DipoleBoard, rng: random.Random, plies: int) -> list[str]:
    played = []
    for _ in range(plies):
        moves = board.legal_moves()
        if not moves:
            break
        move = rng.choice(moves)
        board.push(move)
        played.append(str(move))
    return played


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), variant=st.sampled_from(["dipole", "dipole-s", "dipole-10", "dipole-10s"]))
def test_generator_agrees_with_reference_along_playouts(seed: int, variant: str) -> None:
    rng = random.Random(seed)
    board = new_board(variant)
    for _ in range(120):
        moves = board.legal_moves()
        assert {str(m) for m in moves} == reference_moves(board), board.fen()
        assert len(moves) == len({str(m) for m in moves}), "duplicate moves"
        assert board.count_legal_moves() == len(moves)
        if not moves:
            break
        board.push(rng.choice(moves))


def outcome(board: Board[Any], text: str, legal: list[Any] | None = None) -> tuple[object, ...]:
    """What ``board.parse_move(text, legal)`` gives: the move (by identity), or its error's
    type and message."""
    try:
        return ("move", id(board.parse_move(text, legal)))
    except RulesError as error:
        return (type(error), str(error))


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    variant=st.sampled_from(["dipole", "dipole-s", "dipole-10", "dipole-10s", "impasse"]),
)
def test_a_move_found_by_its_text_and_a_forced_pass_agree_with_the_legal_moves(seed: int, variant: str) -> None:
    """parse_move finds a move by its own text without generating the legal moves, and
    must_pass stops at the first move it finds: both must say what the legal moves say, for
    the texts of legal moves and of moves met elsewhere in the game (mostly illegal here)."""
    rng = random.Random(seed)
    board = new_board(variant)
    met: list[str] = ["pass", "a1-a3", "zz-9", ""]
    for _ in range(120):
        moves = board.legal_moves()
        assert board.must_pass() == (len(moves) == 1 and str(moves[0]) == "pass"), board.fen()
        if not moves:
            break
        met += [str(move) for move in moves]
        for text in [str(move) for move in moves] + rng.sample(met, min(len(met), 16)):
            assert outcome(board, text) == outcome(board, text, moves), (board.fen(), text)
        board.push(rng.choice(moves))


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), blocked=st.sets(st.sampled_from(["left", "right"])), behind=st.integers(0, 2))
def test_must_pass_agrees_with_the_legal_moves_around_a_forced_pass(seed: int, blocked: set[str], behind: int) -> None:
    """A white checker whose two forward squares (its only ones: the straight one is light)
    hold Black stacks of one (a capture forwards), two or three (blocked), or not; and behind
    it, diagonally, a Black stack of one (a capture backwards), of two (none), or nothing: a
    forced pass exactly when both forward squares are blocked and nothing behind can be taken."""
    rng = random.Random(seed)
    geom = new_board("dipole").geometry
    square = rng.choice([sq for sq in geom.dark_squares if 1 <= geom.file_of(sq) <= 6 and 1 <= geom.rank_of(sq) <= 6])
    file, rank = geom.file_of(square), geom.rank_of(square)
    heights = {step: rng.randint(1, 3) for side, step in (("left", -1), ("right", 1)) if side in blocked}
    black = [f"{height}{geom.name(geom.square(file + step, rank + 1))}" for step, height in heights.items()]
    if behind:
        black.append(f"{behind}{geom.name(geom.square(file + rng.choice((-1, 1)), rank - 1))}")
    board = new_board("dipole", f"W:W1{geom.name(square)}:B{','.join(black)}")
    forced = len(heights) == 2 and min(heights.values()) >= 2 and behind != 1 and bool(black)
    assert board.must_pass() == (board.legal_moves() == [PASS]) == forced, board.fen()


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), variant=st.sampled_from(["dipole", "dipole-10s"]))
def test_push_pop_restores_position_and_key(seed: int, variant: str) -> None:
    rng = random.Random(seed)
    board = new_board(variant)
    snapshots = []
    for _ in range(80):
        moves = board.legal_moves()
        if not moves:
            break
        snapshots.append(
            (board.fen(), board.key, list(board.material), [list(s) for s in board.occupied], list(board.rank_sum))
        )
        board.push(rng.choice(moves))
        # the incremental state equals that of the same position set up from scratch
        fresh = new_board(variant, board.fen())
        assert (board.key, board.occupied, board.rank_sum) == (fresh.key, fresh.occupied, fresh.rank_sum)
        total = sum(abs(v) for v in board.cells)
        assert total == board.checkers(WHITE) + board.checkers(BLACK)
    while snapshots:
        board.pop()
        assert (board.fen(), board.key, list(board.material), board.occupied, board.rank_sum) == snapshots.pop()


def test_key_depends_on_side_to_move() -> None:
    assert new_board("dipole", "W:W2c3:B2d6").key != new_board("dipole", "B:W2c3:B2d6").key


def test_copy_is_independent() -> None:
    board = new_board()
    clone = board.copy()
    clone.push_text("c1-c3")
    assert board.fen() == "W:W12c1:B12d8"
    assert clone.fen() == "B:W10c1,2c3:B12d8"


@pytest.mark.parametrize(
    "variant,fen",
    [
        ("dipole", "W:W12c1:B12d8"),
        ("dipole-s", "W:W12e1:B12d8"),
        ("dipole-10", "W:W20g1:B20f10"),
        ("dipole-10s", "W:W20e1:B20f10"),
    ],
)
def test_variant_start_positions(variant: str, fen: str) -> None:
    assert new_board(variant).fen() == fen
