"""The watch page: an event (a tournament) live, or after it ended, for any number of viewers.

Routes (added to the GUI's app by :func:`watch_routes`):

- ``GET /watch[?event=NAME]``: the page (``static/watch.html``; ``watch.js`` draws it);
- ``GET /api/events``: the events this server may show: the one given with ``--watch``
  and the event databases in its working directory, by name (a page never names a path);
- ``WS /ws/watch?event=NAME``: the event's updates, pushed; the page may ask for a finished
  game (``{"type": "replay", "number": 7}``) to step through.

One :class:`EventFeed` per watched database serves all its viewers.  While it has viewers it
looks at the files every :data:`POLL_INTERVAL` seconds, without ever writing or locking them:
the database, opened read-only by :func:`open_store` (while the event runs, a WAL reader that
never blocks the arbiter; once it is over, an unchanging file, so that not even SQLite's
``-wal``/``-shm`` files are made beside it), whose :meth:`~arbiter.events.store.EventStore.changes` say when
a game was committed, and whose finished games are read without their moves
(:meth:`~arbiter.events.store.EventStore.outcomes`); the live file the arbiter keeps
beside it (:mod:`arbiter.live.livefiles`), by its modification time; and whether an arbiter holds the
event's lock (:func:`arbiter.events.running.event_running`).  On a change it pushes to the page:

- ``status``: ``waiting`` (no database yet), ``running``, ``stopped`` (not running, games
  left: how to resume), ``complete`` or ``error``, with one line of text;
- ``event``: settings, progress and ETA, the standings with their 95% intervals (the numbers
  of ``dipole-arbiter ratings``: :func:`arbiter.stats.ratings.fit_ratings` on the same games),
  crosstable, terminations and the finished games;
- ``live``: every game in progress: its board (:func:`arbiter.board.board_json`, any game's), moves
  (also in the game's notation, ``shown``), clocks and both engines' latest lines, their moves
  in the game's notation too (only while the event runs).

A match has no database: ``--watch FILE.json`` follows its live file (``dipole-arbiter match
--live FILE.json``): its games in progress, its progress, and whether it runs (its heartbeat
and its process, :func:`arbiter.live.livefiles.live_running`).

A viewer that falls behind gets only the newest message of each kind, so memory stays bounded.
"""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse
from starlette.routing import BaseRoute, Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

import gameplug
from arbiter.board import LastMove, board_json, images_of, play_shown, ply_json
from arbiter.errors import ArbiterError
from arbiter.events.running import event_running
from arbiter.events.store import EventConfig, EventStore, ScheduledGame, is_event_file, settled
from arbiter.live.livefiles import STALE_AFTER, live_path, live_running, read_live
from arbiter.records.game import GameOutcome
from arbiter.records.pgn import format_game
from arbiter.stats.ratings import RatingError, RatingTable, fit_ratings
from gameplug import GameError, State

from .analysislines import legal_notation
from .outbox import Outbox

STATIC_DIR = Path(__file__).parent / "static"
POLL_INTERVAL = 0.25  # seconds between two looks at the files while someone watches
LiveBoard = tuple[str | None, list[str], State[Any], LastMove | None, list[str]]
"""A live game's board, kept between looks: its start FEN, the moves played on it, the position,
its last move, the moves in the game's notation."""
CREATION_GRACE = 10.0  # a database this new that cannot be read yet is still being written


