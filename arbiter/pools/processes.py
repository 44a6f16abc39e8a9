"""Playing games in several worker processes of the arbiter's machine: past one interpreter's limit.

One Python process referees at most a few thousand plies a second, whatever the cores (its
threads share one interpreter).  :class:`ProcessPool` is a drop-in for
:class:`~arbiter.pools.local.GamePool` (the same ``run``, ``request_stop``, ``interrupt``,
``settle`` and ``stopping``, the same ``on_start``/``on_finish`` calls, in the order games end)
that splits ``concurrency`` games at once over up to one process per core, each running a
:class:`GamePool` of its own (its engines, reused from game to game), as the cluster backend
does on its workers (:mod:`arbiter.pools.cluster`).  A game process plays its games in one
thread: several at once each in a greenlet of its :class:`~arbiter.pools.hub.Hub` (one ``poll``
for all its engines and its connection to the arbiter), so that no thread hands the interpreter
to another at every move; one at a time (as many games at once as cores, or fewer: the usual
case) with blocking waits and no hub, whose two greenlet switches a move would spare nothing.

The arbiter process stays the one writer of every record: a game process asks for its next
job as it starts a game (so that the job is in hand when a game ends: no round trip to the
arbiter between two games), and sends back the game's start, its record, its incidents and
(with a live file) its live events (:class:`~arbiter.pools.cluster_live.LiveProxy`, replayed on
the publisher by a :class:`~arbiter.pools.cluster_live.LiveRelay`).  A stop (an SPRT decision,
an engine that may not be restarted) takes effect for every process at its next job, as with
threads: a game whose start the arbiter reads after the stop is abandoned at once (the arbiter
answers its start with ``abandon``) and its record dropped, so no game that starts after a
stop is reported.  Engine logs are appended by the game processes themselves, one whole line
per write (``O_APPEND``), the worker numbers running on from process to process.

The games start together, once every game process is up (it has asked for its first job): a
process still starting (forked, then starting its engines) while another plays would take the
cores from that process's first games, whose moves would be charged for it.

The game processes are forked from the arbiter itself when it has no other thread (a plain
match or tournament: nothing of another thread's can be caught half-done in the copy), else
from multiprocessing's fork server, a process without threads that has imported their modules
once (:data:`_PRELOAD`; 0.15 s of CPU more, with its resource tracker): on a machine of many
cores, many game processes start in milliseconds each instead of a tenth of a second of CPU
each.  A forked game process sets the arbiter's signal handlers back to their defaults and
closes its copies of the arbiter's ends of the other game processes' connections.

Crash safety: a game process ends at once when the arbiter is gone, even SIGKILLed (its
connection to the arbiter, whose other end only the arbiter holds, ends), or when the process
it was forked from (the arbiter, or the fork server) dies (``PR_SET_PDEATHSIG``), and its
engines' guards then kill the engines; the fork server ends once the arbiter and every game
process have.  :meth:`ProcessPool.interrupt` kills the game processes.  A game process ignores
SIGINT (a Ctrl-C reaches the whole process group: the arbiter decides).  A game process that
dies on its own stops the pool; the stop line names every game process that died (one or all:
the fork server's death takes them all), how, and the games they were playing, which are not
recorded (a tournament's ``resume`` plays them).  A game process that stood still during a game
plays it again (:class:`~arbiter.pools.local.GamePool`), as does one held up meanwhile by the
arbiter: a stopped arbiter takes none of its messages, and once the pipe between them is full,
each message waits, and with it the game process and the engines' clocks.
"""

from __future__ import annotations

import functools
import gc
import multiprocessing
import multiprocessing.forkserver
import os
import pickle
import queue
import select
import signal
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from multiprocessing.connection import Connection
from multiprocessing.context import ForkContext, ForkServerContext
from typing import Any

from protocol.guard import PR_SET_PDEATHSIG, default_handlers, load_prctl
from protocol.guardstart import fork_guards
from protocol.waiting import waiting_with

from ..errors import ArbiterError
from ..live.livefiles import LiveFiles
from ..play.referee import EngineSlot, GameControl, GameJob, Notify, RefereeSettings
from ..records.game import GameRecord
from .cluster_live import LiveProxy, LiveRelay
from .heartbeat import FROZEN_LIMIT
from .hub import GreenLock, GreenQueue, Hub
from .local import EngineLogs, GamePool


