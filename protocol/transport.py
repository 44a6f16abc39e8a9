"""How an engine client reaches an engine: a real process, or an engine held in memory.

A :class:`Transport` carries lines both ways.  Each output line comes with the
``time.monotonic()`` at which it was read, so that a host times an answer from the moment it
came in; :meth:`Transport.collect` reads what is waiting before a command that starts a clock,
so a line written before it is never taken for one written after.

:class:`ProcessTransport` runs the engine in its own process group (session).  Its output is
read by the thread that waits for it (no reader thread, no hand-off between threads: a move
costs the host one ``poll`` and one ``read``), in lines of at most :data:`MAX_LINE` bytes (a
longer stdout line is a protocol fault, :class:`LineTooLongError`).  Nothing is read ahead of
the reader's need: an engine that writes more than is read blocks on its own full pipe, so no
engine can make its host's memory grow without bound.  An engine that writes faster than it is
read is read in paced batches (:class:`_LineReader`), so that the work its output makes never
holds the interpreter for long: the host's other threads (other games) run, and time the
answers of their engines, as if it were quiet.  Its stderr has a thread of its own, which logs
it and keeps its last line.  Input is written by the sending thread itself to a non-blocking
pipe, waiting for room (``poll``) at most until the write's deadline, so an engine that stops
reading its input cannot block its host: the write fails with TimeoutError instead.  Every
wait (for output, for room, for a pause, for the engine's end) goes through the waiting
thread's :class:`~protocol.waiting.Waiter`: it blocks the thread, unless the host has the
thread run many conversations at once (the arbiter's game processes, whose waiter parks one
game's greenlet and runs another's).

On Linux each engine runs under a guard process (:mod:`protocol.guard`): a child subreaper that
kills every process of the engine's tree (helpers in new sessions or process groups, children
of a wrapper script that does not ``exec``) when the engine exits or is killed, and also when
the thread that started it exits, even if the host is killed with SIGKILL (``prctl
PR_SET_PDEATHSIG`` on the guard).  So start engines from a thread that lives as long as they
are needed (the main thread, or a worker that owns its engines, as the arbiter's do), or pass
``die_with_parent=False``.  Elsewhere the engine's process group is killed, nothing more.
Every engine group and guard is kept in a registry until it is gone, and :func:`kill_all`
(run at exit, and safe in a signal handler) kills whatever is left.
:class:`MemoryTransport` is an engine played by a Python callable, for unit tests of hosts.
"""

from __future__ import annotations

import _thread
import atexit
import fcntl
import math
import os
import select
import signal
import subprocess
import sys
import threading
import time
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable, Sequence
from typing import IO, Any, Final, Protocol

from mypy_extensions import mypyc_attr

from .waiting import BLOCKING, Waiter, current_waiter

__all__ = [
    "GUARDED",
    "MAX_LINE",
    "EndOfOutput",
    "LineTooLongError",
    "LogFunction",
    "MemoryTransport",
    "ProcessTransport",
    "Transport",
    "kill_all",
]

LogFunction = Callable[[str, str], None]
"""``log(direction, line)``: ">" sent to the engine, "<" read from it, "!" its stderr."""

EndOfOutput = None
"""The text :meth:`Transport.receive` gives once the engine's output has ended."""

MAX_LINE = 1 << 20
"""The longest line (bytes, without its line ending) an engine may write on stdout: a longer
one is a protocol fault (:class:`LineTooLongError`); a longer stderr line is cut there."""

CHUNK = 4096
"""The most bytes of an engine's output read at once.  A read that fills it means the engine
writes faster than it is read: its reader then paces itself (see :class:`_LineReader`)."""

COLLECT = 1 << 20
"""The most bytes :meth:`Transport.collect` reads at once (an engine that writes without end
cannot keep it reading)."""

BATCH = 64
"""The most lines of an engine's output handed on at once: more, and the reader paces itself."""

MAX_PAUSE = 0.02
"""The longest pause (seconds) a flooding engine's reader makes between two batches."""

# Called at every move.  Compiled code looks a module's attribute (time.monotonic, os.read) up
# at every call, and a C type's method (a lock's acquire) too; Final names are C constants.
_monotonic: Final = time.monotonic
_os_read: Final = os.read
_os_write: Final = os.write
_lock_acquire: Final = _thread.LockType.acquire
_lock_release: Final = _thread.LockType.release

