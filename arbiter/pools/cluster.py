"""Playing an event's games on a Dask cluster (``--cluster tcp://HOST:8786``) instead of local threads.

:class:`ClusterPool` is a drop-in for :class:`~arbiter.pools.local.GamePool`: the same ``run``,
``request_stop``, ``interrupt`` and ``settle``, the same ``on_start``/``on_finish`` calls, so a
match or a tournament around it (schedule, openings, records, the event database, resume,
SPRT, ratings, progress) is unchanged.  Only the arbiter process writes records; workers
return finished games as values.

Arbiter side
    Games are submitted in schedule order, each as one Dask task, never more at once than the
    workers have threads (``dask worker --nthreads K``), so a worker plays at most K games at
    a time and a stop (an SPRT decision, an engine that may not be restarted) leaves only the
    games already running to finish, as locally.  ``--concurrency`` does not apply.  A game
    is reported once, by its number, and its result is released as soon as it is taken (a
    worker lost afterwards costs no replay).  A worker that dies or closes mid-game loses
    nothing: the scheduler gives its task to another worker (the scheduler's ``remove-worker``
    events tell the arbiter), and a game that comes back void (below) is submitted again; a
    game lost :data:`MAX_LOSSES` times stops the pool.  Workers may come and go: games never
    wait on a worker that is gone.  Any number of events (arbiters) may share one cluster:
    each has its own task keys, and none disturbs the engines of another.  When the scheduler
    is lost, the pool stops (``stop_reason`` says so, in one line); the games committed so far
    stay, and ``resume`` finishes the event, on a cluster or locally.  An address where no
    Dask scheduler answers is one line within seconds (:func:`_probe`).

Worker side
    :func:`play_on_worker` runs in a worker thread.  Each thread keeps its engine processes
    from one game of a run to the next (like a local worker, one slot per engine and run: runs
    never share an engine), started from that thread so that Linux's parent-death signal kills
    them with it; a run's engines are killed when its arbiter disconnects
    (:func:`end_run_on_worker`), and every engine when the worker closes (:class:`EnginesPlugin`).  The engine's program is looked up on the worker, in
    the engine's directory if the worker's machine has it (else in the worker's own); if it
    cannot be found there, the game is not played on that worker: the arbiter reports the
    worker and the reason once, and sends that worker no more games.  A game during which the
    worker process stood still (:mod:`arbiter.pools.heartbeat`) or began to close comes back
    void, to be played again: the referee's clocks, or the engines it lost, were not the
    engines' doing.
    Each record names where it was played in its ``Site`` tag, ``<host>:<pid>`` of the worker
    process.
"""

from __future__ import annotations

import dataclasses
import itertools
import logging
import os
import queue
import socket
import struct
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import CancelledError
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..errors import ArbiterError
from ..live.livefiles import LiveFiles
from ..play.engines import EngineSpec, check_program
from ..play.referee import EngineSlot, GameJob, Notify, RefereeSettings, SetupError, play_game
from ..records.game import GameRecord
from .cluster_live import LiveProxy, LiveRelay, topic_name
from .heartbeat import Heartbeat
from .local import EngineLogs, GamePool

try:
    import distributed
    from distributed.client import ClosedClientError
    from distributed.comm.addressing import parse_address, parse_host_port
    from distributed.core import Status
    from distributed.diagnostics.plugin import WorkerPlugin
except ImportError:  # the extra is not installed: say so when --cluster is used
    distributed = None  # type: ignore[assignment]
    WorkerPlugin = object  # type: ignore[assignment, misc]

INSTALL_HINT = "--cluster needs Dask's distributed package: pip install 'dipole-engine[cluster]'"
PLUGIN_NAME = "dipole-arbiter-engines"
CONNECT_TIMEOUT = 10.0  # seconds to reach the scheduler at the start (it may be starting itself)
ANSWER_TIMEOUT = 5.0  # seconds a server that accepted the connection has to greet us as Dask does
GREETING_LIMIT = 1 << 16  # bytes: Dask's greeting is a few dozen; a bigger claim is not Dask speaking
MAX_LOSSES = 3  # times a game may be lost (its worker died, closed or froze mid-game) before the event stops
PREFETCH = 2  # games handed to the cluster per worker thread: the one it plays, the next one
SLOTS_PER_THREAD = 32  # engine processes a worker thread keeps warm at most (least recently used go first)


