"""Reading an engine's output stream: bounded, paced, each line with the moment it arrived.

A :class:`LineReader` is read by the thread that waits for the engine's output (no reader
thread, no hand-off between threads: a move costs the host one ``poll`` and one ``read``), in
lines of at most :data:`~protocol.transport.MAX_LINE` bytes.  Nothing is read ahead of the
reader's need: an engine that writes more than is read blocks on its own full pipe, so no engine
can make its host's memory grow without bound.  An engine that writes faster than it is read is
read in paced batches, so that the work its output makes never holds the interpreter for long:
the host's other threads (other games) run, and time the answers of their engines, as if it
were quiet.  Every wait goes through the waiting thread's :class:`~protocol.waiting.Waiter`.
"""

from __future__ import annotations

import math
import os
import select
import time
from collections import deque
from collections.abc import Callable
from typing import Final

from .transport import MAX_LINE, EndOfOutput, LineTooLongError
from .waiting import BLOCKING, current_waiter

CHUNK = 4096
"""The most bytes of an engine's output read at once.  A read that fills it means the engine
writes faster than it is read: its reader then paces itself (see :class:`LineReader`)."""

COLLECT = 1 << 20
"""The most bytes :meth:`LineReader.collect` reads at once (an engine that writes without end
cannot keep it reading)."""

BATCH = 64
"""The most lines of an engine's output handed on at once: more, and the reader paces itself."""

MAX_PAUSE = 0.02
"""The longest pause (seconds) a flooding engine's reader makes between two batches."""

_LINE_FEED: Final = 10
# Compiled code looks a module's function up at every call, and a C type's method; a Final
# name is the compiled module's own constant.  These and those of the other transport modules
# save 2,800 instructions a ply of the referee's 64,700 (callgrind, benchmarks/ply_floor.py).
_monotonic: Final = time.monotonic
_os_read: Final = os.read
_OVERLONG = object()  # ends a stream at a stdout line longer than MAX_LINE


def _decode(data: bytes | bytearray, ended: bool = False) -> list[str]:
    """The lines of ``data`` (lines joined by line feeds, the last one's left off unless
    ``ended``), decoded."""
    text = data.decode("utf-8", "replace")
    lines = text.split("\n")
    if ended:
        lines.pop()  # (the empty text after the last line feed)
    return [line.rstrip("\r") for line in lines] if "\r" in text else lines


class LineReader:
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
        self._poll = select.poll()  # not select(): any descriptor number
        self._poll.register(fd, select.POLLIN)
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
        while self._end is None and taken < COLLECT and self._poll.poll(0):  # mostly nothing: one poll
            taken += self._read(0.0)

    def _read(self, timeout: float | None) -> int:
        """One read, once the stream is readable (within ``timeout``, else TimeoutError): its
        complete lines queued and handed to ``on_read``; the bytes read."""
        waiter = current_waiter()
        if waiter is BLOCKING or timeout == 0:  # (collect()'s reads of what is there: no wait)
            ready = bool(self._poll.poll(None if timeout is None else max(0, math.ceil(timeout * 1000))))
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
