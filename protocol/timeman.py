"""Time management: how long one search may take, from the ``go`` limits and the clock.

One plan for every engine on :mod:`protocol.loop` (``dipole-engine`` and the example engine
alike): :func:`plan` turns the :class:`~protocol.codec.Limit` of a ``go`` into a
:class:`TimePlan` of two budgets, both in milliseconds from the moment ``go`` arrived:

* ``soft_ms``: the target.  A search that deepens iteratively starts no new iteration that
  would probably not finish by then, and stops after an iteration that ended past it; a
  search that only asks :meth:`protocol.loop.SearchJob.stopped` stops there.
* ``hard_ms``: the deadline.  A search that keeps its best move so far may run on to it (the
  engine's search aborts as soon as it notices it is past it, depth 1 included).

``go movetime N`` is a fixed time, N ms in full (``soft_ms == hard_ms``: the search uses all of
it, as Stockfish does), less the ``MOVETIME_ANSWER_MS`` the answer takes to reach the host;
``MoveOverhead`` and the reserve are for clocks only, and a host's margin for an answer
delayed further (a busy machine) is the host's business (the arbiter's ``timemargin``).

With a clock the plan keeps back ``MoveOverhead`` (the option: the pipe and the host between
the engine's ``bestmove`` and the clock being stopped) plus a :class:`Reserve` learnt from
moves that overran their plan (a busy machine), so that a busy machine costs moves, not games.
Invariants: ``0 <= soft_ms <= hard_ms``, and with a clock ``hard_ms <= time_left - keep_back``
(the overhead plus the reserve) whenever that is positive.  With nothing left beyond it both
budgets are 0: move at once (the engine's search then names the move with the best static
score one ply on, without searching).
"""

from __future__ import annotations

from dataclasses import dataclass

from .codec import Limit, OptionSpec

MOVE_OVERHEAD = OptionSpec("MoveOverhead", "spin", 50, 0, 5000)
"""The option every engine on :mod:`protocol.loop` offers: milliseconds kept back on every move
on the clock for the pipe and the host."""

DEFAULT_MOVES_TO_GO = 30
"""Sudden death: assume the game lasts this many more moves of ours (Dipole games are short)."""

MAX_MOVES_TO_GO = 50
HARD_FACTOR = 5.0
"""The deadline may stretch the target this many times (for an iteration that is late)."""

INCREMENT_SHARE = 0.75
"""A move's target adds this share of the increment, with a cushion in hand (below)."""
CUSHION_INCREMENTS = 10
"""With less than this many increments usable, the target adds a smaller share of the
increment, in proportion: so the clock settles this far above what is kept back rather than
at it (a long game at 1+0.01 spends about the increment a move wherever its clock settles,
so the cushion costs a few moves' time once, and a late answer then costs no game)."""

MAX_SHARE = 0.5
"""Never plan to spend more than this share of the usable time on one move (unless it is the
last move before the time control)."""

MOVETIME_ANSWER_MS = 2.0
"""``go movetime N`` stops this long before N (at most 5% of N): on an idle machine the answer
reaches the host 0.3-1.5 ms after the deadline (a clock check, then the write), so a host
that allows no margin at all still gets it in time."""

RESERVE_GROWTH = 2.0
"""A move that overran its plan by X ms makes the reserve at least this many times X."""
RESERVE_DECAY = 0.98
"""Every move on the clock shrinks the reserve by this factor (a busy spell passes)."""
MAX_RESERVE_MS = 2000.0
"""The most the reserve keeps back, whatever a host's clocks seemed to say."""


@dataclass(frozen=True)
class TimePlan:
    """Time budgets in ms from the start of the search; None means no time limit.

    ``soft_ms == hard_ms`` is a fixed time (``movetime``): the search uses all of it."""

    soft_ms: float | None
    hard_ms: float | None

    @property
    def timed(self) -> bool:
        return self.hard_ms is not None

    @property
    def fixed(self) -> bool:
        return self.hard_ms is not None and self.soft_ms == self.hard_ms


