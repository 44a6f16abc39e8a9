"""How an engine client reaches an engine: a real process, or an engine held in memory.

A :class:`Transport` carries lines both ways.  Output lines wait in a queue with the
``time.monotonic()`` at which they arrived, so a reader can block on the queue (no polling)
and still time an answer from the moment it came in.

:class:`ProcessTransport` runs the engine in its own process group (session), with one reader
thread per output stream; every group it starts is kept in a registry until it is gone, and
:func:`kill_all` (run at exit, and safe in a signal handler) kills whatever is left, so no
engine outlives its host.  When the host cannot run that clean-up (it was killed with
SIGKILL), Linux does it: each engine is started with a parent-death signal (``prctl
PR_SET_PDEATHSIG``, SIGKILL), elsewhere this is silently skipped.  The kernel sends that signal
when the *thread* that started the engine exits, so start engines from a thread that lives as
long as they are needed (the main thread, or a worker that owns its engines, as the arbiter's
do), or pass ``die_with_parent=False``.  :class:`MemoryTransport` is an engine played by a
Python callable, for unit tests of hosts.
"""

from __future__ import annotations

import atexit
import ctypes
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable, Sequence
from typing import IO

__all__ = ["EndOfOutput", "LogFunction", "MemoryTransport", "ProcessTransport", "Transport", "kill_all"]

LogFunction = Callable[[str, str], None]
"""``log(direction, line)``: ">" sent to the engine, "<" read from it, "!" its stderr."""

EndOfOutput = None
"""The text :meth:`Transport.receive` gives once the engine's output has ended."""

# Process groups started here and not yet known to be gone: pgid -> None (a dict keeps
# insertion order and its single-key operations are atomic, which kill_all relies on).
_live_groups: dict[int, None] = {}


def kill_all() -> None:
    """SIGKILL every engine process group this process started that may still live.

    Takes no locks and allocates little, so it is safe from a signal handler or at exit.
    """
    for pgid in list(_live_groups):
        try:
            os.killpg(pgid, signal.SIGKILL)
        except OSError:
            pass
        _live_groups.pop(pgid, None)


atexit.register(kill_all)

_PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


def _load_prctl() -> Callable[..., int] | None:
    """libc's ``prctl``, bound once in the parent (the child must not look anything up), or None."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    prctl.restype = ctypes.c_int
    return prctl


_prctl = _load_prctl()


def _parent_death_signal() -> Callable[[], None] | None:
    """The ``preexec_fn`` that makes the child get SIGKILL when its parent thread dies, or None
    where that is unavailable.  It runs in the forked child before ``exec``: one foreign call
    and no lock taken, so it is safe although the host has threads.  If the parent died before
    the request took effect (the child was already re-parented), the child kills itself."""
    prctl = _prctl
    if prctl is None:
        return None
    parent = os.getpid()

    def request() -> None:
        if prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0 and os.getppid() != parent:
            os.kill(os.getpid(), signal.SIGKILL)

    return request


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
        ``timeout`` seconds (None: no limit); raises TimeoutError when none came.  Once the
        output has ended, returns ``(EndOfOutput, arrival)`` on every call."""

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


class _LineQueue:
    """Output lines with arrival times; sticky end of output."""

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[tuple[str | None, float]] = queue.SimpleQueue()
        self._end: tuple[str | None, float] | None = None

    def put(self, line: str | None) -> None:
        self._queue.put((line, time.monotonic()))

    def get(self, timeout: float | None) -> tuple[str | None, float]:
        if self._end is not None:
            return self._end
        try:
            item = self._queue.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError from None
        if item[0] is EndOfOutput:
            self._end = item
        return item


def _pump(stream: IO[bytes], take: Callable[[str], None]) -> None:
    """Hand each line of ``stream`` (decoded, without line ending) to ``take`` until it ends."""
    try:
        for raw in stream:
            take(raw.decode("utf-8", "replace").rstrip("\r\n"))
    except (OSError, ValueError):  # the pipe was closed under us
        pass


class ProcessTransport(Transport):
    """An engine process in its own process group, with a reader thread per output stream.

    ``die_with_parent`` (default on) asks Linux to SIGKILL the engine when the thread that
    started it exits, even if the host is killed outright (see the module docstring).
    """

    def __init__(self, command: Sequence[str], cwd: str | None = None,
                 env: dict[str, str] | None = None, *, die_with_parent: bool = True) -> None:
        self.command = list(command)
        self.cwd = cwd
        self.env = env
        self.die_with_parent = die_with_parent
        self._process: subprocess.Popen[bytes] | None = None
        self._lines = _LineQueue()
        self._write_lock = threading.Lock()
        self._threads: list[threading.Thread] = []
        self._stderr_tail: deque[str] = deque(maxlen=1)
        self._closed = False

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def start(self, log: LogFunction) -> None:
        if not self.command:
            raise OSError("empty command")
        self._process = subprocess.Popen(
            self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            cwd=self.cwd, env=self.env, start_new_session=True,
            preexec_fn=_parent_death_signal() if self.die_with_parent else None)  # noqa: PLW1509 (see there)
        _live_groups[self._process.pid] = None  # a new session's id is its leader's pid
        assert self._process.stdout is not None and self._process.stderr is not None
        for target, stream in ((self._read_stdout, self._process.stdout),
                               (self._read_stderr, self._process.stderr)):
            thread = threading.Thread(target=target, args=(stream, log), daemon=True,
                                      name=f"engine-{self._process.pid}-reader")
            thread.start()
            self._threads.append(thread)

    def _read_stdout(self, stream: IO[bytes], log: LogFunction) -> None:
        def take(line: str) -> None:
            self._lines.put(line)
            log("<", line)
        try:
            _pump(stream, take)
        finally:
            self._lines.put(EndOfOutput)

    def _read_stderr(self, stream: IO[bytes], log: LogFunction) -> None:
        def take(line: str) -> None:
            self._stderr_tail.append(line)
            log("!", line)
        _pump(stream, take)

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
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except OSError:  # the group is already empty
            pass
        _live_groups.pop(process.pid, None)
        process.wait()

    def close(self) -> None:
        if self._closed:
            return
        self.kill()
        self._closed = True
        process = self._process
        if process is None:
            return
        for thread in self._threads:
            thread.join(timeout=1.0)
        # A stream whose reader still blocks (a grandchild that left the group holds the pipe)
        # must not be closed: closing a buffered stream waits for the reader's lock.
        streams = [process.stdin, process.stdout if not self._threads[0].is_alive() else None,
                   process.stderr if not self._threads[1].is_alive() else None]
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
