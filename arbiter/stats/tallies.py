"""Match statistics: tallies per engine and per colour, Elo difference with a 95% confidence
interval, likelihood of superiority, and the summary the arbiter prints.

The Elo estimate follows cutechess-cli: the score fraction ``p`` gives ``-400 log10(1/p - 1)``;
the interval maps ``p -/+ 1.96 * s / sqrt(n)`` (``s`` the standard deviation of one game's
score) through the same formula and reports half its width.  The likelihood of superiority is
``(1 + erf((W - L) / sqrt(2 (W + L)))) / 2``.  A draw (``1/2-1/2``) scores half a point: it
moves the score fraction and narrows the variance (the trinomial formulas), and does not enter
the likelihood of superiority.  Unfinished games (``*``) score nothing and count only among the
terminations.

Colour-reversed pairs (the two games of one opening) are also counted as fastchess prints
them, ``Ptnml(0-2): [LL, LD, WL+DD, WD, WW]``: how many pairs the first engine scored 0, 1/2,
1, 3/2 and 2 points in.  A pair counts once both its games are finished, in whatever order.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from ..records.game import DRAW, SCORED, WHITE_WINS, GameOutcome, GameRecord

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

    def fastchess_line(self) -> str:
        """``Games: 10, Wins: 5, Losses: 3, Draws: 2, Points: 6.0 (60.00 %)`` as fastchess prints it."""
        percent = 100 * self.points / self.games if self.games else 0.0
        return (
            f"Games: {self.games}, Wins: {self.wins}, Losses: {self.losses}, Draws: {self.draws}, "
            f"Points: {self.points:.1f} ({percent:.2f} %)"
        )

    @classmethod
    def of_game(cls, result: str, white: bool) -> Results:
        """One scored game's result (``1-0``, ``0-1`` or ``1/2-1/2``) for White, or for Black."""
        if result == DRAW:
            return cls(draws=1)
        return cls(wins=1) if (result == WHITE_WINS) == white else cls(losses=1)


class GameResult(Protocol):
    """What the counts read from a game (``GameRecord`` and ``GameOutcome`` are two)."""

    @property
    def white(self) -> str: ...

    @property
    def black(self) -> str: ...

    @property
    def result(self) -> str: ...


def pair_score(games: Sequence[GameResult], engine: str) -> float:
    """``engine``'s score over a colour-reversed pair: the mean of its two results (0, 1/4,
    1/2, 3/4 or 1)."""
    if (
        len(games) != 2
        or {games[0].white, games[0].black} != {games[1].white, games[1].black}
        or games[0].white != games[1].black
        or engine not in (games[0].white, games[0].black)
    ):
        raise ValueError(f"not a colour-reversed pair of games with {engine!r}")
    points = 0.0
    for game in games:
        if game.result not in SCORED:
            raise ValueError(f"game {game.white} vs {game.black} has no result ({game.result})")
        points += Results.of_game(game.result, game.white == engine).points
    return points / 2


PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)  # Ptnml(0-2): a pair's points (0 .. 2) halved


@dataclass(frozen=True)
class Pentanomial:
    """Colour-reversed pairs by the tested engine's score over the pair (``PAIR_SCORES``):
    fastchess's ``Ptnml(0-2)``, ``[LL, LD, WL+DD, WD, WW]``."""

    counts: tuple[int, int, int, int, int] = (0, 0, 0, 0, 0)

    def add(self, score: float) -> Pentanomial:
        """These counts and one more pair scoring ``score`` (0, 1/4, 1/2, 3/4 or 1)."""
        if score not in PAIR_SCORES:
            raise ValueError(f"a pair scores 0, 1/4, 1/2, 3/4 or 1, not {score!r}")
        slot = PAIR_SCORES.index(score)
        a, b, c, d, e = (count + (i == slot) for i, count in enumerate(self.counts))
        return Pentanomial((a, b, c, d, e))

    @property
    def pairs(self) -> int:
        return sum(self.counts)

    def line(self) -> str:
        """``Ptnml(0-2): [1, 11, 47, 25, 16]``."""
        return f"Ptnml(0-2): [{', '.join(map(str, self.counts))}]"


def consecutive_partner(games: int) -> Callable[[int], int | None]:
    """The other game of each game's pair in a match numbered 1..games: (1, 2), (3, 4), ...;
    an odd last game has none."""

    def partner(number: int) -> int | None:
        other = number + 1 if number % 2 else number - 1
        return other if 1 <= other <= games else None

    return partner


class PairCounter:
    """The Ptnml of ``engine`` over colour-reversed pairs (``partner`` gives each game's other
    game, or None): a pair counts once both games are finished; a pair with an unfinished
    game counts in ``unscored``.  Only the result of a game waiting for its partner is kept."""

    def __init__(self, engine: str, partner: Callable[[int], int | None]) -> None:
        self.engine = engine
        self.partner = partner
        self.ptnml = Pentanomial()
        self.unscored = 0
        self._waiting: dict[int, GameOutcome] = {}

    def add(self, record: GameRecord | GameOutcome) -> None:
        other = self.partner(record.number)
        if other is None:
            return
        outcome = record if isinstance(record, GameOutcome) else GameOutcome.of(record)
        first = self._waiting.pop(other, None)
        if first is None:
            self._waiting[record.number] = outcome
        elif first.result in SCORED and outcome.result in SCORED:
            self.ptnml = self.ptnml.add(pair_score((first, outcome), self.engine))
        else:
            self.unscored += 1


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

    def __init__(self, engines: Iterable[str] = (), partner: Callable[[int], int | None] | None = None) -> None:
        """``partner`` (a match's: each game's other game of its colour-reversed pair) makes the
        summary's Ptnml line, from the first engine's view."""
        self.engines: dict[str, EngineTally] = {name: EngineTally() for name in engines}
        self.pairs: dict[tuple[str, str], Results] = {}
        self.colours = Results()  # White's results against Black
        self.terminations: Counter[str] = Counter()
        self.unfinished = 0
        first = next(iter(self.engines), None)
        self.paired = PairCounter(first, partner) if partner is not None and first is not None else None

    def add(self, record: GameRecord | GameOutcome) -> None:
        """Count a finished game; its result is all that is read (never its moves)."""
        self.terminations[record.termination.label] += 1
        if self.paired is not None:
            self.paired.add(record)
        if record.result not in SCORED:
            self.unfinished += 1
            return
        for_white = Results.of_game(record.result, white=True)
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
            self.pair(first, second).fastchess_line(),
            *([self.paired.ptnml.line()] if self.paired is not None else []),
            "",
            *self.table(),
            "",
            self.termination_line(),
        ]
        if self.unfinished:
            lines.append(f"Unfinished games (not scored): {self.unfinished}")
        return lines

    def table(self) -> list[str]:
        """One row per engine: games, wins, losses, draws, score, and W-L (W-L-D once a game was
        drawn) as White and as Black."""
        width = max([len("Engine"), *map(len, self.engines)])
        draws = self.colours.draws > 0
        split = "W-L-D" if draws else "W-L"
        colour = len(f"White {split}")
        rows = [f"{'Engine':<{width}}  Games  Wins  Losses  Draws   Score  White {split}  Black {split}"]
        for name, tally in self.engines.items():
            total = tally.total
            percent = f"{100 * total.points / total.games:.1f}%" if total.games else "-"
            rows.append(
                f"{name:<{width}}  {total.games:>5}  {total.wins:>4}  {total.losses:>6}  {total.draws:>5}  {percent:>6}"
                f"  {tally.white.text(draws):>{colour}}  {tally.black.text(draws):>{colour}}"
            )
        return rows
