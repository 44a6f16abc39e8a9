"""How an engine client reaches an engine: a real process, or an engine held in memory.

A :class:`Transport` carries lines both ways.  Output lines wait in a queue with the
``time.monotonic()`` at which they arrived, so a reader can block on the queue (no polling)
and still time an answer from the moment it came in.

:class:`ProcessTransport` runs the engine in its own process group (session), with one reader
thread per output stream.  Output is read in lines of at most :data:`MAX_LINE` bytes (a longer
stdout line is a protocol fault, :class:`LineTooLongError`), and at most :data:`QUEUE_BYTES`
of it waits unread, so no engine can make its host's memory grow without bound.

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

import atexit
import os
import queue
import select
import signal
import subprocess
import sys
import threading
import time
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable, Sequence
from typing import IO

__all__ = ["GUARDED", "MAX_LINE", "EndOfOutput", "LineTooLongError", "LogFunction", "MemoryTransport",
           "ProcessTransport", "Transport", "kill_all"]

LogFunction = Callable[[str, str], None]
"""``log(direction, line)``: ">" sent to the engine, "<" read from it, "!" its stderr."""

EndOfOutput = None
"""The text :meth:`Transport.receive` gives once the engine's output has ended."""

MAX_LINE = 1 << 20
"""The longest line (bytes, without its line ending) an engine may write on stdout: a longer
one is a protocol fault (:class:`LineTooLongError`); a longer stderr line is cut there."""

QUEUE_BYTES = 4 << 20
QUEUE_LINES = 10_000
"""How much of an engine's output may wait unread.  Beyond that the reader stops reading, so
the engine blocks on its own full pipe: whatever it writes, the host's memory stays bounded."""

# Process groups of engines started here, and guard processes, not yet known to be gone
# (dicts keep insertion order and their single-key operations are atomic: kill_all relies on it).
_live_groups: dict[int, None] = {}
_live_guards: dict[int, None] = {}

_GUARD_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "guard.py")
GUARDED = sys.platform.startswith("linux") and os.path.isdir("/proc")
"""True where engines run under :mod:`protocol.guard` (Linux: a subreaper that kills the
engine's whole process tree, even after the host was killed with SIGKILL)."""


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


class Transport(ABC):
    """The two-way line channel to one engine, as an engine client uses it."""

    @property
    @abstractmethod
    def pid(self) -> int | None:
        """The engine's process id, when it is a process that has been started."""

    @abstractmethod
    def start(self, log: LogFunction) -> None:
        """Start the engine; ``log`` gets every line read ("<") and every stderr line ("!") as it
        arrives, from a reader thread.  Raises OSError when the engine cannot be started."""

    @abstractmethod
    def send(self, line: str) -> None:
        """Write ``line`` and a line feed, flushed.  Raises OSError when the engine's input is closed."""

    @abstractmethod
    def receive(self, timeout: float | None) -> tuple[str | None, float]:
        """The next output line (without line ending) and its arrival time, waiting at most
        ``timeout`` seconds (None: no limit); raises TimeoutError when none came, and
        LineTooLongError (then on every call) once the engine wrote a line longer than
        :data:`MAX_LINE`.  Once the output has ended, returns ``(EndOfOutput, arrival)`` on
        every call."""

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


_OVERLONG = object()  # queued in place of a line longer than MAX_LINE


class _LineQueue:
    """Output lines with arrival times; sticky end of output.

    ``bounded``: :meth:`put` blocks while :data:`QUEUE_LINES` lines or :data:`QUEUE_BYTES`
    characters wait (the end of output always goes in), until :meth:`close` drops every
    later line.
    """

    def __init__(self, bounded: bool = False) -> None:
        self._queue: queue.SimpleQueue[tuple[object, float]] = queue.SimpleQueue()
        self._bounded = bounded
        self._lines = 0  # waiting, when bounded
        self._size = 0
        self._closed = False
        self._room = threading.Condition(threading.Lock())
        self._end: tuple[object, float] | None = None

    def put(self, line: object) -> None:
        if self._bounded and line is not EndOfOutput:
            cost = len(line) if isinstance(line, str) else 0
            with self._room:
                while (not self._closed and self._lines
                       and (self._lines >= QUEUE_LINES or self._size + cost > QUEUE_BYTES)):
                    self._room.wait()
                if self._closed:
                    return
                self._lines += 1
                self._size += cost
        self._queue.put((line, time.monotonic()))

    def close(self) -> None:
        """Take no more lines; wake a blocked :meth:`put`."""
        with self._room:
            self._closed = True
            self._room.notify_all()

    def get(self, timeout: float | None) -> tuple[str | None, float]:
        if self._end is None:
            try:
                item = self._queue.get(timeout=timeout)
            except queue.Empty:
                raise TimeoutError from None
            if self._bounded and item[0] is not EndOfOutput:
                with self._room:
                    self._lines -= 1
                    self._size -= len(item[0]) if isinstance(item[0], str) else 0
                    self._room.notify()
            if item[0] is not EndOfOutput and item[0] is not _OVERLONG:
                return item  # type: ignore[return-value]
            self._end = item
        if self._end[0] is _OVERLONG:
            raise LineTooLongError(f"a line longer than {MAX_LINE} bytes")
        return self._end  # type: ignore[return-value]