def require_distributed() -> None:
    """One clear line when the ``cluster`` extra is missing."""
    if distributed is None:
        raise ArbiterError(INSTALL_HINT)


# -- what goes to a worker and comes back ------------------------------------------------------


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


# -- the worker side ------------------------------------------------------------------------------


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


# -- the arbiter side -----------------------------------------------------------------------------


class _Submitted:
    """A game handed to the cluster: its job, how many times it was lost so far (its worker
    died, closed or froze while it had the game), its future."""

    def __init__(self, job: GameJob, losses: int = 0) -> None:
        self.job = job
        self.losses = losses
        self.future: Any = None


class _Feeder:
    """Pulls jobs for the pool on a thread of its own, as many as the pool asks for, and puts
    each on the pool's event queue.  A job source may block (a knockout's next round is planned
    only once the games before it have finished, and their results reach the source through
    the pool's own loop), so the pool never waits on it; the source is expected to give up
    once ``stopping()`` says so."""

    def __init__(
        self, jobs: Iterator[GameJob], events: queue.Queue[tuple[str, Any]], stopping: Callable[[], bool]
    ) -> None:
        self._jobs = jobs
        self._events = events
        self._stopping = stopping
        self._room = threading.Condition()
        self._asked = 0  # jobs asked for and not yet pulled
        self._owed = 0  # jobs asked for and not yet received by the pool
        self.done = False  # the source has run out (the pool learns it from the "end" event)
        self._closed = False
        self._thread = threading.Thread(target=self._pull, name="cluster-feeder", daemon=True)
        self._thread.start()

    def ask(self, room: int) -> None:
        """Make sure ``room`` more jobs are on their way (counting those already asked for)."""
        with self._room:
            more = room - self._owed
            if more > 0 and not self.done:
                self._asked += more
                self._owed += more
                self._room.notify()

    def received(self) -> None:
        with self._room:
            self._owed -= 1

    def _pull(self) -> None:
        while True:
            with self._room:
                while self._asked == 0 and not self._stopping() and not self._closed:
                    self._room.wait(0.5)
                if self._stopping() or self._closed:
                    return
                self._asked -= 1
            try:
                job = next(self._jobs, None)
            except BaseException as error:  # noqa: BLE001  (handed to the pool, which raises it)
                self._events.put(("error", error))
                return
            if job is None:
                with self._room:
                    self.done = True
                self._events.put(("end", None))  # after every job it pulled
                return
            self._events.put(("job", job))

    def close(self) -> None:
        """Pull nothing more; the thread ends (at once, or once a source that is waiting gives up)."""
        with self._room:
            self._closed = True
            self._room.notify()
        self._thread.join(timeout=1.0)


