"""An engine played in memory by a Python callable, as a :class:`~protocol.transport.Transport`:
for unit tests of hosts, without a process."""

from __future__ import annotations

import signal
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence

from mypy_extensions import mypyc_attr

from .transport import EndOfOutput, LogFunction, Transport

__all__ = ["MemoryTransport"]


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
            stamp = time.monotonic()
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
