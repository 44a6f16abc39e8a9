"""Noticing that the process playing the games itself stood still: the pools' heartbeat.

A process that is stopped (SIGSTOP, a paused virtual machine, heavy swapping) keeps no clock:
its engines, processes of their own, go on running through the stop, and when it resumes the
referee measures the whole stop as the engine's thinking time (a loss on time, or a clock
charged for nothing).  A :class:`Heartbeat` thread wakes every :data:`HEARTBEAT` seconds and
keeps each gap between two wake-ups longer than :data:`FROZEN_LIMIT`; after a game, the pool
that played it asks whether the process stood still meanwhile (:meth:`Heartbeat.frozen_since`)
and, if so, the game does not count, whatever its result.  An engine that is merely slow never
stops this thread, so it still loses on time.  Nothing is looked at during a game: one look a
game, and ten wake-ups a second of a thread that does nothing else.
"""

from __future__ import annotations

import threading
import time
from collections import deque

FROZEN_LIMIT = 1.0  # seconds a process may stand still before the games it was playing are void
HEARTBEAT = 0.1  # seconds between the beats


class Heartbeat:
    """The gaps in this process's running longer than :data:`FROZEN_LIMIT`, kept by a thread
    of its own from creation until :meth:`stop`."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._last = time.monotonic()
        self._gaps: deque[tuple[float, float]] = deque(maxlen=64)  # (when it ended, how long), newest last
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._beat, name="dipole-heartbeat", daemon=True)
        self._thread.start()

    def _beat(self) -> None:
        while not self._stopped.wait(HEARTBEAT):
            now = time.monotonic()
            with self._lock:
                if now - self._last > FROZEN_LIMIT:
                    self._gaps.append((now, now - self._last))
                self._last = now

    def frozen_since(self, start: float) -> float:
        """The longest freeze of this process that ended after ``start`` (monotonic seconds),
        counting one that is ending now (the beat has not run since the process resumed); 0.0
        if none was longer than :data:`FROZEN_LIMIT`."""
        now = time.monotonic()
        with self._lock:
            ongoing = now - self._last
            longest = max((length for end, length in self._gaps if end > start), default=0.0)
        return max(longest, ongoing if ongoing > FROZEN_LIMIT else 0.0)

    def stop(self) -> None:
        """End the thread (at once: its wait is woken)."""
        self._stopped.set()
        self._thread.join()
