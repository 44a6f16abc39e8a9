"""The messages waiting for one page's WebSocket: in order, the latest of each kind only.

The play page (:mod:`dipole_gui.session`) and the watch page (:mod:`dipole_gui.watch`) both send from an
:class:`Outbox`.  Its ``kind`` function names a message's kind; a message of a kind that
already waits (not yet taken by the sender) replaces the waiting one in its place, so a page
that reads slowly gets the newest news, and what waits stays bounded by the number of kinds,
however fast engines and events talk.  A message whose kind is None is never replaced: each
one waits, in order (an error line, a notice).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

Message = dict[str, Any]


class Outbox:
    """Messages for one page (see the module docstring); one task takes them with :meth:`take`."""

    def __init__(self, kind: Callable[[Message], str | None]) -> None:
        self._kind = kind
        # Insertion order is sending order; replacing a kind's message keeps its place.
        self._waiting: dict[object, Message] = {}
        self._ready = asyncio.Event()
        self.closed = False

    def post(self, message: Message) -> None:
        """Queue ``message`` (replacing the waiting one of its kind); ignored once closed."""
        if self.closed:
            return
        kind = self._kind(message)
        self._waiting[object() if kind is None else kind] = message
        self._ready.set()

    async def take(self) -> list[Message]:
        """Every message waiting, in order, once there is one; ``[]`` once closed."""
        while not self._waiting and not self.closed:
            self._ready.clear()
            await self._ready.wait()
        if self.closed:
            return []
        batch = list(self._waiting.values())
        self._waiting.clear()
        return batch

    def close(self) -> None:
        """Drop what waits and wake the sender (which then gets ``[]``)."""
        self.closed = True
        self._waiting.clear()
        self._ready.set()
