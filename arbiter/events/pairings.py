"""Tournament formats whose later rounds depend on earlier results: ``knockout`` and ``swiss``.

Round-robin and gauntlet schedules are planned whole before the first game
(:func:`arbiter.events.tournament.make_schedule`).  These two are planned one stage at a time: a stage
is the games of a round, or a knockout's tie-break games, and the next stage is planned only
when every game of the schedule so far has finished.  :func:`plan_event` is a pure function of
the event's settings, its schedule so far and the results, so the same results always give the
same next stage: an event killed (even with SIGKILL) between stages plans exactly the stage it
would have played, and one killed within a stage first finishes it.  Each stage is added to the
event database in one transaction before any of its games starts.

Encounters
    Two engines play ``games_per_pairing`` games as colour-reversed pairs sharing an opening,
    the encounter's first engine White in the first game of each pair (an odd last game is a
    single game with the first engine White).  Every encounter of a stage uses the same
    openings; each stage continues the openings list where the previous one stopped (cycling).

Knockout
    Engines are seeded in the order given (seed 1 first).  The bracket is the standard one for
    the next power of two (1 meets the lowest seed, and 1 and 2 can meet only in the final);
    the places beyond the last engine are byes, so the top seeds go through round 1 without
    playing.  In each encounter the higher seed is the first engine.  The engine with more
    points goes through.  Tie-break rule: a tied encounter plays one more colour-reversed pair
    (fresh opening), and again while still tied, at most :data:`TIEBREAK_PAIRS` pairs; if it is
    tied after those, the higher seed goes through.  A game without a result (``*``) scores
    nothing for either engine.

Swiss
    ``rounds`` rounds.  Before each round the engines are ranked by points (then seed); from
    the top, each engine is paired with the highest-ranked engine it has not met yet, with
    backtracking, so that everyone is paired without a rematch whenever that is possible (only
    when it is not, as in more rounds than opponents, are rematches allowed).  With an odd
    number of engines the lowest-ranked engine that has not had a bye sits out and scores as
    if it had won all its games (a full-point bye).  Colours: the engine that has played White
    less often (then the one that was Black in its last game, then the higher-ranked) is the
    encounter's first engine.  Final standings: points, then Buchholz (the sum of the points of
    the opponents met), then seed.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from markupsafe import Markup

from ..records.game import BLACK_WINS, DRAW, WHITE_WINS
from ..report.render import render
from .store import EventConfig, EventStore, ScheduledGame

DYNAMIC_FORMATS = ("knockout", "swiss")
TIEBREAK_PAIRS = 3  # at most this many tie-break pairs per knockout encounter
SEARCH_BUDGET = 200_000  # Swiss pairings tried per round before rematches are allowed


@dataclass(frozen=True)
class EventShape:
    """What planning needs of an event: its format, engine names, rounds, games per encounter
    and the length of its openings list."""

    format: str
    names: tuple[str, ...]
    rounds: int
    games_per_pairing: int
    openings: int

    @classmethod
    def of(cls, config: EventConfig) -> EventShape:
        """The shape of the event ``config`` describes."""
        names = tuple(spec.name for spec in config.engines)
        return cls(config.format, names, config.rounds, config.games_per_pairing, len(config.openings))


@dataclass
class Encounter:
    """Two engines' games in one round (``second`` None: ``first`` has a bye)."""

    round: int
    board: int
    first: int
    second: int | None
    games: list[ScheduledGame] = field(default_factory=list)
    points: tuple[float, float] = (0.0, 0.0)
    finished: bool = False
    advances: int | None = None  # knockout: who goes through, once decided
    note: str = ""


@dataclass
class Plan:
    """The event so far by round, and what to do next: ``next_games`` to schedule (a new
    stage), or nothing when ``complete`` or while a stage is still being played."""

    rounds: list[list[Encounter]]
    next_games: list[ScheduledGame]
    complete: bool
    standings: list[tuple[int, float, float]] = field(default_factory=list)  # swiss: (engine, points, Buchholz)

    @property
    def champion(self) -> int | None:
        """The knockout winner, once the final is decided."""
        if not self.complete or not self.rounds or len(self.rounds[-1]) != 1:
            return None
        return self.rounds[-1][0].advances


def knockout_rounds(engines: int) -> int:
    """Rounds of a knockout of ``engines`` (the bracket is the next power of two)."""
    rounds, size = 0, 1
    while size < engines:
        size *= 2
        rounds += 1
    return rounds