def _pump(stream: IO[bytes], take: Callable[[str], None], overlong: Callable[[str], bool]) -> None:
    """Hand each line of ``stream`` (decoded, without line ending) to ``take`` until it ends.

    A line longer than :data:`MAX_LINE` goes, cut there, to ``overlong`` instead; it returns
    whether to go on reading (the rest of that line is then skipped)."""
    try:
        while raw := stream.readline(MAX_LINE + 1):
            if len(raw) > MAX_LINE and not raw.endswith(b"\n"):
                if not overlong(raw[:MAX_LINE].decode("utf-8", "replace")):
                    return
                while (rest := stream.readline(MAX_LINE)) and not rest.endswith(b"\n"):
                    pass
                continue
            take(raw.decode("utf-8", "replace").rstrip("\r\n"))
    except (OSError, ValueError):  # the pipe was closed under us
        pass


def _read_report(fd: int, timeout: float) -> str:
    """What the guard wrote on its report pipe before closing it ('' if nothing in time)."""
    data = b""
    deadline = time.monotonic() + timeout
    try:
        while (remaining := deadline - time.monotonic()) > 0:
            if not select.select([fd], [], [], remaining)[0]:
                break
            chunk = os.read(fd, 64)
            if not chunk:
                break
            data += chunk
    finally:
        os.close(fd)
    return data.decode("ascii", "replace")