# Process groups of engines started here, and guard processes, not yet known to be gone
# (dicts keep insertion order and their single-key operations are atomic: kill_all relies on it).
_live_groups: dict[int, None] = {}
_live_guards: dict[int, None] = {}

# The guard is imported by a bare interpreter (``-I -S``) from this package's folder, after the
# standard library on its path, rather than run as a script: its compiled bytecode is cached.
_GUARD_START = (
    f"import sys; sys.path.append({os.path.dirname(os.path.abspath(__file__))!r}); import guard; guard.main(sys.argv)"
)
GUARDED = sys.platform.startswith("linux") and os.path.isdir("/proc")
"""True where engines run under :mod:`protocol.guard` (Linux: a subreaper that kills the
engine's whole process tree, even after the host was killed with SIGKILL)."""

_forking_guards = [False]  # fork_guards(), for the whole process


def fork_guards(enabled: bool = True) -> None:
    """Start every later engine's guard (``enabled``; else as by default) in a child forked
    from this process, rather than in an interpreter of its own: 10-13 ms of CPU less an
    engine (the interpreter's start and the guard's imports), which a host that starts many
    engines (the arbiter's game processes) spends many times over.

    Only for a process that knows its threads: the child runs the guard's code on the calling
    thread's copy of the process, so no other thread may hold, at any moment, a lock that code
    takes (the guard takes none of the host's, and the interpreter's own are made safe by
    ``os.fork``).  Where that is not known (a GUI's server, a library's caller) the default,
    a new interpreter, is the safe way."""
    _forking_guards[0] = enabled


def kill_all() -> None:
    """SIGKILL every engine process group this process started that may still live, and tell
    every guard to kill the rest of its engine's tree.

    Takes no locks and allocates little, so it is safe from a signal handler or at exit.
    """
    for pgid in list(_live_groups):
        try:
            os.killpg(pgid, signal.SIGKILL)
        except OSError:
            pass
        _live_groups.pop(pgid, None)
    for guard in list(_live_guards):
        try:
            os.kill(guard, signal.SIGTERM)
        except OSError:
            pass
        _live_guards.pop(guard, None)


atexit.register(kill_all)


class LineTooLongError(Exception):
    """The engine wrote a line longer than :data:`MAX_LINE` bytes (a protocol fault)."""


@mypyc_attr(allow_interpreted_subclasses=True)
class Transport(ABC):
    """The two-way line channel to one engine, as an engine client uses it."""

    @property
    @abstractmethod
    def pid(self) -> int | None:
        """The engine's process id, when it is a process that has been started."""

    @abstractmethod
    def start(self, log: LogFunction | None) -> None:
        """Start the engine; ``log`` (None: no log) gets every line read ("<") as it is read,
        and every stderr line ("!") as it arrives, from a thread of its own.  Raises OSError
        when the engine cannot be started."""

    @abstractmethod
    def send(self, line: str, timeout: float | None = None) -> None:
        """Write ``line`` and a line feed, flushed, waiting at most ``timeout`` seconds (None: no
        limit) for the engine to take it.  ``line`` may be several lines joined by line feeds
        (a ``position`` and its ``go``): they are written at once.  Raises TimeoutError when it did not (part of the line
        may have been written: the channel is then unusable), and another OSError when the
        engine's input is closed."""

    @abstractmethod
    def receive(self, timeout: float | None) -> tuple[str | None, float]:
        """The next output line (without line ending) and its arrival time, waiting at most
        ``timeout`` seconds (None: no limit); raises TimeoutError when none came, and
        LineTooLongError (then on every call) once the engine wrote a line longer than
        :data:`MAX_LINE`.  Once the output has ended, returns ``(EndOfOutput, arrival)`` on
        every call."""

    @abstractmethod
    def collect(self) -> None:
        """Read the output that is waiting now, without waiting for more: before a command that
        starts a clock, so that what the engine wrote before it has an earlier arrival time."""

    @abstractmethod
    def poll(self) -> int | None:
        """The engine's exit status, or None while it runs."""

    @abstractmethod
    def wait(self, timeout: float) -> int | None:
        """Wait at most ``timeout`` seconds for the engine to exit; its status, or None."""

    @abstractmethod
    def kill(self) -> None:
        """Kill the engine (its whole process group) now and reap it."""

    @abstractmethod
    def close(self) -> None:
        """Kill whatever is left of the engine and release the transport (idempotent)."""

    def last_stderr(self) -> str | None:
        """The engine's last stderr line, to explain a crash."""
        return None


