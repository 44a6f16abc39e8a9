"""A Dask worker's side of an event on a cluster: one game per task, with warm engines.

:func:`play_on_worker` runs in a worker thread, given a :class:`GameTask`, and returns a
:class:`WorkerReport`.  Each thread keeps its engine processes from one game of a run to the
next (like a local worker, one slot per engine and run: runs never share an engine), started
from that thread so that Linux's parent-death signal kills them with it; a run's engines are
killed when its arbiter disconnects (:func:`end_run_on_worker`), and every engine when the
worker closes (:class:`EnginesPlugin`).  The engine's program is looked up on the worker, in the
engine's directory if the worker's machine has it (else in the worker's own); if it cannot be
found there, the game is not played on that worker, and the report says why.  A game during
which the worker process stood still (:mod:`arbiter.pools.heartbeat`) or began to close comes
back void, to be played again: the referee's clocks, or the engines it lost, were not the
engines' doing.  Each record names where it was played in its ``Site`` tag, ``<host>:<pid>`` of
the worker process.
"""

from __future__ import annotations

import dataclasses
import os
import socket
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..errors import ArbiterError
from ..play.engines import EngineSpec, check_program
from ..play.referee import EngineSlot, GameJob, RefereeSettings, play_game
from ..records.game import GameRecord
from .cluster_live import LiveProxy
from .heartbeat import Heartbeat

try:
    import distributed
    from distributed.core import Status
    from distributed.diagnostics.plugin import WorkerPlugin
except ImportError:  # the extra is not installed: the arbiter says so when --cluster is used
    distributed = None  # type: ignore[assignment]
    WorkerPlugin = object  # type: ignore[assignment, misc]

PLUGIN_NAME = "dipole-arbiter-engines"
SLOTS_PER_THREAD = 32  # engine processes a worker thread keeps warm at most (least recently used go first)


@dataclass(frozen=True)
class GameTask:
    """One game as sent to a worker: the job and everything the referee needs.  ``run`` names
    the arbiter's run that sent it: a worker thread keeps each run's engines apart, so that
    events sharing a cluster never share (nor crash, nor restart) an engine process."""

    run: str
    job: GameJob
    variant: str
    settings: RefereeSettings
    recover: bool
    log: bool
    live_topic: str | None = None  # where the game's live events go (arbiter.pools.cluster_live), if watched


@dataclass(frozen=True)
class WorkerReport:
    """What a worker sends back for one task.

    ``site`` is ``<host>:<pid>`` of the worker process, ``worker`` its Dask address.
    ``record`` is None when the game was not played there: ``cannot_start`` (an engine's
    program is missing on this worker) or ``stopped`` (an engine of the game crashed or exited
    since its last game and may not be restarted: its name and why), or when it was played
    but does not count: ``replay`` says why (the worker process was frozen, or closed, during
    the game, so what the referee measured is not the engines' doing).  ``notes`` are the game's
    incidents, ``broken`` the engines that crashed in it (name, why), ``log`` the engines' I/O
    when ``--log`` is on (name, stamp, dir, line).
    """

    site: str
    worker: str
    record: GameRecord | None
    notes: tuple[str, ...] = ()
    broken: tuple[tuple[str, str], ...] = ()
    cannot_start: str | None = None
    stopped: tuple[str, str] | None = None
    log: tuple[tuple[str, str, str, str], ...] = ()
    replay: str | None = None


class _ThreadEngines:
    """The engine slots one worker thread keeps, most recently used last, keyed by the run
    that uses them.  Only its thread plays with them; another thread may end them (the worker
    closing, an arbiter's run ending), hence the lock."""

    def __init__(self) -> None:
        self.slots: OrderedDict[tuple[Any, ...], EngineSlot] = OrderedDict()
        self.log_lines: list[tuple[str, str, str, str]] | None = None  # the running game's, when logging
        self.lock = threading.Lock()

    def slot(self, task: GameTask, spec: EngineSpec) -> EngineSlot:
        key = (task.run, spec, task.variant, task.settings)
        evicted: list[EngineSlot] = []
        with self.lock:
            slot = self.slots.pop(key, None)
            if slot is None:
                slot = EngineSlot(spec, task.variant, task.settings, self._logger(spec.name))
            self.slots[key] = slot
            while len(self.slots) > SLOTS_PER_THREAD:
                evicted.append(self.slots.popitem(last=False)[1])
        for oldest in evicted:
            oldest.quit()
        return slot

    def _logger(self, name: str) -> Callable[[str, str], None]:
        def log(direction: str, line: str) -> None:
            lines = self.log_lines
            if lines is not None:
                lines.append((name, datetime.now().isoformat(timespec="microseconds"), direction, line))

        return log

    def drop(self, slot: EngineSlot) -> None:
        """Kill ``slot``'s engine and forget it: the next game starts a fresh one."""
        slot.discard()
        with self.lock:
            for key, kept in list(self.slots.items()):
                if kept is slot:
                    del self.slots[key]

    def end_run(self, run: str | None) -> None:
        """Kill the engines of the arbiter's run ``run`` (None: of every run)."""
        with self.lock:
            ended = [key for key in self.slots if run is None or key[0] == run]
            slots = [self.slots.pop(key) for key in ended]
        for slot in slots:
            slot.discard()


