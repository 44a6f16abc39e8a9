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
costs about 2 trips, a double 3 (``SINGLE_TRIPS``/``DOUBLE_TRIPS``; measured: both 1/3 and 2/2
or 2/4 play clearly worse).  Each trip is worth ``TRIP``; each row still to travel is worth
``ROW``: a single has its distance to the furthest row plus a later double's full trip back, a
double its distance to the nearest row plus the single's full trip it leaves behind.

On top of that:

* ``CLEAR``: a stack whose diagonal to its goal row (the furthest for a single, the nearest for
  a double) is empty all the way finishes its trip in one move; a blocked one needs more.
* ``IMPASSE``: the side not to move with no slide and no transpose will remove a checker on
  its turn, a free step of progress (a checker gone in one move, no trip).

Measured in engine-vs-engine games at depth 3 (random 4-ply openings of both variants, each
played with both colours): without ``CLEAR`` the engine scored 54/160 against ``CLEAR`` = 10;
15 scored 215/400 against 10, while 20 and 25 scored less.  ``IMPASSE`` is about neutral
(79/160 without it, 81/160 at 100, against 50); removals that are due are found by the
quiescence search anyway.  There is no tempo term: a bonus for the side to move scored worse
than none (74/160 at 40, and 0 scored 95/160, against 15).

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

from dataclasses import dataclass
from functools import cache
from operator import itemgetter
from typing import Any, Final

from .hooks import GameHooks
from .rules import ImpasseBoard, ImpasseMove
from .rules.impasse import occupancy_mask
from .tt import INFINITE, MATE_BOUND

TRIP: Final = 30
ROW: Final = 6
SINGLE_TRIPS: Final = 2
DOUBLE_TRIPS: Final = 3
CLEAR: Final = 15
IMPASSE: Final = 50

_first = itemgetter(0)


@dataclass(frozen=True)
class _ImpasseTables:
    """Per board size, indexed ``[square][h + 2]`` by the signed stack height ``h`` (Black's
    entries at 0 and 1, an empty square's at 2, White's at 3 and 4: the interpreter's fast path
    for ``tuple[index]`` takes no negative index):

    * ``value``: the signed (White-positive) worth of that stack there: minus its owner's work;
    * ``steps``: the diagonal neighbours in the stack's direction of travel (a single's forward
      squares, a double's backward ones, which are also where its transposes go): the stack can
      move iff one is empty or, for a double, holds an own single; ``step_mask`` is their
      occupancy mask (see :class:`ImpasseBoard`);
    * ``goal_masks``: the occupancy masks of the diagonals from the square in that direction
      that end on the stack's goal row, each covering the squares up to and including the one
      on that row (the stack gets there in one move iff the board has none of their bits);
    * ``bear_transposes``: for a double, its backward neighbours on its nearest row (a
      transpose onto an own single there bears off at once); empty for singles.
    """

    value: tuple[tuple[int, ...], ...]
    steps: tuple[tuple[tuple[int, ...], ...], ...]
    step_mask: tuple[tuple[int, ...], ...]
    goal_masks: tuple[tuple[tuple[int, ...], ...], ...]
    bear_transposes: tuple[tuple[tuple[int, ...], ...], ...]


def _stack_work(height: int, rows_to_goal: int, last_row: int) -> int:
    """A stack's remaining work: its trips and rows (see the module docstring)."""
    if height == 1:
        return SINGLE_TRIPS * TRIP + ROW * (rows_to_goal + last_row)
    return DOUBLE_TRIPS * TRIP + ROW * (rows_to_goal + 2 * last_row)


