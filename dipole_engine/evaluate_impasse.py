"""Impasse knowledge for the search: static evaluation and tactical moves (the hooks of
:mod:`dipole_engine.hooks`, chosen by :mod:`dipole_engine.evaluate` for boards whose ``game``
is ``"impasse"``).

Impasse is a race: each side wants to be first to get rid of all of its own checkers, and
nothing either side does touches the other's checkers, except that stacks block each other's
paths.  The evaluation therefore estimates how much work each side still has, and scores the
difference (the opponent's work minus ours, so fewer checkers and shorter trips are better).

The work model
--------------
Checkers leave by bear-off (a double reaching its nearest row loses its top checker, leaving
a single there) and by impasse removal.  Counting what remains for a side with ``s`` singles
and ``d`` doubles (``n = s + 2d`` checkers) when no impasse helps: ``n - 1`` bear-offs are
needed, so ``n - 1`` double *trips* (to the nearest row), each crowned double having to be
made first by a single's trip to the furthest row, the other single of the crown coming from
anywhere for free.  That is ``s + d`` single trips and ``s + 2d - 1`` double trips: a single
costs about 2 trips, a double 3 (``single_trips``/``double_trips``; measured: both 1/3 and 2/2
or 2/4 play clearly worse).  Each trip is worth ``trip``; each row still to travel is worth
``row``: a single has its distance to the furthest row plus a later double's full trip back, a
double its distance to the nearest row plus the single's full trip it leaves behind.

Summed over a side with ``n`` checkers, ``d`` of them in doubles, that is ``(single_trips * trip
+ row * last) * n - pair * d + row * r``, ``last`` being the top row's index and ``r`` the rows
its stacks have still to travel (the furthest row for a single, the nearest for a double): the
board keeps ``n`` (``material``), the doubles' mask and ``r`` (see :class:`ImpasseBoard`), so the
evaluation visits no stack.

On top of that:

* ``steps``: the slides a stack still needs to its goal row on an empty board: one along a
  diagonal that reaches that row, two or three where each diagonal meets a side edge first
  (a per-square count; rows alone do not tell them apart).
* ``clear``: a stack whose diagonal to its goal row (the furthest for a single, the nearest for
  a double) is empty all the way finishes its trip in one move; a blocked one needs more.
* ``blocked``: a stack with no slide and no transpose.
* ``impasse``: the side not to move with no slide and no transpose will remove a checker on
  its turn, a free step of progress (a checker gone in one move, no trip).
* ``tempo``: the side to move.

Two phases
----------
The weights differ before the endgame and in it (at most :data:`ENDGAME_CHECKERS` checkers on
the board, both sides together): :data:`IMPASSE_WEIGHTS` and :data:`IMPASSE_ENDGAME_WEIGHTS`.
Both were fitted by ``python -m dipole_tuner --phase``, each on its own positions of
``impasse`` games.  In the endgame, where the race is run, a trip weighs five times what it
does before (57 against 11), rows count for nothing and a slide (``steps``) for about half a trip, and the fit
says far more of who wins than any before it.  Before the endgame the fit's error barely moves,
but its weights are worth much in play (with the hand-set ones before the endgame instead,
the engine scored far less); in ``impasse-singles``, whose games were not
fitted, they lose games to a random mover at shallow depths, so that variant keeps the hand-set
weights before the endgame (:data:`MIDDLE_GAME_WEIGHTS`).  The README ("Tuning the
evaluation") has the fits and the SPRTs.

The evaluation pass (``bind_scan``) finds ``clear``, ``steps``, mobility and bear-offs for every
stack at once, with shifts and ANDs of occupancy masks: a diagonal step is one shift in their layout.

Tactical moves (quiescence) are the moves that take a checker off: bear-offs, and the removals
of a side at an impasse (its only moves: quiescence searches them, so the removal that side
must make is not left to a static score that does not count it).  Their gain is the change of the material and
distance terms.  The evaluation pass finds out cheaply whether any exists (a double with a
clear path to its nearest row or next to an own single on it; no mobile stack at all), so
the moves are generated only when there are some.

Scores are in the same centipawn-like units as Dipole's (a checker is worth about 100) from
the side to move's point of view, strictly inside ``+-MATE_BOUND``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from operator import itemgetter
from typing import Any, Final

from .hooks import NO_TACTICAL, GameHooks
from .rules import ImpasseBoard, ImpasseMove
from .tt import INFINITE, MATE_BOUND


@dataclass(frozen=True)
class ImpasseWeights:
    """The evaluation's weights (see the module docstring; ``python -m dipole_tuner`` fits
    them to games' results)."""

    trip: int = 30
    """What one trip of a stack to its goal row is worth."""
    row: int = 6
    """What one row still to travel is worth."""
    single_trips: int = 2
    """The trips a single still costs."""
    double_trips: int = 3
    """The trips a double still costs."""
    clear: int = 15
    """A stack whose way to its goal row is empty all the way."""
    impasse: int = 50
    """The side not to move is at an impasse: its removal is a free step."""
    blocked: int = field(default=0, metadata={"min": -200})
    """A stack with no slide and no transpose (a side with only such stacks is at an impasse)."""
    tempo: int = field(default=0, metadata={"min": -200})
    """The side to move."""
    steps: int = field(default=0, metadata={"min": -200})
    """One slide a stack still needs to reach its goal row on an empty board (a diagonal that
    meets a side edge first needs a second slide from there)."""

    @property
    def pair(self) -> int:
        """What a double's work saves over two singles' on the same square (see
        :func:`_stack_work` and the module docstring)."""
        return (2 * self.single_trips - self.double_trips) * self.trip


