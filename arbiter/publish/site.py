"""A static site of events: ``dipole-arbiter publish EVENT.db [MORE.db | GAMES.pgn ...] --output DIR``.

The site is plain files with relative links only, so it works opened from disk (``file://``)
and served by any web server; nothing is fetched from elsewhere.  It holds:

- ``index.html``: the rating list, the same fit as ``dipole-arbiter ratings`` over all the
  sources (:func:`arbiter.stats.ratings.fit_ratings`), shown as the HTML report shows it
  (``report_body.html``), with the events and time controls it covers;
- ``events/<event>.html``: one page per source (an event database or a PGN file): its
  settings, standings, crosstable, knockout bracket or Swiss rounds, terminations and SPRT;
- ``engines/<engine>.html``: score by colour and by opponent, performance per event;
- ``games/<game>.html``: one page per game: the board (``board.js`` from :mod:`arbiter.board`,
  the GUI's drawing), stepped by the keyboard, the buttons or the move list; the evaluations as
  a graph and per move; the clocks; the opening; the game's PGN;
- game lists of :data:`PAGE_SIZE` games a page (all games, per event, per engine);
- ``games.pgn`` (every game) and ``results.json`` (every result), for other tools;
- ``assets/``: the style sheets, ``board.js`` and ``game.js``.

Incremental: ``.publish.json`` in the output keeps, per game page, a SHA-256 of everything the
page is made from (the record, its clocks, the site's templates and scripts).  A game whose
hash is unchanged is neither replayed nor rendered nor written, so its file (and its mtime)
stays as it was; every other page is rendered and written only when its text differs from
the file's, so an unchanged page keeps its mtime too.

Every value from the records reaches the pages through Jinja2's autoescape
(:func:`arbiter.report.render.environment`) or :func:`.replay.script_json`; none is markup.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from markupsafe import Markup

from ..board import STATIC as BOARD_STATIC
from ..errors import ArbiterError
from ..events.pairings import event_file_plan
from ..events.store import EventConfig, EventStore, clocks_after, is_event_file
from ..events.tournament import colour_reversed_pairs
from ..files import replace_text, replace_text_chunks
from ..play.timecontrol import SearchLimits, TimeControl
from ..records.game import BLACK_WINS, WHITE_WINS, GameOutcome, GameRecord
from ..records.pgn import PgnSyntaxError, format_game, read_pgn_file
from ..report.event_report import report_context
from ..report.render import environment
from ..stats.ratings import RatingError, RatingTable, fit_ratings
from ..stats.sprt_monitor import SprtMonitor
from .replay import replay

PAGE_SIZE = 100  # games per list page
PAGER_REACH = 5  # a list page links the pages this far before and after it
MANIFEST = ".publish.json"


def _slug(text: str, taken: set[str]) -> str:
    """A file name for ``text``: its letters and digits, and a short hash so that names that
    differ only in other characters stay apart; unique within ``taken`` (added to it)."""
    base = re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-")[:40] or "x"
    slug = f"{base}-{hashlib.sha256(text.encode()).hexdigest()[:6]}"
    while slug in taken:
        slug += "x"
    taken.add(slug)
    return slug


@dataclass
class GameRow:
    """A game as the lists show it."""

    id: str
    number: int
    white: str
    black: str
    result: str
    termination: str
    reason: str
    plies: int
    opening: str
    event: str  # the event's slug
    time_control: str


@dataclass
class Source:
    """One input: an event database (``config`` set) or a PGN file."""

    path: str
    slug: str
    title: str
    config: EventConfig | None
    outcomes: list[GameOutcome]
    engines: list[str]
    games: list[GameRow] = field(default_factory=list)


def _open_source(path: str, taken: set[str]) -> Source:
    stem = os.path.splitext(os.path.basename(path))[0]
    if is_event_file(path):
        store = EventStore.open(path, write=False)
        try:
            config = store.config
            return Source(
                path,
                _slug(stem, taken),
                config.name or stem,
                config,
                store.outcomes(),
                [spec.name for spec in config.engines],
            )
        finally:
            store.close()
    if not os.path.exists(path):
        raise ArbiterError(f"{path}: no such file")
    try:
        games = read_pgn_file(path)
    except PgnSyntaxError as error:
        raise ArbiterError(f"{path} is neither an event database nor a PGN file: {error}") from None
    records = [game.to_record() for game in games]
    events = sorted({record.event for record in records if record.event not in ("", "?")})
    return Source(
        path, _slug(stem, taken), ", ".join(events) or stem, None, [GameOutcome.of(record) for record in records], []
    )


def _records(source: Source) -> Iterator[tuple[GameRecord, list[float | None]]]:
    """The source's games with the clocks after each ply (by the arbiter's clock arithmetic,
    from the engines' limits in an event database, from the time-control tags in PGN)."""
    if source.config is not None:
        limits = {spec.name: spec.limits for spec in source.config.engines}
        store = EventStore.open(source.path, write=False)
        try:
            for record in store.iter_records():
                yield record, clocks_after(record, limits)
        finally:
            store.close()
        return
    for game in read_pgn_file(source.path):
        record = game.to_record()
        yield (
            record,
            clocks_after(record, {record.white: _limits(record.white_tc), record.black: _limits(record.black_tc)}),
        )


