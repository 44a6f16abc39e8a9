"""Running many games, several at a time: the worker pool every event (match, tournament) uses.

:class:`GamePool` takes any sequence of :class:`GameJob` and plays them on ``concurrency``
workers: threads here, greenlets of one thread in a game process
(:mod:`arbiter.pools.processes`, which runs them differently by overriding
:meth:`GamePool._run_workers`).  Each worker keeps its own engine processes (one
:class:`EngineSlot` per engine name) and reuses them from game to game, so a game's result
depends only on its job, never on which worker played it or on what ran beside it.

Results come back as values through ``on_finish``, called under one lock in the order games
end.  Once :meth:`GamePool.interrupt` has run (from a signal handler), no further game is
reported, so a caller that writes records inside ``on_finish`` never writes a game that the
interruption cut short.  An engine that crashed or was killed is restarted for its next game
when ``recover`` is set; otherwise the pool stops taking new games (those already running
finish and are reported) and ``stop_reason`` says why; :meth:`GamePool.request_stop` stops
the same way for any other reason.

A game during which the process playing it stood still (stopped, or its machine stalled: see
:mod:`arbiter.pools.heartbeat`) does not count, whatever its result: the referee measured the
stop as an engine's time.  One line says so, and the game is played again, with fresh engines;
a game that comes out void :data:`MAX_FROZEN` times stops the pool (``resume`` plays it).
"""

from __future__ import annotations

import os
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol, TextIO

from protocol.client import kill_all

from ..errors import ArbiterError
from ..play.engines import EngineSpec
from ..play.referee import EngineSlot, GameControl, GameJob, GameWatcher, Notify, RefereeSettings, play_game
from ..records.game import GameRecord
from .heartbeat import Heartbeat

MAX_FROZEN = 3  # times a game may be void (its process stood still while it was played) before the pool stops


class PoolWatcher(GameWatcher, Protocol):
    """Whoever shows a pool's games: the publisher (or, in a game process, what stands for it)."""

    def game_over(self, number: int) -> None:
        """Game ``number`` is recorded: it leaves the view."""


class EngineLogs:
    """``--log DIR``: every line each engine sends, receives or writes to stderr, timestamped.

    One file per engine name (``DIR/<name>.log``), appended to; each line is
    ``<ISO time with microseconds> w<worker> <dir> <text>`` where ``dir`` is ``>`` (to the
    engine), ``<`` (from it), ``!`` (its stderr) or ``#`` (the arbiter's own notes).  Games
    played on a cluster name the worker process (``<host>:<pid>``) in place of ``w<worker>``.

    A log that cannot be written (the disk is full, the file cannot be opened) is reported
    once to ``warn`` and then left alone: logging never stops a game or an engine's pipe.
    """

    def __init__(self, directory: str, warn: Callable[[str], None] = lambda line: None) -> None:
        try:
            Path(directory).mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise ArbiterError(f"log directory {directory}: {error.strerror or error}") from None
        self.directory = directory
        self._warn = warn
        self._files: dict[str, _LogFile] = {}
        self._lock = threading.Lock()

    def _file(self, name: str) -> _LogFile:
        with self._lock:
            if name not in self._files:
                safe = re.sub(r"[^A-Za-z0-9_.-]", "_", name) or "engine"
                self._files[name] = _LogFile(os.path.join(self.directory, f"{safe}.log"), name, self._warn)
            return self._files[name]

    def logger(self, name: str, worker: int) -> Callable[[str, str], None]:
        log_file = self._file(name)

        def log(direction: str, line: str) -> None:
            log_file.write(f"{datetime.now().isoformat(timespec='microseconds')} w{worker} {direction} {line}\n")

        return log

    def append(self, name: str, worker: str, stamp: str, direction: str, line: str) -> None:
        """A line stamped where it happened (a cluster worker), written as it is."""
        self._file(name).write(f"{stamp} {worker} {direction} {line}\n")

    def close(self) -> None:
        with self._lock:
            for log_file in self._files.values():
                log_file.close()