@cache
def _impasse_tables(width: int, height: int, square_bit: tuple[int, ...]) -> _ImpasseTables:
    last = height - 1
    value, steps, step_mask, goal_masks, bear_transposes = [], [], [], [], []

    for sq in range(width * height):
        file, rank = sq % width, sq // width
        by_h_value = [0] * 5
        by_h_steps: list[tuple[int, ...]] = [()] * 5
        by_h_step_mask = [0] * 5
        by_h_masks: list[tuple[int, ...]] = [()] * 5
        by_h_bear: list[tuple[int, ...]] = [()] * 5
        if (file + rank) % 2 == 0:
            for color in (1, -1):
                for size in (1, 2):
                    h = size * color
                    up = color if size == 1 else -color  # rank direction of travel
                    goal = last if up > 0 else 0
                    work = _stack_work(size, abs(goal - rank), last)
                    by_h_value[h + 2] = -work * color
                    neighbours = tuple((rank + up) * width + file + df for df in (-1, 1)
                                       if 0 <= file + df < width and 0 <= rank + up < height)
                    by_h_steps[h + 2] = neighbours
                    by_h_step_mask[h + 2] = occupancy_mask(square_bit, neighbours)
                    rays = []
                    for df in (-1, 1):
                        ray = []
                        f, r = file + df, rank + up
                        while 0 <= f < width and 0 <= r < height:
                            ray.append(r * width + f)
                            if r == goal:
                                rays.append(occupancy_mask(square_bit, ray))
                                break
                            f, r = f + df, r + up
                    by_h_masks[h + 2] = tuple(rays)
                    if size == 2:
                        by_h_bear[h + 2] = tuple(t for t in neighbours if t // width == goal)
        value.append(tuple(by_h_value))
        steps.append(tuple(by_h_steps))
        step_mask.append(tuple(by_h_step_mask))
        goal_masks.append(tuple(by_h_masks))
        bear_transposes.append(tuple(by_h_bear))
    return _ImpasseTables(tuple(value), tuple(steps), tuple(step_mask), tuple(goal_masks), tuple(bear_transposes))


def bind_impasse(board: ImpasseBoard) -> GameHooks:
    """The Impasse hooks for ``board`` (tables shared per board size)."""
    variant = board.variant
    tables = _impasse_tables(variant.width, variant.height, tuple(board.square_bit))
    value = tables.value
    steps = tables.steps
    step_mask = tables.step_mask
    goal_masks = tables.goal_masks
    bear_transposes = tables.bear_transposes
    limit = MATE_BOUND - 1

    def scan() -> tuple[int, bool, bool]:
        """(score for the side to move, whether it is at an impasse, whether it can bear off)."""
        cells = board.cells
        occupancy = board.occupancy
        sign = board.turn
        score = 0
        mobile = [False, False, False]  # indexed by colour: has a slide or a transpose
        bear = False                    # the side to move has a bear-off
        for color in (1, -1):
            # (No products with the colour: a negative operand takes the compiled build's
            # slow path for *.)
            double = color + color
            clear = CLEAR if color > 0 else -CLEAR
            moves_now = color == sign
            is_mobile = False
            for sq in board.occupied[color]:
                h = cells[sq]
                k = h + 2
                score += value[sq][k]
                for goal_mask in goal_masks[sq][k]:
                    if not occupancy & goal_mask:  # nothing on the way to the goal row
                        score += clear
                        is_mobile = True
                        if moves_now and h == double:
                            bear = True
                        break
                else:
                    if not is_mobile:
                        if step_mask[sq][k] & ~occupancy:
                            is_mobile = True
                        elif h == double:
                            for t in steps[sq][k]:
                                if cells[t] == color:
                                    is_mobile = True
                                    break
                if moves_now and h == double and not bear:
                    for t in bear_transposes[sq][k]:
                        if cells[t] == color:
                            bear = True
                            break
            mobile[color] = is_mobile
        if not mobile[-sign]:
            score -= IMPASSE if sign > 0 else -IMPASSE
        if sign < 0:
            score = -score
        if score > limit:
            score = limit
        elif score < -limit:
            score = -limit
        return score, not mobile[sign], bear

    def gain(move: ImpasseMove, sign: int) -> int:
        """The change of the material and distance terms a move makes, for its mover."""
        change = 0
        for sq, before, after in move.changes:
            change += value[sq][after + 2] - value[sq][before + 2]
        if sign < 0:
            change = -change
        return change if change > 0 else 0  # noqa: FURB136  (hot path: cheaper than max())

    def ranked() -> list[tuple[int, ImpasseMove]]:
        """The moves that take checkers off, with their gains, biggest gain first."""
        sign = board.turn
        moves = [(gain(move, sign), move) for move in board.removing_moves()]
        if len(moves) > 1:
            moves.sort(key=_first, reverse=True)
        return moves

    def evaluate() -> int:
        return scan()[0]

    def quiesce(alpha: int = -INFINITE, beta: int = INFINITE) -> tuple[int, list[tuple[int, Any]]]:
        score, at_impasse, bear = scan()
        if score >= beta or not (at_impasse or bear):
            return score, []
        return score, ranked()

    def tactical_moves() -> list[Any]:
        return [move for _, move in ranked()]

    return GameHooks(evaluate, quiesce, tactical_moves, board.quiet_moves, board.is_legal)

