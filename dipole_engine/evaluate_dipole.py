"""Dipole knowledge for the search: static evaluation and tactical move selection (the hooks of
:mod:`dipole_engine.hooks`, chosen by :mod:`dipole_engine.evaluate` for boards whose ``game``
is ``"dipole"``).

Scores are in centipawn-like units (one checker = ``CHECKER`` = 100) from the side to
move's point of view and always lie strictly inside ``+-MATE_BOUND``.  The terms:

* material: each checker on the board, since a side without checkers has lost;
* advancement: each checker is worth ``advance`` more per row still ahead of it.  Non-captures
  only go forward, so a checker near the far edge has few moves left and will soon have to
  leave the board, while one far back still has many moves (tempo, which decides races once
  the armies have passed each other) and capture reach over the enemy stacks coming at it;
* threats and safety: an enemy stack that can capture one of ours next move (a stack of
  height ``h`` captures a stack no taller than ``d`` at distance ``d <= h`` in any of the 8
  directions) costs us part of what the capture would win, less if we could recapture on that
  square (the stack is defended);
* tempo: a bonus for having the move (``tempo``; fitted to the engine's games it is 0, and the
  weights fitted with it won an SPRT against the hand-set ones: see the README).

Captures available to the side to move are not scored here: quiescence search plays them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from operator import itemgetter
from typing import Any, Final

from .hooks import NO_TACTICAL, GameHooks
from .rules import DipoleBoard
from .rules.geometry import Geometry, geometry
from .tt import INFINITE, MATE_BOUND

Move = Any

CHECKER: Final = 100  # the unit: the other weights are in hundredths of a checker
MVV_SCALE: Final = 64  # order value of a capture: MVV_SCALE * victim height - checkers moved
_NO_CAPTURE: Final = 1 << 30


@dataclass(frozen=True)
class DipoleWeights:
    """The evaluation's weights (``python -m dipole_tuner`` fits them to games' results; a
    field's ``min`` metadata is the least value it may take)."""

    advance: int = 20
    """What a checker is worth per row still ahead of it."""
    tempo: int = 0
    """The bonus for having the move."""
    threat_first: int = field(default=2, metadata={"min": 1})
    """The biggest threatened gain costs 1/threat_first of it (we move first and can react)."""
    threat_second: int = field(default=2, metadata={"min": 1})
    """A second threat costs 1/threat_second of its gain (one reply rarely saves both)."""


DIPOLE_WEIGHTS: Final = DipoleWeights()


@dataclass(frozen=True)
class _DipoleTables:
    """Per board size: ``worth_for[color][sq][h]`` is what a stack of ``color`` with ``h``
    checkers on ``sq`` is worth to ``color`` (indexed by colour like ``material``: material and
    advancement); ``distance[s][t]`` is the distance from ``s`` to ``t`` when both are dark
    squares on one straight line (the size of the only capture between them), else 0."""

    worth_for: tuple[tuple[tuple[int, ...], ...], ...]
    distance: tuple[tuple[int, ...], ...]


def _rows_ahead(geom: Geometry, square: int, white: bool) -> int:
    rank = geom.rank_of(square)
    return geom.height - 1 - rank if white else rank


@cache
def _dipole_tables(width: int, height: int, max_height: int, advance: int) -> _DipoleTables:
    geom = geometry(width, height)
    heights = range(max_height + 1)
    worth_for: tuple[tuple[tuple[int, ...], ...], ...] = ((),) + tuple(
        tuple(
            tuple(h * (CHECKER + advance * _rows_ahead(geom, sq, white)) if geom.is_dark(sq) else 0 for h in heights)
            for sq in range(geom.size)
        )
        for white in (True, False)
    )  # index 1 White, index 2 (that is, -1) Black
    distance = []
    for s in range(geom.size):
        row = [0] * geom.size
        if geom.is_dark(s):
            for t in geom.dark_squares:
                df = abs(geom.file_of(t) - geom.file_of(s))
                dr = abs(geom.rank_of(t) - geom.rank_of(s))
                if t != s and (df == 0 or dr == 0 or df == dr):
                    row[t] = max(df, dr)
        distance.append(tuple(row))
    return _DipoleTables(worth_for, tuple(distance))


