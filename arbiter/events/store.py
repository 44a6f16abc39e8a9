"""An event (a tournament) kept in an SQLite database: what was planned, and every game played.

The database is the event's single source of truth, so an interrupted event can be resumed
from it alone.  It holds:

- ``schema_version``: one row, the layout version (:data:`SCHEMA_VERSION`); the file's SQLite
  ``application_id`` is :data:`APPLICATION_ID`, so a database that is not ours is recognised;
- ``event``: one row, every setting of the event (format, variant, rounds, games per pairing,
  referee timeouts, concurrency, recover, PGN/log/report paths, SPRT, anchor, Dask cluster),
  as given;
- ``engines``: each engine's name, command, working directory, options and limits;
- ``openings``: the openings, in order; ``schedule``: every game, planned up front: its number,
  round, pairing, colour-reversed pair, White, Black and opening (knockout and Swiss events
  add each stage when the one before has finished: :mod:`arbiter.events.pairings`);
- ``games`` and ``moves``: every finished game, the whole record (result, termination, reason,
  time controls, tags) and each ply with its annotation, the time it took, and the mover's
  clock after it.

A game is finished exactly when its ``games`` row exists.  It is written, with its moves, in
one transaction the moment the game ends; SQLite's commit is atomic, so a crash (even SIGKILL)
leaves a game either wholly recorded or not at all, and resuming replays exactly the games
that are not.

Durability: WAL journal with ``synchronous=FULL``, so a commit is on disk (the WAL is
fsynced) before the game is reported; ``NORMAL`` would survive a crash of the arbiter but not
of the machine (a power cut could lose the last games).  A game takes seconds of engine time
and its commit a few milliseconds (one fsync; ``benchmarks/event_bench.py``), made by the
worker whose game ended while the other games go on, so FULL costs nothing that matters.

One arbiter at a time runs an event: a writer holds an exclusive ``flock`` on the database
file for as long as it has it open (the kernel drops it when the process dies, however it
dies).  Readers (``export``, ``ratings``, ``publish``, the GUI's watch page) take no lock and
never write: while an arbiter runs the event (or a write waits in its WAL) they read it as WAL
readers (``mode=ro``), alongside the arbiter; else as a file that cannot change
(``immutable=1``), which makes no ``-wal``/``-shm`` file beside it, even beside a damaged one.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import errno
import fcntl
import json
import os
import sqlite3
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from gameplug import Side

from ..errors import ArbiterError
from ..files import SQLITE_MAGIC, is_sqlite_file
from ..play.adjudication import DrawRule, ResignRule
from ..play.engines import EngineSpec, limits_from_settings
from ..play.referee import GameJob, RefereeSettings
from ..play.timecontrol import Clock, SearchLimits
from ..records.game import GameOutcome, GameRecord, MoveRecord, MoveSource, Opening, Termination, first_mover
from ..stats.sprt import SprtParams
from .running import event_running

SCHEMA_VERSION = 1
APPLICATION_ID = 0x44504C41  # "DPLA": what PRAGMA application_id says in our databases
FORMATS = ("round-robin", "gauntlet", "knockout", "swiss")

_SCHEMA = """
CREATE TABLE schema_version (version INTEGER NOT NULL);
CREATE TABLE event (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    format TEXT NOT NULL,
    variant TEXT NOT NULL,
    rounds INTEGER NOT NULL,
    games_per_pairing INTEGER NOT NULL,
    openings_note TEXT NOT NULL,
    settings TEXT NOT NULL,          -- JSON: referee, concurrency, recover, pgn, log, report, anchor, sprt, live_pgn
    command_line TEXT NOT NULL,
    created TEXT NOT NULL,           -- ISO time the event was created
    owner_pid INTEGER                -- the arbiter that last opened it to play
);
CREATE TABLE engines (
    id INTEGER PRIMARY KEY,          -- the engine's position in the event (0 is the first)
    name TEXT NOT NULL UNIQUE,
    command TEXT NOT NULL,           -- JSON list of arguments
    cwd TEXT NOT NULL,               -- absolute: the engine's dir=, else where the event began
    options TEXT NOT NULL,           -- JSON list of [name, value]
    limits TEXT NOT NULL             -- JSON object of tc/st/depth/nodes/timemargin/ponder settings
);
CREATE TABLE openings (
    id INTEGER PRIMARY KEY,          -- position in the event's list (0 is the first)
    fen TEXT,                        -- NULL: the variant's start
    moves TEXT NOT NULL,             -- book moves, space-separated
    source TEXT NOT NULL
);
CREATE TABLE schedule (
    number INTEGER PRIMARY KEY,      -- the game number (PGN Round, "Finished game N")
    round INTEGER NOT NULL,          -- 1-based
    pairing INTEGER NOT NULL,        -- 0-based index of the pairing (two engines) in the format
    pair INTEGER NOT NULL,           -- the colour-reversed pair: its two games share an opening
    white INTEGER NOT NULL REFERENCES engines(id),
    black INTEGER NOT NULL REFERENCES engines(id),
    opening INTEGER NOT NULL REFERENCES openings(id)
);
CREATE TABLE games (
    number INTEGER PRIMARY KEY REFERENCES schedule(number),
    white TEXT NOT NULL,
    black TEXT NOT NULL,
    variant TEXT NOT NULL,
    fen TEXT,
    result TEXT NOT NULL,
    termination TEXT NOT NULL,       -- the Termination member's name (NORMAL, TIME_FORFEIT, ...)
    reason TEXT NOT NULL,
    white_tc TEXT NOT NULL,
    black_tc TEXT NOT NULL,
    opening TEXT NOT NULL,
    event TEXT NOT NULL,
    site TEXT NOT NULL,
    date TEXT NOT NULL,
    plies INTEGER NOT NULL,
    white_time REAL NOT NULL,        -- seconds White's engine thought in this game
    black_time REAL NOT NULL,
    finished TEXT NOT NULL,          -- ISO time the game ended
    pgn_written INTEGER NOT NULL DEFAULT 0  -- 1 once appended to the event's PGN file
);
CREATE TABLE moves (
    game INTEGER NOT NULL REFERENCES games(number),
    ply INTEGER NOT NULL,            -- 1-based, book moves included
    text TEXT NOT NULL,
    source TEXT NOT NULL,            -- engine, book or forced
    score_cp INTEGER,
    score_mate INTEGER,
    depth INTEGER,
    time REAL,                       -- seconds the arbiter charged
    clock REAL,                      -- the mover's clock after the move (NULL: no clock, or a book move)
    nodes INTEGER,                   -- the nodes the engine's search reported last
    PRIMARY KEY (game, ply)
) WITHOUT ROWID;
"""


class EventError(ArbiterError):
    """An event database that cannot be used; one line naming the file."""


@dataclass(frozen=True)
class ScheduledGame:
    """One planned game.  ``white``/``black`` index the event's engines, ``opening`` its
    openings; the two games of a colour-reversed ``pair`` share the opening."""

    number: int
    round: int
    pairing: int
    pair: int
    white: int
    black: int
    opening: int


@dataclass(frozen=True)
class EventConfig:
    """Everything an event needs, and all that is stored to resume it."""

    format: str
    variant: str
    engines: tuple[EngineSpec, ...]
    rounds: int
    games_per_pairing: int
    openings: tuple[Opening, ...]
    openings_note: str
    referee: RefereeSettings
    concurrency: int = 1
    recover: bool = True
    pgn: str | None = None
    log_dir: str | None = None
    report: str | None = None
    anchor: tuple[str, float] | None = None
    sprt: SprtParams | None = None
    command_line: str = ""
    rating_interval: int = 0  # print the standings every N finished games (0: never)
    cluster: str | None = None  # the Dask scheduler's address (arbiter.pools.cluster); None: local threads
    live_pgn: str | None = None
    pgn_nodes: bool = False  # each engine move's nodes in the PGN file's comments (``--pgn FILE nodes=true``)

    @property
    def name(self) -> str:
        return self.referee.event

    @property
    def kind(self) -> str:
        """The format as every page names it: ``match`` for a match kept by ``match --db`` (stored
        as a two-engine round-robin of one round: its schedule is the match's), else ``format``."""
        return "match" if self.command_line.split()[1:2] == ["match"] else self.format

    def job(self, game: ScheduledGame) -> GameJob:
        return GameJob(
            game.number, self.engines[game.white], self.engines[game.black], self.openings[game.opening], self.variant
        )

    def with_concurrency(self, concurrency: int) -> EventConfig:
        return dataclasses.replace(self, concurrency=concurrency)

    def settings(self, games: str, *, commands: bool = True) -> list[tuple[str, str]]:
        """The event described, as (label, text) pairs, for every place that shows it: the
        tournament's header, its HTML report and the watch page.  ``games`` says how many (as
        of the caller); ``commands=False`` leaves out the engines' commands and options (the
        watch page, which any viewer may open, shows no command line)."""
        count = len(self.engines)
        shape = f"{self.kind}, {count} engine{'s' if count != 1 else ''}"
        if self.kind != "match":  # a match's games are its only pairing's: ``games`` says how many
            shape += (
                f", {self.rounds} round{'s' if self.rounds != 1 else ''} of {self.games_per_pairing} "
                f"game{'s' if self.games_per_pairing != 1 else ''} per pairing"
            )
        settings = [
            ("Format", shape),
            ("Variant", self.variant),
            ("Games", games),
            ("Openings", self.openings_note),
            ("Date", self.referee.date),
        ]
        settings += [
            (f"Engine {spec.name}", spec.describe().partition(": ")[2] if commands else spec.limits.summary())
            for spec in self.engines
        ]
        if self.sprt is not None:
            first, second = (spec.name for spec in self.engines[:2])
            settings.append(
                (
                    "SPRT",
                    f"{self.sprt.text()}, testing {first} against {second} on colour-reversed pairs in schedule order",
                )
            )
        return settings


def _limits_settings(limits: SearchLimits) -> dict[str, str]:
    """The ``tc``/``st``/``depth``/``nodes``/``timemargin``/``ponder`` settings that give ``limits`` back."""
    settings = {}
    if limits.clock is not None:
        settings["tc"] = str(limits.clock)
    elif limits.infinite:
        settings["tc"] = "inf"
    if limits.movetime is not None:
        settings["st"] = repr(limits.movetime)
    if limits.depth is not None:
        settings["depth"] = str(limits.depth)
    if limits.nodes is not None:
        settings["nodes"] = str(limits.nodes)
    if limits.margin:
        settings["timemargin"] = str(round(limits.margin * 1000))
    if limits.ponder:
        settings["ponder"] = "true"
    return settings


def _settings_json(config: EventConfig) -> str:
    sprt = config.sprt
    return json.dumps(
        {
            "referee": dataclasses.asdict(config.referee),
            "concurrency": config.concurrency,
            "recover": config.recover,
            "pgn": config.pgn,
            "log_dir": config.log_dir,
            "report": config.report,
            "anchor": list(config.anchor) if config.anchor else None,
            "sprt": [sprt.elo0, sprt.elo1, sprt.alpha, sprt.beta] if sprt else None,
            "rating_interval": config.rating_interval,
            "cluster": config.cluster,
            "live_pgn": config.live_pgn,
            "pgn_nodes": config.pgn_nodes,
        },
        sort_keys=True,
    )


def clocks_after(record: GameRecord, limits: dict[str, SearchLimits]) -> list[float | None]:
    """Each mover's clock after each ply, by the arbiter's own :class:`Clock` arithmetic (a
    move is a whole turn, so the sides alternate, as in the PGN movetext)."""
    turn = first_mover(record.variant, record.fen)
    none = SearchLimits()
    sides = {Side.FIRST: limits.get(record.white, none), Side.SECOND: limits.get(record.black, none)}
    clocks = {color: Clock(side.clock) for color, side in sides.items()}
    after: list[float | None] = []
    for move in record.moves:
        clock = clocks[turn]
        if move.source is MoveSource.ENGINE and move.time is not None:
            clock.spend(move.time, sides[turn].margin)
        elif move.source is MoveSource.FORCED:
            clock.credit_forced_move()
        after.append(round(clock.remaining, 3) if clock.control and move.source is not MoveSource.BOOK else None)
        turn = turn.other
    return after


def _sqlite_uri(path: str, mode: str) -> str:
    return f"file:{quote(os.path.abspath(path))}?mode={mode}"


def is_event_file(path: str) -> bool:
    """True when ``path`` starts like an SQLite database (so it is read as an event, not PGN)."""
    return is_sqlite_file(path)


def settled(path: str, running: bool | None = None) -> bool:
    """Whether the event database at ``path`` cannot change under a reader: no arbiter runs it
    (holds its lock; ``running``, when the caller has just asked :func:`event_running`) and no
    write waits in its WAL."""
    try:
        pending = os.path.getsize(path + "-wal") > 0
    except OSError:
        pending = False
    return not pending and not (event_running(path) if running is None else running)


@contextlib.contextmanager
def _immediate(connection: sqlite3.Connection) -> Iterator[None]:
    """One write transaction (``BEGIN IMMEDIATE``): committed when the block ends, rolled back
    if anything in it raises."""
    connection.execute("BEGIN IMMEDIATE")
    try:
        yield
        connection.execute("COMMIT")
    except BaseException:
        connection.execute("ROLLBACK")
        raise


def _insert_schedule(connection: sqlite3.Connection, games: Iterable[ScheduledGame]) -> None:
    connection.executemany(
        "INSERT INTO schedule VALUES (?, ?, ?, ?, ?, ?, ?)",
        [(g.number, g.round, g.pairing, g.pair, g.white, g.black, g.opening) for g in games],
    )


class EventStore:
    """An open event database (see the module docstring).  Create one with :meth:`create`,
    open one with :meth:`open`; ``config`` and ``schedule`` are read once (a reader's
    ``schedule`` when first asked for); games are committed with :meth:`commit` (thread-safe)
    and read back with :meth:`records` (a list) or :meth:`iter_records` (one at a time)."""

    def __init__(self, path: str, connection: sqlite3.Connection, lock_fd: int | None) -> None:
        self.path = path
        self._db = connection
        self._lock_fd = lock_fd
        self._lock = threading.Lock()
        self._schedule: list[ScheduledGame] | None = None
        try:
            self.config = self._load()
            self._move_columns = self._columns_of_moves(writer=lock_fd is not None)
            if lock_fd is not None:  # a writer plays the plan (and extends it): read now, once
                self._schedule = self._read_schedule()
        except BaseException:
            connection.close()  # the lock descriptor is the caller's to close
            raise
        self._limits = {spec.name: spec.limits for spec in self.config.engines}

    # -- creating and opening --------------------------------------------------------------
    @classmethod
    def create(cls, path: str, config: EventConfig, schedule: Iterable[ScheduledGame]) -> EventStore:
        """A new event database at ``path`` (which must not exist), locked for this process."""
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            hint = (
                f"continue its event with: dipole-arbiter resume {path}"
                if is_event_file(path)
                else "it is not overwritten; give another --db"
            )
            raise EventError(f"event database {path} already exists; {hint}") from None
        except OSError as error:
            raise EventError(f"event database {path}: {error.strerror or error}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            connection = cls._connect(path, "rw")
            connection.execute("PRAGMA journal_mode=WAL")
            cls._initialise(connection, config, list(schedule))
            return cls(path, connection, fd)
        except BaseException as error:
            os.close(fd)
            Path(path).unlink(missing_ok=True)
            for suffix in ("-wal", "-shm"):
                Path(path + suffix).unlink(missing_ok=True)
            if isinstance(error, sqlite3.Error):
                raise EventError(f"event database {path}: {error}") from None
            raise

    @classmethod
    def open(cls, path: str, *, write: bool, unchanging: bool | None = None) -> EventStore:
        """An existing event database.  ``write``: to play it (takes the lock; fails if another
        arbiter has it); else to read it, alongside a running event.  ``unchanging`` (a reader
        that knows no arbiter runs the event and no write waits in its WAL; None: whether the
        database is :func:`settled` now): read as a file that cannot change, which takes no
        lock and makes no ``-wal``/``-shm`` file beside it (a WAL reader, ``mode=ro``, makes
        both and may leave them)."""
        if not os.path.exists(path):
            raise EventError(f"event database {path}: no such file")
        if os.path.isdir(path):
            raise EventError(f"event database {path}: is a directory")
        try:
            with open(path, "rb") as handle:
                header = handle.read(len(SQLITE_MAGIC))
        except OSError as error:
            raise EventError(f"event database {path}: {error.strerror or error}") from None
        if header and header != SQLITE_MAGIC:
            raise EventError(f"{path} is not an event database (not an SQLite database at all)")
        lock_fd = None
        try:
            if write:
                try:
                    lock_fd = os.open(path, os.O_RDWR)
                except OSError as error:
                    if error.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
                        raise EventError(
                            f"event database {path} is read-only ({error.strerror}): playing on "
                            f"writes to it (export and ratings can still read it)"
                        ) from None
                    raise EventError(f"event database {path}: {error.strerror or error}") from None
            mode = "rw" if write and os.access(path, os.W_OK) else "ro"  # a reader never writes (WAL reader)
            if not write and (settled(path) if unchanging is None else unchanging):
                connection = cls._connect_read_only(path)
                cls._check(path, connection)
                return cls(path, connection, None)
            connection = cls._connect(path, mode)
            try:
                cls._check(path, connection)
            except EventError:
                if mode == "rw":
                    raise
                connection = cls._connect_read_only(path)
                cls._check(path, connection)
            if lock_fd is not None:
                try:
                    fcntl.flock(lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    row = connection.execute("SELECT owner_pid FROM event").fetchone()
                    owner = f" (pid {row[0]})" if row and row[0] else ""
                    connection.close()
                    raise EventError(f"event database {path} is in use by another running arbiter{owner}") from None
                try:
                    connection.execute("UPDATE event SET owner_pid = ?", (os.getpid(),))
                except sqlite3.DatabaseError as error:
                    connection.close()
                    raise EventError(f"event database {path} cannot be played on: {error}") from None
            return cls(path, connection, lock_fd)
        except BaseException:
            if lock_fd is not None:
                os.close(lock_fd)
            raise

    @classmethod
    def _connect_read_only(cls, path: str) -> sqlite3.Connection:
        """A database we may not write, in a directory we may not write either: SQLite cannot
        make the WAL index it needs beside it, so it is read as an unchanging file, which is
        only right when no write is left pending in its WAL."""
        wal = path + "-wal"
        if os.path.exists(wal) and os.path.getsize(wal) > 0:
            raise EventError(
                f"event database {path} is read-only and {wal} holds writes not yet in it; "
                f"copy both files somewhere writable and read the copy"
            )
        return cls._connect(path, "ro&immutable=1")

    @staticmethod
    def _connect(path: str, mode: str) -> sqlite3.Connection:
        try:
            connection = sqlite3.connect(
                _sqlite_uri(path, mode), uri=True, isolation_level=None, check_same_thread=False, timeout=10.0
            )
            connection.execute("PRAGMA foreign_keys=ON")
            if mode == "rw":
                connection.execute("PRAGMA synchronous=FULL")
        except sqlite3.Error as error:
            raise EventError(f"event database {path}: {error}") from None
        return connection

    @staticmethod
    def _check(path: str, connection: sqlite3.Connection) -> None:
        """One clear line unless this is one of our event databases, of this schema version."""
        try:
            application = connection.execute("PRAGMA application_id").fetchone()[0]
            tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        except sqlite3.DatabaseError as error:
            connection.close()
            if "not a database" in str(error):
                raise EventError(f"{path} is not an event database (not an SQLite database at all)") from None
            raise EventError(f"event database {path} is damaged and cannot be read: {error}") from None
        if application != APPLICATION_ID or "schema_version" not in tables:
            connection.close()
            what = "an empty SQLite database" if not tables else "an SQLite database of some other program"
            raise EventError(f"{path} is not a dipole-arbiter event database ({what})")
        try:
            row = connection.execute("SELECT version FROM schema_version").fetchone()
        except sqlite3.DatabaseError as error:
            connection.close()
            raise EventError(f"event database {path} is damaged and cannot be read: {error}") from None
        if row is None or row[0] != SCHEMA_VERSION:
            connection.close()
            found = "no version" if row is None else f"version {row[0]}"
            raise EventError(
                f"event database {path} has schema {found}; this dipole-arbiter reads version {SCHEMA_VERSION}"
            )
        missing = [
            table for table in ("event", "engines", "openings", "schedule", "games", "moves") if table not in tables
        ]
        if missing:
            connection.close()
            raise EventError(f"event database {path} is damaged: its table {missing[0]!r} is missing")

    @staticmethod
    def _initialise(connection: sqlite3.Connection, config: EventConfig, schedule: list[ScheduledGame]) -> None:
        """Write the schema, the settings, the engines, the openings and the schedule at once."""
        cwd = os.getcwd()
        with _immediate(connection):
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    connection.execute(statement)
            connection.execute(f"PRAGMA application_id={APPLICATION_ID}")
            connection.execute("INSERT INTO schema_version VALUES (?)", (SCHEMA_VERSION,))
            connection.execute(
                "INSERT INTO event (id, format, variant, rounds, games_per_pairing, openings_note, settings, "
                "command_line, created, owner_pid) VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    config.format,
                    config.variant,
                    config.rounds,
                    config.games_per_pairing,
                    config.openings_note,
                    _settings_json(config),
                    config.command_line,
                    datetime.datetime.now().isoformat(timespec="seconds"),
                    os.getpid(),
                ),
            )
            connection.executemany(
                "INSERT INTO engines VALUES (?, ?, ?, ?, ?, ?)",
                [
                    (
                        index,
                        spec.name,
                        json.dumps(list(spec.command)),
                        os.path.abspath(spec.cwd or cwd),
                        json.dumps([list(option) for option in spec.options]),
                        json.dumps(_limits_settings(spec.limits)),
                    )
                    for index, spec in enumerate(config.engines)
                ],
            )
            connection.executemany(
                "INSERT INTO openings VALUES (?, ?, ?, ?)",
                [
                    (index, opening.fen, " ".join(opening.moves), opening.source)
                    for index, opening in enumerate(config.openings)
                ],
            )
            _insert_schedule(connection, schedule)

    def _damaged(self, error: Exception) -> EventError:
        """One line for a database that is ours but cannot be read as an event."""
        if isinstance(error, (sqlite3.DatabaseError, ArbiterError)):
            detail = str(error)
        elif isinstance(error, KeyError):
            detail = f"a setting is missing ({error})"
        else:
            detail = f"{type(error).__name__}: {error}"
        return EventError(f"event database {self.path} is damaged and cannot be read: {detail}")

    def _columns_of_moves(self, writer: bool) -> str:
        """The columns a move is read from.  A database made before moves kept their nodes gains
        the column when a writer opens it (resume); a reader reads no nodes (NULL) from it."""
        try:
            names = {row[1] for row in self._db.execute("PRAGMA table_info(moves)")}
            if "nodes" not in names and writer:
                with _immediate(self._db):
                    self._db.execute("ALTER TABLE moves ADD COLUMN nodes INTEGER")
                names.add("nodes")
        except sqlite3.DatabaseError as error:
            raise EventError(f"event database {self.path} cannot be read: {error}") from None
        return _MOVE_COLUMNS if "nodes" in names else _MOVE_COLUMNS.replace("nodes", "NULL")

    def _load(self) -> EventConfig:
        """The event's settings; EventError (one line) if they are damaged."""
        try:
            return self._read_event()
        except (sqlite3.DatabaseError, ValueError, KeyError, TypeError, IndexError) as error:
            raise self._damaged(error) from None

    def _read_event(self) -> EventConfig:
        db = self._db
        (format_, variant, rounds, games, note, settings_text, command_line) = db.execute(
            "SELECT format, variant, rounds, games_per_pairing, openings_note, settings, command_line FROM event"
        ).fetchone()
        settings: dict[str, Any] = json.loads(settings_text)
        engines = tuple(
            EngineSpec(
                name,
                tuple(json.loads(command)),
                limits_from_settings(json.loads(limits), f"engine {name!r}"),
                cwd,
                tuple((option, value) for option, value in json.loads(options)),
            )
            for name, command, cwd, options, limits in db.execute(
                "SELECT name, command, cwd, options, limits FROM engines ORDER BY id"
            )
        )
        openings = tuple(
            Opening(fen, tuple(moves.split()), source)
            for fen, moves, source in db.execute("SELECT fen, moves, source FROM openings ORDER BY id")
        )
        anchor = settings["anchor"]
        sprt = settings["sprt"]
        referee = settings["referee"]
        if referee.get("resign"):  # stored as its fields (dataclasses.asdict)
            referee["resign"] = ResignRule(**referee["resign"])
        if referee.get("draw"):  # an event made before the draw rule has no such key
            referee["draw"] = DrawRule(**referee["draw"])
        config = EventConfig(
            format=format_,
            variant=variant,
            engines=engines,
            rounds=rounds,
            games_per_pairing=games,
            openings=openings,
            openings_note=note,
            referee=RefereeSettings(**referee),
            concurrency=settings["concurrency"],
            recover=settings["recover"],
            pgn=settings["pgn"],
            log_dir=settings["log_dir"],
            report=settings["report"],
            anchor=(anchor[0], float(anchor[1])) if anchor else None,
            sprt=SprtParams(*sprt) if sprt else None,
            command_line=command_line,
            rating_interval=settings.get("rating_interval", 0),
            cluster=settings.get("cluster"),
            live_pgn=settings.get("live_pgn"),
            pgn_nodes=settings.get("pgn_nodes", False),
        )
        return config

    @property
    def schedule(self) -> list[ScheduledGame]:
        """Every planned game, by number.  A reader reads it when first asked for (``export``
        never asks: the plan of a long event would be most of what it holds)."""
        if self._schedule is None:
            self._schedule = self._read_schedule()
        return self._schedule

    def _read_schedule(self) -> list[ScheduledGame]:
        """The schedule; EventError (one line) if it is damaged."""
        try:
            with self._lock:
                rows = self._db.execute(
                    "SELECT number, round, pairing, pair, white, black, opening FROM schedule ORDER BY number"
                )
                return [ScheduledGame(*row) for row in rows]
        except sqlite3.DatabaseError as error:
            raise self._damaged(error) from None

    def scheduled(self) -> int:
        """How many games are planned, without reading the plan."""
        if self._schedule is not None:
            return len(self._schedule)
        try:
            with self._lock:
                return int(self._db.execute("SELECT count(*) FROM schedule").fetchone()[0])
        except sqlite3.DatabaseError as error:
            raise self._damaged(error) from None

    def close(self) -> None:
        """Close the database, then drop the lock (in that order: closing any descriptor of the
        file drops the POSIX locks SQLite holds on it, so ours goes last)."""
        with self._lock:
            self._db.close()
            if self._lock_fd is not None:
                os.close(self._lock_fd)
                self._lock_fd = None

    # -- games -------------------------------------------------------------------------
    def commit(self, record: GameRecord) -> None:
        """Record a finished game and its moves in one transaction (durable on return)."""
        clocks = clocks_after(record, self._limits)
        times = {True: 0.0, False: 0.0}
        white_first = first_mover(record.variant, record.fen) is Side.FIRST
        for ply, move in enumerate(record.moves):
            if move.source is MoveSource.ENGINE and move.time is not None:
                times[(ply % 2 == 0) == white_first] += move.time
        with self._lock:
            db = self._db
            try:
                with _immediate(db):
                    db.execute(
                        "INSERT INTO games (number, white, black, variant, fen, result, termination, reason, "
                        "white_tc, black_tc, opening, event, site, date, plies, white_time, black_time, finished) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (
                            record.number,
                            record.white,
                            record.black,
                            record.variant,
                            record.fen,
                            record.result,
                            record.termination.name,
                            record.reason,
                            record.white_tc,
                            record.black_tc,
                            record.opening,
                            record.event,
                            record.site,
                            record.date,
                            record.plies,
                            round(times[True], 3),
                            round(times[False], 3),
                            datetime.datetime.now().isoformat(timespec="milliseconds"),
                        ),
                    )
                    db.executemany(
                        "INSERT INTO moves (game, ply, text, source, score_cp, score_mate, depth, time, clock, nodes) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        [
                            (
                                record.number,
                                ply,
                                move.text,
                                move.source.value,
                                move.score_cp,
                                move.score_mate,
                                move.depth,
                                move.time,
                                clock,
                                move.nodes,
                            )
                            for ply, (move, clock) in enumerate(zip(record.moves, clocks), 1)
                        ],
                    )
            except sqlite3.Error as error:
                raise EventError(f"event database {self.path}: cannot record game {record.number}: {error}") from None

    def extend_schedule(self, games: list[ScheduledGame]) -> None:
        """Add the next stage of a knockout or Swiss event, all of it in one transaction."""
        with self._lock:
            db = self._db
            try:
                with _immediate(db):
                    _insert_schedule(db, games)
            except sqlite3.Error as error:
                raise EventError(f"event database {self.path}: cannot add the next round: {error}") from None
            self.schedule.extend(games)

    def mark_pgn_written(self, numbers: Iterable[int]) -> None:
        with self._lock:
            self._db.executemany("UPDATE games SET pgn_written = 1 WHERE number = ?", [(n,) for n in numbers])

    def pgn_pending(self) -> list[int]:
        """Finished games not yet known to be in the event's PGN file."""
        try:
            with self._lock:
                return [
                    row[0] for row in self._db.execute("SELECT number FROM games WHERE pgn_written = 0 ORDER BY number")
                ]
        except sqlite3.DatabaseError as error:
            raise self._damaged(error) from None

    def finished(self) -> set[int]:
        try:
            with self._lock:
                return {row[0] for row in self._db.execute("SELECT number FROM games")}
        except sqlite3.DatabaseError as error:
            raise self._damaged(error) from None

    def changes(self) -> tuple[int, int]:
        """A value that changes whenever another connection commits to the database (SQLite's
        ``data_version``) and the count of finished games: what a reader polls to learn that
        the event moved on, without reading a game."""
        try:
            with self._lock:
                version = self._db.execute("PRAGMA data_version").fetchone()[0]
                count = self._db.execute("SELECT count(*) FROM games").fetchone()[0]
                return version, count
        except sqlite3.DatabaseError as error:
            raise self._damaged(error) from None

    def outcomes(self) -> list[GameOutcome]:
        """Every finished game's players, result and length, by game number, without reading a
        move: what standings, ratings, the SPRT and the knockout/Swiss plans need, in memory
        that grows with the games, not with the moves played; EventError (one line) if they
        are damaged."""
        try:
            with self._lock:
                rows = self._db.execute(
                    "SELECT number, white, black, result, termination, reason, plies, finished "
                    "FROM games ORDER BY number"
                )
                return [
                    GameOutcome(
                        number, white, black, result, _termination(number, termination), reason, plies, finished
                    )
                    for number, white, black, result, termination, reason, plies, finished in rows
                ]
        except (sqlite3.DatabaseError, ValueError, KeyError, TypeError) as error:
            raise self._damaged(error) from None

    def records(self, numbers: Iterable[int] | None = None) -> list[GameRecord]:
        """The finished games (all, or those ``numbers``; a number not finished is left out),
        by game number, with their moves; EventError (one line) if they are damaged.  Given
        ``numbers``, only those games and their moves are read."""
        try:
            return self._read_records(numbers)
        except (sqlite3.DatabaseError, ValueError, KeyError, TypeError) as error:
            raise self._damaged(error) from None

    def _read_records(self, numbers: Iterable[int] | None) -> list[GameRecord]:
        # The numbers go in as one JSON array (json_each): a list of any length is one bound
        # parameter (SQLite caps their count), and both lookups go through the primary keys.
        only_moves = only_games = ""
        parameters: tuple[str, ...] = ()
        if numbers is not None:
            parameters = (json.dumps(sorted(set(numbers))),)
            only_moves = "WHERE game IN (SELECT value FROM json_each(?))"
            only_games = "WHERE number IN (SELECT value FROM json_each(?))"
        with self._lock:
            moves: dict[int, list[MoveRecord]] = {}
            for row in self._db.execute(
                f"SELECT {self._move_columns} FROM moves {only_moves} ORDER BY game, ply", parameters
            ):
                moves.setdefault(row[0], []).append(_move(row))
            rows = self._db.execute(
                f"SELECT {_GAME_COLUMNS} FROM games {only_games} ORDER BY number", parameters
            ).fetchall()
        return [_game(row, moves.get(row[0], ())) for row in rows]

    def iter_records(self, batch: int = 64) -> Iterator[GameRecord]:
        """Every finished game, by game number, as :meth:`records` gives them, but one at a
        time: two scans in key order (the games; the moves by game and ply) merged as they
        are read, ``batch`` rows of each at a time, so memory holds a batch and one game however
        many games the event has.  The scans run side by side in one read transaction, a
        snapshot: games a running event commits meanwhile are not in it.  EventError (one
        line) if a game is damaged, raised when the reading reaches it."""
        try:
            with self._lock:
                games = self._db.execute(f"SELECT {_GAME_COLUMNS} FROM games ORDER BY number")
                moves = self._db.execute(f"SELECT {self._move_columns} FROM moves ORDER BY game, ply")
            try:
                move_rows = self._fetch(moves, batch)
                move = next(move_rows, None)
                for row in self._fetch(games, batch):
                    played = []
                    while move is not None and move[0] <= row[0]:  # moves of no game are skipped
                        if move[0] == row[0]:
                            played.append(_move(move))
                        move = next(move_rows, None)
                    yield _game(row, played)
            finally:  # ends the read transaction, however the reading ends
                with self._lock:
                    games.close()
                    moves.close()
        except (sqlite3.DatabaseError, ValueError, KeyError, TypeError) as error:
            raise self._damaged(error) from None

    def _fetch(self, cursor: sqlite3.Cursor, batch: int) -> Iterator[Any]:
        """The rows of ``cursor``, fetched ``batch`` at a time."""
        while True:
            with self._lock:
                rows = cursor.fetchmany(batch)
            if not rows:
                return
            yield from rows