def process_shares(concurrency: int, cores: int | None = None) -> list[int]:
    """Games at once of each game process: one process per core at most, the games spread evenly."""
    if cores is None:
        cores = len(os.sched_getaffinity(0))  # the cores this process may use, not all the machine's
    processes = max(1, min(concurrency, cores))
    return [concurrency // processes + (1 if index < concurrency % processes else 0) for index in range(processes)]


class _GameProcess:
    """The arbiter's side of one game process: its connection and the games it is playing."""

    def __init__(self, number: int, process: Any, connection: Connection) -> None:
        self.number = number  # counted from 1, in the order started
        self.process = process
        self.connection = connection
        self.handed: dict[int, GameJob] = {}  # sent, not yet started
        self.playing: dict[int, GameJob] = {}  # started (and reported) and not yet recorded
        self.abandoned: set[int] = set()  # started after a stop: abandoned, their records dropped
        self.done = False
        self._send_lock = threading.Lock()  # jobs go from the feeder or the dispatcher, abandons from the dispatcher

    def send(self, message: Any) -> None:
        with self._send_lock:
            self.connection.send(message)


class _StartGate:
    """Holds the game processes' first requests for jobs until every one still running has
    asked (or ended), then lets them through, and every later one at once: no game starts
    while another process is still starting (its imports would take the cores from that
    game's first moves).  Used by the dispatcher thread alone."""

    def __init__(self, processes: Iterable[_GameProcess]) -> None:
        self._starting = set(processes)  # not yet asked for a job
        self._held: list[_GameProcess] = []

    def asked(self, game_process: _GameProcess) -> list[_GameProcess]:
        """``game_process`` asks for a job: the requests to answer now."""
        if not self._starting:
            return [game_process]
        self._starting.discard(game_process)
        self._held.append(game_process)
        return self._release()

    def ended(self, game_process: _GameProcess) -> list[_GameProcess]:
        """``game_process`` ended (perhaps before asking): the requests to answer now."""
        self._starting.discard(game_process)
        return self._release()

    def _release(self) -> list[_GameProcess]:
        if self._starting:
            return []
        held, self._held = self._held, []
        return held


class ProcessPool:
    """Plays jobs in game processes (see the module docstring)."""

    def __init__(
        self,
        variant: str,
        settings: RefereeSettings,
        *,
        concurrency: int = 2,
        recover: bool = False,
        logs: EngineLogs | None = None,
        notify: Notify = lambda message: None,
        cores: int | None = None,
    ) -> None:
        if concurrency < 1:
            raise ArbiterError(f"concurrency must be at least 1, not {concurrency}")
        self.variant = variant
        self.settings = settings
        self.concurrency = concurrency
        self.recover = recover
        self.logs = logs
        self.shares = process_shares(concurrency, cores)
        self._notify = notify
        self.stop_reason: str | None = None
        self.interrupted = False
        self._error: BaseException | None = None
        self._report_lock = threading.RLock()
        self._processes: list[_GameProcess] = []
        self._forked = True  # started by forking this process (else by the fork server)
        self._died: list[_GameProcess] = []  # ended without their last word, in the order seen
        self._deaths_line: str | None = None  # the stop reason that says so
        self._dispatcher: threading.Thread | None = None
        self._requests: queue.Queue[_GameProcess | None] = queue.Queue()  # processes asking for a job
        self._ask: Callable[[_GameProcess], None] = self._requests.put  # a process asks for a job: see run()
        self._start_gate = _StartGate(())
        self.live: LiveFiles | None = None  # the arbiter's publisher: the relay writes to it

    def run(
        self, jobs: Iterable[GameJob], on_start: Callable[[GameJob], None], on_finish: Callable[[GameRecord], None]
    ) -> None:
        """Play every job (until stopped or interrupted); returns when every game process is done.
        Re-raises, in the calling thread, an error that makes going on pointless."""
        # Forked from this process while it has no other thread (no lock of another thread's
        # can be held in the copy), else from a fork server (a process of its own, without
        # threads, that imports the game processes' modules once: 0.15 s of CPU more, with its
        # resource tracker).  Either way a game process starts in milliseconds instead of the
        # tenth of a second of CPU an interpreter of its own takes to import its modules.
        self._forked = forked = threading.active_count() == 1
        context: ForkContext | ForkServerContext
        if forked:
            context = multiprocessing.get_context("fork")
            gc.freeze()  # the copies' collections leave this process's objects (and pages) alone
        else:
            context = multiprocessing.get_context("forkserver")
            context.set_forkserver_preload(_PRELOAD)
        first = 1
        try:
            for threads in self.shares:
                here, there = context.Pipe()
                process = context.Process(
                    target=serve,
                    name=f"arbiter-games-{first}",
                    daemon=True,
                    args=(
                        tuple(game_process.connection.fileno() for game_process in self._processes) if forked else (),
                        there,
                        self.variant,
                        self.settings,
                        threads,
                        first,
                        self.recover,
                        self.logs.directory if self.logs is not None else None,
                        self.live is not None,
                    ),
                )
                process.start()
                there.close()
                self._processes.append(_GameProcess(len(self._processes) + 1, process, here))
                first += threads
        finally:
            if forked:
                gc.unfreeze()
        self._start_gate = _StartGate(self._processes)
        relay = None
        if self.live is not None:

            def playing(number: int) -> GameJob | None:
                return next((p.playing[number] for p in self._processes if number in p.playing), None)

            relay = LiveRelay(self.live, playing)
        source = iter(jobs)
        feeder = None
        if isinstance(jobs, Sequence):  # nothing to wait for: the dispatcher hands each job out itself
            self._ask = functools.partial(self._hand_out, source)
        else:
            feeder = threading.Thread(target=self._feed, args=(source,), daemon=True, name="arbiter-games-feed")
            feeder.start()
            self._ask = self._requests.put
        self._dispatcher = threading.Thread(
            target=self._dispatch, args=(on_start, on_finish, relay), daemon=True, name="arbiter-games-dispatch"
        )
        self._dispatcher.start()
        while self._dispatcher.is_alive():
            self._dispatcher.join(timeout=0.5)
        if feeder is not None:
            self._requests.put(None)
            feeder.join(timeout=5.0)
        for game_process in self._processes:
            game_process.process.join(timeout=5.0)
        if relay is not None:
            relay.close()
        if self._error is not None and not self.interrupted:
            raise self._error

    def _dispatch(
        self, on_start: Callable[[GameJob], None], on_finish: Callable[[GameRecord], None], relay: LiveRelay | None
    ) -> None:
        """Take the game processes' messages until every one has ended (one ``poll`` kept for
        all their connections: several messages a game, each woken for)."""
        by_fd = {game_process.connection.fileno(): game_process for game_process in self._processes}
        readable = select.poll()
        for fd in by_fd:
            readable.register(fd, select.POLLIN)
        while by_fd:
            for fd, _ in readable.poll():
                game_process = by_fd[fd]
                try:
                    message = game_process.connection.recv()
                except (EOFError, OSError):
                    readable.unregister(fd)
                    del by_fd[fd]
                    self._ended(game_process)
                    continue
                try:
                    self._handle(game_process, message, on_start, on_finish, relay)
                except BaseException as error:  # noqa: BLE001  (from on_start/on_finish: handed to run(); no more jobs)
                    if self._error is None:
                        self._error = error

    def _feed(self, jobs: Iterator[GameJob]) -> None:
        """Answer each game process's request for its next job, one at a time, when the jobs
        come from an iterator: on a thread of its own, since a knockout's or Swiss event's
        schedule waits for the stage's last games, whose records the dispatcher must go on
        taking meanwhile.  (A list of jobs has nothing to wait for: the dispatcher hands them
        out itself, sparing a hand-over between threads a game.)"""
        while (game_process := self._requests.get()) is not None:
            self._hand_out(jobs, game_process)

    def _hand_out(self, jobs: Iterator[GameJob], game_process: _GameProcess) -> None:
        """Send ``game_process`` the next job (None: there is none, or the pool stops)."""
        job = None
        try:  # the process waits for an answer, whatever the schedule raises
            job = None if self.stopping() else next(jobs, None)
        except BaseException as error:  # noqa: BLE001  (handed to run(); no more jobs)
            if self._error is None:
                self._error = error
        finally:
            if job is not None:
                game_process.handed[job.number] = job
            try:
                game_process.send(job)
            except OSError:  # the process is gone: its end is the dispatcher's to report
                pass

    def _handle(
        self,
        game_process: _GameProcess,
        message: tuple[Any, ...],
        on_start: Callable[[GameJob], None],
        on_finish: Callable[[GameRecord], None],
        relay: LiveRelay | None,
    ) -> None:
        kind = message[0]
        if kind in ("next", "start"):  # a start asks for the next job too
            for asking in self._start_gate.asked(game_process):
                self._ask(asking)
        if kind == "start":
            number = message[1]
            job = game_process.handed.pop(number)
            with self._report_lock:
                if self.interrupted:
                    return
                if self.stopping():  # a job in hand when the stop came: not played
                    game_process.abandoned.add(number)
                    try:
                        game_process.send(("abandon", number))
                    except OSError:
                        pass
                    return
                game_process.playing[number] = job
                on_start(job)
        elif kind == "finish":
            record: GameRecord = message[1]
            with self._report_lock:
                if self.interrupted or record.number in game_process.abandoned:
                    return
                game_process.playing.pop(record.number, None)
                on_finish(record)
                if relay is not None:  # recorded first: the game never vanishes from view
                    relay.game_over(record.number)
        elif kind == "live" and relay is not None:
            relay.received((time.time(), message[1]))
        elif kind == "notify":
            self.notify(message[1])
        elif kind == "stop":
            self.request_stop(message[1])
        elif kind == "error":
            if self._error is None:
                self._error = message[1]
        elif kind == "done":
            game_process.done = True

    def _ended(self, game_process: _GameProcess) -> None:
        """A game process's connection closed: after its last word, or because it died."""
        for asking in self._start_gate.ended(game_process):
            self._ask(asking)
        if game_process.done or self.interrupted:
            return
        game_process.process.join(timeout=1.0)
        self._died.append(game_process)
        line = self._deaths()
        with self._report_lock:  # the line grows with each death seen (the fork server's ends them all)
            if self.stop_reason is None or self.stop_reason == self._deaths_line:
                self.stop_reason = self._deaths_line = line

    def _deaths(self) -> str:
        """The stop line of the game processes that died: which, how, and the games lost."""
        died = sorted(self._died, key=lambda p: p.number)
        server = None if self._forked else _dead_fork_server()
        if server is not None:  # (its children are killed by their parent-death signal: no status to tell)
            names = _listed([f"{p.number} (pid {p.process.pid})" for p in died])
            what = (
                f"the fork server (pid {server}) died, and with it game process{'es' if len(died) > 1 else ''} {names}"
            )
        elif len(died) == 1:
            p = died[0]
            what = f"game process {p.number} (pid {p.process.pid}) died ({_status(p.process.exitcode)})"
        else:
            names = _listed([f"{p.number} (pid {p.process.pid}, {_status(p.process.exitcode)})" for p in died])
            what = f"game processes {names} died"
        lost = sorted(number for p in died for number in p.playing)
        they = "it was" if len(died) == 1 else "they were"
        if not lost:
            return f"{what}; {they} playing no game"
        if len(lost) == 1:
            return f"{what}; the game {they} playing (game {lost[0]}) was not recorded"
        return (
            f"{what}; the {len(lost)} games {they} playing (games {_listed([str(n) for n in lost])}) were not recorded"
        )

    def settle(self, timeout: float = 3.0) -> None:
        """After :meth:`interrupt`: wait (at most ``timeout`` seconds) for the game processes to end."""
        deadline = time.monotonic() + timeout
        for game_process in self._processes:
            game_process.process.join(timeout=max(0.0, deadline - time.monotonic()))
        if self._dispatcher is not None:
            self._dispatcher.join(timeout=max(0.0, deadline - time.monotonic()))

    def interrupt(self) -> None:
        """Stop now: report nothing more, and kill every game process (their engines die with
        them).  Safe in a signal handler (it waits, briefly, for a report in progress)."""
        acquired = self._report_lock.acquire(timeout=5.0)
        try:
            self.interrupted = True
        finally:
            if acquired:
                self._report_lock.release()
        for game_process in self._processes:
            pid = game_process.process.pid
            if pid is not None:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass

    def notify(self, line: str) -> None:
        if not self.interrupted:
            self._notify(line)

    def stopping(self) -> bool:
        """True once the pool takes no new games (interrupted, stopped, or a process failed)."""
        return self.interrupted or self.stop_reason is not None or self._error is not None

    def request_stop(self, reason: str) -> None:
        """Take no new games (those running finish and are reported); the first reason stays."""
        with self._report_lock:
            if self.stop_reason is None:
                self.stop_reason = reason


def _status(code: int | None) -> str:
    """How a process ended, from its exit code as ``multiprocessing`` gives it."""
    if code is None:
        return "its status unknown"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit status {code}"


def _listed(items: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def _dead_fork_server() -> int | None:
    """The pid of multiprocessing's fork server if it has died (it is this process's child:
    a zombie until ``multiprocessing`` reaps it), else None."""
    pid = getattr(multiprocessing.forkserver._forkserver, "_forkserver_pid", None)
    if not isinstance(pid, int):
        return None
    try:
        with open(f"/proc/{pid}/stat") as stat:
            state = stat.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return pid
    return pid if state == "Z" else None


# -- the game process ---------------------------------------------------------------------------


class _LiveSender(LiveProxy):
    """The live view in a game process: events go to the arbiter, which ends each game's view
    once it has recorded the game."""

    def game_over(self, number: int) -> None:
        pass


class _ProcessGamePool(GamePool):
    """A game process's pool: its games are greenlets of one :class:`~arbiter.pools.hub.Hub`
    (not threads) or, with no hub, its one game at a time is played on the calling thread; its
    own stop is also the arbiter's, and the arbiter may abandon a game it started after a stop
    (:meth:`abandon`).  Its engines are quit once every game is over (a quit waits for the
    engine, which would hold up the games still running)."""

    host = "the game process"

    def __init__(
        self,
        send: Callable[[tuple[Any, ...]], None],
        held: deque[tuple[float, float]],
        hub: Hub | None,
        *args: Any,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self._send = send
        self._held = held  # the messages that waited for the arbiter over FROZEN_LIMIT: (when they went, how long)
        self._hub = hub
        if hub is not None:
            self._jobs_lock = GreenLock(hub)  # the next job waits for the arbiter's answer: parked
        self._controls: dict[int, GameControl] = {}  # the games being played, by number
        self._controls_lock = threading.Lock()
        self._retired: list[EngineSlot] = []

    def _run_workers(self, workers: range) -> None:
        """Each worker in a greenlet of the hub (with no hub, the one worker on this thread);
        the engines quit once all are done."""
        if self._hub is None:
            for number in workers:
                self._work(number)
        else:
            for number in workers:
                self._hub.spawn(functools.partial(self._work, number))
            with waiting_with(self._hub):
                self._hub.run()
        super()._retire(self._retired)

    def _retire(self, slots: list[EngineSlot]) -> None:
        self._retired += slots

    def request_stop(self, reason: str) -> None:
        super().request_stop(reason)
        self._send(("stop", reason))

    def _stood_still(self, began: float) -> str | None:
        why = super()._stood_still(began)
        if why is not None:
            return why
        waited = max((length for end, length in tuple(self._held) if end > began), default=0.0)
        if not waited:
            return None
        return f"{self.host} (pid {os.getpid()}) waited {waited:.1f} s during the game for the arbiter to take its messages"

    def _control(self, job: GameJob) -> GameControl:
        control = GameControl()
        with self._controls_lock:
            self._controls[job.number] = control
        return control

    def finished(self, number: int) -> None:
        """Game ``number`` is over: there is nothing left of it to abandon."""
        with self._controls_lock:
            self._controls.pop(number, None)

    def abandon(self, number: int) -> None:
        """End game ``number`` without a result, if it is still being played."""
        with self._controls_lock:
            control = self._controls.get(number)
        if control is not None:
            control.abandon()


_PRELOAD = ["arbiter.pools.processes", "arbiter.cli"]
"""What the fork server imports for the game processes: their modules, and the command's (a
game process started from the ``dipole-arbiter`` script runs that script's imports again)."""


def serve(
    inherited: tuple[int, ...],
    connection: Connection,
    variant: str,
    settings: RefereeSettings,
    threads: int,
    first_worker: int,
    recover: bool,
    log_dir: str | None,
    live: bool,
) -> None:
    """A game process: play the jobs the arbiter hands out, ``threads`` at once, and report.
    It ends at once (its engines' guards then kill the engines) when the arbiter is gone: its
    connection to the arbiter ends, which only the arbiter holds the other end of; or the
    process it was forked from (the arbiter, or the fork server) dies.  ``inherited``: the
    arbiter's ends of the game processes forked before this one, closed here at once."""
    load_prctl()(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    for fd in inherited:
        os.close(fd)
    default_handlers()  # (a copy of the arbiter: its handlers would interrupt the arbiter's event)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # Its engines' guards forked from it, not started as interpreters: its only threads are
    # the games' (or the hub's) and, idle in a read, its engines' stderr readers and the
    # arbiter's listener, and the pool's heartbeat, which takes no lock but its own.
    fork_guards()
    lock = threading.Lock()
    closing = False  # this process closes its connection: its end is no news of the arbiter
    held: deque[tuple[float, float]] = deque(maxlen=64)  # the messages that waited over FROZEN_LIMIT

    def send(message: tuple[Any, ...]) -> None:
        began = time.monotonic()
        with lock:
            connection.send(message)
        waited = time.monotonic() - began
        if waited > FROZEN_LIMIT:  # the arbiter took nothing (stopped?), and this process waited
            held.append((began + waited, waited))

    # One game at a time (as many games as cores, or fewer) is played on this thread, each wait
    # a blocking one, and the arbiter's words are read by a thread: a hub would switch greenlets
    # twice a move to spare no thread anything (about a fifth of a move's CPU here).
    hub = Hub() if threads > 1 else None
    replies: GreenQueue[GameJob | None] | queue.SimpleQueue[GameJob | None]
    replies = GreenQueue(hub) if hub is not None else queue.SimpleQueue()  # the jobs asked for

    def jobs() -> Iterator[GameJob]:
        # The first job is asked for here; each later one by the start of the game before it
        # (one message a game fewer), so it is in hand when a game ends.  A job taken and not
        # started asks for none: the pool takes it only to stop (see GamePool._work).
        send(("next",))
        while (job := replies.get()) is not None:  # advanced only under the pool's lock of jobs
            yield job

    def listen() -> None:
        """The arbiter's words, in a greenlet (or a thread) of their own: the jobs asked for
        (None: no more), and the games to abandon (each started after a stop)."""
        try:
            while True:
                if hub is not None:
                    hub.readable(connection.fileno(), None)
                message = connection.recv()
                if isinstance(message, tuple):  # ("abandon", number)
                    pool.abandon(message[1])
                else:
                    replies.put(message)
        except (EOFError, OSError):
            if not closing:  # the arbiter is gone: so is this process, now
                os._exit(1)

    def finished(record: GameRecord) -> None:
        pool.finished(record.number)
        send(("finish", record))

    warn = lambda line: send(("notify", line))  # noqa: E731
    logs = EngineLogs(log_dir, warn=warn) if log_dir is not None else None
    pool = _ProcessGamePool(
        send,
        held,
        hub,
        variant,
        settings,
        concurrency=threads,
        recover=recover,
        logs=logs,
        notify=warn,
        first_worker=first_worker,
    )
    if live:
        pool.live = _LiveSender(lambda event: send(("live", event)))
    if hub is not None:
        hub.spawn(listen, daemon=True)
    else:
        threading.Thread(target=listen, daemon=True, name="arbiter-games-listen").start()
    try:
        pool.run(jobs(), lambda job: send(("start", job.number)), finished)
    except BaseException as error:  # noqa: BLE001  (the arbiter re-raises it)
        try:
            pickle.dumps(error)
        except Exception:  # noqa: BLE001
            error = ArbiterError(str(error))
        send(("error", error))
    finally:
        if logs is not None:
            logs.close()
        send(("done",))
        closing = True
        connection.close()