_LINE_FEED: Final = 10
_OVERLONG = object()  # ends a stream at a stdout line longer than MAX_LINE


class _LineQueue:
    """Output lines with arrival times, put by one thread and taken by another; sticky end of
    output (:class:`MemoryTransport`'s queue)."""

    def __init__(self) -> None:
        self._items: deque[tuple[str | None, float]] = deque()
        self._arrived = threading.Condition(threading.Lock())  # a line is waiting
        self._end: tuple[str | None, float] | None = None

    def put(self, lines: Sequence[str | None]) -> None:
        """Queue ``lines``, arrived now."""
        if not lines:
            return
        with self._arrived:
            stamp = _monotonic()
            self._items.extend((line, stamp) for line in lines)
            self._arrived.notify()

    def get(self, timeout: float | None) -> tuple[str | None, float]:
        if self._end is None:
            with self._arrived:
                if not self._items and not self._arrived.wait_for(lambda: self._items, timeout):
                    raise TimeoutError
                item = self._items.popleft()
            if item[0] is not EndOfOutput:
                return item
            self._end = item
        return self._end


def _decode(data: bytes | bytearray, ended: bool = False) -> list[str]:
    """The lines of ``data`` (lines joined by line feeds, the last one's left off unless
    ``ended``), decoded."""
    text = data.decode("utf-8", "replace")
    lines = text.split("\n")
    if ended:
        lines.pop()  # (the empty text after the last line feed)
    return [line.rstrip("\r") for line in lines] if "\r" in text else lines