HAND_SET_WEIGHTS: Final = ImpasseWeights()
"""The weights set by hand (the defaults), before any fit: the new terms at 0."""

IMPASSE_WEIGHTS: Final = ImpasseWeights(trip=11, row=8, clear=0, impasse=63, blocked=-23, tempo=-1, steps=-16)
"""The engine's weights before the endgame (more than :data:`ENDGAME_CHECKERS` checkers) in the
variant they were fitted on, ``impasse``."""

MIDDLE_GAME_WEIGHTS: Final[dict[str, ImpasseWeights]] = {"impasse-singles": HAND_SET_WEIGHTS}
"""The variants that play other weights before the endgame than :data:`IMPASSE_WEIGHTS`:
``impasse-singles``, of which no games have been fitted, keeps the hand-set ones (the fitted
ones, searching 2 or 3 plies, lost games of it to a random mover)."""

IMPASSE_ENDGAME_WEIGHTS: Final = ImpasseWeights(
    trip=57, row=0, single_trips=1, double_trips=3, clear=0, impasse=147, blocked=-45, tempo=-1, steps=32
)
"""The engine's weights in the endgame."""

ENDGAME_CHECKERS: Final = 8
"""The endgame: at most this many checkers on the board, both sides together."""

_first = itemgetter(0)


@dataclass(frozen=True)
class _ImpasseTables:
    """Per board size:

    * ``value[square][h + 2]``: the signed (White-positive) worth of a stack of signed height
      ``h`` there, minus its owner's work (Black's entries at 0 and 1, an empty square's at 2,
      White's at 3 and 4: the interpreter's fast path for ``tuple[index]`` takes no negative
      index), for the gains of tactical moves;
    * ``dark``, ``top``, ``bottom``: the occupancy masks (see :class:`ImpasseBoard`) of every
      square, of the top row and of the bottom row;
    * ``checker``: a checker's work beyond its stack's rows to go (see :attr:`ImpasseWeights.pair`).
    """

    value: tuple[tuple[int, ...], ...]
    dark: int
    top: int
    bottom: int
    checker: int
    up_steps: tuple[int, int, int]
    down_steps: tuple[int, int, int]


def _stack_work(height: int, rows_to_goal: int, last_row: int, weights: ImpasseWeights) -> int:
    """A stack's remaining work: its trips and rows (see the module docstring)."""
    if height == 1:
        return weights.single_trips * weights.trip + weights.row * (rows_to_goal + last_row)
    return weights.double_trips * weights.trip + weights.row * (rows_to_goal + 2 * last_row)


