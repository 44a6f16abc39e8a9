"""How an engine client reaches an engine: the :class:`Transport` every kind of engine gives.

A :class:`Transport` carries lines both ways.  Each output line comes with the
``time.monotonic()`` at which it was read, so that a host times an answer from the moment it
came in; :meth:`Transport.collect` reads what is waiting before a command that starts a clock,
so a line written before it is never taken for one written after.  No line is longer than
:data:`MAX_LINE` bytes: a longer one on stdout is a protocol fault (:class:`LineTooLongError`).

The transports: :class:`~protocol.processtransport.ProcessTransport`, a real engine process
(its output read by :class:`~protocol.linereader.LineReader`, started under the guard of
:mod:`protocol.guardstart`, killed at exit if still alive: :mod:`protocol.liveprocesses`), and
:class:`~protocol.memorytransport.MemoryTransport`, an engine played by a Python callable, for
unit tests of hosts.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable

from mypy_extensions import mypyc_attr

__all__ = ["MAX_LINE", "EndOfOutput", "LineTooLongError", "LogFunction", "Transport"]

LogFunction = Callable[[str, str], None]
"""``log(direction, line)``: ">" sent to the engine, "<" read from it, "!" its stderr."""

EndOfOutput = None
"""The text :meth:`Transport.receive` gives once the engine's output has ended."""

MAX_LINE = 1 << 20
"""The longest line (bytes, without its line ending) an engine may write on stdout: a longer
one is a protocol fault (:class:`LineTooLongError`); a longer stderr line is cut there."""


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