def openings_needed(format_: str, engines: int, rounds: int, games_per_pairing: int) -> int:
    """How many openings to generate so that no stage repeats one."""
    pairs = (games_per_pairing + 1) // 2
    if format_ == "knockout":
        return knockout_rounds(engines) * (pairs + TIEBREAK_PAIRS)
    return rounds * pairs


def bracket_order(size: int) -> list[int]:
    """Seed indexes (0 = seed 1) in bracket order for a power-of-two ``size``: neighbours meet in
    round 1, and seeds 1 and 2 only in the final (``[0, 3, 1, 2]`` for 4)."""
    order = [0]
    while len(order) < size:
        span = 2 * len(order) - 1
        order = [seed for top in order for seed in (top, span - top)]
    return order


def _points(game: ScheduledGame, results: dict[int, str]) -> tuple[float, float]:
    """(White's, Black's) points of a finished game (a draw gives each half, ``*`` nothing)."""
    result = results[game.number]
    if result == DRAW:
        return (0.5, 0.5)
    return (1.0, 0.0) if result == WHITE_WINS else (0.0, 1.0) if result == BLACK_WINS else (0.0, 0.0)


def _score(encounter: Encounter, results: dict[int, str]) -> None:
    """Fill in the encounter's points and whether all its games have finished."""
    first = second = 0.0
    for game in encounter.games:
        if game.number not in results:
            encounter.finished = False
            return
        white, black = _points(game, results)
        if game.white == encounter.first:
            first, second = first + white, second + black
        else:
            first, second = first + black, second + white
    encounter.points = (first, second)
    encounter.finished = True