class ProcessTransport(Transport):
    """An engine process in its own process group, with a reader thread per output stream.

    On Linux the engine runs under a guard (:mod:`protocol.guard`), a subreaper that kills its
    whole process tree when it exits or is killed, and when the thread that started it exits,
    even if the host is killed outright (``die_with_parent``, default on; see the module
    docstring).  :attr:`pid` is the engine's own process id (its process group's too).
    """

    def __init__(self, command: Sequence[str], cwd: str | None = None,
                 env: dict[str, str] | None = None, *, die_with_parent: bool = True) -> None:
        self.command = list(command)
        self.cwd = cwd
        self.env = env
        self.die_with_parent = die_with_parent
        self._process: subprocess.Popen[bytes] | None = None
        self._engine_pid: int | None = None
        self._lines = _LineQueue(bounded=True)
        self._write_lock = threading.Lock()
        self._threads: list[threading.Thread] = []
        self._stderr_tail: deque[str] = deque(maxlen=1)
        self._closed = False

    @property
    def pid(self) -> int | None:
        if self._engine_pid is not None:
            return self._engine_pid
        return self._process.pid if self._process is not None else None

    def start(self, log: LogFunction) -> None:
        if not self.command:
            raise OSError("empty command")
        if GUARDED:
            process = self._start_guarded()
        else:
            process = self._process = subprocess.Popen(
                self.command, cwd=self.cwd, env=self.env, start_new_session=True,
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            self._engine_pid = process.pid  # a new session's id is its leader's pid
            _live_groups[self._engine_pid] = None
        assert process.stdout is not None and process.stderr is not None
        for target, stream in ((self._read_stdout, process.stdout), (self._read_stderr, process.stderr)):
            thread = threading.Thread(target=target, args=(stream, log), daemon=True,
                                      name=f"engine-{self.pid}-reader")
            thread.start()
            self._threads.append(thread)

    def _start_guarded(self) -> subprocess.Popen[bytes]:
        """Start the guard, which starts the engine and reports its pid (or why it could not);
        the guard's process, whose pipes are the engine's."""
        report, writer = os.pipe()
        try:
            process = self._process = subprocess.Popen(
                [sys.executable, "-I", "-S", _GUARD_SCRIPT, str(writer), str(os.getpid()),
                 "1" if self.die_with_parent else "0", "--", *self.command],
                cwd=self.cwd, env=self.env, start_new_session=True, pass_fds=(writer,),
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
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

    def _read_stdout(self, stream: IO[bytes], log: LogFunction) -> None:
        def take(line: str) -> None:
            self._lines.put(line)
            log("<", line)

        def overlong(start: str) -> bool:
            log("<", f"{start[:200]}... (cut: longer than {MAX_LINE} bytes)")
            self._lines.put(_OVERLONG)
            return False
        try:
            _pump(stream, take, overlong)
        finally:
            self._lines.put(EndOfOutput)

    def _read_stderr(self, stream: IO[bytes], log: LogFunction) -> None:
        def take(line: str) -> None:
            self._stderr_tail.append(line)
            log("!", line)

        def overlong(start: str) -> bool:
            take(start)
            return True
        _pump(stream, take, overlong)

    def send(self, line: str) -> None:
        process = self._process
        if process is None or process.stdin is None or self._closed:
            raise BrokenPipeError("the engine is not running")
        data = (line + "\n").encode("utf-8")
        with self._write_lock:
            try:
                process.stdin.write(data)
                process.stdin.flush()
            except ValueError:  # stdin already closed
                raise BrokenPipeError("the engine's input is closed") from None

    def receive(self, timeout: float | None) -> tuple[str | None, float]:
        return self._lines.get(timeout)

    def poll(self) -> int | None:
        return self._process.poll() if self._process is not None else None

    def wait(self, timeout: float) -> int | None:
        if self._process is None:
            return None
        try:
            return self._process.wait(timeout=max(0.0, timeout))
        except subprocess.TimeoutExpired:
            return None

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
            try:
                process.wait(timeout=10.0)
            except subprocess.TimeoutExpired:  # only a guard stopped by someone else gets here
                process.kill()
            _live_guards.pop(process.pid, None)
        process.wait()

    def close(self) -> None:
        if self._closed:
            return
        self.kill()
        self._closed = True
        self._lines.close()
        process = self._process
        if process is None:
            return
        for thread in self._threads:
            thread.join(timeout=1.0)
        # A stream whose reader still blocks (a process that escaped holds the pipe) must not
        # be closed: closing a buffered stream waits for the reader's lock.
        alive = [thread.is_alive() for thread in self._threads] or [False, False]
        streams = [process.stdin, process.stdout if not alive[0] else None,
                   process.stderr if not alive[1] else None]
        for stream in streams:
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass

    def last_stderr(self) -> str | None:
        return self._stderr_tail[-1] if self._stderr_tail else None


class MemoryTransport(Transport):
    """An engine played in memory, for testing hosts without a process.

    ``handler(line, transport)`` is called (on the sending thread) with every line the host
    sends; it answers with :meth:`reply` and can end the engine with :meth:`exit`.  Both may
    also be called from other threads, e.g. to answer later.  ``sent`` lists what was sent.
    """

    def __init__(self, handler: Callable[[str, "MemoryTransport"], None] | None = None,
                 pid: int | None = None) -> None:
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

    def start(self, log: LogFunction) -> None:
        self._log = log

    def reply(self, *lines: str) -> None:
        """The engine writes ``lines``."""
        with self._lock:
            if self._exited.is_set():
                return
            for line in lines:
                self._lines.put(line)
                if self._log is not None:
                    self._log("<", line)

    def exit(self, returncode: int = 0) -> None:
        """The engine exits with ``returncode``: its output ends, its input is closed."""
        with self._lock:
            if self._exited.is_set():
                return
            self._returncode = returncode
            self._exited.set()
            self._lines.put(EndOfOutput)

    def send(self, line: str) -> None:
        if self._exited.is_set():
            raise BrokenPipeError("the engine has exited")
        self.sent.append(line)
        if self.handler is not None:
            self.handler(line, self)

    def receive(self, timeout: float | None) -> tuple[str | None, float]:
        return self._lines.get(timeout)

    def poll(self) -> int | None:
        return self._returncode

    def wait(self, timeout: float) -> int | None:
        self._exited.wait(max(0.0, timeout))
        return self._returncode

    def kill(self) -> None:
        self.exit(-signal.SIGKILL)

    def close(self) -> None:
        self.kill()
