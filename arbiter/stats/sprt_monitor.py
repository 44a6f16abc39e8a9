"""Running an SPRT during an event: which finished games count, and when the test is decided.

:class:`SprtMonitor` feeds an :class:`~arbiter.stats.sprt.SprtState` from finished games' results
(whole records, or the outcomes an event database gives without the moves).  The
test is on colour-reversed pairs, and pairs count strictly in schedule order: a pair is added
only once it and every pair scheduled before it have both games finished.  With several games
played at once, games may finish out of order, and the games beyond the counted prefix (or
still running when the test is decided) are recorded but do not count.  So the decision, and
the number of pairs it took, depend only on the games' results, never on the concurrency or
on timing: a fixed-depth test decides the same way at any ``--concurrency``.

A pair scores 0, 1/4, 1/2, 3/4 or 1 (draws count half a point each).  A pair with an
unfinished game (result ``*``: both engines failed to start) cannot be scored;
it is passed over and the prefix moves on.  Once the LLR leaves its bounds the state is frozen:
later pairs are not added.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..records.game import DRAW, SCORED, GameOutcome, GameRecord
from .sprt import SprtParams, SprtState
from .tallies import pair_score


class SprtMonitor:
    """The SPRT of ``engine`` (the tested one, normally the first engine) over ``pairs``: the
    game numbers of each colour-reversed pair, in schedule order."""

    def __init__(self, params: SprtParams, engine: str, pairs: Sequence[tuple[int, int]]) -> None:
        self.state = SprtState(params)
        self.engine = engine
        self.pairs = list(pairs)
        self._next = 0  # index of the first pair not yet counted (or passed over)
        self._waiting: dict[int, GameOutcome] = {}  # finished games of pairs not yet counted
        self.skipped = 0  # pairs passed over because a game of theirs has no result

    @property
    def decision(self) -> str | None:
        return self.state.decision

    def add(self, record: GameRecord | GameOutcome) -> str | None:
        """Take a finished game; returns the decision when this game brings it (else None).
        Only its result is kept until its pair is counted, never its moves."""
        if self.state.decision is not None:
            return None
        self._waiting[record.number] = record if isinstance(record, GameOutcome) else GameOutcome.of(record)
        while self.state.decision is None and self._next < len(self.pairs):
            first, second = self.pairs[self._next]
            if first not in self._waiting or second not in self._waiting:
                break
            games = (self._waiting.pop(first), self._waiting.pop(second))
            if all(game.result in SCORED for game in games):
                drawn = any(game.result == DRAW for game in games)
                self.state.add_pair(pair_score(games, self.engine), drawn)
            else:
                self.skipped += 1
            self._next += 1
        return self.state.decision

    def progress(self) -> str:
        """``LLR 1.23 (-2.94, 2.94), 12 pairs``: for the progress bar."""
        state = self.state
        return f"LLR {state.llr:.2f} ({state.lower:.2f}, {state.upper:.2f}), {state.pairs} pairs"

    def summary(self) -> list[str]:
        """The final lines: the decision (or that none was reached), and what was passed over."""
        lines = [self.state.summary()]
        if self.skipped:
            lines.append(f"SPRT: {self.skipped} pair(s) without a result for both games were not counted")
        return lines


def consecutive_pairs(games: int) -> list[tuple[int, int]]:
    """The pairs of a match numbered 1..games: (1, 2), (3, 4), ...; an odd last game is no pair."""
    return [(number, number + 1) for number in range(1, games, 2)]