class _Stage:
    """Builds the games of one stage, continuing the schedule's numbering, pairs and openings."""

    def __init__(self, schedule: list[ScheduledGame], openings: int) -> None:
        self.games: list[ScheduledGame] = []
        self.number = len(schedule)
        self.pair = max((game.pair for game in schedule), default=0)
        self.opening = (schedule[-1].opening + 1) % openings if schedule else 0
        self.openings = openings

    def add(self, encounters: list[Encounter], games_per_pairing: int) -> list[ScheduledGame]:
        for k in range((games_per_pairing + 1) // 2):
            opening = (self.opening + k) % self.openings
            in_pair = 2 if 2 * k + 1 < games_per_pairing else 1
            for encounter in encounters:
                assert encounter.second is not None
                self.pair += 1
                orders = [(encounter.first, encounter.second), (encounter.second, encounter.first)]
                for white, black in orders[:in_pair]:
                    self.number += 1
                    self.games.append(
                        ScheduledGame(self.number, encounter.round, encounter.board, self.pair, white, black, opening)
                    )
        return self.games


def plan_event(shape: EventShape, schedule: list[ScheduledGame], results: dict[int, str]) -> Plan:
    """The event so far and its next stage (see the module docstring); ``results`` maps the
    numbers of finished games to their results."""
    if shape.format == "knockout":
        return _plan_knockout(shape, schedule, results)
    if shape.format == "swiss":
        return _plan_swiss(shape, schedule, results)
    raise ValueError(f"{shape.format} is planned whole, not by stages")


def _by_round(schedule: list[ScheduledGame]) -> dict[int, dict[int, list[ScheduledGame]]]:
    grouped: dict[int, dict[int, list[ScheduledGame]]] = defaultdict(lambda: defaultdict(list))
    for game in schedule:
        grouped[game.round][game.pairing].append(game)
    return grouped


def _plan_knockout(shape: EventShape, schedule: list[ScheduledGame], results: dict[int, str]) -> Plan:
    engines = len(shape.names)
    size = 2 ** knockout_rounds(engines)
    entrants: list[int | None] = [seed if seed < engines else None for seed in bracket_order(size)]
    stored = _by_round(schedule)
    rounds: list[list[Encounter]] = []
    stage = _Stage(schedule, shape.openings)
    per_pairing = shape.games_per_pairing
    for number in range(1, knockout_rounds(engines) + 1):
        planned = number in stored
        encounters = []
        for board in range(len(entrants) // 2):
            a, b = entrants[2 * board], entrants[2 * board + 1]
            if a is None or b is None:
                present = a if b is None else b
                assert present is not None  # the bracket never pairs two byes
                encounters.append(Encounter(number, board, present, None, finished=True, advances=present, note="bye"))
            else:
                first, second = min(a, b), max(a, b)  # the higher seed first
                encounters.append(Encounter(number, board, first, second, stored[number][board] if planned else []))
        rounds.append(encounters)
        playing = [encounter for encounter in encounters if encounter.second is not None]
        if not planned:
            return Plan(rounds, stage.add(playing, per_pairing), complete=False)
        for encounter in playing:
            _score(encounter, results)
        if not all(encounter.finished for encounter in playing):
            return Plan(rounds, [], complete=False)
        tied = []
        for encounter in playing:
            first_points, second_points = encounter.points
            tiebreaks = (len(encounter.games) - per_pairing + 1) // 2
            if tiebreaks:
                encounter.note = f"after {tiebreaks} tie-break pair{'s' if tiebreaks != 1 else ''}"
            if first_points != second_points:
                encounter.advances = encounter.first if first_points > second_points else encounter.second
            elif tiebreaks < TIEBREAK_PAIRS:
                tied.append(encounter)
            else:
                encounter.advances = encounter.first
                encounter.note += "; still tied: the higher seed goes through"
        if tied:
            return Plan(rounds, stage.add(tied, 2), complete=False)
        entrants = [encounter.advances for encounter in encounters]
    return Plan(rounds, [], complete=True)


def _plan_swiss(shape: EventShape, schedule: list[ScheduledGame], results: dict[int, str]) -> Plan:
    engines = len(shape.names)
    points = [0.0] * engines
    opponents: list[list[int]] = [[] for _ in range(engines)]
    whites = [0] * engines
    last_black = [False] * engines
    had_bye = [False] * engines
    stored = _by_round(schedule)
    rounds: list[list[Encounter]] = []
    stage = _Stage(schedule, shape.openings)
    for number in range(1, shape.rounds + 1):
        ranking = sorted(range(engines), key=lambda engine: (-points[engine], engine))
        met = {frozenset((engine, other)) for engine in range(engines) for other in opponents[engine]}
        pairs, bye = swiss_pairing(ranking, met, had_bye)
        encounters = []
        if number in stored:  # as it was planned then (the same, since the results are the same)
            for board, games in sorted(stored[number].items()):
                encounters.append(Encounter(number, board, games[0].white, games[0].black, games))
        else:
            for board, (a, b) in enumerate(pairs):
                first, second = (a, b) if _white_first(a, b, whites, last_black) else (b, a)
                encounters.append(Encounter(number, board, first, second))
        if bye is not None:
            encounters.append(Encounter(number, len(encounters), bye, None, finished=True, note="bye"))
        rounds.append(encounters)
        playing = [encounter for encounter in encounters if encounter.second is not None]
        if number not in stored:
            return Plan(rounds, stage.add(playing, shape.games_per_pairing), complete=False)
        for encounter in playing:
            _score(encounter, results)
        if not all(encounter.finished for encounter in playing):
            return Plan(rounds, [], complete=False)
        for encounter in playing:
            assert encounter.second is not None
            pair = (encounter.first, encounter.second)
            for engine, other, scored in zip(pair, reversed(pair), encounter.points):
                points[engine] += scored
                opponents[engine].append(other)
            for game in encounter.games:
                whites[game.white] += 1
                last_black[game.white], last_black[game.black] = False, True
        if bye is not None:
            had_bye[bye] = True
            points[bye] += shape.games_per_pairing
    buchholz = [sum(points[other] for other in opponents[engine]) for engine in range(engines)]
    standings = sorted(
        ((engine, points[engine], buchholz[engine]) for engine in range(engines)),
        key=lambda row: (-row[1], -row[2], row[0]),
    )
    return Plan(rounds, [], complete=True, standings=standings)


def _white_first(a: int, b: int, whites: list[int], last_black: list[bool]) -> bool:
    """Whether ``a`` (the higher-ranked) is the encounter's first engine (see the module)."""
    if whites[a] != whites[b]:
        return whites[a] < whites[b]
    if last_black[a] != last_black[b]:
        return last_black[a]
    return True


def swiss_pairing(
    ranking: list[int], met: set[frozenset[int]], had_bye: list[bool]
) -> tuple[list[tuple[int, int]], int | None]:
    """The round's pairs (higher-ranked first, in board order) and the engine with the bye."""
    odd = len(ranking) % 2 == 1
    candidates: list[int | None] = [None]
    if odd:
        candidates = [engine for engine in reversed(ranking) if not had_bye[engine]] or list(reversed(ranking))
    for allow_rematch in (False, True):
        for bye in candidates:
            players = [engine for engine in ranking if engine != bye]
            budget = [SEARCH_BUDGET]
            pairs = _match(players, met, allow_rematch, budget)
            if pairs is not None:
                return pairs, bye
    raise AssertionError("with rematches allowed a pairing always exists")


def _match(
    players: list[int], met: set[frozenset[int]], allow_rematch: bool, budget: list[int]
) -> list[tuple[int, int]] | None:
    """Pairs for ``players`` (in rank order): the top one with the highest-ranked possible
    opponent, backtracking; None when impossible (or the search budget is spent)."""
    if not players:
        return []
    budget[0] -= 1
    if budget[0] < 0:
        return None
    top, rest = players[0], players[1:]
    for opponent in rest:
        if allow_rematch or frozenset((top, opponent)) not in met:
            tail = _match([engine for engine in rest if engine != opponent], met, allow_rematch, budget)
            if tail is not None:
                return [(top, opponent), *tail]
    return None


# -- showing it ---------------------------------------------------------------------------------
def _encounter_text(encounter: Encounter, names: tuple[str, ...]) -> str:
    first = names[encounter.first]
    if encounter.second is None:
        return f"{first} bye"
    second = names[encounter.second]
    if not encounter.finished:
        return f"{first} - {second} (playing)"
    a, b = encounter.points
    text = f"{first} {a:g}-{b:g} {second}"
    extras = [encounter.note] if encounter.note else []
    if encounter.advances is not None:
        extras.append(f"{names[encounter.advances]} goes through")
    return text + (f" ({', '.join(extras)})" if extras else "")


def plan_lines(shape: EventShape, plan: Plan) -> list[str]:
    """The bracket (knockout) or the pairings and standings (swiss) as text lines."""
    names = shape.names
    lines = [
        f"Round {encounters[0].round}: " + "; ".join(_encounter_text(e, names) for e in encounters)
        for encounters in plan.rounds
        if encounters
    ]
    if plan.champion is not None:
        lines.append(f"Knockout winner: {names[plan.champion]}")
    for place, (engine, points, buchholz) in enumerate(plan.standings, 1):
        lines.append(f"{place:>3}. {names[engine]} {points:g} point{'' if points == 1 else 's'}, Buchholz {buchholz:g}")
    return lines


def plan_html(shape: EventShape, plan: Plan) -> Markup:
    """The same as an HTML section for the report (``templates/plan.html``, every name escaped)."""
    names = shape.names
    title = "Knockout bracket" if shape.format == "knockout" else "Swiss pairings by round"
    # knockout: one row per first-round encounter; an encounter of round r spans the 2^(r-1) rows it comes from
    total = knockout_rounds(len(names)) if shape.format == "knockout" else 0
    bracket = []
    for row in range(2 ** (total - 1) if total else 0):
        cells = []
        for index in range(total):
            span = 2**index
            if row % span:
                continue
            encounters = plan.rounds[index] if index < len(plan.rounds) else []
            cells.append((span, _encounter_text(encounters[row // span], names) if encounters else "to be played"))
        bracket.append(cells)
    pairings = [(e.round, e.board + 1, _encounter_text(e, names)) for encounters in plan.rounds for e in encounters]
    standings = [
        (place, names[engine], points, buchholz) for place, (engine, points, buchholz) in enumerate(plan.standings, 1)
    ]
    champion = names[plan.champion] if plan.champion is not None else None
    return render(
        "plan.html",
        format=shape.format,
        title=title,
        rounds=total,
        bracket=bracket,
        champion=champion,
        pairings=pairings,
        standings=standings,
    )


def event_file_plan(path: str) -> tuple[list[str], Markup | None]:
    """The text lines and the report section of a knockout or Swiss event database (no lines
    and no section for another format), for ``dipole-arbiter ratings``."""
    store = EventStore.open(path, write=False)
    try:
        config = store.config
        if config.format not in DYNAMIC_FORMATS:
            return [], None
        shape = EventShape.of(config)
        results = {game.number: game.result for game in store.outcomes()}  # no move is read
        plan = plan_event(shape, store.schedule, results)
    finally:
        store.close()
    return [f"{path}: {config.format}", *plan_lines(shape, plan)], plan_html(shape, plan)
