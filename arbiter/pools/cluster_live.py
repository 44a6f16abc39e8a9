"""Live publishing for games played on a Dask cluster (see :mod:`arbiter.live.livefiles`, :mod:`arbiter.pools.cluster`).

The :class:`~arbiter.live.livefiles.LiveFiles` lives in the arbiter process and stays the only
writer of the live files; a game on a worker cannot reach it.  So the game is given a
:class:`LiveProxy` instead, which sends each event as plain data through Dask's structured
events (``Worker.log_event`` on the worker, ``Client.subscribe_topic`` on the arbiter, under
a topic unique to the run): a game starting (its number, the moves so far, both clocks, the
side to move), each ply (the move, the clocks after it, the side to move) and the latest
search line (at most every :data:`INFO_INTERVAL` seconds per game; the last one is sent
before the move it led to).  :class:`LiveRelay` takes them on the arbiter and replays them
on the publisher from a thread of its own, on a mirror of each game.

An event is a few hundred bytes on the worker's existing connection to the scheduler, queued
without waiting.  Any failure to send or to apply one is swallowed: live data may be lost,
a game never is.  ``game_over`` still comes from the arbiter once the game is recorded, and
an event that arrives late for a game already over is dropped.
"""

from __future__ import annotations

import dataclasses
import queue
import threading
import time
from collections.abc import Callable
from typing import Any

from gameplug import Side
from protocol.codec import Info

from ..live.livefiles import LiveFiles, LiveGame
from ..play.referee import GameJob
from ..play.timecontrol import Clock
from ..records.game import MoveRecord, MoveSource

INFO_INTERVAL = 0.25  # seconds between two search lines sent for one game
BACKLOG = 10_000  # events waiting for the relay's thread at most (more are dropped)

Send = Callable[[dict[str, Any]], None]


def topic_name(run: str) -> str:
    """The Dask event topic of one run's live events."""
    return f"dipole-arbiter-live-{run}"


def _move(record: MoveRecord) -> list[Any]:
    return [record.text, record.source.value, record.score_cp, record.score_mate, record.depth, record.time]


def _clocks(clocks: dict[Side, Clock]) -> list[int | None]:
    """Both clocks in ms (None: no clock), white first."""
    return [
        None if clock.control is None else round(clock.remaining * 1000)
        for clock in (clocks[Side.FIRST], clocks[Side.SECOND])
    ]


# -- the worker side ------------------------------------------------------------------------------


class LiveProxy:
    """What :func:`~arbiter.play.referee.play_game` is given on a worker in place of the publisher:
    the same ``open_game`` (and, on the game it returns, ``moved`` and ``info``), each sending
    an event through ``send``."""

    def __init__(self, send: Send) -> None:
        self._send = send

    def open_game(
        self, job: GameJob, fen: str | None, moves: list[MoveRecord], clocks: dict[Side, Clock], turn: Side
    ) -> ProxyGame:
        game = ProxyGame(self._send, job.number, moves, clocks)
        game.send(
            {
                "kind": "open",
                "game": job.number,
                "moves": [_move(move) for move in moves],
                "clocks": _clocks(clocks),
                "turn": int(turn),  # (plain data on the wire)
            }
        )
        return game


class ProxyGame:
    """One game on a worker: reads the game's own move list and clocks, never writes them."""

    def __init__(self, send: Send, number: int, moves: list[MoveRecord], clocks: dict[Side, Clock]) -> None:
        self._send = send
        self.number = number
        self.moves = moves
        self.clocks = clocks
        self._line: dict[str, Any] | None = None  # the latest search line not sent yet
        self._line_sent = 0.0

    def send(self, event: dict[str, Any]) -> None:
        try:
            self._send(event)
        except Exception:  # noqa: BLE001  (live data may be lost; the game goes on)
            pass

    def moved(self, turn: Side) -> None:
        """A ply was played (the last of ``moves``); ``turn`` is now to move."""
        self._flush_line()
        self.send(
            {
                "kind": "move",
                "game": self.number,
                "ply": len(self.moves) - 1,
                "move": _move(self.moves[-1]),
                "clocks": _clocks(self.clocks),
                "turn": int(turn),  # (plain data on the wire)
            }
        )

    def info(self, info: Info) -> None:
        """A search line: kept if it has a score or a line, sent when the last went long enough ago."""
        if not (info.pv or info.score_cp is not None or info.score_mate is not None):
            return
        line = {field.name: getattr(info, field.name) for field in dataclasses.fields(info)}
        line["pv"] = list(info.pv)
        self._line = {"kind": "info", "game": self.number, "line": line}
        if time.monotonic() - self._line_sent >= INFO_INTERVAL:
            self._flush_line()

    def _flush_line(self) -> None:
        line, self._line = self._line, None
        if line is not None:
            self._line_sent = time.monotonic()
            self.send(line)


