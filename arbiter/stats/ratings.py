"""Ratings of a pool of engines: a Bradley-Terry fit with a first-move advantage, confidence
intervals, likelihood of superiority, a per-colour crosstable, and the text tables.

The model
    Every finished game between White ``w`` and Black ``b`` is a Bernoulli trial with
    ``P(White wins) = 1 / (1 + 10 ** (-(r_w - r_b + adv) / 400))``: the logistic Elo scale,
    with ``adv`` the White (first-move) advantage in Elo, estimated jointly with the ratings
    (``advantage=False`` drops it and fits the plain Bradley-Terry model).  The fit maximises
    the likelihood by Newton-Raphson on the natural log-odds scale (``Elo = 400 / ln 10 *
    log-odds``), with step halving so the likelihood never decreases; it is deterministic and
    takes a handful of iterations.  Games between the same engines with the same colours are
    pooled first, so a fit costs O(N^3) per iteration whatever the number of games.

Draws
    Dipole and Impasse have none, but the fit takes ``1/2-1/2``: a draw counts as half a win
    and half a loss, contributing ``1/2 log p + 1/2 log (1 - p)`` to the log-likelihood (the
    same as scoring it 1/2 point, as the Elo score and Ordo do; there is no draw model).
    Unfinished games (``*``) are left out.

Scale
    Ratings are only determined up to a common shift.  By default the mean rating of the
    rated engines is fixed at 0 (the pool average is fixed, as in Ordo's default; BayesElo
    also centres on 0).  ``anchor=(name, rating)`` fixes that engine's rating instead; it then
    has no error of its own and the others' errors are relative to it.

Errors and likelihood of superiority
    The covariance of the estimates is the inverse of the observed Fisher information (minus
    the Hessian of the log-likelihood at the optimum), transformed to the chosen scale.  A
    95% interval is ``rating +/- 1.96 sd``.  The likelihood of superiority of ``a`` over ``b``
    is ``Phi((r_a - r_b) / sd(r_a - r_b))`` with ``var(r_a - r_b) = C_aa + C_bb - 2 C_ab``,
    which does not depend on the scale chosen, so ``los(a, b) + los(b, a) = 1``.

When the maximum likelihood does not exist
    An engine that won (or lost) every game, a group that beat everyone outside it, pools that
    never met, or colours that won every game in a way the ratings cannot absorb: then the
    likelihood keeps growing as some ratings (or the advantage) go to infinity, or is flat in
    some direction.  This is decided exactly before fitting (Albert and Anderson's
    separation condition): with the advantage direction fixed at 0 it is Zermelo's condition,
    the graph "a scored against b" must be strongly connected; with the advantage direction
    at +1 or -1 it is a system of difference constraints on the ratings, which has a solution
    (separation) exactly when its constraint graph has no negative cycle (Bellman-Ford).

    Only in that case is the fit regularised, BayesElo style, with virtual draws: every rated
    engine gets ``prior_games`` (default 1) virtual drawn games, half as White and half as
    Black, against a reference player whose rating is a free parameter of the fit.  Unlike a
    prior centred on a fixed number, this keeps the fit invariant under a common shift; unlike
    BayesElo's draws between opponents, it also ties together pools that never met, and the
    drawn games with both colours bound the advantage.  The result is the posterior mode under
    that prior, and the intervals come from the penalised information (the posterior
    curvature).  One virtual game per engine is small against any real sample, so it moves
    the well-determined ratings very little, while two engines of which one won all ``N``
    games end up about ``400 log10(2N)`` apart (for large ``N``) instead of infinitely far.
    ``always_prior=True`` applies the prior in every case.

    Engines whose rating rests on the prior are flagged: ``all wins``, ``all losses``, or
    ``separated`` (its group, a strongly connected component of the "scored against" graph,
    won or lost every game against the rest).  Engines of the largest component, when it is
    unique, are not flagged: their differences are determined by the results.  When the
    advantage is unbounded by the results its estimate is flagged ``prior``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

from ..records.game import BLACK_WINS, DRAW, UNFINISHED, WHITE_WINS
from .tallies import Z_95, GameResult, Results

ELO_PER_LOGIT = 400 / math.log(10)  # Elo points per unit of natural log-odds
DEFAULT_PRIOR_GAMES = 1.0

FLAG_ALL_WINS = "all wins"
FLAG_ALL_LOSSES = "all losses"
FLAG_SEPARATED = "separated"
FLAG_PRIOR = "prior"

_STEP_TOLERANCE = 1e-10  # Newton stops once no parameter moves more than this (log-odds)
_MAX_ITERATIONS = 200
_TALLY_SLOT = {WHITE_WINS: 0, BLACK_WINS: 1, DRAW: 2}  # where a result counts in White's [wins, losses, draws]


class RatingError(ValueError):
    """Input the fit cannot use: an unknown result text, an anchor that is not a rated engine."""


@dataclass(frozen=True)
class PairResults:
    """One engine's results against one opponent: as White, and as Black."""

    as_white: Results
    as_black: Results

    @property
    def total(self) -> Results:
        return self.as_white + self.as_black