class ClusterPool(GamePool):
    """Plays jobs on the workers of the Dask scheduler at ``address`` (see the module docstring).

    A :class:`GamePool` whose games run elsewhere: stopping, interrupting and notifying are
    the local pool's; playing, and settling after an interruption, are its own."""

    def __init__(
        self,
        address: str,
        variant: str,
        settings: RefereeSettings,
        *,
        recover: bool = False,
        logs: EngineLogs | None = None,
        notify: Notify = lambda message: None,
        announce: Notify = lambda message: None,
    ) -> None:
        require_distributed()
        super().__init__(variant, settings, recover=recover, logs=logs, notify=notify)
        self.address = address
        self._announce = announce
        self._client: Any = None
        self._run = uuid.uuid4().hex[:12]
        self._prefix = f"dipole-game-{self._run}-"  # every task key of this run begins so
        # ("job", GameJob), ("end", None), ("error", exception) from the feeder; ("done", future);
        # ("lost", (worker, keys)) when a worker left the cluster while it had games of this run
        self._events: queue.Queue[tuple[str, Any]] = queue.Queue()
        self._running: dict[str, _Submitted] = {}  # task key -> game
        self._reported: set[int] = set()
        self._excluded: dict[str, str] = {}  # worker address -> why it cannot play this event
        self._usable: list[str] = []  # the workers not excluded, as last looked up
        self._threads_checked = 0.0
        self._threads = 1
        self._waiting_said = ""  # the line last said about games waiting for a worker ("": none wait)
        self._relay: LiveRelay | None = None  # the workers' live events, when self.live is set
        self.live: LiveFiles | None = None  # the arbiter's publisher: the relay writes to it
        self._live_jobs: dict[int, GameJob] = {}  # games started and not yet over, by number

    # -- the interface of GamePool ------------------------------------------------------------------
    def run(
        self, jobs: Iterable[GameJob], on_start: Callable[[GameJob], None], on_finish: Callable[[GameRecord], None]
    ) -> None:
        """Play every job (until stopped or interrupted); returns when none is left running.

        Raises ArbiterError when the scheduler cannot be reached, when the workers cannot run
        the arbiter's code, or when an engine cannot be set up as asked."""
        pending: Iterator[GameJob] = iter(jobs)
        first = next(pending, None)
        if first is None:  # nothing to play (a finished event resumed): no need of the cluster
            return
        self._connect()
        feeder = _Feeder(itertools.chain([first], pending), self._events, self._stopping)
        try:
            self._play(feeder, on_start, on_finish)
        finally:
            feeder.close()
            self.close()

    def _play(
        self, feeder: _Feeder, on_start: Callable[[GameJob], None], on_finish: Callable[[GameRecord], None]
    ) -> None:
        """Hand out games while there is room, take their results as they come, until the jobs
        run out (or the pool stops) and no game is left running."""
        waiting: list[_Submitted] = []  # games to hand out again, or that no worker may play yet
        feeding = True
        while True:
            if not self._stopping():
                capacity = self._capacity()
                while waiting and len(self._running) < capacity and self._submit(waiting[0]):
                    waiting.pop(0)
                feeder.ask(capacity - len(self._running) - len(waiting))
            if not self._running and (self._stopping() or (not feeding and not waiting)):
                return
            try:
                kind, value = self._events.get(timeout=0.5)
            except queue.Empty:
                continue
            if kind == "error":  # the job source failed (e.g. it could not store the next round)
                raise value
            if kind == "end":
                feeding = False
            elif kind == "job":
                feeder.received()
                with self._report_lock:
                    if self._stopping():  # pulled, not played: a resumed event plays it
                        continue
                    on_start(value)
                    self._live_jobs[value.number] = value
                submitted = _Submitted(value)
                if not self._submit(submitted):
                    waiting.append(submitted)
            elif kind == "lost":
                self._lost(*value)
            elif (ended := self._running.pop(value.key, None)) is not None:
                again = self._finished(value, ended, on_finish)
                if again is not None:
                    waiting.append(again)

    def settle(self, timeout: float = 3.0) -> None:
        """After :meth:`interrupt`: withdraw the games still queued or running and disconnect.
        (A game already running on a worker ends there, unrecorded, as :meth:`close` has the
        workers kill this run's engines.  The arbiter started no engine of its own.)"""
        self.close(timeout)

    def close(self, timeout: float = 3.0) -> None:
        """Disconnect from the scheduler (the futures still held are released)."""
        client, self._client = self._client, None
        relay, self._relay = self._relay, None
        if relay is not None:
            relay.close()
        if client is None:
            return
        try:
            if self._running:
                client.cancel([submitted.future for submitted in self._running.values()], force=True)
            if client.status == "running":  # this run's engines go now, not when the workers close
                client.run(end_run_on_worker, self._run, on_error="ignore", callback_timeout=timeout)
            client.close(timeout=timeout)
        except Exception:  # noqa: BLE001  (a scheduler already gone: nothing left to release)
            pass

    # -- connecting -------------------------------------------------------------------------------
    def _connect(self) -> None:
        _quiet_dask_logging()
        _probe(self.address)
        try:
            self._client = distributed.Client(self.address, timeout=CONNECT_TIMEOUT, set_as_default=False)
        except Exception as error:  # noqa: BLE001  (whatever went wrong, one line)
            raise ArbiterError(f"cannot reach the Dask scheduler at {self.address}: {_one_line(error)}") from None
        try:
            self._client.register_plugin(EnginesPlugin(), name=PLUGIN_NAME)
        except Exception as error:  # noqa: BLE001  (any failure on a worker is reported, in one line)
            self.close()
            raise ArbiterError(
                f"the Dask workers at {self.address} cannot run the arbiter ({_one_line(error)}); "
                f"install dipole-engine[cluster] on every worker"
            ) from None
        try:  # the scheduler's own events: which worker left with which tasks (see _lost)
            self._client.subscribe_topic("all", self._scheduler_event)
        except Exception:  # noqa: BLE001  (then Dask's allowed-failures alone bounds a game's losses)
            pass
        if self.live is not None:  # the games' live events come back under the run's own topic
            self._relay = LiveRelay(self.live, self._live_jobs.get)
            try:
                self._client.subscribe_topic(topic_name(self._run), self._relay.received)
            except Exception:  # noqa: BLE001  (no live view then; the games are played all the same)
                self._relay.close()
                self._relay = None
        workers = self._scheduler_workers()
        self._usable = list(workers)
        threads = sum(workers.values())
        self._waiting_said = self._waiting_line(workers)
        self._announce(
            f"Cluster: {self.address}, {len(workers)} worker{'s' if len(workers) != 1 else ''}, "
            f"{threads} thread{'s' if threads != 1 else ''}" + ("" if workers else "; waiting for workers to join")
        )

    def _scheduler_workers(self) -> dict[str, int]:
        """Each worker's address and threads."""
        info = self._client.scheduler_info(n_workers=-1) if self._client is not None else {}
        return {address: worker.get("nthreads", 1) for address, worker in info.get("workers", {}).items()}

    def _waiting_line(self, workers: dict[str, int]) -> str:
        """What to tell the user when no worker may play this event's games ("" when one may)."""
        if not workers:
            return f"no worker is connected to the Dask scheduler at {self.address}; the games wait for one to join"
        if not self._usable:
            return (
                f"no worker connected to the Dask scheduler at {self.address} can play this event's games "
                f"(see above); the games wait for one that can"
            )
        return ""

    def _capacity(self) -> int:
        """Games handed to the cluster at once: one running and one waiting per thread of the
        usable workers (looked up at most every second).  The waiting one starts the moment a
        thread is free, instead of a round trip to the arbiter later."""
        now = time.monotonic()
        if now - self._threads_checked > 1.0:
            self._threads_checked = now
            try:
                workers = self._scheduler_workers()
            except Exception:  # noqa: BLE001  (the scheduler is going: the next result will say so)
                return PREFETCH * self._threads
            self._usable = [address for address in workers if address not in self._excluded]
            line = self._waiting_line(workers)
            if line and line != self._waiting_said:
                self.notify(line)
            self._waiting_said = line
            self._threads = max(1, sum(workers[address] for address in self._usable))
        return PREFETCH * self._threads

    def _submit(self, submitted: _Submitted) -> bool:
        """Hand a game to the cluster; False when no worker may play it now (it waits).

        Once a worker was found unable to play this event, games go to the others (as last
        looked up); should those all leave, Dask may give a game to any worker, and one that
        cannot play it says so again (see :meth:`_exclude`): a game is never bound to workers
        that are gone."""
        workers: list[str] | None = None
        if self._excluded:
            if not self._usable:
                return False
            workers = self._usable
        job = submitted.job
        task = GameTask(
            self._run,
            job,
            self.variant,
            self.settings,
            self.recover,
            self.logs is not None,
            None if self._relay is None else topic_name(self._run),
        )
        key = f"{self._prefix}{job.number}-{uuid.uuid4().hex[:6]}"
        try:
            future = self._client.submit(
                play_on_worker,
                task,
                key=key,
                pure=False,
                priority=-job.number,
                workers=workers,
                allow_other_workers=workers is not None,
            )
        except ClosedClientError:  # the client gave up reconnecting: the scheduler is gone
            self._scheduler_lost()
            return False
        submitted.future = future
        self._running[key] = submitted
        future.add_done_callback(lambda done: self._events.put(("done", done)))
        return True

    # -- results ----------------------------------------------------------------------------------
    def _scheduler_event(self, event: tuple[float, Any]) -> None:
        """Dask's handler for the scheduler's topic ``all`` (on the client's event loop: it only
        queues): a worker that left unexpectedly (died, was killed, closed) with games of this
        run.  Dask counts the same (``allowed-failures``) and plays them again elsewhere."""
        message = event[1]
        if isinstance(message, dict) and message.get("action") == "remove-worker" and not message.get("expected"):
            keys = [
                key
                for key in message.get("processing-tasks") or ()
                if isinstance(key, str) and key.startswith(self._prefix)
            ]
            if keys:
                self._events.put(("lost", (str(message.get("worker")), keys)))

    def _lost(self, worker: str, keys: list[str]) -> None:
        """``worker`` left with these games: each is lost once more; one lost too often stops the event."""
        again = []
        for key in keys:
            submitted = self._running.get(key)
            if submitted is None:
                continue
            submitted.losses += 1
            if submitted.losses >= MAX_LOSSES:
                self._give_up(key, submitted)
            else:
                again.append(submitted.job.number)
        if again and not self._stopping():
            numbers = ", ".join(map(str, sorted(again)))
            self.notify(
                f"the Dask worker {worker} left the cluster with game{'s' if len(again) > 1 else ''} "
                f"{numbers} of this event; {'they are' if len(again) > 1 else 'it is'} played again"
            )

    def _give_up(self, key: str, submitted: _Submitted) -> None:
        """Game ``submitted`` was lost :data:`MAX_LOSSES` times: withdraw it and stop the event."""
        self._running.pop(key, None)
        if self._client is not None and submitted.future is not None:
            try:
                self._client.cancel([submitted.future], force=True)
            except Exception:  # noqa: BLE001  (a scheduler already gone: nothing to withdraw)
                pass
        self.request_stop(
            f"game {submitted.job.number} was lost {submitted.losses} times (the worker playing it died, "
            f"closed or froze each time); see the workers' logs"
        )

    def _finished(
        self, future: Any, submitted: _Submitted, on_finish: Callable[[GameRecord], None]
    ) -> _Submitted | None:
        """Handle one task's end; a game to submit again, if any."""
        job = submitted.job
        if future.status == "cancelled":
            self._scheduler_lost()
            return None
        if future.status == "error":
            error = future.exception()
            if isinstance(error, distributed.KilledWorker):  # the scheduler allows fewer losses than MAX_LOSSES
                self.request_stop(
                    f"game {job.number}: the workers that played it died, too many times "
                    f"(the scheduler's distributed.scheduler.allowed-failures); see the workers' logs"
                )
                return None
            if isinstance(error, SetupError):  # as locally: the engine cannot be set up as asked
                raise SetupError(str(error))
            raise ArbiterError(
                f"the Dask workers at {self.address} cannot play game {job.number}: "
                f"{type(error).__name__}: {_one_line(error)}"
            )
        try:
            report: WorkerReport = future.result()
        except (CancelledError, OSError, TimeoutError):  # finished, but the scheduler went before it was fetched
            self._scheduler_lost()
            return None
        future.release()  # taken: a worker that leaves now takes nothing Dask would play again
        if self.logs is not None:
            for name, stamp, direction, line in report.log:
                self.logs.append(name, report.site, stamp, direction, line)
        for note in report.notes:
            self.notify(f"worker {report.site}: {note}")
        if report.cannot_start is not None:
            return self._exclude(submitted, report)
        if report.stopped is not None:
            self._engine_gone(*report.stopped)
            return None
        if report.replay is not None:
            submitted.losses += 1
            if submitted.losses >= MAX_LOSSES:
                self._give_up(future.key, submitted)
                return None
            self.notify(f"worker {report.site}: game {job.number} does not count: {report.replay}; it is played again")
            return _Submitted(job, submitted.losses)
        record = report.record
        assert record is not None
        with self._report_lock:
            if self.interrupted or record.number in self._reported:
                return None
            self._reported.add(record.number)
            on_finish(record)
            self._live_jobs.pop(record.number, None)
            if self._relay is not None:  # recorded first: the game never vanishes from view
                self._relay.game_over(record.number)
            if not self.recover:
                for name, failure in report.broken:
                    self._engine_gone(name, failure)
        return None

    def _scheduler_lost(self) -> None:
        """Stop: the connection to the scheduler closed, with games handed out (an interrupt
        already says why the event stops)."""
        if not self.interrupted:
            self.request_stop(
                f"lost the Dask scheduler at {self.address} (the connection closed); "
                f"the games in progress were not recorded"
            )

    def _engine_gone(self, name: str, failure: str) -> None:
        """Take no new games: engine ``name`` is gone and may not be restarted (as locally)."""
        self.request_stop(
            f"engine {name!r} can no longer play ({failure}); use --recover to restart crashed engines and go on"
        )

    def _exclude(self, submitted: _Submitted, report: WorkerReport) -> _Submitted:
        """The game's engine cannot start on that worker: say so once, and play the game on the others."""
        worker = report.worker
        if worker not in self._excluded:
            self._excluded[worker] = report.cannot_start or ""
            self.notify(
                f"worker {report.site} ({worker}) cannot start {report.cannot_start}; "
                f"it plays no more games of this event"
            )
        self._threads_checked = 0.0  # the usable workers are looked up again before the game goes out
        return _Submitted(submitted.job, submitted.losses)