_GAME_COLUMNS = (
    "number, white, black, variant, fen, result, termination, reason, white_tc, black_tc, opening, event, site, date"
)
_MOVE_COLUMNS = "game, text, source, score_cp, score_mate, depth, time, nodes"


def _move(row: Any) -> MoveRecord:
    """A move of a row of :data:`_MOVE_COLUMNS` (ArbiterError if it is none)."""
    game, text, source, cp, mate, depth, time, nodes = row
    try:
        return MoveRecord(text, MoveSource(source), cp, mate, depth, time, nodes)
    except ValueError:
        raise ArbiterError(f"a move of game {game} has the unknown source {source!r}") from None


def _termination(game: int, name: str) -> Termination:
    """The :class:`Termination` stored by ``name`` (ArbiterError if it is none)."""
    try:
        return Termination[name]
    except KeyError:
        raise ArbiterError(f"game {game} has the unknown termination {name!r}") from None


def _game(row: Any, moves: Iterable[MoveRecord]) -> GameRecord:
    """The game of a row of :data:`_GAME_COLUMNS`, with its ``moves``."""
    (
        number,
        white,
        black,
        variant,
        fen,
        result,
        termination,
        reason,
        white_tc,
        black_tc,
        opening,
        event,
        site,
        date,
    ) = row
    return GameRecord(
        number,
        white,
        black,
        variant,
        fen,
        tuple(moves),
        result,
        _termination(number, termination),
        reason,
        white_tc,
        black_tc,
        opening,
        event,
        site,
        date,
    )