_NO_GAMES = PairResults(Results(), Results())


@dataclass(frozen=True)
class Crosstable:
    """Results by pairing and colour.  ``cells[(a, b)].as_white`` is a's record as White
    against b; only pairs that played are present."""

    engines: tuple[str, ...]
    cells: Mapping[tuple[str, str], PairResults]

    def cell(self, first: str, second: str) -> PairResults:
        return self.cells.get((first, second), _NO_GAMES)

    @cached_property
    def has_draws(self) -> bool:
        return any(cell.total.draws for cell in self.cells.values())

    def cell_text(self, first: str, second: str) -> str:
        """``3-1/2-2``: first's results as White / as Black against second; ``.`` if they never met."""
        cell = self.cells.get((first, second))
        if cell is None:
            return "."
        draws = self.has_draws
        return f"{cell.as_white.text(draws)}/{cell.as_black.text(draws)}"


@dataclass(frozen=True)
class EngineRating:
    """One engine's line in the standings.  Points count a win 1 and a draw 1/2; ``opponents``
    is the mean rating of the opponents it met, weighted by games; ``flag`` is empty unless
    the rating rests on the prior (see the module docstring)."""

    rank: int
    name: str
    rating: float
    ci_low: float
    ci_high: float
    games: int
    score: float
    white_games: int
    white_score: float
    black_games: int
    black_score: float
    opponents: float
    flag: str = ""

    @property
    def error(self) -> float:
        """Half the width of the 95% interval."""
        return (self.ci_high - self.ci_low) / 2

    @property
    def percent(self) -> float:
        return 100 * self.score / self.games

    @property
    def white_percent(self) -> float | None:
        return 100 * self.white_score / self.white_games if self.white_games else None

    @property
    def black_percent(self) -> float | None:
        return 100 * self.black_score / self.black_games if self.black_games else None


@dataclass(frozen=True)
class Estimate:
    """A fitted value (Elo) with its 95% interval; ``flag`` is ``prior`` when the results
    alone leave it unbounded."""

    value: float
    ci_low: float
    ci_high: float
    flag: str = ""

    @property
    def error(self) -> float:
        return (self.ci_high - self.ci_low) / 2

    def text(self) -> str:
        flag = f"  [{self.flag}]" if self.flag else ""
        return f"{self.value:+.1f} +/- {self.error:.1f} (95% CI {self.ci_low:+.1f} .. {self.ci_high:+.1f}){flag}"