class _LineReader:
    """One output stream of an engine (``fd``, blocking), read by whoever calls :meth:`next`:
    its lines one at a time, decoded and without line endings, each with the time at which the
    read that brought it returned.  Every read's complete lines go to ``on_read`` (if any) at once (the
    log), in order.

    Nothing is read before it is asked for (or :meth:`collect` ed): at most the lines of one
    read (:data:`CHUNK` bytes) and the start of an unfinished line (:data:`MAX_LINE` bytes) are
    held here; whatever else the engine writes waits in its pipe, where it blocks once the pipe
    is full.  A line longer than :data:`MAX_LINE` goes, cut there, to ``overlong``, which
    returns whether to go on reading (the rest of that line is then skipped); if not, the
    stream ends there with :class:`LineTooLongError`.  Once the stream has ended, :meth:`next`
    returns ``EndOfOutput`` (or raises that error) on every call.

    An engine that writes faster than it is read (a read fills :data:`CHUNK`, or more than
    :data:`BATCH` lines come from one read) is paced: after each such batch the reader sleeps
    as long as the batch took to handle (at most :data:`MAX_PAUSE`), its lines having been
    taken and worked on meanwhile.  So however much one engine writes, the work its output
    makes comes in short bursts, between which the host's other threads get the interpreter at
    once, while the engine waits, blocked on its full pipe.  An engine that writes less than
    that is read as it writes, without pauses.
    """

    def __init__(self, fd: int, on_read: Callable[[list[str]], None] | None, overlong: Callable[[str], bool]) -> None:
        self.fd = fd
        self.on_read = on_read
        self.overlong = overlong
        poll = select.poll()  # not select(): any descriptor number
        poll.register(fd, select.POLLIN)
        self._ready: Callable[[int | None], list[tuple[int, int]]] = poll.poll  # (the method looked up once)
        self._lines: deque[tuple[str, float]] = deque()
        self._pending = bytearray()  # the start of a line whose end has not been read yet
        self._skipping = False  # through the rest of an overlong line
        self._end: tuple[object, float] | None = None  # (EndOfOutput or _OVERLONG, when)
        self._handed = 0  # lines handed on since the last read or pause
        self._full = False  # the last read filled CHUNK: the engine writes faster than it is read
        self._began = 0.0  # when the work on the current batch began

    def next(self, timeout: float | None) -> tuple[str | None, float]:
        """The next line and its arrival, waiting at most ``timeout`` seconds (None: no limit)
        for it; TimeoutError when none came."""
        lines = self._lines
        if not lines:
            deadline = None if timeout is None else _monotonic() + timeout
            while not lines:
                if self._end is not None:
                    if self._end[0] is _OVERLONG:
                        raise LineTooLongError(f"a line longer than {MAX_LINE} bytes")
                    return EndOfOutput, self._end[1]
                if self._full:
                    self._pause()
                self._read(None if deadline is None else deadline - _monotonic())
        elif self._handed >= BATCH:
            self._pause()
        self._handed += 1
        return lines.popleft()

    def collect(self) -> None:
        """Read what the stream holds now (at most :data:`COLLECT` bytes), without waiting."""
        taken = 0
        ready = self._ready
        while self._end is None and taken < COLLECT and ready(0):  # mostly nothing: one poll
            taken += self._read(0.0)

    def _read(self, timeout: float | None) -> int:
        """One read, once the stream is readable (within ``timeout``, else TimeoutError): its
        complete lines queued and handed to ``on_read``; the bytes read."""
        waiter = current_waiter()
        if waiter is BLOCKING or timeout == 0:  # (collect()'s reads of what is there: no wait)
            ready = bool(self._ready(None if timeout is None else max(0, math.ceil(timeout * 1000))))
        else:
            ready = waiter.readable(self.fd, timeout)
        if not ready:
            raise TimeoutError
        try:
            chunk = _os_read(self.fd, CHUNK)
        except OSError:  # the pipe was closed under us
            chunk = b""
        arrival = self._began = _monotonic()
        self._handed = 0
        self._full = len(chunk) == CHUNK
        if not chunk:
            if self._pending and not self._skipping:
                self._take(_decode(self._pending), arrival)
            self._pending = bytearray()
            self._end = (EndOfOutput, arrival)
            return 0
        if chunk[-1] == _LINE_FEED and not self._pending and not self._skipping:
            # The usual read: whole lines, nothing held (and none overlong: CHUNK < MAX_LINE).
            self._take(_decode(chunk, True), arrival)
            return len(chunk)
        start = 0
        if self._skipping:
            start = chunk.find(b"\n") + 1
            self._skipping = start == 0
        cut = chunk.rfind(b"\n")
        if self._skipping:
            pass
        elif cut < start:  # no line ends in this chunk
            self._pending += chunk[start:]
            if len(self._pending) > MAX_LINE:
                self._skipping = self._cut(self._pending[:MAX_LINE], arrival)
                self._pending = bytearray()
        else:
            self._pending += chunk[start:cut]
            complete, self._pending = self._pending, bytearray(chunk[cut + 1 :])
            if len(complete) <= MAX_LINE:
                self._take(_decode(complete), arrival)
            else:
                self._take_long(complete, arrival)
        return len(chunk)

    def _take(self, lines: list[str], arrival: float) -> None:
        if lines:  # (none before an overlong line that comes first)
            queued = self._lines
            for line in lines:  # (mostly one line)
                queued.append((line, arrival))
            if self.on_read is not None:
                self.on_read(lines)

    def _take_long(self, complete: bytearray, arrival: float) -> None:
        """:meth:`_take` for lines some of which may be overlong."""
        lines: list[str] = []
        for raw in complete.split(b"\n"):
            if len(raw) <= MAX_LINE:
                lines += _decode(raw)
                continue
            self._take(lines, arrival)
            lines = []
            if not self._cut(raw[:MAX_LINE], arrival):
                return
        self._take(lines, arrival)

    def _cut(self, start: bytes | bytearray, arrival: float) -> bool:
        """An overlong line, whose first :data:`MAX_LINE` bytes are ``start``: whether to go on
        (if not, the stream ends here)."""
        if self.overlong(start.decode("utf-8", "replace")):
            return True
        self._end = (_OVERLONG, arrival)
        return False

    def _pause(self) -> None:
        """The pause after a batch of a flood: as long as it took to handle."""
        current_waiter().sleep(min(_monotonic() - self._began, MAX_PAUSE))
        self._began = _monotonic()
        self._handed = 0
        self._full = False


