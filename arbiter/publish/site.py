"""A static site of events: ``dipole-arbiter publish EVENT.db [MORE.db | GAMES.pgn ...] --output DIR``.

The site is plain files with relative links only, so it works opened from disk (``file://``)
and served by any web server; nothing is fetched from elsewhere.  It holds:

- ``index.html``: the rating list, the same fit as ``dipole-arbiter ratings`` over all the
  sources (:func:`arbiter.stats.ratings.fit_ratings`), shown as the HTML report shows it
  (``report_body.html``), with the events and time controls it covers;
- ``events/<event>.html``: one page per source (an event database or a PGN file): its
  settings, standings, crosstable, knockout bracket or Swiss rounds, terminations and SPRT;
- over :data:`PAGE_SIZE` engines, a rating list (the site's, an event's) and an engine's
  results by opponent come in pages of PAGE_SIZE, without the engines-squared matrices;
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

A publish that fails (bad input, a database damaged where only its games show it, a full disk)
leaves the disk as it was: the inputs are read and checked before the output is touched, the
files written meanwhile are put back (:class:`_Undo`) and the directories made are removed.

Every value from the records reaches the pages through Jinja2's autoescape
(:func:`arbiter.report.render.environment`) or :func:`.gamepage.script_json`; none is markup.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import re
import shutil
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
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
from ..records.game import SCORED, GameOutcome, GameRecord, Termination
from ..records.pgn import PgnSyntaxError, format_game, read_pgn_file
from ..report.event_report import report_context
from ..report.render import environment
from ..stats.ratings import RatingError, RatingTable, fit_ratings
from ..stats.sprt_monitor import SprtMonitor
from ..stats.tallies import Results
from .gamepage import replay

PAGE_SIZE = 100  # games, engines or opponents per list page
PAGER_REACH = 5  # a list page links the pages this far before and after it
MANIFEST = ".publish.json"
MANIFEST_FORMAT = 2  # the manifest's layout


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
    """A game as the lists show it (kept in the manifest, so an unchanged source is not read)."""

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
    kind: str  # the Termination member's name, to make the game's outcome again

    @classmethod
    def of(cls, record: GameRecord, slug: str) -> GameRow:
        tc = record.white_tc if record.white_tc == record.black_tc else f"{record.white_tc} / {record.black_tc}"
        return cls(
            f"{slug}-{record.number}",
            record.number,
            record.white,
            record.black,
            record.result,
            record.termination.label,
            record.reason,
            record.plies,
            record.opening,
            slug,
            tc,
            record.termination.name,
        )

    def outcome(self) -> GameOutcome:
        return GameOutcome(
            self.number, self.white, self.black, self.result, Termination[self.kind], self.reason, self.plies
        )


@dataclass
class Source:
    """One input: an event database (``config`` set) or a PGN file.  ``signature`` changes
    whenever the source gains or changes games: for an event database its finished-game count
    and last game number (a finished game is never rewritten), for a PGN file its size and
    mtime.  ``records``: a PGN file's games, when it was read."""

    path: str
    slug: str
    title: str
    config: EventConfig | None
    outcomes: list[GameOutcome]
    engines: list[str]
    signature: list[int | str]
    games: list[GameRow] = field(default_factory=list)
    records: list[GameRecord] | None = None


def _open_source(path: str, taken: set[str], cached: dict[str, Any] | None) -> Source:
    """The source at ``path``; a PGN file whose signature is ``cached``'s is not read."""
    stem = os.path.splitext(os.path.basename(path))[0]
    if is_event_file(path):
        store = EventStore.open(path, write=False)
        try:
            config = store.config
            outcomes = store.outcomes()  # no move is read
        finally:
            store.close()
        signature: list[int | str] = ["event", len(outcomes), max((o.number for o in outcomes), default=0)]
        return Source(
            path, _slug(stem, taken), config.name or stem, config, outcomes, [s.name for s in config.engines], signature
        )
    if not os.path.exists(path):
        raise ArbiterError(f"{path}: no such file")
    status = os.stat(path)
    signature = ["pgn", status.st_size, status.st_mtime_ns]
    slug = _slug(stem, taken)
    if cached is not None and cached.get("signature") == signature and cached.get("slug") == slug:
        rows = [GameRow(*row) for row in cached["rows"]]
        source = Source(path, slug, cached["title"], None, [row.outcome() for row in rows], [], signature)
        source.games = rows
        return source
    try:
        records = [game.to_record() for game in read_pgn_file(path)]
    except PgnSyntaxError as error:
        raise ArbiterError(f"{path} is neither an event database nor a PGN file: {error}") from None
    events = sorted({record.event for record in records if record.event not in ("", "?")})
    return Source(
        path,
        slug,
        ", ".join(events) or stem,
        None,
        [GameOutcome.of(record) for record in records],
        [],
        signature,
        records=records,
    )