@dataclass(frozen=True)
class RatingTable:
    """The result of ``fit_ratings``.

    ``rows`` are sorted best first; ``covariance[i][j]`` is the covariance (Elo squared) of
    the ratings of ``rows[i]`` and ``rows[j]`` on the chosen scale.  ``white_advantage`` is
    None when it was not fitted.  ``prior_games`` is the virtual games per engine that were
    applied (0 when the plain maximum-likelihood estimate exists and was used).  ``unrated``
    names engines that were given but have no finished game.  ``notes`` explains flags.
    """

    rows: tuple[EngineRating, ...]
    white_advantage: Estimate | None
    crosstable: Crosstable
    covariance: tuple[tuple[float, ...], ...]
    anchor: tuple[str, float] | None
    prior_games: float
    games: int
    white_points: float
    unrated: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(row.name for row in self.rows)

    def row(self, name: str) -> EngineRating:
        return self.rows[self._position(name)]

    @cached_property
    def _positions(self) -> dict[str, int]:
        return {row.name: position for position, row in enumerate(self.rows)}

    def _position(self, name: str) -> int:
        position = self._positions.get(name)
        if position is None:
            raise RatingError(f"no rated engine named {name!r}")
        return position

    def difference_sd(self, first: str, second: str) -> float:
        """The standard deviation (Elo) of ``rating(first) - rating(second)``."""
        i, j = self._position(first), self._position(second)
        c = self.covariance
        return math.sqrt(max(0.0, c[i][i] + c[j][j] - 2 * c[i][j]))

    def los(self, first: str, second: str) -> float:
        """The likelihood (0..1) that ``first`` is stronger than ``second``."""
        if first == second:
            return 0.5
        difference = self.row(first).rating - self.row(second).rating
        sd = self.difference_sd(first, second)
        if sd == 0:
            return 0.5 if difference == 0 else float(difference > 0)
        return 0.5 * math.erfc(-difference / (sd * math.sqrt(2)))

    def scale_text(self) -> str:
        if self.anchor is not None:
            return f"{self.anchor[0]} anchored at {self.anchor[1]:g}"
        return "pool average fixed at 0"

    def standings_lines(self) -> list[str]:
        """Ordo-style standings: rank, engine, rating, error, interval, points, games, per colour."""
        width = max([len("ENGINE"), *(len(row.name) for row in self.rows)])
        lines = [
            f"{'#':>4} {'ENGINE':<{width}}  {'RATING':>7}  {'ERROR':>6}  {'95% CI':^17}  {'POINTS':>7}"
            f"  {'PLAYED':>6}  {'(%)':>5}  {'WHITE%':>6}  {'BLACK%':>6}  {'OPPO.':>7}  FLAG"
        ]
        for row in self.rows:
            interval = f"[{row.ci_low:7.1f},{row.ci_high:7.1f}]"
            lines.append(
                f"{row.rank:>4} {row.name:<{width}}  {row.rating:7.1f}  {row.error:6.1f}  {interval:^17}"
                f"  {row.score:7.1f}  {row.games:>6}  {row.percent:5.1f}  {_percent(row.white_percent):>6}"
                f"  {_percent(row.black_percent):>6}  {row.opponents:7.1f}  {row.flag}".rstrip()
            )
        return lines

    def crosstable_lines(self) -> list[str]:
        """Rows and columns numbered by rank; a cell is the row engine's W-L as White / as Black."""
        cells = [[self.crosstable.cell_text(a, b) if a != b else "-" for b in self.names] for a in self.names]
        return self._matrix_lines(cells)

    def los_lines(self) -> list[str]:
        """The likelihood of superiority of the row engine over the column engine, in percent."""
        cells = [[f"{100 * self.los(a, b):.0f}" if a != b else "-" for b in self.names] for a in self.names]
        return self._matrix_lines(cells)

    def _matrix_lines(self, cells: list[list[str]]) -> list[str]:
        width = max([len("ENGINE"), *(len(name) for name in self.names)])
        column = max([len(str(len(self.rows))), *(len(text) for line in cells for text in line)])
        header = f"{'#':>4} {'ENGINE':<{width}}" + "".join(
            f"  {rank:>{column}}" for rank in range(1, len(self.rows) + 1)
        )
        lines = [header]
        for row, line in zip(self.rows, cells):
            lines.append(f"{row.rank:>4} {row.name:<{width}}" + "".join(f"  {text:>{column}}" for text in line))
        return lines

    def summary_lines(self) -> list[str]:
        """What the standings leave out: the White advantage, White's score, the notes on the
        prior, the engines not rated."""
        lines = []
        if self.white_advantage is not None:
            lines.append(f"White advantage: {self.white_advantage.text()}")
        if self.games:
            lines.append(
                f"White scored {self.white_points:g} of {self.games} ({100 * self.white_points / self.games:.1f}%)"
            )
        lines += self.notes
        if self.unrated:
            lines.append(f"Not rated (no finished games): {', '.join(self.unrated)}")
        return lines

    def text(self) -> str:
        """Standings, White advantage, notes, crosstable and LOS matrix, as Ordo/BayesElo print them."""
        if not self.rows:
            return "No finished games: nothing to rate.\n"
        model = "with a White advantage term" if self.white_advantage is not None else "without a colour term"
        parts = [f"Bradley-Terry ratings {model}, {self.games} games, {self.scale_text()}", ""]
        parts += self.standings_lines()
        parts.append("")
        parts += self.summary_lines()
        parts += ["", "Crosstable (row engine's W-L as White / as Black against the column engine)"]
        parts += self.crosstable_lines()
        parts += ["", "Likelihood of superiority (%, row engine stronger than column engine)"]
        parts += self.los_lines()
        return "\n".join(parts) + "\n"


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


