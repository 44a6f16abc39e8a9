"""Many games in one thread: one greenlet a game, over one ``poll`` (a game process's loop).

Threads that each wait on their own engine cost a busy interpreter dearly: every answer wakes a
thread that must then take the interpreter's lock from another, several context switches a
move (4 games on 4 threads of one process: 168 us of CPU a ply, 5.8 voluntary context switches
a ply; on 4 greenlets of this hub: 85-92 us and none).  :class:`Hub` runs each game's code
unchanged (the referee, the engine client) in a greenlet of its own: where the client would
block (an engine's pipe, a sleep, an engine's end), the transport asks the thread's waiter
(:mod:`protocol.waiting`), which here parks the greenlet and goes back to the hub, whose one
``poll`` wakes whichever greenlet's engine has answered (or whose deadline has passed).

Only the thread that created the hub runs it; a greenlet runs until it waits, so nothing in a
game needs a lock against another game, and a lock of the threading module must never be held
across a wait (another greenlet of the thread taking it would block the thread):
:class:`GreenLock` and :class:`GreenQueue` are what greenlets share instead.
"""

from __future__ import annotations

import heapq
import itertools
import math
import select
import time
from collections import deque
from collections.abc import Callable
from types import TracebackType
from typing import Final, Generic, TypeVar

import greenlet

from protocol.waiting import Waiter

T = TypeVar("T")

LOOK_WINDOW = 0.0002
"""Seconds after the hub's poll during which a greenlet about to wait for its engine first looks
whether the answer is there (see :meth:`Hub.readable`)."""

# A module's attribute read in compiled code is looked up at every call, as is a method of a C
# type; a Final name is the compiled module's own constant.  (Several are used at every move.)
_monotonic: Final = time.monotonic
_current: Final = greenlet.getcurrent
_switch: Final = greenlet.greenlet.switch
_heappush: Final = heapq.heappush
_heappop: Final = heapq.heappop
_POLLIN: Final = select.POLLIN
_POLLOUT: Final = select.POLLOUT
_HANGUP: Final = select.POLLHUP | select.POLLERR | select.POLLNVAL  # wake every waiter of the descriptor


class _Wait:
    """One parked greenlet: what it waits for, and whether it has been woken."""

    __slots__ = ("events", "fd", "pending", "task", "timed")

    def __init__(self, task: greenlet.greenlet, fd: int, events: int) -> None:
        self.task = task
        self.fd = fd
        self.events = events
        self.pending = True
        self.timed = False  # its deadline is in the heap of timers