# -- the arbiter side -----------------------------------------------------------------------------


class _Mirror:
    """A game on a worker as the arbiter knows it: the :class:`LiveGame` the publisher shows,
    over a move list and clocks that only the relay's thread writes."""

    def __init__(self, publisher: LiveFiles, job: GameJob, event: dict[str, Any]) -> None:
        self.moves = [_record(move) for move in event["moves"]]
        self.clocks = {Side.FIRST: Clock(job.white.limits.clock), Side.SECOND: Clock(job.black.limits.clock)}
        self._set_clocks(event["clocks"])
        self.live: LiveGame = publisher.open_game(job, job.opening.fen, self.moves, self.clocks, Side(event["turn"]))

    def _set_clocks(self, clocks: list[int | None]) -> None:
        for color, ms in zip((Side.FIRST, Side.SECOND), clocks):
            if ms is not None:
                self.clocks[color].remaining = ms / 1000

    def move(self, event: dict[str, Any]) -> None:
        ply = event["ply"]
        if ply > len(self.moves):  # a ply was lost on the way: show the game as it was
            return
        del self.moves[ply:]
        self.moves.append(_record(event["move"]))
        self._set_clocks(event["clocks"])
        self.live.moved(Side(event["turn"]))

    def info(self, event: dict[str, Any]) -> None:
        line = dict(event["line"])
        line["pv"] = tuple(line.get("pv") or ())
        self.live.info(Info(**line))


def _record(move: list[Any]) -> MoveRecord:
    text, source, score_cp, score_mate, depth, seconds = move
    return MoveRecord(text, MoveSource(source), score_cp, score_mate, depth, seconds)


class LiveRelay:
    """Takes a run's live events on the arbiter (:meth:`received`, Dask's topic handler, on
    the client's event loop: it only queues them) and applies them to ``publisher`` on a
    thread of its own.  ``jobs`` gives the job of a game in progress by its number."""

    def __init__(self, publisher: LiveFiles, jobs: Callable[[int], GameJob | None]) -> None:
        self.publisher = publisher
        self._jobs = jobs
        self._events: queue.Queue[dict[str, Any] | None] = queue.Queue(BACKLOG)
        self._games: dict[int, _Mirror] = {}
        self._over: set[int] = set()
        self._lock = threading.Lock()  # orders game_over against an event for the same game
        self._thread = threading.Thread(target=self._run, name="cluster-live", daemon=True)
        self._thread.start()

    def received(self, event: tuple[float, Any]) -> None:
        """Dask's handler for the topic: ``event`` is (scheduler's time, message)."""
        message = event[1]
        if isinstance(message, dict):
            try:
                self._events.put_nowait(message)
            except queue.Full:  # the thread is behind: live data may be lost
                pass

    def game_over(self, number: int) -> None:
        """Game ``number`` is recorded: it leaves the live view, and late events for it are dropped."""
        with self._lock:
            self._over.add(number)
            self._games.pop(number, None)
        self.publisher.game_over(number)

    def close(self) -> None:
        """Stop the thread (the events still queued are dropped)."""
        try:
            self._events.put_nowait(None)
        except queue.Full:
            pass
        self._thread.join(timeout=2.0)

    def _run(self) -> None:
        while (event := self._events.get()) is not None:
            try:
                self._apply(event)
            except Exception:  # noqa: BLE001  (a malformed event: live data lost, nothing else)
                pass

    def _apply(self, event: dict[str, Any]) -> None:
        number = event["game"]
        with self._lock:
            if number in self._over:
                return
            if event["kind"] == "open":
                job = self._jobs(number)
                if job is not None:  # a game played again (its worker died) starts afresh
                    self._games[number] = _Mirror(self.publisher, job, event)
                return
            game = self._games.get(number)
            if game is None:
                return
            if event["kind"] == "move":
                game.move(event)
            elif event["kind"] == "info":
                game.info(event)