MAX_ANCHOR = 1_000_000  # beyond this, a rating's float loses the precision the fit needs


def parse_anchor(text: str) -> tuple[str, float]:
    """``NAME=RATING`` (the name may itself contain ``=``; the last one splits)."""
    name, sep, value = text.rpartition("=")
    if not sep or not name:
        raise RatingError(f"anchor {text!r} is not NAME=RATING")
    try:
        rating = float(value)
    except ValueError:
        raise RatingError(f"anchor {text!r}: rating {value!r} is not a number") from None
    if not math.isfinite(rating):
        raise RatingError(f"anchor {text!r}: rating must be finite")
    if abs(rating) > MAX_ANCHOR:
        raise RatingError(f"anchor {text!r}: rating must be from {-MAX_ANCHOR:,} to {MAX_ANCHOR:,}")
    return name, rating


def fit_ratings(
    games: Iterable[GameResult],
    *,
    engines: Sequence[str] = (),
    anchor: tuple[str, float] | None = None,
    advantage: bool = True,
    prior_games: float = DEFAULT_PRIOR_GAMES,
    always_prior: bool = False,
) -> RatingTable:
    """Fit ratings to ``games`` (results ``1-0``, ``0-1``, ``1/2-1/2``; ``*`` is skipped).

    ``engines`` names engines to report even without a finished game (they go to ``unrated``).
    ``anchor=(name, rating)`` fixes that engine's rating, else the pool average is 0.
    ``advantage`` fits the White advantage term.  ``prior_games`` is the weight of the
    regularising prior, applied only when the plain estimate does not exist unless
    ``always_prior`` (module docstring).  Raises RatingError for an unknown result text or an
    anchor that is not a rated engine."""
    if not prior_games > 0 or not math.isfinite(prior_games):
        raise RatingError(f"prior_games must be a positive number, not {prior_games}")
    names = list(dict.fromkeys(engines))
    seen = set(names)
    counts: dict[tuple[str, str], list[int]] = {}  # (white, black) -> White's [wins, losses, draws]
    for game in games:
        for name in (game.white, game.black):
            if name not in seen:
                seen.add(name)
                names.append(name)
        if game.result == UNFINISHED:
            continue
        slot = _TALLY_SLOT.get(game.result)
        if slot is None:
            raise RatingError(f"game {game.white} vs {game.black}: unknown result {game.result!r}")
        counts.setdefault((game.white, game.black), [0, 0, 0])[slot] += 1
    results = {key: Results(*value) for key, value in counts.items()}
    played = {name for pair in results for name in pair}
    rated = [name for name in names if name in played]
    unrated = tuple(name for name in names if name not in played)
    crosstable = _crosstable(rated, results)
    if anchor is not None and anchor[0] not in played:
        what = "has no finished games" if anchor[0] in seen else "is not among the engines"
        raise RatingError(f"anchor engine {anchor[0]!r} {what}")
    if not rated:
        return RatingTable((), None, crosstable, (), anchor, 0.0, 0, 0.0, unrated)

    index = {name: i for i, name in enumerate(rated)}
    cells = {(index[w], index[b]): tally for (w, b), tally in results.items()}
    n = len(rated)
    scored = {(i, j) for (i, j), t in cells.items() if t.wins or t.draws}  # White scored against Black
    scored |= {(j, i) for (i, j), t in cells.items() if t.losses or t.draws}  # Black scored against White
    components = _strong_components(n, scored)
    advantage_unbounded = advantage and any(_advantage_unbounded(n, cells, sign) for sign in (1, -1))
    needs_prior = len(components) > 1 or advantage_unbounded
    weight = prior_games if needs_prior or always_prior else 0.0

    pooled = [(w, b, float(t.games), t.points) for (w, b), t in sorted(cells.items())]
    players = n
    if weight:
        # the reference player is number n; each engine meets it weight/2 times with each colour
        pooled += [(i, n, weight / 2, weight / 4) for i in range(n)] + [
            (n, i, weight / 2, weight / 4) for i in range(n)
        ]
        players = n + 1
    theta, covariance = _newton(players, pooled, advantage)

    flags = _flags(rated, components, results)
    shift, weights = _scale(rated, theta, anchor)
    ratings = [ELO_PER_LOGIT * theta[i] - shift for i in range(n)]
    cov = _scaled_covariance(covariance, weights, n)
    rows = _rows(rated, ratings, cov, results, flags)
    order = [rated.index(row.name) for row in rows]
    ordered_cov = tuple(tuple(cov[i][j] for j in order) for i in order)

    white_advantage = None
    if advantage:
        a = players
        sd = ELO_PER_LOGIT * math.sqrt(max(0.0, covariance[a][a]))
        value = ELO_PER_LOGIT * theta[a]
        white_advantage = Estimate(
            value, value - Z_95 * sd, value + Z_95 * sd, FLAG_PRIOR if advantage_unbounded else ""
        )
    total_games = sum(t.games for t in results.values())
    white_points = sum(t.points for t in results.values())
    notes = _notes(weight, needs_prior, flags, advantage_unbounded)
    return RatingTable(
        rows, white_advantage, crosstable, ordered_cov, anchor, weight, total_games, white_points, unrated, notes
    )