@cache
def _impasse_tables(width: int, height: int, square_bit: tuple[int, ...], weights: ImpasseWeights) -> _ImpasseTables:
    if height > 9:
        raise ValueError("the Impasse evaluation's diagonal fills reach at most 9 ranks")
    last = height - 1
    value = []
    dark = top = bottom = 0
    for sq in range(width * height):
        file, rank = sq % width, sq // width
        by_h_value = [0] * 5
        if (file + rank) % 2 == 0:
            dark |= square_bit[sq]
            if rank == last:
                top |= square_bit[sq]
            if rank == 0:
                bottom |= square_bit[sq]
            for color in (1, -1):
                for size in (1, 2):
                    up = color if size == 1 else -color  # rank direction of travel
                    goal = last if up > 0 else 0
                    by_h_value[size * color + 2] = -_stack_work(size, abs(goal - rank), last, weights) * color
        value.append(tuple(by_h_value))
    checker = weights.single_trips * weights.trip + weights.row * last
    up_steps = _steps_masks(width, height, square_bit, 1)
    down_steps = _steps_masks(width, height, square_bit, -1)
    return _ImpasseTables(tuple(value), dark, top, bottom, checker, up_steps, down_steps)


def _steps_masks(width: int, height: int, square_bit: tuple[int, ...], up: int) -> tuple[int, int, int]:
    """The masks of the dark squares from which the row at the end of direction ``up`` (+1:
    the top row) is one, two, and three or more diagonal slides away on an empty board."""
    goal = height - 1 if up > 0 else 0
    steps: dict[int, int] = {}
    for rank in range(goal, -1 if up > 0 else height, -up):
        for file in range(width):
            if (file + rank) % 2:
                continue
            best = 0
            if rank != goal:
                best = 99
                for step in (-1, 1):  # along each diagonal to where it ends: the goal row or an edge
                    f, r = file + step, rank + up
                    while 0 <= f + step < width and r != goal:
                        f, r = f + step, r + up
                    if 0 <= f < width:
                        best = min(best, 1 + steps[r * width + f] if r != goal else 1)
            steps[rank * width + file] = best
    masks = [0, 0, 0]
    for sq, count in steps.items():
        if count:
            masks[min(count, 3) - 1] |= square_bit[sq]
    return masks[0], masks[1], masks[2]


def _slides(ups: int, downs: int, up_steps: tuple[int, int, int], down_steps: tuple[int, int, int]) -> int:
    """The slides that the stacks on ``ups`` (bound for the top row) and on ``downs`` (for the
    bottom row) still need on an empty board, by the masks of :func:`_steps_masks`."""
    up1, up2, up3 = up_steps
    down1, down2, down3 = down_steps
    return (
        (ups & up1).bit_count()
        + (downs & down1).bit_count()
        + 2 * ((ups & up2).bit_count() + (downs & down2).bit_count())
        + 3 * ((ups & up3).bit_count() + (downs & down3).bit_count())
    )


