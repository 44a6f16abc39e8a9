"""The live files: the games in progress, written for viewers in other processes.

While an event runs, :class:`LiveFiles` keeps two optional files up to date:

- the **live file** (JSON, :data:`LIVE_FORMAT`; a tournament's is ``<EVENT.db>-live.json``
  beside its database): every game in progress with its moves, both clocks (and since when
  the side to move has been thinking), each engine's latest search line
  (:func:`arbiter.live.searchline.search_line`: depth, score from White's side, nodes, speed,
  principal variation), the run's start and a ``heartbeat``;
- the **live PGN** (``--live-pgn FILE``): the games in progress as PGN, result ``*``,
  written with the arbiter's own PGN writer (:func:`~arbiter.records.pgn.format_game`).

Both are replaced whole (written beside the target, then ``os.replace``), so a reader only
ever sees a complete file.  They are never fsynced: live data may be lost in a crash; the
event database stays the only record (a finished game is committed there before it leaves
the live file).

Cost to the games: a worker only updates its :class:`LiveGame` in memory (a few attribute
stores per move, one per ``info`` line) and sets an event.  One background thread writes the
files: the live PGN at every change, the live file at most every :data:`MIN_INTERVAL`
seconds, at once when a game starts or ends, and at least every :data:`HEARTBEAT` seconds.
A failure to write (a full disk, a removed directory) is reported once and never stops a game.

Whether the run behind a live file is still at work: a match has no database (a tournament's
arbiter holds its database's lock: :mod:`arbiter.events.running`), so its live file names the
arbiter's ``pid``, and :func:`live_running` checks that process and the heartbeat.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable
from typing import Any

from gameplug import Side
from protocol.codec import Info

from ..errors import ArbiterError
from ..files import replace_text
from ..play.referee import GameJob
from ..play.timecontrol import Clock
from ..records.game import UNFINISHED, GameRecord, MoveRecord, Termination
from ..records.pgn import format_game
from .searchline import search_line

LIVE_FORMAT = "dipole-arbiter-live"
LIVE_VERSION = 2  # 2: search lines as arbiter.live.searchline shows them (scores from White's side)
LIVE_SUFFIX = "-live.json"
MIN_INTERVAL = 0.2  # seconds between two rewrites of the live file while moves come fast
HEARTBEAT = 1.0  # the live file is rewritten at least this often while the run is alive
STALE_AFTER = 5.0  # a heartbeat older than this: the arbiter is gone


def check_live_file(path: str | None, flag: str) -> None:
    """A live file can be written at ``path`` (its directory exists); else one clear line."""
    if path is None:
        return
    directory = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise ArbiterError(f"{flag} {path}: is a directory")
    if not os.path.isdir(directory):
        raise ArbiterError(f"{flag} {path}: no such directory {directory}")
    if not os.access(directory, os.W_OK):
        raise ArbiterError(f"{flag} {path}: cannot write in {directory}")


def live_path(db_path: str) -> str:
    """The live file of an event database: ``<db>-live.json`` beside it."""
    return db_path + LIVE_SUFFIX


class LiveGame:
    """One game in progress, as its worker thread updates it and the publisher reads it.

    The worker calls :meth:`moved` after every ply and :meth:`info` for every ``info`` line;
    both only store values.  ``moves`` and the clocks are the game's own objects, read (never
    written) by the publisher's thread.
    """

    def __init__(
        self,
        publisher: LiveFiles,
        job: GameJob,
        fen: str | None,
        moves: list[MoveRecord],
        clocks: dict[Side, Clock],
        turn: Side,
    ) -> None:
        self.publisher = publisher
        self.job = job
        self.fen = fen
        self.moves = moves
        self.clocks = clocks
        self.started = time.time()
        # (plies shown, side to move, when it began thinking): one value, replaced whole, so the
        # publisher's thread never sees a move without the turn that follows it.
        self.state = (len(moves), turn, self.started)
        self.lines: dict[Side, Info] = {}

    def moved(self, turn: Side) -> None:
        """A ply was played (it is in ``moves``); ``turn`` is now to move."""
        self.state = (len(self.moves), turn, time.time())
        self.publisher.changed()

    def info(self, info: Info) -> None:
        """An ``info`` line of the side to move (kept when it carries a score or a line)."""
        if info.pv or info.score_cp is not None or info.score_mate is not None:
            self.lines[self.state[1]] = info

    def snapshot(self) -> dict[str, Any]:
        """The game as the live file shows it."""
        job = self.job
        plies, turn, since = self.state
        moves = self.moves[:plies]
        clocks = {
            name: (round(clock.remaining, 3) if clock.control is not None else None)
            for name, clock in (("white", self.clocks[Side.FIRST]), ("black", self.clocks[Side.SECOND]))
        }
        lines = {
            ("white" if color == Side.FIRST else "black"): search_line(info, color)
            for color, info in list(self.lines.items())
        }
        return {
            "number": job.number,
            "white": job.white.name,
            "black": job.black.name,
            "variant": job.variant,
            "fen": self.fen,
            "moves": [move.text for move in moves],
            "comments": [move.comment() for move in moves],
            "turn": "white" if turn == Side.FIRST else "black",
            "since": round(since, 3),
            "started": round(self.started, 3),
            "clocks": clocks,
            "lines": lines,
            "white_tc": job.white.limits.describe(),
            "black_tc": job.black.limits.describe(),
        }

    def record(self, event: str, site: str, date: str) -> GameRecord:
        """The game so far as an unfinished record (for the live PGN)."""
        job = self.job
        return GameRecord(
            number=job.number,
            white=job.white.name,
            black=job.black.name,
            variant=job.variant,
            fen=self.fen,
            moves=tuple(self.moves[: self.state[0]]),
            result=UNFINISHED,
            termination=Termination.UNTERMINATED,
            reason="",
            white_tc=job.white.limits.describe(),
            black_tc=job.black.limits.describe(),
            opening=job.opening.source,
            event=event,
            site=site,
            date=date,
        )


class LiveFiles:
    """Publishes the games in progress to ``path`` (the live file) and/or ``pgn`` (see the
    module docstring).  ``header`` goes into the live file as is (the event's name, its
    database, games in all and done before this run); ``warn`` gets one line if writing fails."""

    def __init__(
        self,
        path: str | None,
        pgn: str | None,
        *,
        header: dict[str, Any] | None = None,
        tags: tuple[str, str, str] = ("?", "?", "????.??.??"),
        warn: Callable[[str], None] = lambda line: None,
    ) -> None:
        self.path = path
        self.pgn = pgn
        self.header = dict(header or {})
        self.tags = tags
        self.warn = warn
        self.started = time.time()
        self.done = 0
        self._games: dict[int, LiveGame] = {}
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._urgent = False
        self._closing = False
        self._state = "running"
        self._failed = False
        self._thread = threading.Thread(target=self._run, name="arbiter-live", daemon=True)
        self._write()  # the file exists (empty of games) before the first game starts
        self._thread.start()

    # -- called by the workers ------------------------------------------------------------
    def open_game(
        self, job: GameJob, fen: str | None, moves: list[MoveRecord], clocks: dict[Side, Clock], turn: Side
    ) -> LiveGame:
        """A game starts (published at once)."""
        game = LiveGame(self, job, fen, moves, clocks, turn)
        with self._lock:
            self._games[job.number] = game
            self._urgent = True
        self._wake.set()
        return game

    def game_over(self, number: int) -> None:
        """Game ``number`` is finished and recorded (published at once)."""
        with self._lock:
            if self._games.pop(number, None) is not None:
                self.done += 1
            self._urgent = True
        self._wake.set()

    def changed(self) -> None:
        self._wake.set()

    def close(self, state: str = "finished") -> None:
        """Stop publishing; the files are left with no game in progress and ``state``
        (``finished``, or ``stopped`` when the run was interrupted)."""
        with self._lock:
            if self._closing:
                return
            self._closing = True
            self._state = state
            self._games.clear()
        self._wake.set()
        self._thread.join(timeout=5.0)
        self._write()

    # -- the writer thread ----------------------------------------------------------------
    def _run(self) -> None:
        last = 0.0  # when the live file was last written (monotonic)
        pending = False  # a change is not in the live file yet (it was not due)
        while True:
            timeout = max(0.0, last + MIN_INTERVAL - time.monotonic()) if pending else HEARTBEAT
            signalled = self._wake.wait(timeout)
            if self._closing:
                return
            with self._lock:
                urgent, self._urgent = self._urgent, False
            if signalled and not urgent and self.pgn is None:
                # Only the live file: let moves gather until it is due, rather than wake per move.
                pause = last + MIN_INTERVAL - time.monotonic()
                if pause > 0:
                    time.sleep(pause)
            self._wake.clear()
            now = time.monotonic()
            due = urgent or not signalled or now - last >= MIN_INTERVAL
            pending = not due
            self._write(live=due, pgn=signalled)
            if due:
                last = now

    def _write(self, live: bool = True, pgn: bool = True) -> None:
        with self._lock:
            games = sorted(self._games.values(), key=lambda game: game.job.number)
            state, done = self._state, self.done
        try:
            if live and self.path is not None:
                document = {
                    "format": LIVE_FORMAT,
                    "version": LIVE_VERSION,
                    "pid": os.getpid(),
                    "state": state,
                    "heartbeat": round(time.time(), 3),
                    "run_started": round(self.started, 3),
                    "done_this_run": done,
                    **self.header,
                    "games": [game.snapshot() for game in games],
                }
                replace_text(self.path, json.dumps(document, separators=(",", ":")))
            if pgn and self.pgn is not None:
                replace_text(self.pgn, "".join(format_game(game.record(*self.tags)) for game in games))
        except (OSError, ValueError) as error:
            if not self._failed:
                self._failed = True
                self.warn(f"cannot write the live files: {getattr(error, 'strerror', None) or error}")


def read_live(path: str) -> dict[str, Any] | None:
    """The live file at ``path``, or None when there is none (or it is not a live file)."""
    try:
        with open(path, encoding="utf-8") as handle:
            document = json.load(handle)
    except (OSError, ValueError):
        return None
    if not isinstance(document, dict) or document.get("format") != LIVE_FORMAT:
        return None
    return document


def live_running(document: dict[str, Any] | None, now: float | None = None) -> bool:
    """True when a live file's arbiter is still at work: state ``running``, its process
    alive and its heartbeat fresh."""
    if not document or document.get("state") != "running":
        return False
    heartbeat = document.get("heartbeat")
    if not isinstance(heartbeat, (int, float)) or (now or time.time()) - heartbeat > STALE_AFTER:
        return False
    pid = document.get("pid")
    if not isinstance(pid, int):
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