def _limits(time_control: str) -> SearchLimits:
    try:
        return SearchLimits(clock=TimeControl.parse(time_control))
    except ArbiterError:  # "-" or a text that is no clock: the clocks are not shown
        return SearchLimits()


class Site:
    """Writes the site into ``output`` (see the module docstring); counts what it wrote."""

    def __init__(self, output: str) -> None:
        self.output = output
        self.written = 0
        self.unchanged = 0
        self.env = environment("arbiter.publish", "arbiter.report")
        self.version = self._version()

    def _version(self) -> str:
        """A hash of everything that shapes a game page besides its game."""
        digest = hashlib.sha256()
        for name in sorted(
            resources.files("arbiter.publish").joinpath("templates").iterdir(), key=lambda item: item.name
        ):
            digest.update(name.name.encode() + b"\0" + name.read_bytes())
        digest.update((BOARD_STATIC / "board.js").read_bytes())
        return digest.hexdigest()

    def write(self, relative: str, text: str) -> None:
        """Write a page unless the file already holds exactly ``text`` (so its mtime stays)."""
        path = os.path.join(self.output, relative)
        data = text.encode()
        try:
            with open(path, "rb") as handle:
                if handle.read(len(data) + 1) == data:
                    self.unchanged += 1
                    return
        except OSError:
            pass
        os.makedirs(os.path.dirname(path), exist_ok=True)
        replace_text(path, text)
        self.written += 1

    def render(self, template: str, root: str, **context: Any) -> str:
        return self.env.get_template(template).render(root=root, **context)


def check_output(output: str) -> None:
    """The output directory: made if missing; one line if it cannot be written."""
    if not output.strip():
        raise ArbiterError("--output: the directory name is empty")
    if os.path.exists(output) and not os.path.isdir(output):
        raise ArbiterError(f"--output {output}: is not a directory")
    try:
        os.makedirs(output, exist_ok=True)
        probe = os.path.join(output, f".publish-probe-{os.getpid()}")
        with open(probe, "w"):
            pass
        os.unlink(probe)
    except OSError as error:
        raise ArbiterError(f"--output {output}: cannot write there ({error.strerror or error})") from None


def publish(inputs: Sequence[str], output: str) -> Site:
    """Publish ``inputs`` (event databases and PGN files) into ``output``; ArbiterError (one
    line) on bad input."""
    check_output(output)
    taken: set[str] = set()
    sources = [_open_source(path, taken) for path in inputs]
    titles = Counter(source.title for source in sources)
    for source in sources:  # two events of one name are told apart by their files
        if titles[source.title] > 1:
            source.title += f" ({os.path.basename(source.path)})"
    outcomes = [outcome for source in sources for outcome in source.outcomes]
    engines = list(dict.fromkeys(name for source in sources for name in source.engines))
    try:
        table = fit_ratings(outcomes, engines=engines)
        event_tables = {source.slug: fit_ratings(source.outcomes, engines=source.engines) for source in sources}
    except RatingError as error:
        raise ArbiterError(str(error)) from None
    names = list(dict.fromkeys([*engines, *(n for o in outcomes for n in (o.white, o.black))]))
    engine_slugs: set[str] = set()
    slugs = {name: _slug(name, engine_slugs) for name in names}
    site = Site(output)
    manifest_path = os.path.join(output, MANIFEST)
    try:
        with open(manifest_path, encoding="utf-8") as handle:
            previous = json.load(handle)
        known: dict[str, str] = previous["games"] if previous.get("version") == site.version else {}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        known = {}
    games: dict[str, str] = {}
    replace_text_chunks(os.path.join(output, "games.pgn"), _game_pages(site, sources, slugs, known, games))
    replace_text(manifest_path, json.dumps({"version": site.version, "games": games}, sort_keys=True))
    _assets(site)
    _lists(site, sources, slugs)
    _index(site, sources, table, slugs)
    for source in sources:
        _event(site, source, event_tables[source.slug], slugs)
    for name in names:
        _engine(site, name, sources, table, event_tables, slugs)
    results = [
        {
            "event": source.title,
            "source": os.path.basename(source.path),
            "game": row.number,
            "page": f"games/{row.id}.html",
            "white": row.white,
            "black": row.black,
            "result": row.result,
            "termination": row.termination,
            "reason": row.reason,
            "plies": row.plies,
            "opening": row.opening,
            "time_control": row.time_control,
        }
        for source in sources
        for row in source.games
    ]
    ratings = [
        {
            "rank": row.rank,
            "engine": row.name,
            "rating": round(row.rating, 1),
            "ci_low": round(row.ci_low, 1),
            "ci_high": round(row.ci_high, 1),
            "games": row.games,
            "score": row.score,
            "flag": row.flag,
        }
        for row in table.rows
    ]
    site.write("results.json", json.dumps({"ratings": ratings, "games": results}, indent=1) + "\n")
    return site