def _crosstable(rated: list[str], results: Mapping[tuple[str, str], Results]) -> Crosstable:
    cells: dict[tuple[str, str], PairResults] = {}
    for white, black in results:
        for first, second in {(white, black), (black, white)}:
            as_white = results.get((first, second), Results())
            as_black = results.get((second, first), Results()).reversed()
            cells[(first, second)] = PairResults(as_white, as_black)
    return Crosstable(tuple(rated), cells)


def _strong_components(n: int, edges: set[tuple[int, int]]) -> list[list[int]]:
    """The strongly connected components of a directed graph on 0..n-1, each sorted, in order
    of their smallest member (transitive closure: n is at most a few dozen)."""
    reach = [[i == j or (i, j) in edges for j in range(n)] for i in range(n)]
    for k in range(n):
        via = reach[k]
        for i in range(n):
            if reach[i][k]:
                row = reach[i]
                for j in range(n):
                    if via[j]:
                        row[j] = True
    components: list[list[int]] = []
    placed: set[int] = set()
    for i in range(n):
        if i not in placed:
            component = [j for j in range(n) if reach[i][j] and reach[j][i]]
            placed.update(component)
            components.append(component)
    return components


def _advantage_unbounded(n: int, cells: Mapping[tuple[int, int], Results], sign: int) -> bool:
    """True if some ratings ``r`` make every game's margin ``r_w - r_b + sign`` agree with its
    result (>= 0 when White scored, <= 0 when Black scored): the likelihood then grows without
    bound along the advantage direction ``sign``.  As difference constraints, White scoring
    gives ``r_b - r_w <= sign`` and Black scoring ``r_w - r_b <= -sign``; they have a
    solution exactly when the graph with an edge u->v of weight c per ``r_v - r_u <= c`` has
    no negative cycle."""
    edges = []
    for (white, black), tally in cells.items():
        if tally.wins or tally.draws:
            edges.append((white, black, sign))
        if tally.losses or tally.draws:
            edges.append((black, white, -sign))
    distance = [0] * n  # shortest distances from a virtual source joined to every node by 0
    for _ in range(n + 1):
        changed = False
        for u, v, weight in edges:
            if distance[u] + weight < distance[v]:
                distance[v] = distance[u] + weight
                changed = True
        if not changed:
            return True
    return False