class Hub(Waiter):
    """The loop of one thread's greenlets (see the module docstring).  :meth:`spawn` them, then
    :meth:`run` until every one but the daemons has ended; an exception a greenlet raises ends
    :meth:`run` (raised there)."""

    blocking = False

    def __init__(self) -> None:
        self._main = _current()
        self._poll = select.poll()
        self._by_fd: dict[int, list[_Wait]] = {}
        # A heap of (deadline, order, wait).  A wait that ends before its deadline stays in it
        # (stale) until it comes to the top, or until the stale ones outnumber the pending ones
        # and the heap is rebuilt without them: its size stays bounded by twice the waits.
        self._timers: list[tuple[float, int, _Wait]] = []
        self._stale_timers = 0
        self._order = itertools.count()
        self._ready: list[tuple[greenlet.greenlet, bool]] = []  # to resume (first first), and with what
        self._tasks: set[greenlet.greenlet] = set()  # what run() waits for: the greenlets but the daemons
        self._polled = -math.inf  # when the loop's poll last returned

    # -- the greenlets ---------------------------------------------------------------------
    def spawn(self, function: Callable[[], object], *, daemon: bool = False) -> greenlet.greenlet:
        """A greenlet that runs ``function`` once :meth:`run` starts (or at its next turn); a
        ``daemon`` is left parked when the others have ended."""
        task = greenlet.greenlet(function, parent=self._main)
        if not daemon:
            self._tasks.add(task)
        self._ready.append((task, True))
        return task

    def run(self) -> None:
        """Run the greenlets until every one but the daemons has ended."""
        tasks = self._tasks
        while True:
            while self._ready:
                task, value = self._ready.pop(0)  # (a few at most: a list is quicker than a deque)
                if not task.dead:
                    if task:
                        _switch(task, value)
                    else:  # not started yet
                        _switch(task)
                if task.dead:
                    tasks.discard(task)
            if not tasks:
                return
            timeout = self._timeout()
            if timeout is None and not self._by_fd:
                raise RuntimeError("every greenlet waits for another: nothing can wake them")
            events = self._poll.poll(timeout)
            self._polled = now = _monotonic()
            self._wake(events, now)

    def schedule(self, task: greenlet.greenlet) -> None:
        """Resume ``task`` (parked by :meth:`park`) at the hub's next turn."""
        self._ready.append((task, True))

    def park(self) -> None:
        """Wait (the calling greenlet) until :meth:`schedule` d."""
        _switch(self._main)

    # -- the waiter ------------------------------------------------------------------------
    def readable(self, fd: int, timeout: float | None) -> bool:
        # A look before parking, when no other greenlet is ready to run and the hub polled a
        # moment ago: an engine woken by the command just written often answers before the
        # writer runs on (it took the core), and a look costs less than two switches.  The
        # moment bounds how long the others' answers can wait unread for a greenlet that keeps
        # finding its own (their engines' clocks run meanwhile).
        if not self._ready and _monotonic() - self._polled < LOOK_WINDOW and Waiter._wait(fd, _POLLIN, 0):
            return True
        return self._park(fd, _POLLIN, timeout)

    def writable(self, fd: int, timeout: float | None) -> bool:
        return self._park(fd, _POLLOUT, timeout)

    def sleep(self, seconds: float) -> None:
        if _current() is self._main:
            super().sleep(seconds)
            return
        wait = _Wait(_current(), -1, 0)
        self._add_timer(_monotonic() + seconds, wait)
        _switch(self._main)

    def _park(self, fd: int, events: int, timeout: float | None) -> bool:
        task = _current()
        if task is self._main or (timeout is not None and timeout <= 0):
            return Waiter._wait(fd, events, timeout)  # (the hub itself, or a look without a wait)
        wait = _Wait(task, fd, events)
        waits = self._by_fd.get(fd)
        if waits is None:  # (the usual wait: the descriptor's only one)
            self._by_fd[fd] = [wait]
            self._poll.register(fd, events)
        else:
            waits.append(wait)
            self._poll.register(fd, self._events(waits))
        if timeout is not None:
            self._add_timer(_monotonic() + timeout, wait)
        try:
            ready: bool = _switch(self._main)
        finally:
            if wait.pending:  # the greenlet was killed while it waited
                self._forget(wait)
        return ready

    def _add_timer(self, deadline: float, wait: _Wait) -> None:
        timers = self._timers
        if self._stale_timers > 64 and self._stale_timers * 2 > len(timers):
            self._timers = timers = [timer for timer in timers if timer[2].pending]
            heapq.heapify(timers)
            self._stale_timers = 0
        _heappush(timers, (deadline, next(self._order), wait))
        wait.timed = True

    @staticmethod
    def _events(waits: list[_Wait]) -> int:
        events = 0
        for wait in waits:
            events |= wait.events
        return events

    def _forget(self, wait: _Wait) -> None:
        """``wait`` is over: its descriptor is no longer polled for it (and its timer, if any,
        is stale)."""
        wait.pending = False
        if wait.timed:
            self._stale_timers += 1
        waits = self._by_fd.get(wait.fd)
        if waits is None:
            return
        waits.remove(wait)
        if waits:
            self._poll.register(wait.fd, self._events(waits))
        else:
            del self._by_fd[wait.fd]
            self._poll.unregister(wait.fd)

    def _timeout(self) -> int | None:
        """Milliseconds until the next deadline (None: none)."""
        while self._timers and not self._timers[0][2].pending:
            _heappop(self._timers)
            self._stale_timers -= 1
        if not self._timers:
            return None
        return max(0, math.ceil((self._timers[0][0] - _monotonic()) * 1000))

    def _wake(self, events: list[tuple[int, int]], now: float) -> None:
        """Queue the greenlets whose descriptors are ready (True) or whose deadlines have passed
        by ``now`` (False)."""
        for fd, revents in events:
            for wait in list(self._by_fd.get(fd, ())):
                if revents & (wait.events | _HANGUP):
                    self._forget(wait)
                    self._ready.append((wait.task, True))
        while self._timers and self._timers[0][0] <= now:
            _, _, wait = _heappop(self._timers)
            if not wait.pending:
                self._stale_timers -= 1
                continue
            wait.timed = False  # (popped: not stale)
            if wait.fd >= 0:
                self._forget(wait)
            wait.pending = False
            self._ready.append((wait.task, False))


class GreenLock:
    """A lock for the greenlets of one :class:`Hub` (a waiter parks instead of blocking the
    thread); used as a context manager, first come first served."""

    def __init__(self, hub: Hub) -> None:
        self._hub = hub
        self._held = False
        self._waiting: deque[greenlet.greenlet] = deque()

    def __enter__(self) -> GreenLock:
        if self._held:
            self._waiting.append(_current())
            self._hub.park()  # woken holding it (handed over by __exit__)
        else:
            self._held = True
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if self._waiting:
            self._hub.schedule(self._waiting.popleft())  # still held: now by that greenlet
        else:
            self._held = False


class GreenQueue(Generic[T]):
    """A queue that greenlets of one :class:`Hub` take from (parking while it is empty) and
    that greenlets of the same thread put into."""

    def __init__(self, hub: Hub) -> None:
        self._hub = hub
        self._items: deque[T] = deque()
        self._takers: deque[greenlet.greenlet] = deque()

    def put(self, item: T) -> None:
        self._items.append(item)
        if self._takers:
            self._hub.schedule(self._takers.popleft())

    def get(self) -> T:
        while not self._items:
            self._takers.append(_current())
            self._hub.park()
        return self._items.popleft()