def _write_rest(fd: int, data: memoryview, timeout: float | None) -> None:
    """Write ``data`` to the non-blocking pipe ``fd``, which is full: wait for the reader to
    make room, at most ``timeout`` seconds in all (None: no limit), else TimeoutError."""
    deadline = None if timeout is None else _monotonic() + timeout
    while data:
        remaining = None if deadline is None else deadline - _monotonic()
        if remaining is not None and remaining <= 0:
            raise TimeoutError("the engine did not take its input in time")
        current_waiter().writable(fd, remaining)
        try:
            data = data[os.write(fd, data) :]
        except BlockingIOError:
            pass


def _read_report(fd: int, timeout: float) -> str:
    """What the guard wrote on its report pipe before closing it ('' if nothing in time)."""
    data = b""
    deadline = _monotonic() + timeout
    try:
        while (remaining := deadline - _monotonic()) > 0:
            if not current_waiter().readable(fd, remaining):
                break
            chunk = os.read(fd, 64)
            if not chunk:
                break
            data += chunk
    finally:
        os.close(fd)
    return data.decode("ascii", "replace")


POLL_INTERVAL = 0.002
"""Seconds between two looks at a process's end (or a thread's) under a waiter that does not
block (:mod:`protocol.waiting`), at first: the interval doubles up to 20 times that."""


def _sleep_until(done: Callable[[], bool], timeout: float, waiter: Waiter) -> None:
    """Look at ``done`` between sleeps of ``waiter`` (growing from :data:`POLL_INTERVAL`)
    until it holds or ``timeout`` seconds have passed."""
    deadline = _monotonic() + timeout
    interval = POLL_INTERVAL
    while not done() and (remaining := deadline - _monotonic()) > 0:
        waiter.sleep(min(interval, remaining))
        interval = min(interval * 2, POLL_INTERVAL * 20)


class _Process(Protocol):
    """What the transport asks of the process it started (the guard, or the engine itself): a
    :class:`subprocess.Popen`, or a :class:`_ForkedGuard`."""

    pid: int
    stdin: IO[bytes] | None
    stdout: IO[bytes] | None
    stderr: IO[bytes] | None

    def poll(self) -> int | None: ...

    def wait(self, timeout: float | None = None) -> int: ...

    def send_signal(self, sig: int) -> None: ...

    def kill(self) -> None: ...


class _ForkedGuard:
    """A guard run in a child forked from this process (see :func:`fork_guards`), its pipes
    the engine's: the part of a :class:`subprocess.Popen` the transport uses, the exit status
    told as Popen tells it (negative: killed by that signal)."""

    def __init__(self, command: list[str], cwd: str | None, env: dict[str, str] | None, arguments: list[str]) -> None:
        from . import guard  # (only here: ctypes costs a host that never forks a guard 3 ms to import)

        prctl = guard._prctl()  # looked up before the fork: the child loads nothing (no dlopen)
        ends: list[int] = []  # this side's: the engine's stdin (written), stdout and stderr (read)
        child_ends: list[int] = []
        try:
            for stream in range(3):
                read, write = os.pipe()
                ends.append(write if stream == 0 else read)
                child_ends.append(read if stream == 0 else write)
            self.pid = os.fork()
            if self.pid == 0:
                _run_forked_guard(guard, prctl, child_ends, int(arguments[1]), cwd, env, [*arguments, *command])
        except BaseException:
            for fd in ends:
                os.close(fd)
            raise
        finally:
            for fd in child_ends:
                os.close(fd)
        self.stdin: IO[bytes] | None = open(ends[0], "wb", buffering=0)  # noqa: SIM115  (closed by the transport)
        self.stdout: IO[bytes] | None = open(ends[1], "rb", buffering=0)  # noqa: SIM115
        self.stderr: IO[bytes] | None = open(ends[2], "rb", buffering=0)  # noqa: SIM115
        self.returncode: int | None = None
        self._waitpid_lock = threading.Lock()  # one waitpid at a time: a second would find no child

    def poll(self) -> int | None:
        if self.returncode is None and self._waitpid_lock.acquire(blocking=False):  # (else a wait() reaps it)
            try:
                if self.returncode is None:
                    pid, status = os.waitpid(self.pid, os.WNOHANG)
                    if pid == self.pid:
                        self.returncode = os.waitstatus_to_exitcode(status)
            finally:
                self._waitpid_lock.release()
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if timeout is None:
            with self._waitpid_lock:
                if self.returncode is None:
                    self.returncode = os.waitstatus_to_exitcode(os.waitpid(self.pid, 0)[1])
            return self.returncode
        _sleep_until(lambda: self.poll() is not None, timeout, BLOCKING)  # (waitpid has no timeout)
        code = self.poll()
        if code is None:
            raise subprocess.TimeoutExpired([str(self.pid)], timeout)
        return code

    def send_signal(self, sig: int) -> None:
        if self.poll() is None:  # (a pid reaped could be another process's by now)
            os.kill(self.pid, sig)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