def bind_scan(
    board: ImpasseBoard, tactical: Callable[[], list[tuple[int, Any]]], weights: ImpasseWeights
) -> Callable[[int, int], tuple[int, Sequence[tuple[int, Any]]]]:
    """The evaluation pass over ``board``'s current position, as the ``quiesce`` hook:
    ``scan(alpha, beta)`` is (the score for the side to move, ``tactical()`` when the score is
    below ``beta`` and the side to move is at an impasse or has a bear-off, else
    ``NO_TACTICAL``).  ``tactical`` lists the moves that take checkers off (see
    :func:`bind_impasse`); whether there are any is found here from the masks, so it is called
    only when there are."""
    variant = board.variant
    tables = _impasse_tables(variant.width, variant.height, tuple(board.square_bit), weights)
    row = weights.row
    pair = weights.pair
    clear_worth = weights.clear
    impasse = weights.impasse
    blocked_worth = weights.blocked
    tempo = weights.tempo
    steps_worth = weights.steps
    up_steps = tables.up_steps
    down_steps = tables.down_steps
    dark = tables.dark
    top = tables.top
    bottom = tables.bottom
    left, right = board.up_shifts
    left2 = left + left
    left4 = left2 + left2
    right2 = right + right
    right4 = right2 + right2
    checker = tables.checker
    rows_shift = board.rows_shift
    limit = MATE_BOUND - 1

    def scan(alpha: int = -INFINITE, beta: int = INFINITE) -> tuple[int, Sequence[tuple[int, Any]]]:
        _, white_side, black_side = board.sides  # the masks and, above them, the rows to go
        white = white_side & dark
        black = black_side & dark
        doubles = board.doubles
        empty = dark ^ (white | black)
        white_doubles = white & doubles
        black_doubles = doubles ^ white_doubles
        white_singles = white ^ white_doubles
        black_singles = black ^ black_doubles

        # The work (see the module docstring).  (No products with a negative operand: the
        # compiled build takes a slow path for them.)
        _, white_checkers, black_checkers = board.material
        score = (
            checker * black_checkers
            - checker * white_checkers
            + pair * white_doubles.bit_count()
            - pair * black_doubles.bit_count()
            + row * (black_side >> rows_shift)
            - row * (white_side >> rows_shift)
        )

        # clear.  Per direction, the empty squares from which steps that way over empty squares
        # reach the goal row: occluded fills from that row's empty squares, each round doubling
        # the reach (1 + 2 + 4 rows), then one step back onto the stacks they free.  (Most
        # positions have no empty square on the top or bottom row, so no fills from it.)
        up_clear = down_clear = 0
        seeds = empty & top
        if seeds:
            fill = seeds | empty & seeds >> left
            run = empty & empty >> left
            fill |= run & fill >> left2
            run &= run >> left2
            fill |= run & fill >> left4
            up_clear = fill >> left
            fill = seeds | empty & seeds >> right
            run = empty & empty >> right
            fill |= run & fill >> right2
            run &= run >> right2
            fill |= run & fill >> right4
            up_clear = (white_singles | black_doubles) & (up_clear | fill >> right)
        seeds = empty & bottom
        if seeds:
            fill = seeds | empty & seeds << left
            run = empty & empty << left
            fill |= run & fill << left2
            run &= run << left2
            fill |= run & fill << left4
            down_clear = fill << left
            fill = seeds | empty & seeds << right
            run = empty & empty << right
            fill |= run & fill << right2
            run &= run << right2
            fill |= run & fill << right4
            down_clear = (white_doubles | black_singles) & (down_clear | fill << right)
        clear = up_clear | down_clear
        if clear:
            score += clear_worth * (clear & white).bit_count() - clear_worth * (clear & black).bit_count()

        # Mobility (nonzero when mobile): a single with an empty square diagonally forward, a
        # double with one diagonally backward or an own single there (a transpose).
        white_mobile = white_singles & (empty >> left | empty >> right) or white_doubles & (
            (empty | white_singles) << left | (empty | white_singles) << right
        )
        black_mobile = black_singles & (empty << left | empty << right) or black_doubles & (
            (empty | black_singles) >> left | (empty | black_singles) >> right
        )

        if steps_worth:
            black_steps = _slides(black_doubles, black_singles, up_steps, down_steps)
            white_steps = _slides(white_singles, white_doubles, up_steps, down_steps)
            score += steps_worth * black_steps - steps_worth * white_steps

        if blocked_worth:
            white_free = white_singles & (empty >> left | empty >> right) | white_doubles & (
                (empty | white_singles) << left | (empty | white_singles) << right
            )
            black_free = black_singles & (empty << left | empty << right) | black_doubles & (
                (empty | black_singles) >> left | (empty | black_singles) >> right
            )
            score += blocked_worth * ((white ^ white_free).bit_count() - (black ^ black_free).bit_count())

        # impasse: the other side's removal is a free step for it.  A bear-off: a double of
        # the side to move with a clear way to its nearest row, or a transpose onto an own
        # single there.
        white_moves = board.turn > 0
        if white_moves:
            if not black_mobile:
                score -= impasse
        else:
            if not white_mobile:
                score += impasse
            score = -score
        score += tempo
        if score > limit:
            score = limit
        elif score < -limit:
            score = -limit
        if score >= beta:  # quiescence stands pat
            return score, NO_TACTICAL
        if white_moves:
            if not white_mobile:  # at an impasse: its moves are removals
                return score, tactical()
            near = white_singles & bottom
            if white_doubles & down_clear or (near and white_doubles & (near << left | near << right)):
                return score, tactical()
            return score, NO_TACTICAL
        if not black_mobile:
            return score, tactical()
        near = black_singles & top
        if black_doubles & up_clear or (near and black_doubles & (near >> left | near >> right)):
            return score, tactical()
        return score, NO_TACTICAL

    return scan