class _LogFile:
    """One engine's log file; after the first failure to open or write it, silent."""

    def __init__(self, path: str, name: str, warn: Callable[[str], None]) -> None:
        self.path = path
        self.name = name
        self._warn = warn
        self._lock = threading.Lock()
        self._handle: TextIO | None = None
        self._state = "new"  # new, open, failed or closed

    def write(self, text: str) -> None:
        with self._lock:
            try:
                if self._state == "new":
                    self._handle = open(self.path, "a", encoding="utf-8", errors="replace", buffering=1)  # noqa: SIM115  (open across writes; close() closes it)
                    self._state = "open"
                if self._state == "open":
                    assert self._handle is not None
                    self._handle.write(text)
            except (OSError, ValueError) as error:
                self._fail(error)

    def _fail(self, error: Exception) -> None:
        self._state = "failed"
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        self._warn(
            f"cannot write the log of engine {self.name!r} to {self.path} ({reason}); "
            f"its logging stops, the games go on"
        )
        self._discard()

    def _discard(self) -> None:
        handle, self._handle = self._handle, None
        if handle is not None:
            try:
                handle.close()
            except OSError:  # what was left in the buffer cannot be written either
                pass

    def close(self) -> None:
        with self._lock:
            if self._state == "open" and self._handle is not None:
                try:
                    self._handle.flush()
                except (OSError, ValueError) as error:
                    self._fail(error)
            self._discard()
            self._state = "closed"


