"""Impasse evaluation: the bit-parallel pass against a stack-by-stack reference, and the
board's incremental masks and race counts against a board built fresh from the FEN.

The pass is the ``quiesce`` hook: it returns the score and asks for the moves that take
checkers off only when the side to move is at an impasse or has a bear-off (and the score is
below beta).  Here it asks a probe instead, so that the test sees whether it asked."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dipole_engine.evaluate import engine_weights, hooks_for, phase_of
from dipole_engine.evaluate_impasse import (
    ENDGAME_CHECKERS,
    HAND_SET_WEIGHTS,
    IMPASSE_ENDGAME_WEIGHTS,
    IMPASSE_WEIGHTS,
    ImpasseWeights,
    bind_scan,
)
from dipole_engine.evaluate_impasse import _stack_work as stack_work
from dipole_engine.hooks import NO_TACTICAL
from dipole_engine.rules import BLACK, WHITE, ImpasseBoard
from dipole_engine.tt import INFINITE, MATE_BOUND

pytestmark = pytest.mark.build  # the rules or the engine themselves: CI runs these on both builds

ASKED = [(0, "the moves that take checkers off")]


def probe() -> list[tuple[int, str]]:
    """Stands in for the tactical moves: the pass returns this when it asks for them."""
    return ASKED


# Weights unlike the engine's, each a different prime: a weight used in the wrong place shows.
ODD_WEIGHTS = ImpasseWeights(
    trip=37, row=5, single_trips=3, double_trips=4, clear=11, impasse=29, blocked=-13, tempo=7, steps=17
)


def slides_to_goal(board: ImpasseBoard, file: int, rank: int, up: int) -> int:
    """The fewest diagonal slides from (file, rank) to the row at the end of direction ``up``
    on an empty board, walked square by square (at most 3 counted)."""
    geom = board.geometry
    goal = geom.height - 1 if up > 0 else 0
    if rank == goal:
        return 0
    best = 3
    for df in (-1, 1):
        f, r = file + df, rank + up
        if not geom.on_board(f, r):
            continue
        while geom.on_board(f + df, r + up) and r != goal:
            f, r = f + df, r + up
        best = min(best, 1 if r == goal else 1 + slides_to_goal(board, f, r, up))
    return best


def reference_scan(board: ImpasseBoard, weights: ImpasseWeights = IMPASSE_WEIGHTS) -> tuple[int, bool, bool]:
    """(score for the side to move, at an impasse, has a bear-off), stack by stack, walking the
    diagonals square by square (the evaluation as it was written before it went bit-parallel)."""
    geom = board.geometry
    cells = board.cells
    last = geom.height - 1
    sign = board.turn
    score = 0
    mobile = {WHITE: False, BLACK: False}
    bear = False
    for color in (WHITE, BLACK):
        for sq in board.occupied[color]:
            size = abs(cells[sq])
            file, rank = geom.file_of(sq), geom.rank_of(sq)
            up = color if size == 1 else -color  # the rank direction of travel
            goal = last if up > 0 else 0
            score -= stack_work(size, abs(goal - rank), last, weights) * color
            score -= weights.steps * slides_to_goal(board, file, rank, up) * color
            clear = stack_mobile = False
            for df in (-1, 1):
                f, r = file + df, rank + up
                if not geom.on_board(f, r):
                    continue
                neighbour = cells[geom.square(f, r)]
                if neighbour == 0 or (size == 2 and neighbour == color):  # a slide or a transpose
                    mobile[color] = stack_mobile = True
                if size == 2 and r == goal and neighbour == color and color == sign:
                    bear = True  # a transpose onto an own single on the nearest row
                while geom.on_board(f, r) and cells[geom.square(f, r)] == 0:
                    if r == goal:
                        clear = True
                        break
                    f, r = f + df, r + up
            if clear:
                score += weights.clear * color
                if size == 2 and color == sign:
                    bear = True
            if not stack_mobile:
                score += weights.blocked * color
    if not mobile[-sign]:
        score -= weights.impasse * sign
    score = score * sign + weights.tempo
    limit = MATE_BOUND - 1
    return max(-limit, min(limit, score)), not mobile[sign], bear


def fresh_state(board: ImpasseBoard) -> tuple[list[int], int]:
    """``sides`` and ``doubles`` worked out from the cells: each side's stacks' bits, and above
    them the rows its stacks have still to travel to their goal rows."""
    geom = board.geometry
    last = geom.height - 1
    sides = [0, 0, 0]
    doubles = 0
    for sq in geom.dark_squares:
        height = board.cells[sq]
        if height == 0:
            continue
        color = WHITE if height > 0 else BLACK
        up = color if abs(height) == 1 else -color
        rows = last - geom.rank_of(sq) if up > 0 else geom.rank_of(sq)
        sides[color] += board.square_bit[sq] + (rows << board.rows_shift)
        if abs(height) == 2:
            doubles |= board.square_bit[sq]
    return sides, doubles


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    variant=st.sampled_from(["impasse", "impasse-singles"]),
    weights=st.sampled_from([IMPASSE_WEIGHTS, ODD_WEIGHTS]),
)
@pytest.mark.slow
def test_scan_matches_the_stack_by_stack_reference(seed: int, variant: str, weights: ImpasseWeights) -> None:
    rng = random.Random(seed)
    board = ImpasseBoard(variant)
    scan = bind_scan(board, probe, weights)
    snapshots = []
    for _ in range(300):
        fen = board.fen()
        score, at_impasse, bear = reference_scan(board, weights)
        expected = (score, ASKED if at_impasse or bear else NO_TACTICAL)
        assert scan(-INFINITE, INFINITE) == expected, fen
        # The rules agree: there are moves that take checkers off exactly then (while the game
        # goes on: the search evaluates no finished game).
        if board.winner() is None:
            assert bool(board.removing_moves()) == (at_impasse or bear), fen
        # Quiescence stands pat at beta or above: no moves asked for.
        assert scan(-INFINITE, score) == (score, NO_TACTICAL)
        assert scan(score - 1, score + 1) == expected
        fresh = ImpasseBoard(variant, fen)
        assert (board.sides, board.doubles) == (fresh.sides, fresh.doubles) == fresh_state(board), fen
        assert board.occupancy == fresh.occupancy
        moves = board.legal_moves()
        if not moves:
            break
        snapshots.append((fen, list(board.sides), board.doubles))
        board.push(rng.choice(moves))
    while snapshots:
        board.pop()
        fen, sides, doubles = snapshots.pop()
        assert (board.fen(), board.sides, board.doubles) == (fen, sides, doubles)
        score, at_impasse, bear = reference_scan(board, weights)
        assert scan(-INFINITE, INFINITE) == (score, ASKED if at_impasse or bear else NO_TACTICAL), fen


@pytest.mark.parametrize(
    ("fen", "at_impasse", "bear"),
    [
        ("W:W1c3:B1a7", False, False),
        ("W:W1a1:B1a7", False, False),  # the longest diagonal, clear from a1 to h8
        # White's double on e5 has a clear way down to a1.
        ("W:W2e5:B1a7", False, True),
        ("B:W2e5:B1a7", False, False),  # (only the side to move's bear-offs count)
        # Blocked by its own singles, which it can transpose onto, but not on its nearest row.
        ("W:W2e3,1d2,1f2:B1a7", False, False),
        # No slide, but a transpose onto an own single on the nearest row bears off.
        ("W:W2d2,1c1,1e1:B1a7", False, True),
        # White's only single waits on its furthest row for a crown: no slide, no transpose.
        ("W:W1b8:B1a7", True, False),
        ("B:W1c3:B1a1", True, False),
    ],
)
def test_scan_on_hand_made_positions(fen: str, at_impasse: bool, bear: bool) -> None:
    board = ImpasseBoard("impasse", fen)
    score, *flags = reference_scan(board)
    assert flags == [at_impasse, bear]
    assert bind_scan(board, probe, IMPASSE_WEIGHTS)(-INFINITE, INFINITE) == (
        score,
        ASKED if at_impasse or bear else NO_TACTICAL,
    )


def test_the_engine_weighs_the_endgame_with_its_endgame_weights() -> None:
    """Before the endgame the engine's evaluation is the pass with IMPASSE_WEIGHTS (the
    hand-set weights in impasse-singles); with at most ENDGAME_CHECKERS checkers on the board
    (counted here from the cells), with IMPASSE_ENDGAME_WEIGHTS; and the phase the tuner sorts
    positions by says the same."""
    rng = random.Random(5)
    phases_seen = set()
    for game in range(8):
        variant = "impasse-singles" if game % 2 else "impasse"
        board = ImpasseBoard(variant)
        hooks = hooks_for(board)
        middle = HAND_SET_WEIGHTS if variant == "impasse-singles" else IMPASSE_WEIGHTS
        while board.winner() is None:
            endgame = sum(abs(height) for height in board.cells) <= ENDGAME_CHECKERS
            weights = IMPASSE_ENDGAME_WEIGHTS if endgame else middle
            assert hooks.evaluate() == reference_scan(board, weights)[0], board.fen()
            assert phase_of(board) == ("end" if endgame else "middle")
            phases_seen.add(endgame)
            board.push(rng.choice(board.legal_moves()))
    assert phases_seen == {False, True}
    assert len({IMPASSE_ENDGAME_WEIGHTS, IMPASSE_WEIGHTS, HAND_SET_WEIGHTS}) == 3
    with pytest.raises(ValueError, match="no weights of its own for the phase 'end'"):
        engine_weights("dipole", "end")
    assert engine_weights("impasse", "end") is IMPASSE_ENDGAME_WEIGHTS