def in_endgame(board: ImpasseBoard) -> bool:
    """Whether ``board`` is in the endgame, where :data:`IMPASSE_ENDGAME_WEIGHTS` hold."""
    _, white_checkers, black_checkers = board.material
    return white_checkers + black_checkers <= ENDGAME_CHECKERS


def bind_impasse(board: ImpasseBoard, weights: ImpasseWeights | None = None) -> GameHooks:
    """The Impasse hooks for ``board`` (tables shared per board size and weights): the
    engine's, :data:`IMPASSE_WEIGHTS` (or the variant's in :data:`MIDDLE_GAME_WEIGHTS`) before
    the endgame and :data:`IMPASSE_ENDGAME_WEIGHTS` in it, or ``weights`` in every phase (a
    tuner's trial)."""
    if weights is None:
        middle = MIDDLE_GAME_WEIGHTS.get(board.variant.name, IMPASSE_WEIGHTS)
        end = IMPASSE_ENDGAME_WEIGHTS
    else:
        middle = end = weights
    variant = board.variant
    value = _impasse_tables(variant.width, variant.height, tuple(board.square_bit), middle).value

    def gain(move: ImpasseMove, sign: int) -> int:
        """The change of the material and distance terms a move makes, for its mover."""
        change = 0
        for sq, before, after in move.changes:
            change += value[sq][after + 2] - value[sq][before + 2]
        if sign < 0:
            change = -change
        return change if change > 0 else 0  # hot path: cheaper than max()

    # Each move's gain, by id(move), worked out once: a move is one of the rules' shared
    # objects, made by one side only, and its gain depends on nothing else.
    gains: dict[int, int] = {}

    def ranked(removing: list[ImpasseMove] | None = None) -> list[tuple[int, ImpasseMove]]:
        """The moves that take checkers off (``removing``, if the caller has them), with their
        gains, biggest gain first."""
        sign = board.turn
        moves = []
        for move in board.removing_moves() if removing is None else removing:
            move_gain = gains.get(id(move))
            if move_gain is None:
                move_gain = gains[id(move)] = gain(move, sign)
            moves.append((move_gain, move))
        if len(moves) > 1:
            moves.sort(key=_first, reverse=True)
        return moves

    middle_scan = bind_scan(board, ranked, middle)
    end_scan = middle_scan if end is middle else bind_scan(board, ranked, end)

    def quiesce(alpha: int = -INFINITE, beta: int = INFINITE) -> tuple[int, Sequence[tuple[int, Any]]]:
        _, white_checkers, black_checkers = board.material
        if white_checkers + black_checkers <= ENDGAME_CHECKERS:
            return end_scan(alpha, beta)
        return middle_scan(alpha, beta)

    def evaluate() -> int:
        return quiesce(-INFINITE, -INFINITE)[0]  # (beta -INFINITE: stands pat, no moves)

    def tactical_moves() -> list[Any]:
        removing = board.removing_moves()
        if len(removing) < 2:  # (most positions have none)
            return removing
        return [move for _, move in ranked(removing)]

    return GameHooks(evaluate, quiesce, tactical_moves, board.quiet_moves, board.is_legal)
