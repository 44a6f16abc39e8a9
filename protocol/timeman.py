"""Time management: how long one search may take, from the ``go`` limits and the clock.

One plan for every engine on :mod:`protocol.loop` (``dipole-engine`` and the example engine
alike): :func:`plan` turns the :class:`~protocol.codec.Limit` of a ``go`` into a
:class:`TimePlan` of two budgets, both in milliseconds from the moment ``go`` arrived:

* ``soft_ms``: the target.  A search that deepens iteratively starts no new iteration that
  would probably not finish by then, and stops after an iteration that ended past it; a
  search that only asks :meth:`protocol.loop.SearchJob.stopped` stops there.
* ``hard_ms``: the deadline.  A search that keeps its best move so far may run on to it (the
  engine's search aborts as soon as it notices it is past it, depth 1 included).

Invariants: ``0 <= soft_ms <= hard_ms``, and with a clock ``hard_ms <= time_left -
move_overhead`` whenever that is positive (the overhead, the ``MoveOverhead`` option, covers
the pipe and the host between the engine's ``bestmove`` and the clock being stopped), so the
engine never loses on time by its own doing.  With nothing left beyond the overhead both
budgets are 0: move at once (the engine's search then names the move with the best static
score one ply on, without searching).
"""

from __future__ import annotations

from dataclasses import dataclass

from .codec import Limit, OptionSpec

MOVE_OVERHEAD = OptionSpec("MoveOverhead", "spin", 50, 0, 5000)
"""The option every engine on :mod:`protocol.loop` offers: milliseconds kept back on every timed
move for the pipe and the host."""

DEFAULT_MOVES_TO_GO = 30
"""Sudden death: assume the game lasts this many more moves of ours (Dipole games are short)."""

MAX_MOVES_TO_GO = 50
HARD_FACTOR = 5.0
"""The deadline may stretch the target this many times (for an iteration that is late)."""

MAX_SHARE = 0.5
"""Never plan to spend more than this share of the usable time on one move (unless it is the
last move before the time control)."""


@dataclass(frozen=True)
class TimePlan:
    """Time budgets in ms from the start of the search; None means no time limit."""

    soft_ms: float | None
    hard_ms: float | None

    @property
    def timed(self) -> bool:
        return self.hard_ms is not None


UNTIMED = TimePlan(None, None)


def plan(limits: Limit, white_to_move: bool, move_overhead_ms: int) -> TimePlan:
    """The budgets for one search under ``limits`` (``wtime``/``winc`` when White moves).

    ``movetime`` means exactly that long, less the overhead; a clock gives a share of what is
    left plus most of the increment; with both, the tighter wins.  ``infinite`` ignores the
    clock.
    """
    if limits.infinite:
        return UNTIMED
    overhead = max(0, move_overhead_ms)
    budgets: list[TimePlan] = []
    if limits.movetime is not None:
        usable = max(0.0, float(limits.movetime - overhead))
        budgets.append(TimePlan(usable, usable))
    time_left = limits.wtime if white_to_move else limits.btime
    if time_left is not None:
        increment = (limits.winc if white_to_move else limits.binc) or 0
        budgets.append(_clock_plan(time_left, max(0, increment), limits.movestogo, overhead))
    if not budgets:
        return UNTIMED
    soft = min(budget.soft_ms for budget in budgets if budget.soft_ms is not None)
    hard = min(budget.hard_ms for budget in budgets if budget.hard_ms is not None)
    return TimePlan(min(soft, hard), hard)


def _clock_plan(time_left: int, increment: int, movestogo: int | None, overhead: int) -> TimePlan:
    usable = float(time_left - overhead)
    if usable <= 0:
        return TimePlan(0.0, 0.0)
    moves = DEFAULT_MOVES_TO_GO if movestogo is None or movestogo <= 0 else min(movestogo, MAX_MOVES_TO_GO)
    if moves == 1:
        # The last move before the control: use most of it, keep a margin for the unexpected.
        hard = usable * 0.9
        return TimePlan(usable * 0.6, hard)
    soft = usable / moves + increment * 0.75
    soft = min(soft, usable * MAX_SHARE)
    hard = min(soft * HARD_FACTOR, usable * 0.8)
    return TimePlan(soft, hard)
