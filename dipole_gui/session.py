"""One page's game: the position and its history, the players, the clocks, the engines.

A :class:`Session` belongs to the server, not to a page: it has an unguessable id (a capability:
whoever has it may see and play the game) and lives in the server's registry
(:class:`dipole_gui.games.Games`), which attaches pages' WebSockets to it and drops it some time after
its last page went away.  Every attached page gets the same messages and any of them may act;
the messages of the pages are handled one at a time, in order of arrival.  Everything it does is
driven by the pages' messages (JSON objects with a ``type``) and by the referee's news, all on
the event loop.  After every change the session pushes a ``state`` message: the board at the viewed ply
(:mod:`arbiter.board`), the move list, the players and clocks, the legal moves when a human is to
move, and the result.  Engine thinking goes out as ``thinking`` messages as each ``info`` line
arrives, with the arrow of the line's first move; the analysis's show all its lines (MultiPV,
:mod:`.analysislines`), and the score it finds for a ply goes to the move list (``eval``).

The page's games are refereed by the arbiter's own referee (:func:`arbiter.play.referee.play_game`),
run on the game's thread (:class:`~dipole_gui.seats.GameTable`), with a human as one more kind of seat
(:class:`~arbiter.play.referee.HumanSeat`): the referee plays forced passes, keeps the clocks (a human's
flag falls while it waits), asks the engines, checks every move and ends the game with the
arbiter's terminations, a human's resignation included (:class:`~arbiter.play.referee.GameControl`).
The session only mirrors the game: the page's moves are checked here for a clear error line,
then submitted to the referee, whose plies, clocks and result come back here.  Each refereed
game carries the ``generation`` it was started in; a take-back, a new game or a move on an
earlier ply of a game without engines abandons it and bumps the generation, so its late news
is dropped.  A take-back, or such a move, hands the game to a new referee from that position,
with the clocks as they stand.

Messages from the page::

    {"type": "new", "variant": "dipole", "fen": null, "white": "human" | <engine id>,
     "black": ..., "tc": {"kind": "clock", "base": 300, "increment": 3}
                       | {"kind": "movetime", "seconds": 1} | {"kind": "depth", "depth": 4}}
    {"type": "move", "move": "c1-c3"}        {"type": "view", "ply": 12}
    {"type": "takeback"}  {"type": "resign"}  {"type": "setup", "variant": "dipole", "fen": "..."}
    {"type": "analyse", "engine": <engine id>}   {"type": "analyse-stop"}
    {"type": "multipv", "lines": 3}   {"type": "line", "moves": ["c1-c3", "d8-b6"]}  (played out from the view)
    {"type": "pgn-open", "text": "..."}  {"type": "pgn-pick", "index": 0}  {"type": "pgn-save"}

Messages to the page: ``hello`` (the game's id, engines, variants and the size limits; to the
page just attached), ``plies`` (``{"game", "from", "boards"}``: the board of each ply from
``from`` on; all of them to a page attached and for a new game, then the new plies' before each
state; never replaced by a later one), ``state``, ``thinking``, ``pgn-games``, ``pgn`` (the text to save),
``error`` and ``notice`` (one line each; an error in a page's own request goes to that page only).

What a page may ask is bounded: a message of at most :data:`MAX_MESSAGE` bytes (the server reads
no longer one: ``ws_max_size``), at most :data:`MAX_CONTAINERS` arrays and objects nested at most
:data:`MAX_DEPTH` deep (checked before the JSON is parsed, without recursion), a PGN file of at
most :data:`MAX_PGN` characters, parsed on a worker thread like every long message, so other
pages are not held up; and its games and analyses with engines take permits of the server's
:class:`~dipole_gui.limits.EngineJobs`.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import datetime
import json
import re
import secrets
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import Future
from typing import Any

from starlette.websockets import WebSocketDisconnect

from arbiter.board import board_json, move_ends, side_letter
from arbiter.errors import ArbiterError
from arbiter.live.searchline import search_line, shows_search, white_score
from arbiter.play.referee import (
    PASS_TEXT,
    GameControl,
    GameJob,
    HumanSeat,
    RefereeSettings,
    Seat,
    WatchedGame,
    normal_reason,
)
from arbiter.play.timecontrol import Clock
from arbiter.records.game import (
    BLACK_WINS,
    UNFINISHED,
    WHITE_WINS,
    GameRecord,
    MoveRecord,
    MoveSource,
    Opening,
    Termination,
)
from arbiter.records.pgn import PgnGame, format_game, read_pgn
from dipole_engine.rules import (
    BLACK,
    WHITE,
    Board,
    Color,
    RulesError,
    color_name,
    new_board,
    variant_by_name,
)
from protocol import Info, Limit
from protocol.client import EngineError

from .analysislines import KIND_WORDS, MAX_LINES, MULTIPV_OPTION, AnalysisLines, move_arrow, multipv_range
from .config import GuiConfig, engine_list, variant_list
from .limits import LimitReached, Permit
from .outbox import Outbox
from .seats import EngineSeat, GameTable
from .timesetting import FREE, PageError, TimeSetting

Send = Callable[[dict[str, Any]], Awaitable[None]]

HUMAN = "human"
MAX_MESSAGE = 4_000_000  # bytes in one message from the page (a PGN file included)
MAX_PGN = 2_000_000  # characters of a PGN file opened on the page
MAX_DEPTH = 16  # nesting of arrays and objects in a message (the page's need 2)
MAX_CONTAINERS = 100  # arrays and objects in a message (the page's need 2)
INLINE_MESSAGE = 65_536  # characters: a longer message is decoded on a worker thread
STALL_TIMEOUT = 120.0  # longest wait for a depth-limited move
MOVE_LANDS = 30.0  # longest wait for the referee to play a human's move
HUMAN_NAME = "Human"
GAME_NUMBER = 1  # a page's game in its record (the PGN's Round)
STARTING = "the game's engines are starting; try again in a moment"
EVENT = "dipole-gui"
MAX_LINE_MOVES = 64  # moves of an engine's line the page may ask to play out


class Page:
    """One attached page: the messages waiting for its WebSocket and the task that sends them."""

    def __init__(self, send: Send) -> None:
        self.outbox = Outbox(_coalescing_key)
        self.writer = asyncio.create_task(self._write(send))

    async def _write(self, send: Send) -> None:
        while batch := await self.outbox.take():
            for message in batch:
                try:
                    await send(message)
                except (WebSocketDisconnect, RuntimeError, OSError):  # the page went away; its reader detaches it
                    return

    def close(self) -> None:
        self.outbox.close()
        self.writer.cancel()


class Session:
    """One game on the server, shown on every page attached to it (see the module docstring)."""

    def __init__(self, config: GuiConfig, client: str = "") -> None:
        self.config = config
        self.id = secrets.token_urlsafe(18)
        self.pages: list[Page] = []
        self._turns = asyncio.Lock()  # the pages' messages, one at a time
        self.client = client  # the creating page's address: its permits count against its client's limit
        self.game_permit: Permit | None = None  # held while the game's engines run
        self.analysis_permit: Permit | None = None  # held while the analysis's engine runs
        self._loop = asyncio.get_running_loop()
        self.generation = 0
        self.table: GameTable | None = None  # the game's thread and engines, while its game is refereed
        self.control: GameControl | None = None  # the game being refereed now
        self._landed: asyncio.Future[None] | None = None  # done when the referee's news of a human's move is in
        self.players: dict[Color, int | None] = {WHITE: None, BLACK: None}
        self.tc = FREE
        self.clocks: dict[Color, Clock] = {WHITE: Clock(None), BLACK: Clock(None)}
        self.turn_started = time.monotonic()
        self.result: tuple[str, Termination, str] | None = None
        self.analysis: EngineSeat | None = None
        self.analysis_task: asyncio.Task[None] | None = None
        self.analysis_ply = 0
        self.analysis_round = 0  # bumped at each restart; a search of an older round is stale
        self.analysis_lines: AnalysisLines | None = None  # the lines of the search running now
        self.multipv = 1  # the lines the page asked to see (as many as the engine offers, at most)
        self.pgn_games: list[PgnGame] = []
        self.pgn_source: tuple[str, str] | None = None  # (White, Black) names of an opened record
        self.pgn_origin: GameRecord | None = None  # an opened record: its Event, Site, Date, Round, Opening
        self.closed = False
        self.number = 0  # counts the games shown (each new game, set-up or record opened)
        self._reset_board("dipole", None)

    # -- the game's data ------------------------------------------------------------------
    def _reset_board(self, variant: str, fen: str | None) -> None:
        board = new_board(variant, fen)  # raises RulesError (FenError) for a bad FEN
        self.board: Board[Any] = board
        self.start_fen = None if fen is None or board.fen() == board.variant.start_fen else board.fen()
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

    @property
    def variant(self) -> str:
        return self.board.variant.name

    def board_at(self, ply: int) -> Board[Any]:
        """A board at ``ply`` of this game (its own history: the moves from the start)."""
        board = new_board(self.variant, self.start_fen)
        for move in self.moves[:ply]:
            board.push(move)
        return board

    def player_name(self, color: Color) -> str:
        if self.pgn_source is not None:
            return self.pgn_source[0 if color == WHITE else 1]
        engine = self.players[color]
        return HUMAN_NAME if engine is None else self.config.engines[engine].name

    def engine_game(self) -> bool:
        return any(player is not None for player in self.players.values())

    def in_progress(self) -> bool:
        return self.result is None and self.board.winner() is None

    # -- the connections -------------------------------------------------------------------
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
            page.outbox.post(self._plies_message(0))
        self.push_state()
        return page

    def detach(self, page: Page) -> None:
        """The page went away; with the last one the analysis stops (the game goes on)."""
        if page in self.pages:
            self.pages.remove(page)
        page.close()
        if not self.pages and self.analysis is not None:
            self._stop_analysis()

    def post(self, message: dict[str, Any]) -> None:
        """Queue a message for every attached page (each sent in order by its writer task).

        A ``state`` or ``thinking`` message still waiting to be sent is replaced by a newer
        one of its kind, so a page that reads slowly gets the latest news, and the queue
        stays short however fast the engines talk (:class:`~dipole_gui.outbox.Outbox`)."""
        for page in self.pages:
            page.outbox.post(message)

    def error(self, text: str) -> None:
        self.post({"type": "error", "message": text})

    async def handle_text(self, text: str, page: Page) -> None:
        """One message from ``page``; anything wrong with it is answered to it with an error line."""

        def refuse(line: str) -> None:
            page.outbox.post({"type": "error", "message": line})

        if len(text) > MAX_MESSAGE:  # dipole-gui refuses longer ones before reading them (ws_max_size)
            refuse(f"message too long ({len(text)} characters; at most {MAX_MESSAGE})")
            return
        decoded = decode_message(text) if len(text) <= INLINE_MESSAGE else await asyncio.to_thread(decode_message, text)
        if isinstance(decoded, str):
            refuse(decoded)
            return
        message = decoded
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
        self._abandon(keep_result=True)
        self.closed = True
        for page in self.pages:
            page.close()
        self.pages.clear()

    # -- the state the page draws ---------------------------------------------------------
    def _plies_message(self, start: int) -> dict[str, Any]:
        """The ``plies`` message: the board of each ply from ``start`` to the last, so that the
        page draws any ply of the game at once when stepping, without the rules."""
        board = self.board_at(start)
        boards = [board_json(board, self.moves[start - 1] if start else None)]
        for move in self.moves[start:]:
            board.push(move)
            boards.append(board_json(board, move))
        return {"type": "plies", "game": self.number, "from": start, "boards": boards}

    def push_state(self) -> None:
        """Send the page everything it draws, as of now (see the module docstring); first the
        boards of the plies the pages lack (all of a new game's, then one per move)."""
        if self.plies_sent <= len(self.moves):
            self.post(self._plies_message(self.plies_sent))
            self.plies_sent = len(self.moves) + 1
        ply = self.view
        board = self.board_at(ply)
        last = self.moves[ply - 1] if ply else None
        now = time.monotonic()
        running: Color | None = None
        if self.in_progress() and self.tc.kind == "clock":
            running = self.board.turn
        clocks: dict[str, int | None] = {}
        for color in (WHITE, BLACK):
            clock = self.clocks[color]
            if clock.control is None:
                clocks[side_letter(color)] = None
                continue
            remaining = clock.remaining - (now - self.turn_started if running == color else 0.0)
            clocks[side_letter(color)] = round(remaining * 1000)
        winner = self.board.winner()
        result = None
        if self.result is not None:
            result = {"result": self.result[0], "reason": self.result[2], "termination": self.result[1].tag}
        elif winner is not None:
            result = {
                "result": WHITE_WINS if winner == WHITE else BLACK_WINS,
                "reason": normal_reason(self.board, winner),
                "termination": "normal",
            }
        moves = []
        for index, (move, record) in enumerate(zip(self.moves, self.records)):
            moves.append(
                {
                    "text": str(move),
                    "source": record.source.value,
                    "score": self.scores[index],
                    "eval": self.evals.get(index + 1),
                }
            )
        multipv = None
        if self.analysis is not None and (most := multipv_range(self.analysis.options)) > 1:
            multipv = {"value": min(self.multipv, most), "max": most}
        self.post(
            {
                "type": "state",
                "game": self.number,
                "variant": self.variant,
                "board": board_json(board, last),
                "fen": board.fen(),
                "startFen": self.start_fen,
                "firstTurn": side_letter(new_board(self.variant, self.start_fen).turn),
                "view": ply,
                "moves": moves,
                "players": {
                    side_letter(c): {"name": self.player_name(c), "engine": self.players[c]} for c in (WHITE, BLACK)
                },
                "tc": self.tc.to_page(),
                "clocks": clocks,
                "running": None if running is None else side_letter(running),
                "legal": self._legal_for_page(board) if self._human_may_move(board) else [],
                "thinking": self._thinker(),
                "result": result,
                "analysing": self.analysis is not None,
                "multipv": multipv,
                "startEval": self.evals.get(0),
                "pgnGames": len(self.pgn_games),
            }
        )
        if self.analysis is not None and self.analysis_ply != ply:
            self._restart_analysis()  # the analysis follows the position shown

    def _thinker(self) -> str | None:
        turn = self.board.turn
        if self.control is not None and self.in_progress() and self.players[turn] is not None:
            return side_letter(turn)
        return None

    def _human_may_move(self, board: Board[Any]) -> bool:
        """Whether the page may enter a move at the viewed position ``board``: in an engine game
        only at the last ply on a human's turn; in a free game (no engine) anywhere, branching
        off the moves that followed."""
        if self.engine_game():
            return self.in_progress() and self.view == len(self.moves) and self.players[board.turn] is None
        return board.winner() is None

    def _legal_for_page(self, board: Board[Any]) -> list[dict[str, Any]]:
        if board.winner() is not None:
            return []
        name = board.geometry.name
        legal = []
        for move in board.legal_moves():
            kind = KIND_WORDS[move.kind.name]
            if kind == "pass":
                continue
            origin, target = move_ends(board, move)
            entry = {"text": str(move), "from": origin, "to": target, "kind": kind, "label": str(move)}
            count = getattr(move, "count", 0)
            crown = getattr(move, "crown", -1)
            if kind == "exit":
                entry["label"] = f"{count} checker{'s' if count != 1 else ''} off the board"
            elif crown is not None and crown >= 0:
                entry["label"] = f"crown with the single from {name(crown)}"
            elif kind == "remove":
                entry["label"] = f"remove a checker from {origin}"
            legal.append(entry)
        return legal

    # -- page requests --------------------------------------------------------------------
    async def on_new(self, message: dict[str, Any]) -> None:
        variant = message.get("variant")
        if not isinstance(variant, str):
            raise PageError("new game: no variant")
        try:
            variant_by_name(variant)
        except RulesError as error:
            raise PageError(f"new game: {error}") from None
        fen = message.get("fen")
        if fen is not None and not isinstance(fen, str):
            raise PageError("new game: the FEN must be text")
        players = {color: self._player(message.get(key), key) for color, key in ((WHITE, "white"), (BLACK, "black"))}
        tc = TimeSetting.from_page(message.get("tc"))
        try:
            new_board(variant, fen)
        except RulesError as error:
            raise PageError(f"new game: bad FEN: {error}") from None
        self._abandon()
        self._reset_board(variant, fen)
        self.players = players
        self.tc = tc
        self.clocks = {WHITE: Clock(tc.control()), BLACK: Clock(tc.control())}
        self.push_state()
        if await self._open_table():
            self._referee()
            self.push_state()

    def _player(self, value: Any, side: str) -> int | None:
        if value == HUMAN or value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < len(self.config.engines):
            raise PageError(f"new game: {side}: no such engine (choose one of the list)")
        return value

    async def _open_table(self) -> bool:
        """Start the game's thread and its engines (with a permit of the server's limits); when
        refused or on failure say so and leave the game without them."""
        generation = self.generation
        engines = {
            color: dataclasses.replace(
                self.config.engines[engine], limits=self.tc.limits(self.config.engines[engine].limits)
            )
            for color, engine in self.players.items()
            if engine is not None
        }
        permit = None
        if engines:
            try:
                permit = self.config.jobs.take(self.client, "the game")
            except LimitReached as refusal:
                self.players = {WHITE: None, BLACK: None}
                self.error(str(refusal))
                self.push_state()
                return False
            self.game_permit = permit
        table = GameTable(engines, self.variant, self._settings())
        self.table = table
        try:
            await table.start()
        except (EngineError, ArbiterError) as error:
            table.close()
            if permit is not None:
                permit.release()
            if generation == self.generation:
                self.table = None
                self.game_permit = None
                self.players = {WHITE: None, BLACK: None}
                self.error(f"the engine could not start: {error}")
                self.push_state()
            return False
        if generation != self.generation or self.closed:
            table.close()
            if permit is not None:
                permit.release()
            return False
        return True

    def _settings(self) -> RefereeSettings:
        return RefereeSettings(stall_timeout=STALL_TIMEOUT, event=EVENT, site=EVENT, date=_today())

    async def on_move(self, message: dict[str, Any]) -> None:
        text = message.get("move")
        if not isinstance(text, str) or len(text) > 40:
            raise PageError("move: expected the move's text")
        if self.engine_game():
            if not self.in_progress():
                raise PageError("the game is over; start a new game or set up a position")
            if self.view != len(self.moves):
                raise PageError("go to the last move to play on")
            if self.control is None:
                raise PageError(STARTING)
        elif self.view != len(self.moves) or self.control is None:
            try:  # a game without engines branches off here: checked before anything changes
                self.board_at(self.view).parse_move(text)
            except RulesError as error:
                raise PageError(f"illegal move: {error}") from None
            self._abandon_referee()
            self._truncate(self.view)
            self.result = None
            if self.table is None and not await self._open_table():
                return
            self._referee()
        color = self.board.turn
        if self.players[color] is not None:
            raise PageError(f"it is {self.player_name(color)}'s move")
        try:
            self.board.parse_move(text)
        except RulesError as error:
            raise PageError(f"illegal move: {error}") from None
        assert self.control is not None
        landed = self._landed = self._loop.create_future()
        self.control.submit(len(self.moves), text)  # the referee plays it, on the human's clock
        # So that the page's next message meets the game with this move in it.  The referee takes
        # it at once unless still ending an abandoned game, which its own timeouts bound.
        await asyncio.wait({landed}, timeout=MOVE_LANDS)

    async def on_view(self, message: dict[str, Any]) -> None:
        ply = message.get("ply")
        if isinstance(ply, bool) or not isinstance(ply, int):
            raise PageError("view: expected a ply number")
        self.view = max(0, min(ply, len(self.moves)))
        self.push_state()

    async def on_takeback(self, message: dict[str, Any]) -> None:
        if self.result is not None:
            raise PageError("the game is over; nothing to take back")
        humans = [c for c in (WHITE, BLACK) if self.players[c] is None]
        if not humans:
            raise PageError("take back is for a game with a human player")
        if not self.moves:
            raise PageError("no move to take back")
        self._abandon_referee()
        self._truncate(len(self.moves) - 1)
        while self.moves and (self.players[self.board.turn] is not None or str(self.moves[-1]) == PASS_TEXT):
            self._truncate(len(self.moves) - 1)
        if self.table is not None:
            self._referee()  # from the position before, with the clocks as they stand
        self.push_state()

    async def on_resign(self, message: dict[str, Any]) -> None:
        if not self.in_progress():
            raise PageError("the game is over")
        if self.engine_game():
            humans = [c for c in (WHITE, BLACK) if self.players[c] is None]
            if not humans:
                raise PageError("only a human player can resign")
            loser = humans[0]
            if self.control is None:
                raise PageError(STARTING)
        else:
            loser = self.board.turn
        if self.control is None:  # a game nobody referees yet (an opened record): the referee takes it
            if self.table is None and not await self._open_table():
                return
            self._referee()
        assert self.control is not None
        self.control.resign(loser)  # the referee ends the game and records it

    async def on_setup(self, message: dict[str, Any]) -> None:
        variant, fen = message.get("variant"), message.get("fen")
        if not isinstance(variant, str) or not isinstance(fen, str):
            raise PageError("set up: give a variant and a FEN")
        try:
            new_board(variant, fen.strip())
        except RulesError as error:
            raise PageError(f"bad FEN: {error}") from None
        self._abandon()
        self._reset_board(variant, fen.strip())
        self._free_game()
        self.post({"type": "notice", "message": f"position set up ({variant})"})
        self.push_state()
        if await self._open_table():
            self._referee()  # which plays a forced pass, or ends a game already over

    def _free_game(self) -> None:
        self.players = {WHITE: None, BLACK: None}
        self.tc = FREE
        self.clocks = {WHITE: Clock(None), BLACK: Clock(None)}
        self.turn_started = time.monotonic()

    async def on_pgn_open(self, message: dict[str, Any]) -> None:
        text = message.get("text")
        given = message.get("name")
        name = given if isinstance(given, str) else "the PGN file"
        if not isinstance(text, str):
            raise PageError("open PGN: no text")
        if len(text) > MAX_PGN:
            raise PageError(f"open PGN: {name[:200]} is too large ({len(text):,} characters; at most {MAX_PGN:,})")
        try:
            games = await asyncio.to_thread(read_pgn, text, name[:200])  # seconds for a big file: not on the loop
        except ArbiterError as error:
            raise PageError(f"bad PGN: {error}") from None
        if self.closed:
            return
        if not games:
            raise PageError(f"bad PGN: {name[:200]} holds no game")
        self.pgn_games = games
        self.post(
            {
                "type": "pgn-games",
                "games": [
                    {
                        "index": i,
                        "white": g.tags.get("White", "?"),
                        "black": g.tags.get("Black", "?"),
                        "result": g.result or g.tags.get("Result", "*"),
                        "round": g.tags.get("Round", ""),
                        "variant": g.tags.get("Variant", "dipole"),
                        "plies": len(g.moves),
                    }
                    for i, g in enumerate(games)
                ],
            }
        )
        await self.on_pgn_pick({"index": 0})

    async def on_pgn_pick(self, message: dict[str, Any]) -> None:
        index = message.get("index")
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(self.pgn_games):
            raise PageError("open PGN: no such game in the file")
        game = self.pgn_games[index]
        record = game.to_record()
        variant = record.variant
        try:
            board = new_board(variant, record.fen)
        except RulesError as error:
            raise PageError(f"bad PGN: {game.label()}: {error}") from None
        self._abandon()
        self._reset_board(variant, record.fen)
        self._free_game()
        problem = None
        for ply, (pgn_move, move_record) in enumerate(zip(game.moves, record.moves), 1):
            try:
                move = board.parse_move(pgn_move.text)
            except RulesError as error:
                problem = (
                    f"bad PGN: {game.label()}, ply {ply} (line {pgn_move.line}): {error}; shown up to ply {ply - 1}"
                )
                break
            before = board.turn
            board.push(move)
            self.moves.append(move)
            self.records.append(move_record)
            self.scores.append(white_score(move_record.score_cp, move_record.score_mate, before))
        self.board = self.board_at(len(self.moves))
        self.view = 0
        self.pgn_source = (record.white, record.black)
        self.pgn_origin = record
        if record.result in (WHITE_WINS, BLACK_WINS) and problem is None:
            self.result = (record.result, record.termination, record.reason or "")
            if self.board.winner() is not None:
                self.result = None  # the rules' own ending, said in the rules' words
        if problem is not None:
            self.error(problem)
        self.push_state()

    async def on_pgn_save(self, message: dict[str, Any]) -> None:
        self.post({"type": "pgn", "text": format_game(self.record()), "name": f"{EVENT}-{self.variant}.pgn"})

    async def on_analyse(self, message: dict[str, Any]) -> None:
        engine = message.get("engine")
        if isinstance(engine, bool) or not isinstance(engine, int) or not 0 <= engine < len(self.config.engines):
            raise PageError("analysis: choose an engine from the list")
        if self.engine_game() and self.in_progress():
            raise PageError("analysis is for positions outside a running engine game")
        self._stop_analysis()
        try:
            permit = self.config.jobs.take(self.client, "the analysis")
        except LimitReached as refusal:
            raise PageError(str(refusal)) from None
        seat = EngineSeat(self.config.engines[engine], self.variant)
        self.analysis, self.analysis_permit = seat, permit
        try:
            await seat.start()
        except (EngineError, ArbiterError) as error:
            seat.close()
            permit.release()
            if self.analysis is seat:
                self.analysis, self.analysis_permit = None, None
            self.error(f"analysis: the engine could not start: {error}")
            self.push_state()
            return
        if self.analysis is not seat:
            return
        if self.multipv > 1 and not await self._ask_lines(seat):
            return
        self.analysis_ply = -1  # so that the state pushed now starts the analysis of the view
        self.push_state()

    async def on_analyse_stop(self, message: dict[str, Any]) -> None:
        self._stop_analysis()
        self.push_state()

    async def on_multipv(self, message: dict[str, Any]) -> None:
        """How many lines the analysis shows (the engine is asked for them at once)."""
        lines = message.get("lines")
        if isinstance(lines, bool) or not isinstance(lines, int) or not 1 <= lines <= MAX_LINES:
            raise PageError(f"lines: choose 1 to {MAX_LINES}")
        self.multipv = lines
        seat = self.analysis
        if seat is not None:
            if multipv_range(seat.options) == 1:
                raise PageError(f"the engine {seat.name!r} shows one line only (it has no {MULTIPV_OPTION} option)")
            self.analysis_round += 1  # the search running now ends; the next one shows the lines asked for
            seat.stop()
            if not await self._ask_lines(seat):
                return
            self.analysis_ply = -1
        self.push_state()

    async def _ask_lines(self, seat: EngineSeat) -> bool:
        """``setoption name MultiPV`` (after the search running, if any); False when the
        engine failed at it (said on the page, and the analysis stopped)."""
        try:
            await seat.set_option(MULTIPV_OPTION, min(self.multipv, multipv_range(seat.options)))
        except EngineError as error:
            if self.analysis is seat:
                self.error(f"analysis: the engine refused {self.multipv} lines: {error}")
                self._stop_analysis()
                self.push_state()
            return False
        return self.analysis is seat

    async def on_line(self, message: dict[str, Any]) -> None:
        """Play out an engine's line (or its first moves) from the position shown, each move
        through the referee as if entered on the board; checked whole before anything changes."""
        moves = message.get("moves")
        if (
            not isinstance(moves, list)
            or not moves
            or len(moves) > MAX_LINE_MOVES
            or not all(isinstance(text, str) and len(text) <= 40 for text in moves)
        ):
            raise PageError(f"line: expected 1 to {MAX_LINE_MOVES} moves")
        if self.engine_game():
            raise PageError("lines are played out on an analysis board, not in an engine game")
        board = self.board_at(self.view)
        for number, text in enumerate(moves, 1):
            try:
                board.push(board.parse_move(text))
            except RulesError as error:
                raise PageError(f"line: move {number} ({text}) is illegal: {error}") from None
        start = self.view
        for number, text in enumerate(moves, 1):
            if text == PASS_TEXT:  # forced, so the referee plays it itself
                deadline = time.monotonic() + MOVE_LANDS
                while len(self.moves) < start + number and time.monotonic() < deadline:
                    await asyncio.sleep(0.02)
                continue
            await self.on_move({"type": "move", "move": text})

    # -- playing --------------------------------------------------------------------------
    def _referee(self) -> None:
        """Hand the game as it stands to the arbiter's referee, on the table's thread."""
        table = self.table
        assert table is not None
        self._abandon_referee()
        generation = self.generation
        control = GameControl()
        self.control = control
        seats: dict[Color, Seat] = {
            color: table.slots.get(color) or HumanSeat(HUMAN_NAME, self.tc.limits(None)) for color in (WHITE, BLACK)
        }
        job = GameJob(GAME_NUMBER, seats[WHITE].spec, seats[BLACK].spec, self._opening(), self.variant)
        watcher = _Watcher(self, generation)
        clocks = {color: copy.copy(clock) for color, clock in self.clocks.items()}
        future = table.play(job, seats, control, watcher, watcher.incident, tuple(self.records), clocks)
        self.turn_started = time.monotonic()
        future.add_done_callback(
            lambda done: self._loop.call_soon_threadsafe(self._refereed, generation, done, watcher)
        )

    def _moved(self, generation: int, record: MoveRecord, mover: Color, clocks: dict[Color, Clock]) -> None:
        """The referee played a ply (``mover``'s; ``clocks`` as they stand after it)."""
        if generation != self.generation or self.closed:
            return
        self._land()
        move = self.board.parse_move(record.text)
        following = self.view == len(self.moves)
        self.board.push(move)
        self.moves.append(move)
        self.records.append(record)
        self.scores.append(white_score(record.score_cp, record.score_mate, mover))
        if following:
            self.view = len(self.moves)
        self.clocks = clocks
        self.turn_started = time.monotonic()
        if record.source is MoveSource.FORCED:
            self.post({"type": "notice", "message": f"{color_name(mover)} has no move and passes"})
        self.push_state()

    def _refereed(self, generation: int, done: Future[GameRecord], watcher: _Watcher) -> None:
        """The refereed game is over: its result, and an engine's failure said on the page."""
        if generation != self.generation or self.closed or done.cancelled():
            return
        self._land()
        self.control = None
        failure = done.exception()
        if failure is not None:  # a fault of the referee itself: said, and the game left unfinished
            self.error(f"the game stopped: {failure}")
        else:
            record = done.result()
            self.result = (record.result, record.termination, record.reason)
            self.clocks = watcher.clocks_now()
            self._report_failure(record, watcher.incidents)
        self._close_table()
        self.push_state()

    def _report_failure(self, record: GameRecord, incidents: list[str]) -> None:
        """One line on the page for an engine that lost by failing (the referee's details)."""
        loser = WHITE if record.result == BLACK_WINS else BLACK
        table = self.table
        slot = None if table is None else table.slots.get(loser)
        if slot is None or record.result == UNFINISHED:
            return
        if record.termination is Termination.ILLEGAL_MOVE:
            said = f"game {GAME_NUMBER}: {slot.spec.name} ({color_name(loser)}): "  # the referee's warning's prefix
            detail = incidents[-1].removeprefix(said) if incidents else record.reason
            self.error(f"engine {slot.spec.name!r} played an illegal move: {detail}")
        elif record.termination in FAILURES:
            self.error(
                f"the engine {slot.spec.name!r} {FAILURES[record.termination]}: {slot.failure}; the game so far is kept"
            )

    def _thinking(self, generation: int, source: str, mover: Color, info: Info) -> None:
        if generation != self.generation or self.closed:
            return
        if info.error is not None:
            self.post({"type": "notice", "message": f"{self.player_name(mover)} reports an error: {info.error[:300]}"})
        if not shows_search(info):
            return
        message = _thinking_message(source, mover, info)
        message["ply"] = len(self.moves)
        message["arrow"] = move_arrow(self.board, info.pv[0]) if info.pv else None
        self.post(message)

    def _truncate(self, ply: int) -> None:
        while len(self.moves) > ply:
            self.board.pop()
            self.moves.pop()
            self.records.pop()
            self.scores.pop()
            self.evals.pop(len(self.moves) + 1, None)
        self.view = ply
        self.plies_sent = min(self.plies_sent, ply + 1)

    def _land(self) -> None:
        """The human's move waited for is played, or will never be: the page may go on."""
        if self._landed is not None and not self._landed.done():
            self._landed.set_result(None)
        self._landed = None

    def _abandon_referee(self) -> None:
        """Abandon the refereed game (its engines stay): its late news is dropped."""
        self._land()
        self.generation += 1
        if self.control is not None:
            self.control.abandon()
            self.control = None

    def _close_table(self) -> None:
        """Kill the game's engines, end its thread and give back its permit."""
        if self.table is not None:
            self.table.close()
            self.table = None
        self._release_game_permit()

    def _release_game_permit(self) -> None:
        if self.game_permit is not None:
            self.game_permit.release()
            self.game_permit = None

    def _abandon(self, keep_result: bool = False) -> None:
        """Stop the game in progress: drop its pending news, kill its engines and the analysis."""
        self._abandon_referee()
        self._close_table()
        self._stop_analysis()
        if not keep_result:
            self.result = None

    # -- analysis -------------------------------------------------------------------------
    def _restart_analysis(self) -> None:
        seat = self.analysis
        if seat is None:
            return
        self.analysis_ply = self.view
        self.analysis_round += 1
        seat.stop()
        if self.analysis_task is None or self.analysis_task.done():
            self.analysis_task = asyncio.create_task(self._analyse(seat))

    async def _analyse(self, seat: EngineSeat) -> None:
        """Search the viewed position until stopped; start again when the view moves on."""
        loop = self._loop
        while self.analysis is seat:
            ply, round_ = self.analysis_ply, self.analysis_round
            board = self.board_at(ply)
            if board.winner() is not None:
                self.post({"type": "thinking", "source": "analysis", "over": True})
                return
            texts = [str(move) for move in self.moves[:ply]]
            mover = board.turn
            self.analysis_lines = AnalysisLines(board, ply, min(self.multipv, multipv_range(seat.options)))

            def on_info(info: Info, round_: int = round_, mover: Color = mover) -> None:
                if round_ != self.analysis_round:  # a stop sent just before this search began
                    seat.stop()
                loop.call_soon_threadsafe(self._analysis_info, seat, round_, mover, info)

            try:
                await seat.go(self.start_fen, texts, Limit(infinite=True), None, on_info)
            except EngineError as error:
                if self.analysis is seat:
                    self.error(f"analysis: the engine stopped: {error}")
                    self._stop_analysis()
                    self.push_state()
                return
            if self.analysis_round == round_:
                return  # stopped for good

    def _analysis_info(self, seat: EngineSeat, round_: int, mover: Color, info: Info) -> None:
        lines = self.analysis_lines
        if seat is not self.analysis or round_ != self.analysis_round or not shows_search(info) or lines is None:
            return
        self.post(lines.add(info, mover))
        score = lines.best_score()
        if score is not None and lines.ply <= len(self.moves):
            self.evals[lines.ply] = score  # the move list shows it with the next state

    def _stop_analysis(self) -> None:
        seat, permit = self.analysis, self.analysis_permit
        self.analysis, self.analysis_permit = None, None
        if seat is not None:
            seat.close()
        if permit is not None:
            permit.release()
        self.analysis_task = None

    # -- records --------------------------------------------------------------------------
    def record(self) -> GameRecord:
        """The game so far as the arbiter's record (``*`` while it goes on)."""
        winner = self.board.winner()
        if self.result is not None:
            result, termination, reason = self.result
        elif winner is not None:
            result, termination = (WHITE_WINS if winner == WHITE else BLACK_WINS), Termination.NORMAL
            reason = normal_reason(self.board, winner)
        else:
            result, termination, reason = UNFINISHED, Termination.UNTERMINATED, "game in progress"
        tc = self.tc.limits(None).describe()  # every seat's, as the referee writes it
        origin = self.pgn_origin
        return GameRecord(
            number=GAME_NUMBER if origin is None else origin.number,
            white=self.player_name(WHITE),
            black=self.player_name(BLACK),
            variant=self.variant,
            fen=self.start_fen,
            moves=tuple(self.records),
            result=result,
            termination=termination,
            reason=reason,
            white_tc=tc,
            black_tc=tc,
            opening=self._opening().source if origin is None else origin.opening,
            event=EVENT if origin is None else origin.event,
            site=EVENT if origin is None else origin.site,
            date=_today() if origin is None else origin.date,
        )

    def _opening(self) -> Opening:
        return Opening(self.start_fen, (), "start position" if self.start_fen is None else "set-up position")


class _Watcher:
    """The referee's view of a page's game, on the table's thread: hands each ply with the
    clocks, each ``info`` line and each incident to the event loop (:class:`~arbiter.play.referee.GameWatcher`)."""

    def __init__(self, session: Session, generation: int) -> None:
        self.session = session
        self.generation = generation
        self.turn = WHITE
        self.moves: list[MoveRecord] = []
        self.clocks: dict[Color, Clock] = {}
        self.incidents: list[str] = []  # the referee's lines about the engines (the last few)

    def open_game(
        self, job: GameJob, fen: str | None, moves: list[MoveRecord], clocks: dict[Color, Clock], turn: Color
    ) -> WatchedGame:
        self.moves, self.clocks, self.turn = moves, clocks, turn
        return self

    def clocks_now(self) -> dict[Color, Clock]:
        return {color: copy.copy(clock) for color, clock in self.clocks.items()}

    def moved(self, turn: Color) -> None:
        mover, self.turn = self.turn, turn
        self.session._loop.call_soon_threadsafe(
            self.session._moved, self.generation, self.moves[-1], mover, self.clocks_now()
        )

    def info(self, info: Info) -> None:
        self.session._loop.call_soon_threadsafe(
            self.session._thinking, self.generation, side_letter(self.turn), self.turn, info
        )

    def incident(self, line: str) -> None:
        self.incidents = [*self.incidents[-3:], line]


# Three passes, each linear: escapes out (so no quote is escaped), then strings, then all but brackets.
_ESCAPE = re.compile(r"\\.", re.DOTALL)
_STRING = re.compile(r'"[^"]*"')
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


def decode_message(text: str) -> dict[str, Any] | str:
    """A message from the page as a dict with a ``type``, or the one line saying what is wrong.

    The structure is measured before parsing (the parser recurses, so a deep enough message
    would end in RecursionError): the brackets outside strings, few in any message of the page,
    then their nesting, in a loop over at most ``2 * MAX_CONTAINERS`` of them."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", _ESCAPE.sub("", text)))
    if len(brackets) > 2 * MAX_CONTAINERS:
        return f"message has too many arrays and objects (more than {MAX_CONTAINERS})"
    if len(brackets) > MAX_DEPTH:  # else it cannot be deeper
        depth = 0
        for bracket in brackets:
            depth += 1 if bracket in "[{" else -1
            if depth > MAX_DEPTH:
                return f"message nested too deeply (more than {MAX_DEPTH} levels of arrays and objects)"
    try:
        message = json.loads(text)
    except ValueError:
        return "message is not JSON"
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        return "message has no type"
    return message


def _coalescing_key(message: dict[str, Any]) -> str | None:
    """Messages with the same key supersede each other: the state, each source's thinking."""
    kind = message.get("type")
    if kind == "state":
        return "state"
    if kind == "thinking":
        return f"thinking {message.get('source')}"
    return None


def _today() -> str:
    return datetime.date.today().strftime("%Y.%m.%d")


def _thinking_message(source: str, mover: Color, info: Info) -> dict[str, Any]:
    """A ``thinking`` message: the search line as every page gets it (scores from White's side)."""
    return {"type": "thinking", "source": source, **search_line(info, mover)}


FAILURES = {  # how an engine that lost by failing is said to have failed (the referee's terminations)
    Termination.CRASH: "crashed",
    Termination.STALL: "stalled",
    Termination.HANDSHAKE: "failed to start",
    Termination.PROTOCOL_VIOLATION: "broke the protocol",
}

HANDLERS: dict[str, Callable[[Session, dict[str, Any]], Awaitable[None]]] = {
    "new": Session.on_new,
    "move": Session.on_move,
    "view": Session.on_view,
    "takeback": Session.on_takeback,
    "resign": Session.on_resign,
    "setup": Session.on_setup,
    "analyse": Session.on_analyse,
    "analyse-stop": Session.on_analyse_stop,
    "multipv": Session.on_multipv,
    "line": Session.on_line,
    "pgn-open": Session.on_pgn_open,
    "pgn-pick": Session.on_pgn_pick,
    "pgn-save": Session.on_pgn_save,
}

__all__ = ["HUMAN", "PageError", "Session", "TimeSetting"]