def _newton(
    players: int, pooled: list[tuple[int, int, float, float]], advantage: bool
) -> tuple[list[float], list[list[float]]]:
    """Maximise the log-likelihood of ``pooled`` (white, black, games, White's points) over
    log-odds strengths ``theta[0..players-1]`` and, if ``advantage``, ``theta[players]``.
    ``theta[0]`` is held at 0 (the shift is fixed later).  Returns theta and its covariance
    (the inverse information, with zeros in row and column 0)."""
    size = players + (1 if advantage else 0)
    theta = [0.0] * size
    log_likelihood = _log_likelihood(theta, pooled, players, advantage)
    for _ in range(_MAX_ITERATIONS):
        gradient, information = _derivatives(theta, pooled, players, advantage)
        factor = _cholesky([row[1:] for row in information[1:]])
        step = [0.0, *_cholesky_solve(factor, gradient[1:])]
        scale = 1.0
        while True:
            candidate = [t + scale * s for t, s in zip(theta, step)]
            value = _log_likelihood(candidate, pooled, players, advantage)
            # the step is an ascent direction (the information is positive definite), so some
            # fraction of it raises the likelihood; the slack absorbs rounding at the optimum
            if value >= log_likelihood - 1e-12 * (1 + abs(log_likelihood)) or scale < 1e-12:
                break
            scale /= 2
        theta, log_likelihood = candidate, value
        if max(abs(scale * s) for s in step) < _STEP_TOLERANCE:
            break
    else:
        raise ArithmeticError("the rating fit did not converge")
    _, information = _derivatives(theta, pooled, players, advantage)
    inverse = _cholesky_inverse(_cholesky([row[1:] for row in information[1:]]))
    covariance = [[0.0] * size] + [[0.0, *row] for row in inverse]
    return theta, covariance


def _margin(theta: list[float], white: int, black: int, players: int, advantage: bool) -> float:
    return theta[white] - theta[black] + (theta[players] if advantage else 0.0)


def _log_likelihood(
    theta: list[float], pooled: list[tuple[int, int, float, float]], players: int, advantage: bool
) -> float:
    total = 0.0
    for white, black, games, points in pooled:
        margin = _margin(theta, white, black, players, advantage)
        total += points * _log_sigmoid(margin) + (games - points) * _log_sigmoid(-margin)
    return total


def _derivatives(
    theta: list[float], pooled: list[tuple[int, int, float, float]], players: int, advantage: bool
) -> tuple[list[float], list[list[float]]]:
    """The gradient of the log-likelihood and the information (minus its Hessian)."""
    size = len(theta)
    gradient = [0.0] * size
    information = [[0.0] * size for _ in range(size)]
    a = players
    for white, black, games, points in pooled:
        p = _sigmoid(_margin(theta, white, black, players, advantage))
        residual = points - games * p
        weight = games * p * (1 - p)
        gradient[white] += residual
        gradient[black] -= residual
        information[white][white] += weight
        information[black][black] += weight
        information[white][black] -= weight
        information[black][white] -= weight
        if advantage:
            gradient[a] += residual
            information[a][a] += weight
            information[a][white] += weight
            information[white][a] += weight
            information[a][black] -= weight
            information[black][a] -= weight
    return gradient, information


def _sigmoid(x: float) -> float:
    if x >= 0:
        return 1 / (1 + math.exp(-x))
    e = math.exp(x)
    return e / (1 + e)


def _log_sigmoid(x: float) -> float:
    return -math.log1p(math.exp(-x)) if x >= 0 else x - math.log1p(math.exp(x))


def _cholesky(matrix: list[list[float]]) -> list[list[float]]:
    """The lower-triangular L with L L^T = matrix (symmetric positive definite)."""
    n = len(matrix)
    lower = [[0.0] * n for _ in range(n)]
    for i in range(n):
        row = lower[i]
        for j in range(i + 1):
            other = lower[j]
            total = matrix[i][j] - sum(row[k] * other[k] for k in range(j))
            if i == j:
                if total <= 0:
                    raise ArithmeticError("the information matrix of the rating fit is singular")
                row[i] = math.sqrt(total)
            else:
                row[j] = total / other[j]
    return lower


def _cholesky_solve(lower: list[list[float]], b: Sequence[float]) -> list[float]:
    """x with L L^T x = b."""
    n = len(lower)
    y = [0.0] * n
    for i in range(n):
        y[i] = (b[i] - sum(lower[i][k] * y[k] for k in range(i))) / lower[i][i]
    x = [0.0] * n
    for i in reversed(range(n)):
        x[i] = (y[i] - sum(lower[k][i] * x[k] for k in range(i + 1, n))) / lower[i][i]
    return x


def _cholesky_inverse(lower: list[list[float]]) -> list[list[float]]:
    """(L L^T)^-1, column by column."""
    n = len(lower)
    columns = [_cholesky_solve(lower, [1.0 if i == j else 0.0 for i in range(n)]) for j in range(n)]
    return [[columns[j][i] for j in range(n)] for i in range(n)]