def _limits(time_control: str) -> SearchLimits:
    try:
        return SearchLimits(clock=TimeControl.parse(time_control))
    except ArbiterError:  # "-" or a text that is no clock: the clocks are not shown
        return SearchLimits()


def _clocks(source: Source, record: GameRecord) -> list[float | None]:
    """The clocks after each ply, by the arbiter's clock arithmetic: from the engines' limits
    in an event database, from the time-control tags in PGN."""
    if source.config is not None:
        return clocks_after(record, {spec.name: spec.limits for spec in source.config.engines})
    return clocks_after(record, {record.white: _limits(record.white_tc), record.black: _limits(record.black_tc)})


class _Undo:
    """What a publish changed in its output, so that a failed one puts the output back as it was:
    each file replaced (its old version kept meanwhile as a hard link in ``.publish-undo-<pid>``,
    so that nothing is copied), appended to (its old size) or new, and each directory made."""

    def __init__(self, output: str) -> None:
        self.kept = os.path.join(output, f".publish-undo-{os.getpid()}")
        self.files: list[tuple[str, str | int | None]] = []  # a path; its old version, old size or None (new)
        self.directories: list[str] = []

    def before(self, path: str, append: bool = False) -> None:
        """Note ``path`` before it is written whole (or, ``append``, appended to)."""
        if not os.path.exists(path):
            self.files.append((path, None))
        elif append:
            self.files.append((path, os.path.getsize(path)))
        else:
            os.makedirs(self.kept, exist_ok=True)
            old = os.path.join(self.kept, str(len(self.files)))
            try:
                os.link(path, old)
            except OSError:  # a file system without hard links
                shutil.copy2(path, old)
            self.files.append((path, old))

    def make_directory(self, path: str) -> None:
        missing = _first_missing(path)
        if missing is not None:
            os.makedirs(path)
            self.directories.append(missing)

    def revert(self) -> None:
        """Put back every file and remove every directory this publish wrote or made."""
        for path, old in reversed(self.files):
            with contextlib.suppress(OSError):
                if old is None:
                    os.unlink(path)
                elif isinstance(old, int):
                    os.truncate(path, old)
                else:
                    os.replace(old, path)
        for directory in reversed(self.directories):
            shutil.rmtree(directory, ignore_errors=True)
        self.forget()

    def forget(self) -> None:
        """Drop the old versions kept: the publish is done."""
        shutil.rmtree(self.kept, ignore_errors=True)
        self.files, self.directories = [], []


class Site:
    """Writes the site into ``output`` (see the module docstring); counts what it wrote, and
    notes it in ``undo``."""

    def __init__(self, output: str) -> None:
        self.output = output
        self.undo = _Undo(output)
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
        self.undo.make_directory(os.path.dirname(path))
        self.undo.before(path)
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
    except OSError as error:
        raise ArbiterError(f"--output {output}: cannot write there ({error.strerror or error})") from None
    if not os.access(output, os.W_OK | os.X_OK):  # (asked, not tried: a site already there stays as it was)
        raise ArbiterError(f"--output {output}: cannot write there (permission denied)")


