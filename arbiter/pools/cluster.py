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
    events tell the arbiter), and a game that comes back void (:mod:`.cluster_worker`) is submitted again; a
    game lost :data:`MAX_LOSSES` times stops the pool.  Workers may come and go: games never
    wait on a worker that is gone.  Any number of events (arbiters) may share one cluster:
    each has its own task keys, and none disturbs the engines of another.  When the scheduler
    is lost, the pool stops (``stop_reason`` says so, in one line); the games committed so far
    stay, and ``resume`` finishes the event, on a cluster or locally.  An address where no
    Dask scheduler answers is one line within seconds (:mod:`.cluster_connect`).

Worker side
    Each game is one call of :func:`~arbiter.pools.cluster_worker.play_on_worker` in a worker
    thread, with the engines that thread keeps warm (see :mod:`.cluster_worker`); a worker that
    cannot start a game's engine is reported once, by the arbiter, and sent no more games of
    the event.  The jobs come from the event through a :class:`~.cluster_feeder.JobFeeder`.
"""

from __future__ import annotations

import itertools
import queue
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import CancelledError
from typing import Any

from ..errors import ArbiterError
from ..live.livefiles import LiveFiles
from ..play.referee import GameJob, Notify, RefereeSettings, SetupError
from ..records.game import GameRecord
from .cluster_connect import CONNECT_TIMEOUT, probe_scheduler, quiet_dask_logging, require_distributed
from .cluster_feeder import JobFeeder
from .cluster_live import LiveRelay, topic_name
from .cluster_worker import PLUGIN_NAME, EnginesPlugin, GameTask, WorkerReport, end_run_on_worker, play_on_worker
from .local import EngineLogs, GamePool

try:
    import distributed
    from distributed.client import ClosedClientError
except ImportError:  # the extra is not installed: require_distributed says so when --cluster is used
    distributed = None  # type: ignore[assignment]

MAX_LOSSES = 3  # times a game may be lost (its worker died, closed or froze mid-game) before the event stops
PREFETCH = 2  # games handed to the cluster per worker thread: the one it plays, the next one


class _Submitted:
    """A game handed to the cluster: its job, how many times it was lost so far (its worker
    died, closed or froze while it had the game), its future."""

    def __init__(self, job: GameJob, losses: int = 0) -> None:
        self.job = job
        self.losses = losses
        self.future: Any = None


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
        feeder = JobFeeder(itertools.chain([first], pending), self._events, self._stopping)
        try:
            self._play(feeder, on_start, on_finish)
        finally:
            feeder.close()
            self.close()

    def _play(
        self, feeder: JobFeeder, on_start: Callable[[GameJob], None], on_finish: Callable[[GameRecord], None]
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
        quiet_dask_logging()
        probe_scheduler(self.address)
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


def _one_line(error: BaseException) -> str:
    text = " ".join(str(error).split())
    return text or type(error).__name__