class GamePool:
    """Plays jobs on worker threads (see the module docstring)."""

    host = "the arbiter"  # the process that plays the games, as a line about its stopping names it

    def __init__(
        self,
        variant: str,
        settings: RefereeSettings,
        *,
        concurrency: int = 1,
        recover: bool = False,
        logs: EngineLogs | None = None,
        notify: Notify = lambda message: None,
        first_worker: int = 1,
    ) -> None:
        if concurrency < 1:
            raise ArbiterError(f"concurrency must be at least 1, not {concurrency}")
        self.variant = variant
        self.settings = settings
        self.concurrency = concurrency
        self.recover = recover
        self.logs = logs
        self._notify = notify
        self.stop_reason: str | None = None
        self.interrupted = False
        self._error: BaseException | None = None
        self._jobs: Iterator[GameJob] = iter(())
        self._jobs_lock: AbstractContextManager[Any] = threading.Lock()  # held while the schedule gives a job
        self._report_lock = threading.RLock()
        self._on_start: Callable[[GameJob], None] = lambda job: None
        self._on_finish: Callable[[GameRecord], None] = lambda record: None
        self._workers: list[threading.Thread] = []
        self._first_worker = first_worker  # the number of the first worker thread (in engine logs)
        self.live: PoolWatcher | None = None  # told of every game in progress (arbiter.live.livefiles)
        self._heartbeat: Heartbeat | None = None  # while the games are played

    def run(
        self, jobs: Iterable[GameJob], on_start: Callable[[GameJob], None], on_finish: Callable[[GameRecord], None]
    ) -> None:
        """Play every job (until stopped or interrupted); returns when all workers are done.

        Re-raises, in the calling thread, an error that makes going on pointless (an engine
        that cannot be set up as asked).
        """
        self._jobs = iter(jobs)
        self._on_start = on_start
        self._on_finish = on_finish
        self._heartbeat = Heartbeat()
        try:
            self._run_workers(range(self._first_worker, self._first_worker + self.concurrency))
        finally:
            self._heartbeat.stop()
        if self._error is not None and not self.interrupted:
            raise self._error

    def _run_workers(self, workers: range) -> None:
        """Run :meth:`_work` for each worker number until every one is done: here each on a
        thread of its own."""
        self._workers = [
            threading.Thread(target=self._work, args=(number,), daemon=True, name=f"arbiter-worker-{number}")
            for number in workers
        ]
        for worker in self._workers:
            worker.start()
        for worker in self._workers:
            while worker.is_alive():
                worker.join(timeout=0.5)

    def settle(self, timeout: float = 3.0) -> None:
        """After :meth:`interrupt`: give the workers ``timeout`` seconds to wind down (their
        engines are dead, so they end at once), then kill any engine started meanwhile."""
        deadline = time.monotonic() + timeout
        for worker in self._workers:
            worker.join(timeout=max(0.0, deadline - time.monotonic()))
        kill_all()

    def interrupt(self) -> None:
        """Stop now: report nothing more and kill every engine.  Safe in a signal handler
        (it waits, briefly, for a report in progress to finish, so no record is cut in half)."""
        acquired = self._report_lock.acquire(timeout=5.0)
        try:
            self.interrupted = True
        finally:
            if acquired:
                self._report_lock.release()
        kill_all()

    def notify(self, line: str) -> None:
        """Pass on a game's incident, unless it is only the interruption killing the engines."""
        if not self.interrupted:
            self._notify(line)

    def _stopping(self) -> bool:
        return self.interrupted or self.stop_reason is not None or self._error is not None

    def stopping(self) -> bool:
        """True once the pool takes no new games (interrupted, stopped, or a worker failed)."""
        return self._stopping()

    def _next_job(self) -> GameJob | None:
        with self._jobs_lock:
            if self._stopping():
                return None
            return next(self._jobs, None)

    def _slot(self, slots: dict[str, EngineSlot], spec: EngineSpec, worker: int) -> EngineSlot:
        slot = slots.get(spec.name)
        if slot is None:
            log = self.logs.logger(spec.name, worker) if self.logs is not None else None
            slot = slots[spec.name] = EngineSlot(spec, self.variant, self.settings, log)
        return slot

    def _work(self, worker: int) -> None:
        slots: dict[str, EngineSlot] = {}
        try:
            while (job := self._next_job()) is not None:
                white = self._slot(slots, job.white, worker)
                black = self._slot(slots, job.black, worker)
                if not self._check_between_games((white, black)):
                    break
                control = self._control(job)
                with self._report_lock:
                    if self.interrupted:
                        break
                    self._on_start(job)
                record = self._play_game(job, slots, worker, control)
                with self._report_lock:
                    if self.interrupted:
                        break
                    if record is None:
                        continue
                    self._on_finish(record)
                    if self.live is not None:  # recorded first: the game never vanishes from view
                        self.live.game_over(job.number)
                    for name in (job.white.name, job.black.name):
                        if slots[name].broken and not self.recover:
                            self._stop_because(slots[name])
        except BaseException as error:  # noqa: BLE001  handed to run(), which re-raises it in the caller
            self._error = error
        finally:
            self._retire(list(slots.values()))

    def _play_game(
        self, job: GameJob, slots: dict[str, EngineSlot], worker: int, control: GameControl | None
    ) -> GameRecord | None:
        """Play ``job`` with the worker's engines ``slots``, again while this process stood still
        during the game (see the module docstring); None: the game is not to be recorded."""
        void_games = 0
        while True:
            white = self._slot(slots, job.white, worker)
            black = self._slot(slots, job.black, worker)
            began = time.monotonic()
            record = play_game(job, white, black, self.settings, self.notify, self.live, control=control)
            why = self._stood_still(began)
            if why is None or self.interrupted or (control is not None and control.ended):
                return record
            for slot in (white, black):  # what the referee made of them (a stall, a kill) was not their doing
                slot.discard()
                slots.pop(slot.spec.name, None)
            void_games += 1
            void = f"game {job.number} does not count: {why}"
            if void_games == MAX_FROZEN:
                self.notify(void)
                self.request_stop(f"game {job.number} was void {MAX_FROZEN} times, the last because {why}")
                return None
            if self._stopping():
                self.notify(f"{void}; it is not played again, the event is stopping")
                return None
            self.notify(f"{void}; it is played again")

    def _stood_still(self, began: float) -> str | None:
        """Why a game begun at ``began`` (monotonic seconds) does not count: this process stood
        still while it was played; None: it counts."""
        assert self._heartbeat is not None
        frozen = self._heartbeat.frozen_since(began)
        return f"{self.host} (pid {os.getpid()}) was frozen for {frozen:.1f} s during the game" if frozen else None

    def _retire(self, slots: list[EngineSlot]) -> None:
        """A worker's engines, once it has played its last game: quit (or, after
        :meth:`interrupt`, which has killed them already, let go)."""
        if self.interrupted:
            for slot in slots:
                slot.discard()
        else:
            self._quit_all(slots)

    def _control(self, job: GameJob) -> GameControl | None:
        """The host's hold on ``job`` while it is played, made before its start is reported
        (None here: nothing outside ends a game of this pool)."""
        return None

    def _check_between_games(self, slots: tuple[EngineSlot, EngineSlot]) -> bool:
        """An engine that died since its last game is restarted (``recover``) or stops the pool."""
        for slot in slots:
            if slot.client is not None and not slot.broken and not slot.running:
                slot.mark_broken("exited between games")
                self.notify(f"engine {slot.spec.name!r} exited between games")
            if slot.broken and not self.recover:
                self._stop_because(slot)
                return False
        return True

    def request_stop(self, reason: str) -> None:
        """Take no new games (those running finish and are reported); the first reason stays.
        Callable from ``on_finish``, e.g. when a sequential test has reached its decision."""
        with self._report_lock:
            if self.stop_reason is None:
                self.stop_reason = reason

    def _stop_because(self, slot: EngineSlot) -> None:
        """Take no new games: ``slot``'s engine is gone and may not be restarted."""
        self.request_stop(
            f"engine {slot.spec.name!r} can no longer play ({slot.failure}); "
            f"use --recover to restart crashed engines and go on"
        )

    @staticmethod
    def _quit_all(slots: list[EngineSlot]) -> None:
        """Quit every engine at once (each gets its grace, then is killed)."""
        if len(slots) <= 1:
            for slot in slots:
                slot.quit()
            return
        with ThreadPoolExecutor(max_workers=len(slots)) as executor:
            list(executor.map(EngineSlot.quit, slots))