def _load_manifest(path: str, version: str) -> tuple[dict[str, Any], int]:
    """The previous run's sources (by absolute path) if it ran with these templates, and the
    size games.pgn had then; ({}, -1) when there is none or it is unreadable."""
    try:
        with open(path, encoding="utf-8") as handle:
            previous = json.load(handle)
        if previous.get("format") == MANIFEST_FORMAT and previous.get("version") == version:
            return dict(previous["sources"]), int(previous["pgn_size"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        pass
    return {}, -1


def publish(inputs: Sequence[str], output: str) -> Site:
    """Publish ``inputs`` (event databases and PGN files) into ``output``; ArbiterError (one
    line) on bad input.  A publish that fails leaves the disk as it was: every file it wrote is
    put back (:class:`_Undo`), and the output directory and its parents, if it made them, are
    removed."""
    made = _first_missing(output)
    site = Site(output)
    try:
        _publish(site, inputs)
    except BaseException:
        site.undo.revert()
        if made is not None:
            shutil.rmtree(made, ignore_errors=True)
        raise
    site.undo.forget()
    return site


def _first_missing(path: str) -> str | None:
    """The outermost directory of ``path`` (``path`` itself included) that does not exist yet."""
    missing = None
    path = os.path.abspath(path)
    while not os.path.lexists(path):
        missing, path = path, os.path.dirname(path)
    return missing


def _publish(site: Site, inputs: Sequence[str]) -> None:
    output = site.output
    manifest_path = os.path.join(output, MANIFEST)
    pgn_path = os.path.join(output, "games.pgn")
    cache, pgn_size = _load_manifest(manifest_path, site.version)
    try:
        if os.path.getsize(pgn_path) != pgn_size:  # games.pgn is not the one the manifest tells of
            cache = {}
    except OSError:
        cache = {}
    taken: set[str] = set()
    keys = [os.path.abspath(path) for path in inputs]
    sources = [_open_source(path, taken, cache.get(key)) for path, key in zip(inputs, keys)]
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
    check_output(output)  # only now: bad input leaves the output as it was
    plans = [_GamePlan(site, source, slugs, cache.get(key)) for source, key in zip(sources, keys)]
    _write_pgn(
        site.undo,
        pgn_path,
        plans,
        [cache[key]["pgn"] for key in cache] if cache else [],
        list(cache) == keys[: len(cache)],
    )
    site.undo.before(manifest_path)
    replace_text(
        manifest_path,
        json.dumps(
            {
                "format": MANIFEST_FORMAT,
                "version": site.version,
                "pgn_size": os.path.getsize(pgn_path),
                "sources": {key: plan.manifest() for key, plan in zip(keys, plans)},
            }
        ),
    )
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


class _GamePlan:
    """What a source's game pages and its part of games.pgn need this run, decided before a
    game is read.  With ``cached`` (the manifest's entry of the previous run) valid:

    - an unchanged source (same signature, slug and title) reads no game: its rows come from
      the manifest and its PGN is the previous games.pgn's bytes;
    - an event database that only gained games reads the new games and the old games whose
      previous/next game changed; its PGN is the old bytes and then the new games';
    - otherwise every game is read, and its PGN written again.

    A game page is rendered only when its key (a hash of everything it is made from, and its
    previous and next game) differs from the manifest's, or its file is missing."""

    def __init__(self, site: Site, source: Source, slugs: dict[str, str], cached: dict[str, Any] | None) -> None:
        self.site, self.source, self.slugs = site, source, slugs
        valid = cached is not None and cached["slug"] == source.slug and cached["title"] == source.title
        self.pages: dict[str, list[Any]] = dict(cached["pages"]) if cached is not None and valid else {}
        old_rows = [GameRow(*row) for row in cached["rows"]] if cached is not None and valid else []
        self.old_pgn: int | None = cached["pgn"] if cached is not None and valid else None
        self.pgn = 0  # bytes of this source's part of games.pgn
        numbers = [outcome.number for outcome in source.outcomes]  # by number, or in the PGN file's order
        self.order = {number: index for index, number in enumerate(numbers)}
        self.numbers = numbers
        known = {row.number for row in old_rows}
        if valid and cached is not None and cached["signature"] == source.signature:
            self.mode = "same"
        elif valid and source.config is not None and known <= set(numbers) and self.old_pgn is not None:
            self.mode = "more"
        else:
            self.mode = "all"
            self.old_pgn = None
            old_rows = []
        self.rows = {row.number: row for row in old_rows}
        if self.mode == "same":
            source.games = sorted(old_rows, key=lambda row: self.order.get(row.number, 0))

    def _neighbours(self, number: int) -> tuple[tuple[str, int] | None, tuple[str, int] | None]:
        index = self.order[number]
        before = self.numbers[index - 1] if index > 0 else None
        after = self.numbers[index + 1] if index + 1 < len(self.numbers) else None
        return (
            None if before is None else (f"{self.source.slug}-{before}", before),
            None if after is None else (f"{self.source.slug}-{after}", after),
        )

    def _stale(self) -> set[int]:
        """The games whose pages must be looked at again: new, missing, or with a neighbour
        other than the one their page links."""
        stale = set()
        for number in self.numbers:
            game_id = f"{self.source.slug}-{number}"
            entry = self.pages.get(game_id)
            before, after = self._neighbours(number)
            if (
                entry is None
                or entry[1:] != [before and before[0], after and after[0]]
                or not os.path.exists(os.path.join(self.site.output, f"games/{game_id}.html"))
            ):
                stale.add(number)
        return stale

    def records(self) -> Iterator[GameRecord]:
        """The games this run reads: all of them, or (``more``) the stale ones only."""
        source = self.source
        if source.config is None:
            if source.records is None:  # a PGN file known unchanged, whose games are wanted after all
                source.records = [game.to_record() for game in read_pgn_file(source.path)]
            yield from source.records
            return
        store = EventStore.open(source.path, write=False)
        try:
            if self.mode == "all":
                yield from store.iter_records()
                return
            stale = sorted(self._stale())
            for start in range(0, len(stale), 256):  # a batch at a time: memory stays bounded
                yield from store.records(stale[start : start + 256])
        finally:
            store.close()

    def new_pgn(self) -> Iterator[str]:
        """Render the pages the run needs and yield the PGN of the games not yet in games.pgn."""
        template = self.site.env.get_template("game.html")
        source = self.source
        if self.mode == "same":
            if not self._stale():
                self.pgn = self.old_pgn or 0
                return
            self.mode = "more"  # a page deleted by hand, say: read the stale games below
        self.pgn = self.old_pgn or 0
        for record in self.records():
            game_id = f"{source.slug}-{record.number}"
            before, after = self._neighbours(record.number) if record.number in self.order else (None, None)
            clocks = _clocks(source, record)
            content = hashlib.sha256(
                f"{self.site.version}\0{source.title}\0{record!r}\0{clocks!r}".encode()
            ).hexdigest()
            entry = [content, before and before[0], after and after[0]]
            relative = f"games/{game_id}.html"
            pgn = format_game(record)
            if self.pages.get(game_id) == entry and os.path.exists(os.path.join(self.site.output, relative)):
                self.site.unchanged += 1
            else:
                game = replay(record, clocks, f"{source.path}: game {record.number}")
                self.site.write(
                    relative,
                    template.render(
                        root="../",
                        record=record,
                        game=game,
                        pgn=pgn,
                        source=source,
                        slugs=self.slugs,
                        time_control=GameRow.of(record, source.slug).time_control,
                        before=before,
                        after=after,
                        title=f"{record.white} vs {record.black}, game {record.number}",
                    ),
                )
            self.pages[game_id] = entry
            if record.number not in self.rows:  # a game not yet in games.pgn
                self.rows[record.number] = GameRow.of(record, source.slug)
                self.pgn += len(pgn.encode())
                yield pgn
        source.games = sorted(self.rows.values(), key=lambda row: self.order.get(row.number, 0))
        source.records = None

    def manifest(self) -> dict[str, Any]:
        return {
            "signature": self.source.signature,
            "slug": self.source.slug,
            "title": self.source.title,
            "rows": [dataclasses.astuple(row) for row in self.source.games],
            "pgn": self.pgn,
            "pages": self.pages,
        }


def _write_pgn(undo: _Undo, path: str, plans: list[_GamePlan], old_parts: list[int], same_order: bool) -> None:
    """games.pgn: each source's part in turn, a part being the previous file's bytes of that
    source (``old_parts``: their lengths, in the previous order) and then its new games.  When
    the previous parts are a prefix of the new file, the new games are appended (nothing is
    written when there are none); otherwise the file is written whole, beside and renamed."""
    offsets: dict[int, int] = {}
    position = 0
    for index, length in enumerate(old_parts):
        offsets[index] = position
        position += length
    appendable = (
        bool(old_parts)
        and same_order
        and all(
            plan.mode == "same" or (index == len(old_parts) - 1 and plan.mode == "more")
            for index, plan in enumerate(plans[: len(old_parts)])
        )
        and all(plan.mode == "all" for plan in plans[len(old_parts) :])
    )
    undo.before(path, append=appendable)
    if appendable:
        with open(path, "a", encoding="utf-8") as handle:
            for plan in plans:
                handle.writelines(plan.new_pgn())
        return
    old_index = {id(plan): index for index, plan in enumerate(plans) if index < len(old_parts)}

    def chunks() -> Iterator[str]:
        with open(path, "rb") if old_parts else open(os.devnull, "rb") as old:
            for plan in plans:
                if plan.old_pgn and same_order and id(plan) in old_index:
                    old.seek(offsets[old_index[id(plan)]])
                    yield old.read(plan.old_pgn).decode("utf-8")
                elif plan.old_pgn:  # a part of the old file at another place: read the games again
                    plan.mode, plan.old_pgn, plan.rows = "all", None, {}
                yield from plan.new_pgn()

    replace_text_chunks(path, chunks())


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


def _rating_pages(
    table: RatingTable,
    terminations: Counter[str],
    link: Callable[[str], str],
    first: str,
    stem: str,
    sections: Sequence[Markup] = (),
) -> list[tuple[str, dict[str, Any]]]:
    """A rating list cut into pages of PAGE_SIZE engines: (file name, the report's context) a
    page, ``first`` first, then ``stem-2.html``, ...  Each page has its engines' chart and
    standings, ranks running on from the page before; over PAGE_SIZE engines the crosstable and
    LOS matrices (engines squared) are left out (each engine's page has its results by
    opponent, paginated too), and ``sections`` go on the first page only."""
    chunks = [table.rows[start : start + PAGE_SIZE] for start in range(0, len(table.rows), PAGE_SIZE)] or [()]
    names = [first, *(f"{stem}-{number}.html" for number in range(2, len(chunks) + 1))]
    pages = []
    for index, chunk in enumerate(chunks):
        part = dataclasses.replace(table, rows=tuple(chunk)) if len(chunks) > 1 else table
        context = report_context(part, terminations, sections if index == 0 else (), engine_link=link)
        if len(chunks) > 1:
            context["matrices"] = []
        context.update(page=index + 1, pages=list(enumerate(names, 1)))
        pages.append((names[index], context))
    return pages


def _index(site: Site, sources: list[Source], table: RatingTable, slugs: dict[str, str]) -> None:
    outcomes = [outcome for source in sources for outcome in source.outcomes]
    terminations = Counter(outcome.termination.label for outcome in outcomes)
    pages = _rating_pages(table, terminations, lambda name: f"engines/{slugs[name]}.html", "index.html", "ratings")
    for name, context in pages:
        site.write(
            name,
            site.render(
                "index.html",
                "",
                title="Rating list" if context["page"] == 1 else f"Rating list, page {context['page']}",
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
    pages = _rating_pages(
        table,
        terminations,
        lambda name: f"../engines/{slugs[name]}.html",
        f"{source.slug}.html",
        f"{source.slug}-ratings",
        sections,
    )
    for name, context in pages:
        site.write(
            f"events/{name}",
            site.render(
                "event.html",
                "../",
                title=source.title if context["page"] == 1 else f"{source.title}, page {context['page']}",
                details=details,
                sprt=sprt if context["page"] == 1 else [],
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
        score = sum(Results.of_game(o.result, o.white == name).points for o in games if o.result in SCORED)
        event = event_tables[source.slug]
        line = event.row(name) if name in event.names else None
        performances.append(
            Performance(source, len(games), score, line.rating if line else None, line.rank if line else None)
        )
    # the opponents PAGE_SIZE a page: the engine's page, then <engine>-opponents-2.html, ...
    chunks = [opponents[start : start + PAGE_SIZE] for start in range(0, len(opponents), PAGE_SIZE)] or [[]]
    names = [f"{slugs[name]}.html", *(f"{slugs[name]}-opponents-{n}.html" for n in range(2, len(chunks) + 1))]
    for index, chunk in enumerate(chunks):
        site.write(
            f"engines/{names[index]}",
            site.render(
                "engine.html",
                "../",
                title=name,
                row=row,
                opponents=chunk,
                draws=table.crosstable.has_draws,
                performances=performances,
                slugs=slugs,
                page=index + 1,
                pages=list(enumerate(names, 1)),
                maybe=lambda value: "\u2013" if value is None else f"{value:.1f}",
            ),
        )
