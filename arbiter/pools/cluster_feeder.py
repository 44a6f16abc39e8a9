"""The jobs of an event on a cluster, pulled on a thread of their own as the pool makes room.

A job source may block (a knockout's next round is planned only once the games before it have
finished, and their results reach the source through the pool's own loop), so the pool never
waits on it: a :class:`JobFeeder` pulls as many jobs as the pool asks for and puts each on the
pool's event queue.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator
from typing import Any

from ..play.referee import GameJob


class JobFeeder:
    """Pulls jobs for the pool on a thread of its own, as many as the pool asks for, and puts
    each on the pool's event queue.  A job source may block (a knockout's next round is planned
    only once the games before it have finished, and their results reach the source through
    the pool's own loop), so the pool never waits on it; the source is expected to give up
    once ``stopping()`` says so."""

    def __init__(
        self, jobs: Iterator[GameJob], events: queue.Queue[tuple[str, Any]], stopping: Callable[[], bool]
    ) -> None:
        self._jobs = jobs
        self._events = events
        self._stopping = stopping
        self._room = threading.Condition()
        self._asked = 0  # jobs asked for and not yet pulled
        self._owed = 0  # jobs asked for and not yet received by the pool
        self.done = False  # the source has run out (the pool learns it from the "end" event)
        self._closed = False
        self._thread = threading.Thread(target=self._pull, name="cluster-feeder", daemon=True)
        self._thread.start()

    def ask(self, room: int) -> None:
        """Make sure ``room`` more jobs are on their way (counting those already asked for)."""
        with self._room:
            more = room - self._owed
            if more > 0 and not self.done:
                self._asked += more
                self._owed += more
                self._room.notify()

    def received(self) -> None:
        with self._room:
            self._owed -= 1

    def _pull(self) -> None:
        while True:
            with self._room:
                while self._asked == 0 and not self._stopping() and not self._closed:
                    self._room.wait(0.5)
                if self._stopping() or self._closed:
                    return
                self._asked -= 1
            try:
                job = next(self._jobs, None)
            except BaseException as error:  # noqa: BLE001  (handed to the pool, which raises it)
                self._events.put(("error", error))
                return
            if job is None:
                with self._room:
                    self.done = True
                self._events.put(("end", None))  # after every job it pulled
                return
            self._events.put(("job", job))

    def close(self) -> None:
        """Pull nothing more; the thread ends (at once, or once a source that is waiting gives up)."""
        with self._room:
            self._closed = True
            self._room.notify()
        self._thread.join(timeout=1.0)
