"""The analysis of a page's game: one engine searching the position shown until stopped.

An :class:`Analysis` runs its engine (:class:`~dipole_gui.seats.EngineSeat`, with a permit of the
server's :class:`~dipole_gui.limits.EngineJobs`) on the viewed position and starts again when
the view moves on (:meth:`Analysis.follow`).  Its lines go to the pages as ``thinking``
messages as each ``info`` line arrives (as many as the page asked for and the engine offers:
MultiPV, :mod:`.analysislines`), and the score it finds for a ply goes to the move list
(``eval``).  An engine that fails is said on the page, and the analysis stops.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from arbiter.errors import ArbiterError
from gameplug import Side
from protocol import Info, Limit
from protocol.client import EngineError

from .analysislines import MULTIPV_OPTION, AnalysisLines, carries_line, multipv_range
from .limits import LimitReached, Permit
from .seats import EngineSeat
from .timesetting import PageError

if TYPE_CHECKING:
    from .session import Session


class Analysis:
    """The analysis of ``session``'s game (see the module docstring); used on the event loop only."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.seat: EngineSeat | None = None  # the engine, while the analysis runs
        self.permit: Permit | None = None  # held while the engine runs
        self.task: asyncio.Task[None] | None = None
        self.ply = 0  # the ply whose position is searched
        self.round = 0  # bumped at each restart; a search of an older round is stale
        self.lines: AnalysisLines | None = None  # the lines of the search running now
        self.multipv = 1  # the lines the page asked to see (as many as the engine offers, at most)

    async def start(self, engine: int) -> None:
        """Start the server's engine number ``engine`` on the position shown (a running analysis
        stops); a refusal of the server's limits is the page's error."""
        session = self.session
        self.stop()
        try:
            permit = session.config.jobs.take(session.client, "the analysis")
        except LimitReached as refusal:
            raise PageError(str(refusal)) from None
        seat = EngineSeat(session.config.engines[engine], session.variant)
        self.seat, self.permit = seat, permit
        try:
            await seat.start()
        except (EngineError, ArbiterError) as error:
            seat.close()
            permit.release()
            if self.seat is seat:
                self.seat, self.permit = None, None
            session.error(f"analysis: the engine could not start: {error}")
            session.push_state()
            return
        if self.seat is not seat:
            return
        if self.multipv > 1 and not await self._ask_lines(seat):
            return
        self.ply = -1  # so that the state pushed now starts the analysis of the view
        session.push_state()

    async def show_lines(self, lines: int) -> None:
        """Show ``lines`` lines from now on (the engine is asked for them at once)."""
        self.multipv = lines
        seat = self.seat
        if seat is not None:
            if multipv_range(seat.options) == 1:
                raise PageError(f"the engine {seat.name!r} shows one line only (it has no {MULTIPV_OPTION} option)")
            self.round += 1  # the search running now ends; the next one shows the lines asked for
            seat.stop()
            if not await self._ask_lines(seat):
                return
            self.ply = -1
        self.session.push_state()

    def follow(self, ply: int) -> None:
        """Search the position at ``ply`` from now on, if it is not the one searched already."""
        seat = self.seat
        if seat is None or ply == self.ply:
            return
        self.ply = ply
        self.round += 1
        seat.stop()
        if self.task is None or self.task.done():
            self.task = asyncio.create_task(self._search(seat))

    def stop(self) -> None:
        """Kill the engine and give back its permit (idempotent)."""
        seat, permit = self.seat, self.permit
        self.seat, self.permit = None, None
        if seat is not None:
            seat.close()
        if permit is not None:
            permit.release()
        self.task = None

    async def _search(self, seat: EngineSeat) -> None:
        """Search the viewed position until stopped; start again when the view moves on."""
        session = self.session
        loop = session.loop
        while self.seat is seat:
            ply, round_ = self.ply, self.round
            state, texts = session.replayed(ply)
            if state.outcome().over:
                session.post({"type": "thinking", "source": "analysis", "over": True})
                return
            mover = state.turn
            self.lines = AnalysisLines(state, ply, min(self.multipv, multipv_range(seat.options)))

            def on_info(info: Info, round_: int = round_, mover: Side = mover) -> None:
                if round_ != self.round:  # a stop sent just before this search began
                    seat.stop()
                loop.call_soon_threadsafe(self._info, seat, round_, mover, info)

            try:
                await seat.go(session.start_fen, texts, Limit(infinite=True), None, on_info)
            except EngineError as error:
                if self.seat is seat:
                    session.error(f"analysis: the engine stopped: {error}")
                    self.stop()
                    session.push_state()
                return
            if self.round == round_:
                return  # stopped for good

    def _info(self, seat: EngineSeat, round_: int, mover: Side, info: Info) -> None:
        lines = self.lines
        if seat is not self.seat or round_ != self.round or not carries_line(info) or lines is None:
            return
        session = self.session
        session.post(lines.add(info, mover))
        score = lines.best_score()
        if score is not None and lines.ply <= len(session.moves):
            session.evals[lines.ply] = score  # the move list shows it with the next state

    async def _ask_lines(self, seat: EngineSeat) -> bool:
        """``setoption name MultiPV`` (after the search running, if any); False when the
        engine failed at it (said on the page, and the analysis stopped)."""
        try:
            await seat.set_option(MULTIPV_OPTION, min(self.multipv, multipv_range(seat.options)))
        except EngineError as error:
            if self.seat is seat:
                self.session.error(f"analysis: the engine refused {self.multipv} lines: {error}")
                self.stop()
                self.session.push_state()
            return False
        return self.seat is seat