UNTIMED = TimePlan(None, None)


@dataclass
class Reserve:
    """Milliseconds kept back on the clock beyond ``MoveOverhead``, learnt from moves that
    overran their plan: a move that took X ms longer than planned (the engine late past its
    deadline, or the host charging more than the engine took) raises the reserve to
    ``RESERVE_GROWTH * X``; every move lets it decay by ``RESERVE_DECAY``.  One per engine
    session: a busy machine stays busy from one game to the next."""

    ms: float = 0.0

    def observe(self, overrun_ms: float) -> None:
        """One move on the clock, which overran its plan by ``overrun_ms`` (<= 0: it did not)."""
        self.ms = min(MAX_RESERVE_MS, max(self.ms * RESERVE_DECAY, RESERVE_GROWTH * overrun_ms))


def overrun(took_ms: float, hard_ms: float, charged_ms: float | None = None) -> float:
    """How far a move ran past its plan: the time the host charged for it (``charged_ms``,
    when the next ``go`` shows it) or else the engine's own time from ``go`` to ``bestmove``
    (``took_ms``), beyond what the engine planned for (its deadline ``hard_ms``, or the time it
    took if it stopped before)."""
    spent = took_ms if charged_ms is None else max(took_ms, charged_ms)
    return spent - min(took_ms, hard_ms)


def plan(limits: Limit, white_to_move: bool, move_overhead_ms: int, reserve_ms: float = 0.0) -> TimePlan:
    """The budgets for one search under ``limits`` (``wtime``/``winc`` when White moves).

    ``movetime`` means that long, but for the answer's way (the overhead is for clocks); a
    clock gives a share of what is left beyond ``move_overhead_ms + reserve_ms``, plus most of
    the increment (less, the nearer the clock is to what is kept back; and less half the
    reserve, which is what a move is seen to cost beyond its plan); with both, the tighter
    wins.  ``infinite`` ignores the clock.
    """
    if limits.infinite:
        return UNTIMED
    keep_back = max(0, move_overhead_ms) + max(0.0, reserve_ms)
    budgets: list[TimePlan] = []
    if limits.movetime is not None:
        movetime = max(0, limits.movetime)
        fixed = movetime - min(MOVETIME_ANSWER_MS, movetime * 0.05)
        budgets.append(TimePlan(fixed, fixed))
    time_left = limits.wtime if white_to_move else limits.btime
    if time_left is not None:
        increment = (limits.winc if white_to_move else limits.binc) or 0
        # The increment less what a move is seen to cost beyond its plan (half the reserve).
        net_increment = max(0.0, increment - max(0.0, reserve_ms) / RESERVE_GROWTH)
        budgets.append(_clock_plan(time_left, net_increment, limits.movestogo, keep_back))
    if not budgets:
        return UNTIMED
    soft = min(budget.soft_ms for budget in budgets if budget.soft_ms is not None)
    hard = min(budget.hard_ms for budget in budgets if budget.hard_ms is not None)
    return TimePlan(min(soft, hard), hard)


def _clock_plan(time_left: int, increment: float, movestogo: int | None, keep_back: float) -> TimePlan:
    usable = time_left - keep_back
    if usable <= 0:
        return TimePlan(0.0, 0.0)
    moves = DEFAULT_MOVES_TO_GO if movestogo is None or movestogo <= 0 else min(movestogo, MAX_MOVES_TO_GO)
    if moves == 1:
        # The last move before the control: use most of it, keep a margin for the unexpected.
        hard = usable * 0.9
        return TimePlan(usable * 0.6, hard)
    cushioned = min(1.0, usable / (CUSHION_INCREMENTS * increment)) if increment else 1.0
    soft = usable / moves + increment * INCREMENT_SHARE * cushioned
    soft = min(soft, usable * MAX_SHARE)
    hard = min(soft * HARD_FACTOR, usable * 0.8)
    return TimePlan(soft, hard)