def bind_dipole(board: DipoleBoard, weights: DipoleWeights = DIPOLE_WEIGHTS) -> GameHooks:
    """The Dipole hooks for ``board`` (tables shared per board size and weights)."""
    variant = board.variant
    advance = weights.advance
    tempo = weights.tempo
    threat_first = weights.threat_first
    threat_second = weights.threat_second
    tables = _dipole_tables(variant.width, variant.height, variant.checkers_per_side, advance)
    distance = tables.distance
    worth_for = tables.worth_for
    capture_table = board.capture_table
    limit = MATE_BOUND - 1
    top_rank = variant.height - 1

    def quiesce(alpha: int = -INFINITE, beta: int = INFINITE) -> tuple[int, Sequence[tuple[int, Move]]]:
        # The sum of value[sq][h] over the stacks, from the board's running totals: White's
        # checkers have top_rank - rank rows ahead, Black's rank.  The side to move's view (see
        # DipoleBoard.white_view): mine, our heights positive and theirs negative; yours, the
        # other way round; ours and theirs, the squares of each side's stacks.
        _, white, black = board.material
        _, white_ranks, black_ranks = board.rank_sum
        score = CHECKER * (white - black) + advance * (top_rank * white - white_ranks - black_ranks)
        if board.turn > 0:
            mine, yours, ours, theirs = board.white_view
            _, our_worth, their_worth = worth_for
            score += tempo
        else:
            mine, yours, ours, theirs = board.black_view
            _, their_worth, our_worth = worth_for
            score = tempo - score
        if score > alpha:
            # Their threats, which only lower the score: pairs of our stack and theirs on a
            # line at a distance d with ours <= d <= theirs (d is 0 off a line, and no
            # height is 0).  Only our stacks no taller than their tallest can be captured, and
            # the threats cost at most what losing the two most valuable of those would: when
            # even that leaves the score at beta or more, the search stands pat whatever the
            # threats are, so they are not worked out (most quiescence nodes).
            tallest = 0
            for a in theirs:
                if yours[a] > tallest:  # noqa: PLR1730  (hot path: a test is cheaper than max())
                    tallest = yours[a]
            first = second = 0
            for v in ours:
                height = mine[v]
                if height <= tallest:
                    worth = our_worth[v][height]
                    if worth > second:
                        if worth > first:
                            second = first
                            first = worth
                        else:
                            second = worth
            most = first // threat_first + second // threat_second
            if score - most >= beta:
                score -= most
                return (score if score <= limit else limit), NO_TACTICAL  # hot path: cheaper than min()
            gains: list[int] = []
            # (The pair loops' comparisons are written unchained, a <= b and b <= c: the
            # interpreter's chained form costs a few more steps, at every pair.)
            for v in ours:
                height = mine[v]
                if height > tallest:
                    continue
                row = distance[v]
                smallest = _NO_CAPTURE  # their smallest capture of v: the cheapest to lose on a retake
                for a in theirs:
                    d = row[a]
                    if d >= height and d < smallest and d <= yours[a]:
                        smallest = d
                if smallest != _NO_CAPTURE:
                    worth = our_worth[v][height]
                    for friend in ours:
                        d = row[friend]
                        if d and d >= smallest and d <= mine[friend]:  # we could retake
                            worth -= smallest * CHECKER
                            break
                    if worth > 0:
                        gains.append(worth)
            if gains:
                if len(gains) == 1:
                    score -= gains[0] // threat_first
                else:
                    gains.sort(reverse=True)
                    score -= gains[0] // threat_first + gains[1] // threat_second
        if score > limit:
            score = limit
        elif score < -limit:
            score = -limit
        if score >= beta:
            return score, NO_TACTICAL
        # Our captures: the pairs with theirs <= d <= ours.
        tactical: list[tuple[int, Move]] = []
        for v in ours:
            height = mine[v]
            row = distance[v]
            for a in theirs:
                d = row[a]
                if d and d <= height and yours[a] <= d:  # (d >= 0)
                    # Our capture v -> a wins their stack, less our d checkers if they retake.
                    gain = their_worth[a][yours[a]]
                    landing = distance[a]
                    for b in theirs:
                        e = landing[b]
                        if e and e >= d and e <= yours[b]:
                            gain -= d * CHECKER
                            break
                    if gain >= 0:
                        tactical.append((gain, capture_table[v][a]))
        if len(tactical) > 1:
            tactical.sort(key=_first, reverse=True)
        return score, tactical

    def evaluate() -> int:
        return quiesce(-INFINITE, INFINITE)[0]

    def tactical_moves() -> list[Move]:
        captures = board.capture_moves()
        if len(captures) < 2:
            return captures
        yours = (board.white_view if board.turn > 0 else board.black_view)[1]  # the victims' heights positive
        ranked = [(yours[m.target] * MVV_SCALE - m.count, m) for m in captures]
        ranked.sort(key=_first, reverse=True)
        return [m for _, m in ranked]

    return GameHooks(evaluate, quiesce, tactical_moves, board.quiet_moves, board.is_legal)


_first = itemgetter(0)
