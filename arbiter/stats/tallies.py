"""Match statistics: tallies per engine and per colour, Elo difference with a 95% confidence
interval, likelihood of superiority, and the summary the arbiter prints.

The Elo estimate follows cutechess-cli: the score fraction ``p`` gives ``-400 log10(1/p - 1)``;
the interval maps ``p -/+ 1.96 * s / sqrt(n)`` (``s`` the standard deviation of one game's
score) through the same formula and reports half its width.  The likelihood of superiority is
``(1 + erf((W - L) / sqrt(2 (W + L)))) / 2``.  Dipole has no draws, but the formulas take them,
so another game can use them as they are.  Unfinished games (``*``) score nothing and count
only among the terminations.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from ..records.game import BLACK_WINS, WHITE_WINS, GameOutcome, GameRecord

Z_95 = 1.959963984540054  # the two-sided 95% quantile of the normal distribution


def elo_from_score(score: float) -> float:
    """The Elo difference that expects ``score`` (a fraction of the points); +-inf at 1 and 0."""
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400 * math.log10(1 / score - 1)


def likelihood_of_superiority(wins: int, losses: int) -> float:
    """The probability that the side with ``wins`` is the stronger (draws say nothing)."""
    if wins + losses == 0:
        return 0.5
    return 0.5 * (1 + math.erf((wins - losses) / math.sqrt(2 * (wins + losses))))


@dataclass(frozen=True)
class EloEstimate:
    """``elo`` difference, ``margin`` (half-width of the 95% interval) and ``los`` (0..1)."""

    elo: float
    margin: float
    los: float

    def text(self) -> str:
        """``Elo difference: 70.4 +/- 230.1, LOS: 75.4 %`` (cutechess-cli's wording)."""
        if math.isnan(self.elo):
            return "Elo difference: none (no finished games)"
        margin = "inf" if math.isinf(self.margin) or math.isnan(self.margin) else f"{self.margin:.1f}"
        elo = self.elo + 0.0  # no "-0.0"
        return f"Elo difference: {elo:.1f} +/- {margin}, LOS: {100 * self.los:.1f} %"


def elo_estimate(wins: int, losses: int, draws: int = 0) -> EloEstimate:
    """The Elo estimate of a side that scored ``wins``/``losses``/``draws``."""
    games = wins + losses + draws
    if games == 0:
        return EloEstimate(math.nan, math.nan, 0.5)
    score = (wins + draws / 2) / games
    variance = (wins * (1 - score) ** 2 + losses * score**2 + draws * (0.5 - score) ** 2) / games
    half_width = Z_95 * math.sqrt(variance / games)
    low, high = score - half_width, score + half_width
    margin = (elo_from_score(high) - elo_from_score(low)) / 2 if low > 0 and high < 1 else math.inf
    return EloEstimate(elo_from_score(score), margin, likelihood_of_superiority(wins, losses))


@dataclass(frozen=True)
class Results:
    """Wins, losses and draws of one side in some set of games (a value: adding makes a new one)."""

    wins: int = 0
    losses: int = 0
    draws: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.losses + self.draws

    @property
    def points(self) -> float:
        return self.wins + self.draws / 2

    def reversed(self) -> Results:
        """The same games seen from the other side."""
        return Results(self.losses, self.wins, self.draws)

    def __add__(self, other: Results) -> Results:
        return Results(self.wins + other.wins, self.losses + other.losses, self.draws + other.draws)

    def line(self) -> str:
        """``6 - 4 - 0  [0.600] 10`` as cutechess-cli prints W - L - D, score fraction, games."""
        fraction = self.points / self.games if self.games else 0.0
        return f"{self.wins} - {self.losses} - {self.draws}  [{fraction:.3f}] {self.games}"

    def text(self, with_draws: bool = False) -> str:
        """``W-L``, or ``W-L-D`` when ``with_draws``."""
        return f"{self.wins}-{self.losses}-{self.draws}" if with_draws else f"{self.wins}-{self.losses}"


@dataclass
class EngineTally:
    """One engine's results, split by the colour it played."""

    white: Results = field(default_factory=Results)
    black: Results = field(default_factory=Results)

    @property
    def total(self) -> Results:
        return self.white + self.black


class MatchStats:
    """Running totals over finished games: per engine, per pairing, per colour, per termination."""

    def __init__(self, engines: Iterable[str] = ()) -> None:
        self.engines: dict[str, EngineTally] = {name: EngineTally() for name in engines}
        self.pairs: dict[tuple[str, str], Results] = {}
        self.colours = Results()  # White's results against Black
        self.terminations: Counter[str] = Counter()
        self.unfinished = 0

    def add(self, record: GameRecord | GameOutcome) -> None:
        """Count a finished game; its result is all that is read (never its moves)."""
        self.terminations[record.termination.label] += 1
        if record.result not in (WHITE_WINS, BLACK_WINS):
            self.unfinished += 1
            return
        for_white = Results(wins=1) if record.result == WHITE_WINS else Results(losses=1)
        for_black = for_white.reversed()
        self.engines.setdefault(record.white, EngineTally()).white += for_white
        self.engines.setdefault(record.black, EngineTally()).black += for_black
        self.colours += for_white
        for pair, result in (((record.white, record.black), for_white), ((record.black, record.white), for_black)):
            self.pairs[pair] = self.pairs.get(pair, Results()) + result

    def pair(self, first: str, second: str) -> Results:
        return self.pairs.get((first, second), Results())

    def estimate(self, first: str, second: str) -> EloEstimate:
        tally = self.pair(first, second)
        return elo_estimate(tally.wins, tally.losses, tally.draws)

    def score_line(self, first: str, second: str) -> str:
        """cutechess-cli's running line: ``Score of alpha vs beta: 6 - 4 - 0  [0.600] 10``."""
        return f"Score of {first} vs {second}: {self.pair(first, second).line()}"

    def termination_line(self) -> str:
        counts = ", ".join(f"{label} {count}" for label, count in self.terminations.most_common())
        return f"Terminations: {counts or 'none'}"

    def summary(self, first: str, second: str) -> list[str]:
        """The final report of a two-engine match, cutechess-cli's lines first, then a table."""
        own = self.engines.get(first, EngineTally())
        lines = [
            self.score_line(first, second),
            f"...      {first} playing White: {own.white.line()}",
            f"...      {first} playing Black: {own.black.line()}",
            f"...      White vs Black: {self.colours.line()}",
            self.estimate(first, second).text(),
            "",
            *self.table(),
            "",
            self.termination_line(),
        ]
        if self.unfinished:
            lines.append(f"Unfinished games (not scored): {self.unfinished}")
        return lines

    def table(self) -> list[str]:
        """One row per engine: games, wins, losses, score, and W-L as White and as Black."""
        width = max([len("Engine"), *map(len, self.engines)])
        header = f"{'Engine':<{width}}  Games  Wins  Losses   Score  White W-L  Black W-L"
        rows = [header]
        for name, tally in self.engines.items():
            total = tally.total
            percent = f"{100 * total.points / total.games:.1f}%" if total.games else "-"
            rows.append(
                (
                    f"{name:<{width}}  {total.games:>5}  {total.wins:>4}  {total.losses:>6}  {percent:>6}  "
                    f"{tally.white.wins:>4}-{tally.white.losses:<4}  {tally.black.wins:>4}-{tally.black.losses:<4}"
                ).rstrip()
            )
        return rows
