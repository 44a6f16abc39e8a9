"""How a transport waits: for an engine's pipe to be readable or writable, for an engine's
process to end, or for time to pass.

By default every wait blocks the thread that waits (``poll``, ``time.sleep``): one thread per
engine conversation, as a GUI or a single game has it.  A host that plays many games in one
thread (the arbiter's game processes: one greenlet a game over one ``poll``, see
:mod:`arbiter.pools.hub`) installs a :class:`Waiter` of its own for that thread with
:func:`waiting_with`; every wait of every engine client in that thread then goes through it,
and the client, the codec and the referee above them stay as they are.  The waiter is the
thread's: a client's stderr reader, or an engine quit from another thread, waits the default
way there.
"""

from __future__ import annotations

import math
import select
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager


class Waiter:
    """Waits by blocking the calling thread (the default).  A subclass that waits otherwise
    sets ``blocking`` to False: the transport then also waits for a process's end and for a
    thread to finish in short sleeps instead of one blocking call."""

    blocking = True

    def readable(self, fd: int, timeout: float | None) -> bool:
        """Wait until ``fd`` can be read (or has ended) or ``timeout`` seconds (None: no limit)
        have passed; whether it can."""
        return self._wait(fd, select.POLLIN, timeout)

    def writable(self, fd: int, timeout: float | None) -> bool:
        """Wait until ``fd`` can be written (or is broken) or ``timeout`` seconds have passed."""
        return self._wait(fd, select.POLLOUT, timeout)

    def sleep(self, seconds: float) -> None:
        time.sleep(max(0.0, seconds))

    @staticmethod
    def _wait(fd: int, events: int, timeout: float | None) -> bool:
        waiting = select.poll()  # not select(): any descriptor number
        waiting.register(fd, events)
        return bool(waiting.poll(None if timeout is None else max(0, math.ceil(timeout * 1000))))


BLOCKING = Waiter()
"""The default waiter: the calling thread blocks."""


POLL_INTERVAL = 0.002
"""Seconds between two looks at a process's end (or a thread's) under a waiter that does not
block, at first: the interval doubles up to 20 times that."""


def sleep_until(done: Callable[[], bool], timeout: float, waiter: Waiter) -> None:
    """Look at ``done`` between sleeps of ``waiter`` (growing from :data:`POLL_INTERVAL`)
    until it holds or ``timeout`` seconds have passed."""
    deadline = time.monotonic() + timeout
    interval = POLL_INTERVAL
    while not done() and (remaining := deadline - time.monotonic()) > 0:
        waiter.sleep(min(interval, remaining))
        interval = min(interval * 2, POLL_INTERVAL * 20)


_local = threading.local()
_installed = [0]  # waiting_with blocks open now, in all threads: while none is, every thread blocks
_installed_lock = threading.Lock()


def current_waiter() -> Waiter:
    """The waiter of the calling thread (:data:`BLOCKING` unless :func:`waiting_with` says
    otherwise)."""
    if not _installed[0]:  # (each wait asks: a thread's own attribute costs more than a look here)
        return BLOCKING
    waiter: Waiter = getattr(_local, "waiter", BLOCKING)
    return waiter


@contextmanager
def waiting_with(waiter: Waiter) -> Iterator[Waiter]:
    """Every transport wait in the calling thread goes through ``waiter`` while this lasts."""
    with _installed_lock:
        _installed[0] += 1
    previous = current_waiter()
    _local.waiter = waiter
    try:
        yield waiter
    finally:
        _local.waiter = previous
        with _installed_lock:
            _installed[0] -= 1