def _run_forked_guard(
    guard: Any,
    prctl: Any,
    stdio: list[int],
    report_fd: int,
    cwd: str | None,
    env: dict[str, str] | None,
    argv: list[str],
) -> None:
    """In the forked child: become what ``python -c guard.main`` started by Popen would be (a
    session of its own, the engine's pipes as stdin/stdout/stderr, no other descriptor but the
    report pipe, the handlers the host set back to their defaults), then the guard.  Never
    returns."""
    try:
        os.setsid()
        moved = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 4) for fd in (*stdio, report_fd)]  # clear of 0-3
        for target, fd in enumerate(moved):  # the engine's stdin, stdout, stderr, then the report on 3
            os.dup2(fd, target)
        os.closerange(4, os.sysconf("SC_OPEN_MAX"))
        if cwd is not None:
            try:
                os.chdir(cwd)
            except OSError as error:  # reported as the guard reports an engine it cannot start
                os.write(3, f"error {error.errno or 0}".encode())
                raise
        guard.default_handlers()
        argv[1] = "3"
        guard.main(argv, env, prctl)
    finally:
        os._exit(127)


def _wait_process(process: _Process, timeout: float) -> int | None:
    """``process``'s exit status once it has ended, within ``timeout`` seconds, else None."""
    waiter = current_waiter()
    if waiter.blocking:
        try:
            return process.wait(timeout=max(0.0, timeout))
        except subprocess.TimeoutExpired:
            return None
    _sleep_until(lambda: process.poll() is not None, timeout, waiter)
    return process.poll()


def _join(thread: threading.Thread, timeout: float) -> None:
    """``thread.join(timeout)``, in short sleeps under a waiter that does not block."""
    waiter = current_waiter()
    if waiter.blocking:
        thread.join(timeout=timeout)
    else:
        _sleep_until(lambda: not thread.is_alive(), timeout, waiter)


