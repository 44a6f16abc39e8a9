"""One game on the server: its position and history, players and clocks, and the pages that show it.

A :class:`Session` belongs to the server, not to a page: it has an unguessable id (a capability:
whoever has it may see and play the game) and lives in the server's registry
(:class:`dipole_gui.games.Games`), which attaches pages' WebSockets to it and drops it some time after
its last page went away.  Every attached page gets the same messages (:mod:`.pagemessages`) and any of
them may act; the messages of the pages are handled one at a time, in order of arrival, by
:mod:`.pagerequests`.  Everything it does is driven by the pages' messages and by the referee's
news (:mod:`.refereeing`), all on the event loop.  After every change the session pushes the
``state`` message (:mod:`.pagestate`) to its pages.  Its analysis is an :class:`~dipole_gui.analysis.Analysis`;
its games and analyses with engines take permits of the server's :class:`~dipole_gui.limits.EngineJobs`.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from typing import Any

import gameplug
from arbiter.play.referee import GameControl
from arbiter.play.timecontrol import Clock
from arbiter.records.game import GameRecord, MoveRecord, Opening, Termination
from arbiter.records.pgn import PgnGame
from gameplug import Side, State

from . import refereeing
from .analysis import Analysis
from .config import GuiConfig, engine_list, variant_list
from .limits import Permit
from .pagemessages import MAX_MESSAGE, MAX_PGN, Page, Send, read_message
from .pagerequests import HANDLERS
from .pagestate import plies_message, state_message
from .seats import GameTable
from .timesetting import FREE, PageError


class Session:
    """One game on the server, shown on every page attached to it (see the module docstring)."""

    def __init__(self, config: GuiConfig, client: str = "") -> None:
        self.config = config
        self.id = secrets.token_urlsafe(18)
        self.pages: list[Page] = []
        self._turns = asyncio.Lock()  # the pages' messages, one at a time
        self.client = client  # the creating page's address: its permits count against its client's limit
        self.game_permit: Permit | None = None  # held while the game's engines run
        self.loop = asyncio.get_running_loop()
        self.generation = 0  # bumped when the refereed game is abandoned: its late news is dropped
        self.table: GameTable | None = None  # the game's thread and engines, while its game is refereed
        self.control: GameControl | None = None  # the game being refereed now
        self.landed: asyncio.Future[None] | None = None  # done when the referee's news of a human's move is in
        self.players: dict[Side, int | None] = {Side.FIRST: None, Side.SECOND: None}
        self.tc = FREE
        self.clocks: dict[Side, Clock] = {Side.FIRST: Clock(None), Side.SECOND: Clock(None)}
        self.turn_started = time.monotonic()
        self.result: tuple[str, Termination, str] | None = None
        self.analysis = Analysis(self)
        self.pgn_games: list[PgnGame] = []
        self.pgn_source: tuple[str, str] | None = None  # (White, Black) names of an opened record
        self.pgn_origin: GameRecord | None = None  # an opened record: its Event, Site, Date, Round, Opening
        self.closed = False
        self.number = 0  # counts the games shown (each new game, set-up or record opened)
        self.reset_board("dipole", None)

    # -- the game's data ------------------------------------------------------------------
    def reset_board(self, variant: str, fen: str | None) -> None:
        """A new game of ``variant`` from ``fen``: no moves, nothing viewed, no result.  Raises
        GameError (one line) for an unknown variant or a bad position."""
        start = gameplug.variant(variant)
        state = start.start() if fen is None else start.read_position(fen)
        self.state: State[Any] = state
        text = state.position_text()
        self.start_fen = None if fen is None or text == start.start().position_text() else text
        self.moves: list[Any] = []
        self.records: list[MoveRecord] = []
        self.scores: list[dict[str, int] | None] = []
        self.evals: dict[int, dict[str, int]] = {}  # ply -> the analysis's score of the position there
        self.view = 0
        self.plies_sent = 0  # the plies (from the start) whose boards every page has: ``plies``
        self.result = None
        self.pgn_source = None
        self.pgn_origin = None
        self.number += 1

    def free_game(self) -> None:
        """Humans on both sides and no clocks: a game to step through, analyse and play on."""
        self.players = {Side.FIRST: None, Side.SECOND: None}
        self.tc = FREE
        self.clocks = {Side.FIRST: Clock(None), Side.SECOND: Clock(None)}
        self.turn_started = time.monotonic()

    def truncate(self, ply: int) -> None:
        """Take back the moves after ``ply``."""
        while len(self.moves) > ply:
            self.state.undo()
            self.moves.pop()
            self.records.pop()
            self.scores.pop()
            self.evals.pop(len(self.moves) + 1, None)
        self.view = ply
        self.plies_sent = min(self.plies_sent, ply + 1)

    @property
    def variant(self) -> str:
        return self.state.variant

    def state_at(self, ply: int) -> State[Any]:
        """A position at ``ply`` of this game (its own history: the moves from the start)."""
        state = self.start_state()
        for move in self.moves[:ply]:
            state.play(move)
        return state

    def replayed(self, ply: int) -> tuple[State[Any], list[str]]:
        """A position at ``ply`` and the protocol texts of the moves that lead to it."""
        state = self.start_state()
        texts = []
        for move in self.moves[:ply]:
            texts.append(state.move_text(move))
            state.play(move)
        return state, texts

    def start_state(self) -> State[Any]:
        """The game's start position."""
        start = gameplug.variant(self.variant)
        return start.start() if self.start_fen is None else start.read_position(self.start_fen)

    def player_name(self, side: Side) -> str:
        if self.pgn_source is not None:
            return self.pgn_source[0 if side is Side.FIRST else 1]
        engine = self.players[side]
        return refereeing.HUMAN_NAME if engine is None else self.config.engines[engine].name

    def engine_game(self) -> bool:
        return any(player is not None for player in self.players.values())

    def in_progress(self) -> bool:
        return self.result is None and not self.state.outcome().over

    def opening(self) -> Opening:
        return Opening(self.start_fen, (), "start position" if self.start_fen is None else "set-up position")

    def abandon(self, keep_result: bool = False) -> None:
        """Stop the game in progress: drop its pending news, kill its engines and the analysis."""
        refereeing.abandon(self)
        refereeing.close_table(self)
        self.analysis.stop()
        if not keep_result:
            self.result = None

    # -- the pages --------------------------------------------------------------------------
    def attach(self, send: Send, notice: str | None = None) -> Page:
        """A page that shows this game from now on: its ``hello`` (and ``notice``), then the state."""
        page = Page(send)
        self.pages.append(page)
        page.outbox.post(
            {
                "type": "hello",
                "game": self.id,
                "engines": engine_list(self.config),
                "variants": variant_list(),
                "limits": {"message": MAX_MESSAGE, "pgn": MAX_PGN},
            }
        )
        if notice is not None:
            page.outbox.post({"type": "notice", "message": notice})
        if self.plies_sent:  # else push_state sends them all to every page
            page.outbox.post(plies_message(self, 0))
        self.push_state()
        return page

    def detach(self, page: Page) -> None:
        """The page went away; with the last one the analysis stops (the game goes on)."""
        if page in self.pages:
            self.pages.remove(page)
        page.close()
        if not self.pages:
            self.analysis.stop()

    def post(self, message: dict[str, Any]) -> None:
        """Queue a message for every attached page (each sent in order by its writer task)."""
        for page in self.pages:
            page.outbox.post(message)

    def error(self, text: str) -> None:
        self.post({"type": "error", "message": text})

    def push_state(self) -> None:
        """Send the pages everything they draw, as of now; first the boards of the plies the
        pages lack (all of a new game's, then one per move).  The analysis follows the view."""
        if self.plies_sent <= len(self.moves):
            self.post(plies_message(self, self.plies_sent))
            self.plies_sent = len(self.moves) + 1
        self.post(state_message(self))
        self.analysis.follow(self.view)

    async def handle_text(self, text: str, page: Page) -> None:
        """One message from ``page``; anything wrong with it is answered to it with an error line."""

        def refuse(line: str) -> None:
            page.outbox.post({"type": "error", "message": line})

        message = await read_message(text)
        if isinstance(message, str):
            refuse(message)
            return
        handler = HANDLERS.get(message["type"])
        if handler is None:
            refuse(f"unknown message type {message['type'][:40]!r}")
            return
        async with self._turns:
            if self.closed or page not in self.pages:  # dropped, or the page went away, meanwhile
                return
            try:
                await handler(self, message)
            except PageError as problem:
                refuse(str(problem))

    def close(self) -> None:
        """Kill every engine of this game and stop its pages' writers (idempotent)."""
        if self.closed:
            return
        self.abandon(keep_result=True)
        self.closed = True
        for page in self.pages:
            page.close()
        self.pages.clear()
