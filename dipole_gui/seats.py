"""Engines on their own threads: a page's game (:class:`GameTable`), its analysis (:class:`EngineSeat`).

A :class:`GameTable` owns a single-worker thread that starts the game's engines and runs the
arbiter's referee (:func:`arbiter.play.referee.play_game`) on it, one refereed game after another (a
take-back abandons the game and referees it again from the position before).  An
:class:`EngineSeat` owns one for the analysis's engine and runs every blocking call to it.  The
event loop awaits the results.  Engines are started from that thread and the thread lives
until the table or seat is closed, after its engines have been killed: an engine's
parent-death signal (see :mod:`protocol.guardstart`) fires when the *thread* that started it
exits, so a short-lived thread would kill its engine too early, and a SIGKILLed server takes
every engine with it.

Both use the arbiter's :class:`~arbiter.play.referee.EngineSlot` for the start-up (handshake,
``UCI_Variant``, the configured ``option.X`` values), so an engine is set up exactly as a match
would set it up.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor

from arbiter.play.engines import EngineSpec
from arbiter.play.referee import (
    STOP_WRITE,
    EngineSlot,
    GameControl,
    GameJob,
    GameWatcher,
    Notify,
    RefereeSettings,
    Seat,
    play_game,
)
from arbiter.play.timecontrol import Clock
from arbiter.records.game import GameRecord, MoveRecord
from gameplug import Side
from protocol import Info, Limit, OptionSpec, SearchResult
from protocol.client import EngineClient, EngineError


class GameTable:
    """The thread a page's game is refereed on and the engine slots of its engine seats (see
    the module docstring); :meth:`close` kills the engines (and ends the thread)."""

    def __init__(self, engines: Mapping[Side, EngineSpec], variant: str, settings: RefereeSettings) -> None:
        self.slots = {side: EngineSlot(spec, variant, settings) for side, spec in engines.items()}
        self.settings = settings
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="game-table")
        self.closed = False

    async def start(self) -> None:
        """Start the engines and set them up for the variant (raises EngineError, SetupError)."""

        def start() -> None:
            for slot in self.slots.values():
                slot.start()

        await asyncio.wrap_future(self._worker.submit(start))

    def play(
        self,
        job: GameJob,
        seats: Mapping[Side, Seat],
        control: GameControl,
        live: GameWatcher,
        notify: Notify,
        played: Sequence[MoveRecord],
        clocks: Mapping[Side, Clock],
    ) -> Future[GameRecord]:
        """Referee ``job`` on the table's thread, after any game still being ended there."""
        return self._worker.submit(
            play_game,
            job,
            seats[Side.FIRST],
            seats[Side.SECOND],
            self.settings,
            notify,
            live,
            control=control,
            played=played,
            clocks=clocks,
        )

    def close(self) -> None:
        """Kill the engines now; the thread ends once its game has seen its end (abandon it first)."""
        if self.closed:
            return
        self.closed = True
        for slot in self.slots.values():
            if slot.client is not None:
                slot.client.kill()
        self._worker.shutdown(wait=False, cancel_futures=True)


class EngineSeat:
    """The analysis's started engine; :meth:`close` kills it (and ends its thread)."""

    def __init__(self, spec: EngineSpec, variant: str) -> None:
        self.spec = spec
        self.variant = variant
        self._slot = EngineSlot(spec, variant, RefereeSettings())
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"engine-seat-{spec.name[:20]}")
        self.closed = False

    @property
    def name(self) -> str:
        return self.spec.name

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

    async def go(
        self,
        fen: str | None,
        moves: Sequence[str],
        limit: Limit,
        timeout: float | None,
        on_info: Callable[[Info], None] | None = None,
    ) -> SearchResult:
        """Set the position and search; ``on_info`` runs on the seat's thread for each info line."""

        def search() -> SearchResult:
            client = self._client()
            client.set_position(fen, list(moves))
            return client.go(limit, timeout=timeout, on_info=on_info)

        result = await self._run(search)
        assert isinstance(result, SearchResult)
        return result

    @property
    def options(self) -> Mapping[str, OptionSpec]:
        """The options the engine declared (none before it started)."""
        client = self._slot.client
        return {} if client is None else client.options

    async def set_option(self, name: str, value: int | str) -> None:
        """``setoption`` and ``isready``, after the search running, if any (raises EngineError)."""

        def set_it() -> None:
            client = self._client()
            client.set_option(name, value)
            client.is_ready(timeout=self._slot.settings.handshake_timeout)

        await self._run(set_it)

    def stop(self) -> None:
        """Ask a running search for its move now (safe from any thread; harmless when idle).
        Waits at most :data:`~arbiter.play.referee.STOP_WRITE` (it is called on the server's event
        loop, which every page waits for meanwhile): an engine whose input has no room for
        ``stop`` by then has stopped reading it (the page writes it a few hundred bytes at
        most), and is killed as stalled; its search then ends in EngineStalled."""
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