class EventFeed:
    """One event database and its viewers (see the module docstring)."""

    def __init__(self, path: str) -> None:
        self.path = os.path.abspath(path)
        # A match has no database: its live file (``dipole-arbiter match --live FILE.json``) is all there is.
        self.match = self.path.endswith(".json")
        self.live_file = self.path if self.match else live_path(self.path)
        self.viewers: set[Outbox] = set()
        self.latest: dict[str, dict[str, Any]] = {}
        self._task: asyncio.Task[None] | None = None
        self._store: EventStore | None = None  # open read-only while the feed watches
        self._settled = False  # whether _store reads the database as an unchanging file
        self._config: EventConfig | None = None
        self._schedule: list[ScheduledGame] = []
        self._version: tuple[int, int] | None = None  # the store's changes() at the last look
        self._finished: list[GameOutcome] = []
        self._live_stamp: tuple[int, int] | None = None
        self._live: dict[str, Any] | None = None
        self._running: bool | None = None
        self._progress: Any = None
        self._rated: tuple[int, dict[str, Any] | None] = (-1, None)
        self._boards: dict[int, LiveBoard] = {}
        # One look at a time: a feed whose last viewer left may still be finishing one on its
        # thread when a new viewer starts the next.
        self._looking = threading.Lock()

    # -- viewers --------------------------------------------------------------------------
    def join(self, viewer: Outbox) -> None:
        self.viewers.add(viewer)
        for message in self.latest.values():
            viewer.post(message)
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._watch())

    def leave(self, viewer: Outbox) -> None:
        self.viewers.discard(viewer)
        if not self.viewers and self._task is not None:
            self._task.cancel()
            self._task = None

    async def _watch(self) -> None:
        try:
            while True:
                try:
                    messages = await asyncio.to_thread(self.poll)
                except Exception as error:  # noqa: BLE001 - a damaged file must not end the feed
                    with self._looking:
                        self._close_db()
                    messages = [
                        {
                            "type": "status",
                            "state": "error",
                            "path": self.path,
                            "text": f"cannot read the event {self.path}: {error}",
                        }
                    ]
                for message in messages:
                    self.latest[message["type"]] = message
                    for viewer in list(self.viewers):
                        viewer.post(message)
                await asyncio.sleep(POLL_INTERVAL)
        finally:
            with self._looking:
                self._close_db()

    # -- looking at the files (on a worker thread) ---------------------------------------
    def poll(self) -> list[dict[str, Any]]:
        """The messages that changed since the last look."""
        with self._looking:
            return self._look()

    def _look(self) -> list[dict[str, Any]]:
        if self.match:
            return self._look_at_match()
        messages: list[dict[str, Any]] = []
        running = event_running(self.path)
        live_changed = self._read_live()
        try:
            db_changed = self._read_db(running)
        except (ArbiterError, sqlite3.Error) as error:
            self._close_db()
            state = "error"
            text = str(error) if isinstance(error, ArbiterError) else f"event database {self.path}: {error}"
            if not os.path.exists(self.path):
                state, text = "waiting", f"Waiting for the event: {self.path} does not exist yet"
            elif time.time() - os.path.getmtime(self.path) < CREATION_GRACE:  # being created right now
                state, text = "waiting", f"Waiting for the event: {self.path} is being created"
            status = {"type": "status", "state": state, "text": text, "path": self.path}
            return [status] if status != self.latest.get("status") else []
        progress = (self._live or {}).get("done_this_run")
        if db_changed or running != self._running or progress != self._progress:
            self._progress = progress
            messages.append(self._event_message(running))
        if live_changed or running != self._running:
            messages.append(self._live_message(running))
        status = self._status_message(running)
        if status != self.latest.get("status"):
            messages.insert(0, status)
        self._running = running
        return messages

    def _look_at_match(self) -> list[dict[str, Any]]:
        """A match's live file: its games in progress, its progress and whether it runs."""
        changed = self._read_live()
        live = self._live
        running = live_running(live)
        messages: list[dict[str, Any]] = []
        if live is None:
            state, text = "waiting", f"Waiting for the match: {self.path} does not exist yet"
            if os.path.exists(self.path):
                state, text = "error", f"{self.path} is not a live file of dipole-arbiter"
        else:
            total, done = live.get("games_total"), live.get("done_this_run")
            if running:
                state, text = "running", f"Running: {done} of {total} games finished"
            elif live.get("state") == "finished":
                state, text = "complete", f"The match is over: {done} of {total} games played"
            else:
                state, text = (
                    "stopped",
                    f"The match is not running (stopped or killed): {done} of {total} games finished",
                )
            if changed or running != self._running:
                messages.append(self._match_message(live, running))
                messages.append(self._live_message(running))
        status = {"type": "status", "state": state, "text": text, "path": self.path}
        if status != self.latest.get("status"):
            messages.insert(0, status)
        self._running = running
        return messages

    def _match_message(self, live: dict[str, Any], running: bool) -> dict[str, Any]:
        total, done = live.get("games_total"), live.get("done_this_run")
        total, done = (total, done) if isinstance(total, int) and isinstance(done, int) else (0, 0)
        started = live.get("run_started")
        eta = (
            (time.time() - started) / done * (total - done)
            if running and done and isinstance(started, (int, float))
            else None
        )
        return {
            "type": "event",
            "name": str(live.get("event", "match")),
            "total": total,
            "done": done,
            "eta": eta,
            "settings": [
                ("Live file", self.path),
                ("Finished games", "in the match's PGN file (--pgn), not in its live file"),
            ],
            "engines": [],
            "ratings": None,
            "terminations": [],
            "games": [],
            "match": True,
        }

    def _read_live(self) -> bool:
        try:
            stat = os.stat(self.live_file)
            stamp = (stat.st_mtime_ns, stat.st_ino)
        except OSError:
            stamp = None
        if stamp == self._live_stamp:
            return False
        self._live_stamp = stamp
        self._live = read_live(self.live_file) if stamp is not None else None
        return True

    def _read_db(self, running: bool) -> bool:
        if self._store is not None and self._settled and not settled(self.path, running):
            self._close_db()  # the event was resumed: an unchanging file's reader would not see it go on
        if self._store is None:
            self._store, self._settled = open_store(self.path, running)
            self._config, self._schedule = self._store.config, self._store.schedule
            self._version = None
        version = self._store.changes()
        if version == self._version:
            return False
        self._version = version
        self._finished = self._store.outcomes()
        return True

    def _close_db(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None

    # -- the messages ---------------------------------------------------------------------
    def _status_message(self, running: bool) -> dict[str, Any]:
        total, done = len(self._schedule), len(self._finished)
        if running:
            state, text = "running", f"Running: {done} of {total} games finished"
            heartbeat = (self._live or {}).get("heartbeat")
            silent = time.time() - heartbeat if isinstance(heartbeat, (int, float)) else None
            if silent is not None and silent > STALE_AFTER:  # whole seconds, so the text changes rarely
                text += f"; but the arbiter has shown no sign of life for {int(silent)} s (stopped or hung?)"
        elif done >= total:
            state, text = "complete", f"The event is complete: all {total} games finished"
        else:
            state = "stopped"
            text = (
                f"The event is not running (stopped or killed): {done} of {total} games finished. "
                f"Continue it with: dipole-arbiter resume {self.path}"
            )
        return {"type": "status", "state": state, "text": text, "path": self.path}

    def _event_message(self, running: bool) -> dict[str, Any]:
        config = self._config
        assert config is not None
        names = [spec.name for spec in config.engines]
        total, done = len(self._schedule), len(self._finished)
        rounds = {game.number: game.round for game in self._schedule}
        live = self._live if running else None
        eta = None
        started, played = (live or {}).get("run_started"), (live or {}).get("done_this_run")
        if isinstance(started, (int, float)) and isinstance(played, int) and played > 0:
            eta = (time.time() - started) / played * (total - done)
        if self._rated[0] != done:
            table = _ratings(self._finished, names, config.anchor)
            self._rated = (done, ratings_json(table) if table is not None else None)
        terminations = Counter(game.termination.label for game in self._finished)
        settings = config.settings(f"{total} scheduled, concurrency {config.concurrency}", commands=False)
        return {
            "type": "event",
            "name": config.name,
            "settings": settings,
            "total": total,
            "done": done,
            "eta": eta,
            "engines": names,
            "ratings": self._rated[1],
            "terminations": terminations.most_common(),
            "games": [
                {
                    "number": g.number,
                    "round": rounds.get(g.number),
                    "white": g.white,
                    "black": g.black,
                    "result": g.result,
                    "reason": g.reason,
                    "plies": g.plies,
                    "finished": g.finished,
                }
                for g in self._finished
            ],
        }

    def _live_message(self, running: bool) -> dict[str, Any]:
        live = self._live if running else None
        games = []
        for game in (live or {}).get("games", []):
            shown = self._live_game(game)
            if shown is not None:
                games.append(shown)
        numbers = {game["number"] for game in games}
        for number in list(self._boards):
            if number not in numbers:
                del self._boards[number]
        return {
            "type": "live",
            "games": games,
            "now": time.time(),
            "heartbeat": live.get("heartbeat") if live else None,
        }

    def _live_game(self, game: dict[str, Any]) -> dict[str, Any] | None:
        """A game of the live file with its board (kept between looks: only new moves are played)."""
        try:
            number, fen, moves = int(game["number"]), game.get("fen"), [str(m) for m in game["moves"]]
            cached = self._boards.get(number)
            if cached is None or cached[0] != fen or cached[1] != moves[: len(cached[1])]:
                variant = gameplug.variant(str(game["variant"]))
                cached = (fen, [], variant.start() if fen is None else variant.read_position(str(fen)), None, [])
            _, played, state, last, notation = cached
            for text in moves[len(played) :]:
                last = play_shown(state, state.read_move(text))
                notation = [*notation, last["text"]]
            self._boards[number] = (fen, moves, state, last, notation)
        except (KeyError, TypeError, ValueError, GameError):
            return None
        keys = (
            "number",
            "white",
            "black",
            "moves",
            "comments",
            "turn",
            "since",
            "clocks",
            "lines",
            "white_tc",
            "black_tc",
            "variant",
        )
        shown = {key: game.get(key) for key in keys}
        shown["lines"] = _lines_in_notation(state, game.get("lines"), game.get("turn"))
        shown["shown"] = notation  # the moves in the game's notation
        return {**shown, "board": board_json(state, last)}

    # -- one finished game, on request ----------------------------------------------------
    def replay(self, number: int) -> dict[str, Any]:
        """A finished game with the board after every ply, for the page to step through.  Only
        that game and its moves are read, through a read-only store of its own (the feed's is
        its polling thread's, closed whenever a look fails)."""
        store, _ = open_store(self.path, event_running(self.path))
        try:
            found = store.records([number])
        finally:
            store.close()
        if not found:
            return {"type": "error", "text": f"game {number} is not finished"}
        record = found[0]
        variant = gameplug.variant(record.variant)
        state = variant.start() if record.fen is None else variant.read_position(record.fen)
        boards = [board_json(state)]
        for move in record.moves:
            boards.append(board_json(state, play_shown(state, state.read_notation(move.text))))
        return {
            "type": "replay",
            "number": number,
            "white": record.white,
            "black": record.black,
            "result": record.result,
            "reason": record.reason,
            "moves": [
                {"text": board["lastMove"]["text"], "comment": m.comment()}
                for m, board in zip(record.moves, boards[1:])
            ],
            "boards": [boards[0], *(ply_json(board) for board in boards[1:])],
            "images": images_of(boards),
            "pgn": format_game(record),
        }


def _lines_in_notation(state: State[Any], lines: Any, turn: Any) -> Any:
    """The engines' latest lines of a live game at ``state``, each with its moves in the game's
    notation (``shown``, as on the play page).  A side's line is of its latest search, which
    stays until its next one reports: of the position now or one of its two turns before (the
    side to move: now or 2 plies back; the other: 1 or 3), read at the latest of them where all
    its moves are legal; else as the engine wrote it."""
    if not isinstance(lines, dict):
        return lines
    positions = [state]
    while len(positions) < 4 and positions[-1].history:
        earlier = positions[-1].copy()
        earlier.undo()
        positions.append(earlier)
    shown = dict(lines)
    for side, line in lines.items():
        if isinstance(line, dict) and isinstance(line.get("pv"), list):
            pv = [str(text) for text in line["pv"]]
            first = 0 if side == turn else 1
            readings = (legal_notation(positions[back], pv) for back in (first, first + 2) if back < len(positions))
            shown[side] = {**line, "shown": next((moves for moves in readings if len(moves) == len(pv)), pv)}
    return shown


def open_store(path: str, running: bool) -> tuple[EventStore, bool]:
    """The event database, opened so that reading it writes nothing, and whether it is read as
    an unchanging file.  While an arbiter runs the event (or writes wait in its WAL), a WAL
    reader (``mode=ro``), which never blocks the arbiter: SQLite then keeps ``-wal``/``-shm``
    files beside it, as the arbiter does.  Else as an unchanging file, which makes no file."""
    unchanging = settled(path, running)
    return EventStore.open(path, write=False, unchanging=unchanging), unchanging


def _ratings(games: list[GameOutcome], names: list[str], anchor: tuple[str, float] | None) -> RatingTable | None:
    """The event's ratings, as the tournament and ``dipole-arbiter ratings`` fit them."""
    if not games:
        return None
    try:
        return fit_ratings(games, engines=names, anchor=anchor)
    except RatingError:  # the anchor engine has no finished game yet
        try:
            return fit_ratings(games, engines=names)
        except RatingError:
            return None


def ratings_json(table: RatingTable) -> dict[str, Any]:
    names = list(table.names)
    return {
        "heading": table.text().split("\n", 1)[0],
        # The texts of the numbers are the CLI's (one decimal, Python's rounding), so they read the same.
        "rows": [
            {
                "rank": r.rank,
                "name": r.name,
                "rating": r.rating,
                "error": r.error,
                "low": r.ci_low,
                "rating_text": f"{r.rating:.1f}",
                "error_text": f"{r.error:.1f}",
                "high": r.ci_high,
                "games": r.games,
                "score": r.score,
                "percent": r.percent,
                "white": r.white_percent,
                "black": r.black_percent,
                "flag": r.flag,
            }
            for r in table.rows
        ],
        "white_advantage": table.white_advantage.text() if table.white_advantage is not None else None,
        "notes": list(table.notes),
        "unrated": list(table.unrated),
        "crosstable": [[table.crosstable.cell_text(a, b) if a != b else "" for b in names] for a in names],
        "los": [[round(100 * table.los(a, b)) if a != b else None for b in names] for a in names],
    }


def _message_type(message: dict[str, Any]) -> str:
    """A viewer waits for the newest message of each type only (an event, the live games ...)."""
    return str(message["type"])


def check_watch_path(path: str) -> None:
    """``--watch PATH``: an event database or a match's live file (``.json``), or one yet to be
    created; else one clear line."""
    if os.path.isdir(path):
        raise ArbiterError(f"--watch {path}: is a directory")
    if path.endswith(".json"):
        if os.path.exists(path) and read_live(path) is None:
            raise ArbiterError(f"--watch {path}: not a live file of dipole-arbiter (match --live FILE.json)")
    elif os.path.exists(path) and not is_event_file(path):
        raise ArbiterError(f"--watch {path}: not an event database (not an SQLite database at all)")
    if not os.path.isdir(os.path.dirname(os.path.abspath(path))):
        raise ArbiterError(f"--watch {path}: no such directory")


class Watching:
    """The events a server may show: ``default`` (``--watch``, which may not exist yet) and
    the event databases in ``directory``, each under one name."""

    def __init__(self, default: str | None, directory: str) -> None:
        self.default = os.path.abspath(default) if default else None
        self.directory = directory
        self.feeds: dict[str, EventFeed] = {}

    def events(self) -> dict[str, str]:
        """Name -> path of every event that may be watched."""
        found: dict[str, str] = {}
        if self.default is not None:
            found[os.path.basename(self.default)] = self.default
        try:
            entries = sorted(os.scandir(self.directory), key=lambda entry: entry.name)
        except OSError:
            entries = []
        for entry in entries:
            if entry.name.endswith(".db") and entry.is_file() and is_event_file(entry.path):
                found.setdefault(entry.name, os.path.abspath(entry.path))
        return found

    def feed(self, name: str) -> EventFeed | None:
        path = self.events().get(name)
        if path is None:
            return None
        feed = self.feeds.get(path)
        if feed is None:
            feed = self.feeds[path] = EventFeed(path)
        return feed


def _watching(request: Request | WebSocket) -> Watching:
    state = request.app.state
    if not hasattr(state, "watching"):
        state.watching = Watching(None, os.getcwd())
    watching: Watching = state.watching
    return watching


async def watch_page(request: Request) -> FileResponse:
    return FileResponse(STATIC_DIR / "watch.html", media_type="text/html")


async def events_endpoint(request: Request) -> JSONResponse:
    watching = _watching(request)
    default = os.path.basename(watching.default) if watching.default else None
    return JSONResponse(
        {
            "events": [
                {"name": name, "running": event_running(path), "exists": os.path.exists(path)}
                for name, path in watching.events().items()
            ],
            "default": default,
        }
    )


async def watch_socket(websocket: WebSocket) -> None:
    """One viewer: the event's messages out, replay requests in."""
    feed = _watching(websocket).feed(websocket.query_params.get("event", ""))
    await websocket.accept()
    if feed is None:
        await websocket.send_text(
            json.dumps({"type": "status", "state": "error", "text": "No such event on this server"})
        )
        await websocket.close()
        return
    viewer = Outbox(_message_type)
    feed.join(viewer)

    async def send_updates() -> None:
        while True:
            for message in await viewer.take():
                await websocket.send_text(json.dumps(message))

    sender = asyncio.get_running_loop().create_task(send_updates())
    try:
        while True:
            try:
                request = json.loads(await websocket.receive_text())
                number = int(request["number"]) if request.get("type") == "replay" else None
            except (ValueError, TypeError, KeyError, AttributeError):
                viewer.post({"type": "error", "text": "unreadable request"})
                continue
            if number is not None:
                try:
                    viewer.post(await asyncio.to_thread(feed.replay, number))
                except (ArbiterError, sqlite3.Error, KeyError, ValueError, GameError) as error:
                    viewer.post({"type": "error", "text": f"game {number}: {error}"})
    except WebSocketDisconnect:
        pass
    finally:
        sender.cancel()
        feed.leave(viewer)


def watch_routes() -> list[BaseRoute]:
    """The watch page's routes (see the module docstring)."""
    return [
        Route("/watch", watch_page),
        Route("/api/events", events_endpoint),
        WebSocketRoute("/ws/watch", watch_socket),
    ]