def _game_pages(
    site: Site, sources: list[Source], slugs: dict[str, str], known: dict[str, str], games: dict[str, str]
) -> Iterator[str]:
    """Write each game's page (when its hash is new) and yield its PGN, one game at a time."""
    template = site.env.get_template("game.html")
    for source in sources:
        for record, clocks in _records(source):
            game_id = f"{source.slug}-{record.number}"
            pgn = format_game(record)
            tc = record.white_tc if record.white_tc == record.black_tc else f"{record.white_tc} / {record.black_tc}"
            source.games.append(
                GameRow(
                    game_id,
                    record.number,
                    record.white,
                    record.black,
                    record.result,
                    record.termination.label,
                    record.reason,
                    record.plies,
                    record.opening,
                    source.slug,
                    tc,
                )
            )
            key = hashlib.sha256(f"{site.version}\0{source.title}\0{record!r}\0{clocks!r}".encode()).hexdigest()
            games[game_id] = key
            relative = f"games/{game_id}.html"
            if known.get(game_id) == key and os.path.exists(os.path.join(site.output, relative)):
                site.unchanged += 1
            else:
                game = replay(record, clocks, f"{source.path}: game {record.number}")
                site.write(
                    relative,
                    template.render(
                        root="../",
                        record=record,
                        game=game,
                        pgn=pgn,
                        source=source,
                        slugs=slugs,
                        time_control=tc,
                        title=f"{record.white} vs {record.black}, game {record.number}",
                    ),
                )
            yield pgn


def _assets(site: Site) -> None:
    templates = resources.files("arbiter.publish").joinpath("templates")
    site.write("assets/board.css", (BOARD_STATIC / "board.css").read_text(encoding="utf-8"))
    report_css = (
        resources.files("arbiter.report").joinpath("templates").joinpath("report.css").read_text(encoding="utf-8")
    )
    site.write("assets/site.css", report_css + templates.joinpath("site.css").read_text(encoding="utf-8"))
    site.write("assets/game.js", templates.joinpath("game.js").read_text(encoding="utf-8"))
    site.write("assets/board.js", classic_board_script())


def classic_board_script() -> str:
    """``board.js`` (an ES module) as a classic script defining ``window.DipoleBoard``: a page
    opened from disk may not load a module from a file (browsers refuse ``file://`` module
    scripts), so its ``export`` keywords are dropped and the module wrapped in a function."""
    source = (BOARD_STATIC / "board.js").read_text(encoding="utf-8")
    exported = re.findall(r"^export function (\w+)", source, flags=re.M)
    body = re.sub(r"^export ", "", source, flags=re.M)
    return (
        f"// Made by dipole-arbiter publish from arbiter/board/static/board.js (the GUI's board).\n"
        f"(function () {{\n{body}\nwindow.DipoleBoard = {{{', '.join(exported)}}};\n}})();\n"
    )


def _pages(rows: list[GameRow], stem: str) -> list[tuple[str, list[GameRow]]]:
    """The list pages of ``rows``: (file name, its rows); at least one page."""
    chunks = [rows[start : start + PAGE_SIZE] for start in range(0, len(rows), PAGE_SIZE)] or [[]]
    return [(f"{stem}-{number}.html", chunk) for number, chunk in enumerate(chunks, 1)]


def _write_lists(
    site: Site, folder: str, stem: str, title: str, rows: list[GameRow], slugs: dict[str, str], back: tuple[str, str]
) -> str:
    """Write the paginated game list; the first page's file name (relative to ``folder``)."""
    pages = _pages(rows, stem)
    for index, (name, chunk) in enumerate(pages):
        # the pager links the first page and those within PAGER_REACH: a new page at the end
        # changes the pager of the last few pages only, so republishing rewrites little
        near = [
            (number + 1, pages[number][0])
            for number in range(len(pages))
            if number == 0 or abs(number - index) <= PAGER_REACH
        ]
        site.write(
            f"{folder}/{name}",
            site.render(
                "games.html",
                "../",
                title=title,
                rows=chunk,
                slugs=slugs,
                back=back,
                page=index + 1,
                pages=near,
                first=index * PAGE_SIZE + 1,
            ),
        )
    return pages[0][0]