def _probe(address: str) -> None:
    """Fail within seconds, in one line, unless a Dask server may be answering at ``address``.

    Dask's own client waits for ever on a server that accepts a connection and stays silent,
    and reads a garbled answer's bytes as sizes of memory to allocate.  A Dask server speaks
    first: 8 bytes, the length of its short greeting; that much is read here, under a timeout.
    (Over TLS the greeting comes after TLS's own handshake: only the settings are checked, and
    the client's timeout bounds the rest.)"""
    scheme, location = parse_address(address)
    if scheme == "tls":
        if distributed.Security().get_connection_args("client").get("ssl_context") is None:
            raise ArbiterError(
                f"cannot reach the Dask scheduler at {address}: TLS is not configured here "
                f"(set Dask's distributed.comm.tls options ca-file, client.cert and client.key)"
            )
        return
    host, port = parse_host_port(location)
    deadline = time.monotonic() + CONNECT_TIMEOUT
    while True:
        try:
            connection = socket.create_connection((host, port), timeout=ANSWER_TIMEOUT)
            break
        except ConnectionRefusedError:  # the scheduler may be starting: as Dask does, try again for a while
            if time.monotonic() >= deadline:
                raise ArbiterError(
                    f"cannot reach the Dask scheduler at {address}: nothing listens there "
                    f"(connection refused for {CONNECT_TIMEOUT:g} s)"
                ) from None
            time.sleep(0.5)
        except OSError as error:
            raise ArbiterError(f"cannot reach the Dask scheduler at {address}: {error.strerror or error}") from None
    greeting = b""
    answer_by = time.monotonic() + ANSWER_TIMEOUT
    with connection:
        try:
            while len(greeting) < 8:
                connection.settimeout(max(0.01, answer_by - time.monotonic()))
                chunk = connection.recv(8 - len(greeting))
                if not chunk:
                    raise ArbiterError(f"{address} is not a Dask scheduler: it closed the connection without a word")
                greeting += chunk
        except TimeoutError:
            raise ArbiterError(
                f"{address} is not a Dask scheduler: it accepted the connection but said nothing "
                f"in {ANSWER_TIMEOUT:g} s"
            ) from None
        except OSError as error:
            raise ArbiterError(f"cannot reach the Dask scheduler at {address}: {error.strerror or error}") from None
    (size,) = struct.unpack("Q", greeting)
    if not 0 < size <= GREETING_LIMIT:
        raise ArbiterError(f"{address} is not a Dask scheduler: what it sends is not Dask's protocol")


def _quiet_dask_logging() -> None:
    """Silence Dask's own log lines in the arbiter (a lost scheduler is reported in one line of
    ours, not in tracebacks); Dask gives some of its loggers their own level, so each is set."""
    names = [name for name in logging.root.manager.loggerDict if name.split(".")[0] in ("distributed", "tornado")]
    for name in ["distributed", "tornado", *names]:
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)


def _one_line(error: BaseException) -> str:
    text = " ".join(str(error).split())
    return text or type(error).__name__
