"""How many games and analyses may run engines at once: on the whole server, and for one client.

Every game with an engine seat (one or two engine processes) and every analysis (one) holds a
:class:`Permit` from the server's :class:`EngineJobs` from before its engines start until they
are killed (the game ends, the page starts another, the page goes away, the server stops).
A page runs engines for one game or one analysis at a time, never both (a new game stops the
analysis; an analysis waits for the end of an engine game), so a page has at most two engine
processes, and the server at most twice its limit.

A client is a remote address: every page of one browser, or of one machine, counts together.
Taking a permit is refused with one line saying which limit is reached and which option sets it.
The events the workbench starts are bounded in the same way, by the games they play at once
(:data:`DEFAULT_EVENT_CONCURRENCY`, ``--max-event-concurrency``: :mod:`dipole_gui.workbench.events`).
"""

from __future__ import annotations

import threading
from collections import Counter

DEFAULT_PER_SERVER = 8  # games and analyses at once on the server: at most 16 engine processes
DEFAULT_PER_CLIENT = 4  # ... for one client address (a person plays one or two)
DEFAULT_EVENT_CONCURRENCY = 8  # games at once over the events the workbench runs: 16 engine processes


class LimitReached(Exception):
    """No permit: the message says which limit and how to raise it."""


class Permit:
    """One running game's or analysis's place; :meth:`release` gives it back (idempotent)."""

    def __init__(self, jobs: EngineJobs, client: str) -> None:
        self._jobs = jobs
        self.client = client
        self.released = False

    def release(self) -> None:
        self._jobs._give_back(self)


class EngineJobs:
    """The permits handed out now (see the module docstring); safe from any thread."""

    def __init__(self, per_server: int = DEFAULT_PER_SERVER, per_client: int = DEFAULT_PER_CLIENT) -> None:
        self.per_server = per_server
        self.per_client = per_client
        self._held: Counter[str] = Counter()
        self._lock = threading.Lock()

    @property
    def running(self) -> int:
        with self._lock:
            return sum(self._held.values())

    def take(self, client: str, what: str) -> Permit:
        """A permit for ``client`` to start ``what`` ("the game", "the analysis"), or
        LimitReached with the line to show on the page."""
        with self._lock:
            if sum(self._held.values()) >= self.per_server:
                raise LimitReached(
                    f"{what} was not started: the server runs as many games and analyses with engines as it "
                    f"may at once ({self.per_server}: dipole-gui --max-games); try again when one has ended"
                )
            if self._held[client] >= self.per_client:
                raise LimitReached(
                    f"{what} was not started: your pages run as many games and analyses with engines as one "
                    f"client may at once ({self.per_client}: dipole-gui --max-games-per-client); "
                    f"end one or close a page"
                )
            self._held[client] += 1
            return Permit(self, client)

    def _give_back(self, permit: Permit) -> None:
        with self._lock:
            if permit.released:
                return
            permit.released = True
            self._held[permit.client] -= 1
            if not self._held[permit.client]:
                del self._held[permit.client]