def _lists(site: Site, sources: list[Source], slugs: dict[str, str]) -> None:
    everything = [row for source in sources for row in source.games]
    _write_lists(site, "games", "all", "All games", everything, slugs, ("../index.html", "Rating list"))
    for source in sources:
        _write_lists(
            site,
            "events",
            f"{source.slug}-games",
            f"Games of {source.title}",
            source.games,
            slugs,
            (f"{source.slug}.html", source.title),
        )
    by_engine: dict[str, list[GameRow]] = {}
    for row in everything:
        for name in {row.white, row.black}:
            by_engine.setdefault(name, []).append(row)
    for name, rows in by_engine.items():
        _write_lists(
            site, "engines", f"{slugs[name]}-games", f"Games of {name}", rows, slugs, (f"{slugs[name]}.html", name)
        )


def _time_controls(sources: list[Source]) -> list[str]:
    """The time controls the games were played at, each side's (``-``: no clock, say depth)."""
    sides = {side.strip() for source in sources for row in source.games for side in row.time_control.split(" / ")}
    return sorted("no clock" if side == "-" else side for side in sides)


def _index(site: Site, sources: list[Source], table: RatingTable, slugs: dict[str, str]) -> None:
    outcomes = [outcome for source in sources for outcome in source.outcomes]
    terminations = Counter(outcome.termination.label for outcome in outcomes)
    context = report_context(table, terminations, engine_link=lambda name: f"engines/{slugs[name]}.html")
    site.write(
        "index.html",
        site.render(
            "index.html",
            "",
            title="Rating list",
            sources=sources,
            games=len(outcomes),
            time_controls=_time_controls(sources),
            **context,
        ),
    )


def _event(site: Site, source: Source, table: RatingTable, slugs: dict[str, str]) -> None:
    terminations = Counter(outcome.termination.label for outcome in source.outcomes)
    sections: list[Markup] = []
    details = [("Source", os.path.basename(source.path))]
    sprt: list[str] = []
    if source.config is not None:
        details += source.config.settings(str(len(source.outcomes)), commands=False)
        section = event_file_plan(source.path)[1]
        if section is not None:
            sections.append(section)
        if source.config.sprt is not None:
            store = EventStore.open(source.path, write=False)
            try:
                schedule = store.schedule
            finally:
                store.close()
            monitor = SprtMonitor(source.config.sprt, source.engines[0], colour_reversed_pairs(schedule))
            for outcome in source.outcomes:
                monitor.add(outcome)
            sprt = [monitor.progress(), *monitor.summary()]
    context = report_context(table, terminations, sections, engine_link=lambda name: f"../engines/{slugs[name]}.html")
    site.write(
        f"events/{source.slug}.html",
        site.render(
            "event.html",
            "../",
            title=source.title,
            details=details,
            sprt=sprt,
            source=source,
            time_controls=_time_controls([source]),
            **context,
        ),
    )


@dataclass
class Performance:
    source: Source
    games: int
    score: float
    rating: float | None
    rank: int | None


def _engine(
    site: Site,
    name: str,
    sources: list[Source],
    table: RatingTable,
    event_tables: dict[str, RatingTable],
    slugs: dict[str, str],
) -> None:
    rated = name in table.names
    row = table.row(name) if rated else None
    opponents = [
        (other, table.crosstable.cell(name, other))
        for other in table.names
        if other != name and (name, other) in table.crosstable.cells
    ]
    performances = []
    for source in sources:
        games = [o for o in source.outcomes if name in (o.white, o.black)]
        if not games:
            continue
        score = sum(
            1.0 if (o.result == WHITE_WINS) == (o.white == name) else 0.0
            for o in games
            if o.result in (WHITE_WINS, BLACK_WINS)
        )
        event = event_tables[source.slug]
        line = event.row(name) if name in event.names else None
        performances.append(
            Performance(source, len(games), score, line.rating if line else None, line.rank if line else None)
        )
    site.write(
        f"engines/{slugs[name]}.html",
        site.render(
            "engine.html",
            "../",
            title=name,
            row=row,
            opponents=opponents,
            performances=performances,
            slugs=slugs,
            maybe=lambda value: "\u2013" if value is None else f"{value:.1f}",
        ),
    )