def _scale(rated: list[str], theta: list[float], anchor: tuple[str, float] | None) -> tuple[float, list[float]]:
    """The Elo shift that puts the ratings on the chosen scale, and the weights w with
    ``rating_i = Elo(theta_i) - sum_j w_j Elo(theta_j) + offset`` (what the errors need)."""
    n = len(rated)
    if anchor is None:
        weights = [1 / n] * n
        offset = 0.0
    else:
        weights = [1.0 if name == anchor[0] else 0.0 for name in rated]
        offset = anchor[1]
    return sum(w * ELO_PER_LOGIT * theta[i] for i, w in enumerate(weights)) - offset, weights


def _scaled_covariance(covariance: list[list[float]], weights: list[float], n: int) -> list[list[float]]:
    """The covariance (Elo^2) of ``r = T theta`` with ``T = I - 1 w^T`` on the first n entries."""
    c = [[ELO_PER_LOGIT**2 * covariance[i][j] for j in range(n)] for i in range(n)]
    cw = [sum(c[i][j] * weights[j] for j in range(n)) for i in range(n)]
    wcw = sum(weights[i] * cw[i] for i in range(n))
    return [[c[i][j] - cw[i] - cw[j] + wcw for j in range(n)] for i in range(n)]


def _flags(rated: list[str], components: list[list[int]], results: Mapping[tuple[str, str], Results]) -> dict[str, str]:
    """The flag of every engine whose rating rests on the prior (module docstring)."""
    if len(components) == 1:
        return {}
    sizes = sorted((len(c) for c in components), reverse=True)
    largest = max(range(len(components)), key=lambda k: len(components[k])) if sizes[0] > sizes[1] else -1
    flags = {}
    for k, component in enumerate(components):
        if k == largest:
            continue
        for i in component:
            name = rated[i]
            against_others = sum(
                (t if w == name else t.reversed() for (w, b), t in results.items() if name in (w, b) and w != b),
                Results(),
            )
            if against_others.games and against_others.wins == against_others.games:
                flags[name] = FLAG_ALL_WINS
            elif against_others.games and against_others.losses == against_others.games:
                flags[name] = FLAG_ALL_LOSSES
            else:
                flags[name] = FLAG_SEPARATED
    return flags


def _rows(
    rated: list[str],
    ratings: list[float],
    cov: list[list[float]],
    results: Mapping[tuple[str, str], Results],
    flags: Mapping[str, str],
) -> tuple[EngineRating, ...]:
    by_name = dict(zip(rated, ratings))
    unsorted = []
    for i, name in enumerate(rated):
        as_white = sum((t for (w, _), t in results.items() if w == name), Results())
        as_black = sum((t.reversed() for (_, b), t in results.items() if b == name), Results())
        opponent_games = [(b if w == name else w, t.games) for (w, b), t in results.items() if name in (w, b)]
        games = as_white.games + as_black.games
        opponents = sum(by_name[o] * g for o, g in opponent_games) / sum(g for _, g in opponent_games)
        half_width = Z_95 * math.sqrt(max(0.0, cov[i][i]))
        unsorted.append((name, ratings[i], half_width, games, as_white, as_black, opponents))
    unsorted.sort(key=lambda item: (-item[1], item[0]))
    return tuple(
        EngineRating(
            rank,
            name,
            rating,
            rating - half,
            rating + half,
            games,
            white.points + black.points,
            white.games,
            white.points,
            black.games,
            black.points,
            opponents,
            flags.get(name, ""),
        )
        for rank, (name, rating, half, games, white, black, opponents) in enumerate(unsorted, 1)
    )


def _notes(weight: float, needed: bool, flags: Mapping[str, str], advantage_unbounded: bool) -> tuple[str, ...]:
    if not weight:
        return ()
    why = []
    if flags:
        why.append("some ratings")
    if advantage_unbounded:
        why.append("the White advantage")
    reason = (
        f"the results leave {' and '.join(why) or 'the ratings'} unbounded, so every engine got"
        if needed
        else "requested: every engine got"
    )
    notes = [
        f"Prior ({reason} {weight:g} virtual drawn game(s), half as White and half as Black, "
        "against a reference player of free rating)."
    ]
    if flags:
        notes.append(
            "Flagged ratings rest on that prior: " + ", ".join(f"{name} ({flag})" for name, flag in flags.items()) + "."
        )
    return tuple(notes)
