"""One engine process for one seat (a colour in a game, or the analysis), on its own thread.

Each :class:`EngineSeat` owns a single-worker thread that starts the engine and runs every
blocking call to it; the event loop awaits the results.  The engine is started from that thread
and the thread lives until the seat is closed, after the engine has been killed: the engine's
parent-death signal (see :mod:`protocol.transport`) fires when the *thread* that started it
exits, so a short-lived thread would kill its engine too early, and a SIGKILLed server takes
every engine with it.

The seat reuses the arbiter's :class:`~arbiter.game.EngineSlot` for the start-up (handshake,
``UCI_Variant``, the configured ``option.X`` values), so an engine is set up exactly as a match
would set it up.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

from arbiter.engines import EngineSpec
from arbiter.game import EngineSlot, RefereeSettings
from protocol import Info, Limit, SearchResult
from protocol.client import EngineClient, EngineError

STOP_WRITE = 0.05
"""Seconds :meth:`EngineSeat.stop` may wait for the engine to take ``stop`` (or for another
thread's line to it to be written): the event loop of every page waits meanwhile."""


class EngineSeat:
    """A started engine for one seat; :meth:`close` kills it (and ends its thread)."""

    def __init__(self, spec: EngineSpec, variant: str, settings: RefereeSettings | None = None) -> None:
        self.spec = spec
        self.variant = variant
        self._slot = EngineSlot(spec, variant, settings or RefereeSettings())
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"engine-seat-{spec.name[:20]}")
        self.closed = False

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def pid(self) -> int | None:
        client = self._slot.client
        return client.pid if client is not None else None

    async def _run(self, call: Callable[[], object]) -> object:
        if self.closed:
            raise EngineError(self.spec.name, "is not running any more")
        return await asyncio.wrap_future(self._worker.submit(call))

    async def start(self) -> None:
        """Start the engine and set it up for the variant (raises EngineError, SetupError)."""
        def start() -> None:
            self._slot.start()
            self._slot.new_game()
        await self._run(start)

    async def go(self, fen: str | None, moves: Sequence[str], limit: Limit, timeout: float | None,
                 on_info: Callable[[Info], None] | None = None) -> SearchResult:
        """Set the position and search; ``on_info`` runs on the seat's thread for each info line."""
        def search() -> SearchResult:
            client = self._client()
            client.set_position(fen, list(moves))
            return client.go(limit, timeout=timeout, on_info=on_info)
        result = await self._run(search)
        assert isinstance(result, SearchResult)
        return result

    async def ready_after_stop(self, timeout: float) -> None:
        """``stop``, then wait for ``readyok`` (an engine that overran its time answers here)."""
        def ready() -> None:
            client = self._client()
            client.stop()
            client.is_ready(timeout=timeout)
        await self._run(ready)

    def stop(self) -> None:
        """Ask a running search for its move now (safe from any thread; harmless when idle).
        Waits at most :data:`STOP_WRITE` (it is called on the server's event loop): an engine
        whose input has no room for ``stop`` by then has stopped reading it (the page writes it
        a few hundred bytes at most), and is killed as stalled; its search then ends in
        EngineStalled."""
        client = self._slot.client
        if client is not None and not self.closed:
            client.stop(write_timeout=STOP_WRITE)

    def close(self) -> None:
        """Kill the engine's process group now; the seat's thread then ends."""
        if self.closed:
            return
        self.closed = True
        client = self._slot.client
        if client is not None:
            client.kill()
        self._worker.shutdown(wait=False, cancel_futures=True)

    def _client(self) -> EngineClient:
        client = self._slot.client
        if client is None:
            raise EngineError(self.spec.name, "is not running")
        return client