_threads: dict[int, _ThreadEngines] = {}  # thread ident -> its engines (each thread touches only its own)
_threads_lock = threading.Lock()
_closing = threading.Event()  # set once this worker closes: its engines are killed, games in progress are void


_heartbeat: Heartbeat | None = None


def _watch() -> Heartbeat:
    """This process's heartbeat, started with its first game."""
    global _heartbeat  # noqa: PLW0603  (one heartbeat per worker process, started lazily)
    with _threads_lock:
        if _heartbeat is None:
            _heartbeat = Heartbeat()
        return _heartbeat


def _site() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def _on_this_machine(spec: EngineSpec) -> EngineSpec:
    """``spec`` as this worker runs it: in its directory when this machine has it, else in the
    worker's own (an event stores the directory it began in, which other machines may lack)."""
    if spec.cwd is not None and not os.path.isdir(spec.cwd):
        return dataclasses.replace(spec, cwd=None)
    return spec


def _cannot_start(slot: EngineSlot) -> str | None:
    """Why ``slot``'s engine cannot be started on this machine, or None (it will be tried)."""
    if slot.client is not None and not slot.broken:
        return None
    try:
        check_program(slot.spec)
    except ArbiterError as error:
        return str(error)
    return None


def play_on_worker(task: GameTask) -> WorkerReport:
    """Play one game in this worker thread, with its warm engines (see the module docstring)."""
    ident = threading.get_ident()
    with _threads_lock:
        engines = _threads.setdefault(ident, _ThreadEngines())
    dask_worker = distributed.get_worker()
    site, worker = _site(), dask_worker.address
    job = task.job
    white, black = (engines.slot(task, _on_this_machine(spec)) for spec in (job.white, job.black))
    for slot in (white, black):
        if (why := _cannot_start(slot)) is not None:
            return WorkerReport(site, worker, None, cannot_start=why)
    notes: list[str] = []
    for slot in (white, black):
        if slot.client is not None and not slot.broken and not slot.running:
            slot.mark_broken("exited between games")
            notes.append(f"engine {slot.spec.name!r} exited between games")
        if slot.broken and not task.recover:  # as locally: a crashed engine is not restarted
            return WorkerReport(site, worker, None, tuple(notes), stopped=(slot.spec.name, slot.failure))
    engines.log_lines = [] if task.log else None
    topic = task.live_topic
    live = None if topic is None else LiveProxy(lambda event: dask_worker.log_event(topic, event))
    heartbeat, began, before = _watch(), time.monotonic(), len(notes)
    record: GameRecord | None = None
    try:
        record = play_game(job, white, black, task.settings, notes.append, live)
    except Exception:
        if not _closing.is_set():
            raise
        # else the closing worker took the engines from under the referee: the game is void
    finally:
        log, engines.log_lines = tuple(engines.log_lines or ()), None
    frozen = heartbeat.frozen_since(began)
    if record is None or frozen or _closing.is_set():
        # The engines' failures in this game (a time loss, a stall, a kill) are the worker's doing:
        # the game is void, its incidents are not passed on, and its engines start afresh.
        for slot in (white, black):
            engines.drop(slot)
        why = (
            "the worker closed during the game"
            if _closing.is_set()
            else f"the worker process was frozen for {frozen:.1f} s during the game"
        )
        return WorkerReport(site, worker, None, tuple(notes[:before]), log=log, replay=why)
    broken = tuple((slot.spec.name, slot.failure) for slot in (white, black) if slot.broken)
    return WorkerReport(site, worker, dataclasses.replace(record, site=site), tuple(notes), broken, log=log)


def kill_worker_engines() -> None:
    """Kill every engine this worker process keeps (its threads' slots)."""
    with _threads_lock:
        caches = list(_threads.values())
        _threads.clear()
    for engines in caches:
        engines.end_run(None)


def end_run_on_worker(run: str) -> None:
    """Kill this worker's engines of the arbiter's run ``run``, which has ended (the arbiter
    runs it on every worker, ``Client.run``, as it disconnects): engines are never shared
    between runs, so no other event's game loses one."""
    with _threads_lock:
        caches = list(_threads.values())
    for engines in caches:
        engines.end_run(run)


class EnginesPlugin(WorkerPlugin):
    """Registered on every worker (and every worker that joins later): when the worker closes,
    its engines are killed, and the games it was playing come back void (see
    :func:`play_on_worker`).  (A worker killed outright takes them along by the parent-death
    signal each engine is started with.)

    Every event registers it, under one name; ``idempotent`` makes the scheduler keep the one
    already there, so an event that joins never tears down (and kills the engines of) the
    events already playing.  A teardown while the worker is not closing (a client that replaced
    the plugin all the same) kills nothing either."""

    name = PLUGIN_NAME
    idempotent = True

    def teardown(self, worker: Any) -> None:
        if worker.status in (Status.closing, Status.closed):
            _closing.set()
            kill_worker_engines()