class ProcessTransport(Transport):
    """An engine process in its own process group; its output read by the thread that waits for
    it, its stderr by a thread of its own.

    On Linux the engine runs under a guard (:mod:`protocol.guard`), a subreaper that kills its
    whole process tree when it exits or is killed, and when the thread that started it exits,
    even if the host is killed outright (``die_with_parent``, default on; see the module
    docstring).  :attr:`pid` is the engine's own process id (its process group's too).
    """

    def __init__(
        self,
        command: Sequence[str],
        cwd: str | None = None,
        env: dict[str, str] | None = None,
        *,
        die_with_parent: bool = True,
    ) -> None:
        self.command = list(command)
        self.cwd = cwd
        self.env = env
        self.die_with_parent = die_with_parent
        self._process: _Process | None = None
        self._engine_pid: int | None = None
        self._stdout: _LineReader | None = None
        self._read_lock = threading.Lock()  # held while the output is read: close() waits for no reader
        self._output_open = False
        self._write_lock = threading.Lock()
        self._stderr_thread: threading.Thread | None = None
        self._stderr_tail: deque[str] = deque(maxlen=1)
        self._closed = False
        self._stdin_fd = -1  # the engine's input, written with os.write; -1 until started, once closed

    @property
    def pid(self) -> int | None:
        if self._engine_pid is not None:
            return self._engine_pid
        return self._process.pid if self._process is not None else None

    def start(self, log: LogFunction | None) -> None:
        if not self.command:
            raise OSError("empty command")
        process: _Process
        if GUARDED:
            process = self._start_guarded()
        else:
            process = self._process = subprocess.Popen(
                self.command,
                cwd=self.cwd,
                env=self.env,
                start_new_session=True,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
            self._engine_pid = process.pid  # a new session's id is its leader's pid
            _live_groups[self._engine_pid] = None
        assert process.stdin is not None and process.stdout is not None and process.stderr is not None
        # Written with os.write only (never through the buffered stream), so that no write
        # waits for room longer than its deadline; the engine's end of the pipe stays blocking.
        self._stdin_fd = process.stdin.fileno()
        os.set_blocking(self._stdin_fd, False)

        def overlong(start: str) -> bool:
            if log is not None:
                log("<", f"{start[:200]}... (cut: longer than {MAX_LINE} bytes)")
            return False

        def logged(lines: list[str]) -> None:
            assert log is not None
            for line in lines:
                log("<", line)

        self._stdout = _LineReader(process.stdout.fileno(), logged if log is not None else None, overlong)
        self._output_open = True
        thread = threading.Thread(
            target=self._read_stderr, args=(process.stderr, log), daemon=True, name=f"engine-{self.pid}-stderr"
        )
        thread.start()
        self._stderr_thread = thread

    def _start_guarded(self) -> _Process:
        """Start the guard, which starts the engine and reports its pid (or why it could not);
        the guard's process, whose pipes are the engine's."""
        report, writer = os.pipe()
        arguments = ["guard", str(writer), str(os.getpid()), "1" if self.die_with_parent else "0", "--"]
        process: _Process
        try:
            if _forking_guards[0]:
                process = self._process = _ForkedGuard(self.command, self.cwd, self.env, arguments)
            else:
                process = self._process = subprocess.Popen(
                    [sys.executable, "-I", "-S", "-c", _GUARD_START, *arguments[1:], *self.command],
                    cwd=self.cwd,
                    env=self.env,
                    start_new_session=True,
                    pass_fds=(writer,),
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                )
        except BaseException:
            os.close(report)
            raise
        finally:
            os.close(writer)
        _live_guards[process.pid] = None
        answer = _read_report(report, 30.0)
        if answer.isdigit():
            self._engine_pid = int(answer)
            _live_groups[self._engine_pid] = None
            return process
        self.close()
        number = int(answer.split()[1]) if answer.startswith("error ") and answer[6:].isdigit() else 0
        raise OSError(number, os.strerror(number) if number else "the engine's guard process failed")

    def _read_stderr(self, stream: IO[bytes], log: LogFunction | None) -> None:
        def take(lines: list[str]) -> None:
            self._stderr_tail.append(lines[-1])
            if log is not None:
                for line in lines:
                    log("!", line)

        def overlong(start: str) -> bool:
            take([start])
            return True

        reader = _LineReader(stream.fileno(), take, overlong)
        while reader.next(None)[0] is not EndOfOutput:
            pass

    def send(self, line: str, timeout: float | None = None) -> None:
        if self._process is None or self._closed:
            raise BrokenPipeError("the engine is not running")
        data = (line + "\n").encode("utf-8")
        lock = self._write_lock
        if not _lock_acquire(lock, False):  # another thread's line is being written
            queued = _monotonic()
            if not lock.acquire(timeout=-1 if timeout is None else timeout):
                raise TimeoutError("an earlier line is still waiting for room in the engine's input")
            if timeout is not None:
                timeout = max(0.0, timeout - (_monotonic() - queued))
        try:
            fd = self._stdin_fd
            if self._closed or fd < 0:  # closed only with the lock held
                raise BrokenPipeError("the engine's input is closed")
            try:
                written = _os_write(fd, data)
            except BlockingIOError:
                written = 0
            if written < len(data):
                _write_rest(fd, memoryview(data)[written:], timeout)
        finally:
            _lock_release(lock)
        if self._closed:  # close() found the lock held, so the input is the last writer's to close
            self._close_input()

    def _close_input(self) -> None:
        """Close the engine's input, unless a write is under way (that writer closes it then)."""
        process = self._process
        if process is None or process.stdin is None or not self._write_lock.acquire(blocking=False):
            return
        try:
            self._stdin_fd = -1
            process.stdin.close()
        except OSError:
            pass
        finally:
            self._write_lock.release()

    def receive(self, timeout: float | None) -> tuple[str | None, float]:
        with self._read_lock:
            try:
                if self._output_open:
                    assert self._stdout is not None
                    return self._stdout.next(timeout)
                return EndOfOutput, _monotonic()
            finally:
                if self._closed:  # close() found a read under way: the output is this reader's to close
                    self._close_output()

    def collect(self) -> None:
        with self._read_lock:
            if self._output_open:
                assert self._stdout is not None
                self._stdout.collect()

    def _close_output(self) -> None:
        """Close the engine's stdout (the read lock held)."""
        if self._output_open and self._process is not None and self._process.stdout is not None:
            self._output_open = False
            try:
                self._process.stdout.close()
            except OSError:
                pass

    def poll(self) -> int | None:
        return self._process.poll() if self._process is not None else None

    def wait(self, timeout: float) -> int | None:
        if self._process is None:
            return None
        return _wait_process(self._process, timeout)

    def kill(self) -> None:
        process = self._process
        if process is None:
            return
        if self._engine_pid is not None:
            try:
                os.killpg(self._engine_pid, signal.SIGKILL)
            except OSError:  # the group is already empty
                pass
            _live_groups.pop(self._engine_pid, None)
        if process.pid != self._engine_pid:  # the guard: it kills the rest of the tree, then exits
            try:
                process.send_signal(signal.SIGTERM)
            except OSError:
                pass
            if _wait_process(process, 10.0) is None:  # only a guard stopped by someone else gets here
                process.kill()
            _live_guards.pop(process.pid, None)
        process.wait()

    def close(self) -> None:
        if self._closed:
            return
        self.kill()
        self._closed = True
        process = self._process
        if process is None:
            return
        self._close_input()
        if self._read_lock.acquire(blocking=False):  # else the reading thread closes it when done
            try:
                self._close_output()
            finally:
                self._read_lock.release()
        # A stream whose reader still blocks (a process that escaped holds the pipe) must not
        # be closed: its descriptor could be reused under the reader.
        thread = self._stderr_thread
        if thread is not None:
            _join(thread, 1.0)
        if (thread is None or not thread.is_alive()) and process.stderr is not None:
            try:
                process.stderr.close()
            except OSError:
                pass

    def last_stderr(self) -> str | None:
        return self._stderr_tail[-1] if self._stderr_tail else None


@mypyc_attr(allow_interpreted_subclasses=True)
class MemoryTransport(Transport):
    """An engine played in memory, for testing hosts without a process.

    ``handler(line, transport)`` is called (on the sending thread) with every line the host
    sends; it answers with :meth:`reply` and can end the engine with :meth:`exit`.  Both may
    also be called from other threads, e.g. to answer later.  ``sent`` lists what was sent.
    """

    def __init__(self, handler: Callable[[str, MemoryTransport], None] | None = None, pid: int | None = None) -> None:
        self.handler = handler
        self.sent: list[str] = []
        self._pid = pid
        self._lines = _LineQueue()
        self._log: LogFunction | None = None
        self._returncode: int | None = None
        self._exited = threading.Event()
        self._lock = threading.Lock()

    @property
    def pid(self) -> int | None:
        return self._pid

    def start(self, log: LogFunction | None) -> None:
        self._log = log

    def reply(self, *lines: str) -> None:
        """The engine writes ``lines``."""
        with self._lock:
            if self._exited.is_set():
                return
            self._lines.put(lines)
            for line in lines:
                if self._log is not None:
                    self._log("<", line)

    def exit(self, returncode: int = 0) -> None:
        """The engine exits with ``returncode``: its output ends, its input is closed."""
        with self._lock:
            if self._exited.is_set():
                return
            self._returncode = returncode
            self._exited.set()
            self._lines.put([EndOfOutput])

    def send(self, line: str, timeout: float | None = None) -> None:
        if self._exited.is_set():
            raise BrokenPipeError("the engine has exited")
        for part in line.split("\n"):
            self.sent.append(part)
            if self.handler is not None:
                self.handler(part, self)

    def receive(self, timeout: float | None) -> tuple[str | None, float]:
        return self._lines.get(timeout)

    def collect(self) -> None:
        """Nothing to read: a reply is stamped as the engine makes it."""

    def poll(self) -> int | None:
        return self._returncode

    def wait(self, timeout: float) -> int | None:
        self._exited.wait(max(0.0, timeout))
        return self._returncode

    def kill(self) -> None:
        self.exit(-signal.SIGKILL)

    def close(self) -> None:
        self.kill()
