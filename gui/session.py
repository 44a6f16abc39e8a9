"""One page's game: the position and its history, the players, the clocks, the engines.

A :class:`Session` lives as long as its page's WebSocket.  Everything it does is driven by the
page's messages (JSON objects with a ``type``) and by its engines' answers, all on the event
loop; engines run on their seats' threads (:mod:`.seats`).  After every change the session
pushes a ``state`` message: the board at the viewed ply (:mod:`.boardjson`), the move list,
the players and clocks, the legal moves when a human is to move, and the result.  Engine
thinking goes out as ``thinking`` messages as each ``info`` line arrives.

The rules decide everything: a human move is the strict ``parse_move`` of its text (the page
only offers the moves the server listed), a forced pass is played for whoever must pass, and
the game ends when the rules say so, or by time, resignation, an illegal engine move or an
engine that crashed.  A session's search results carry the ``generation`` they were asked in;
a take-back, a new game or the end of the game bumps it, so a late answer is dropped.

Messages from the page::

    {"type": "new", "variant": "dipole", "fen": null, "white": "human" | <engine id>,
     "black": ..., "tc": {"kind": "clock", "base": 300, "increment": 3}
                       | {"kind": "movetime", "seconds": 1} | {"kind": "depth", "depth": 4}}
    {"type": "move", "move": "c1-c3"}        {"type": "view", "ply": 12}
    {"type": "takeback"}  {"type": "resign"}  {"type": "setup", "variant": "dipole", "fen": "..."}
    {"type": "analyse", "engine": <engine id>}   {"type": "analyse-stop"}
    {"type": "pgn-open", "text": "..."}  {"type": "pgn-pick", "index": 0}  {"type": "pgn-save"}

Messages to the page: ``hello`` (engines, variants and the size limits), ``state``,
``thinking``, ``pgn-games``, ``pgn`` (the text to save), ``error`` and ``notice`` (one line each).

What a page may ask is bounded: a message of at most :data:`MAX_MESSAGE` bytes (the server reads
no longer one: ``ws_max_size``), at most :data:`MAX_CONTAINERS` arrays and objects nested at most
:data:`MAX_DEPTH` deep (checked before the JSON is parsed, without recursion), a PGN file of at
most :data:`MAX_PGN` characters, parsed on a worker thread like every long message, so other
pages are not held up; and its games and analyses with engines take permits of the server's
:class:`~gui.limits.EngineJobs`.
"""

from __future__ import annotations

import asyncio
import datetime
import json
import re
import time
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.websockets import WebSocketDisconnect

from arbiter.errors import ArbiterError
from arbiter.game import PASS_TEXT, REASONS, engine_move_record, normal_reason
from arbiter.pgn import PgnGame, format_game, read_pgn
from arbiter.records import (
    BLACK_WINS,
    UNFINISHED,
    WHITE_WINS,
    GameRecord,
    MoveRecord,
    MoveSource,
    Termination,
)
from arbiter.searchline import search_line, shows_search, white_score
from arbiter.timecontrol import Clock
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
from protocol.client import EngineCrashed, EngineError, EngineStalled, EngineTimeout, UnreadableMove

from .boardjson import board_json, move_ends, side_letter
from .config import GuiConfig, engine_list, variant_list
from .limits import LimitReached, Permit
from .outbox import Outbox
from .seats import EngineSeat
from .timesetting import FREE, PageError, TimeSetting

Send = Callable[[dict[str, Any]], Awaitable[None]]

HUMAN = "human"
MAX_MESSAGE = 4_000_000          # bytes in one message from the page (a PGN file included)
MAX_PGN = 2_000_000              # characters of a PGN file opened on the page
MAX_DEPTH = 16                   # nesting of arrays and objects in a message (the page's need 2)
MAX_CONTAINERS = 100             # arrays and objects in a message (the page's need 2)
INLINE_MESSAGE = 65_536          # characters: a longer message is decoded on a worker thread
MOVETIME_GRACE = 1.0             # seconds an engine may overrun a fixed time per move
CLOCK_GRACE = 0.2                # seconds an engine may overrun its clock (a GUI, not a referee)
STALL_TIMEOUT = 120.0            # longest wait for a depth-limited move
HUMAN_NAME = "Human"
EVENT = "dipole-gui"
KIND_WORDS = {  # the move kinds of both games, as the page's target markers name them
    "BASIC": "move", "MERGE": "merge", "CAPTURE": "capture", "EXIT": "exit", "PASS": "pass",
    "SLIDE": "move", "TRANSPOSE": "merge", "REMOVE": "remove",
}




class Session:
    """One page's game (see the module docstring)."""

    def __init__(self, config: GuiConfig, send: Send, client: str = "") -> None:
        self.config = config
        self._send = send
        self.client = client  # the page's address: its permits count against its client's limit
        self.game_permit: Permit | None = None  # held while the game's engines run
        self.analysis_permit: Permit | None = None  # held while the analysis's engine runs
        self._outbox = Outbox(_coalescing_key)
        self._writer: asyncio.Task[None] | None = None
        self._loop = asyncio.get_running_loop()
        self.generation = 0
        self.seats: dict[Color, EngineSeat | None] = {WHITE: None, BLACK: None}
        self.players: dict[Color, int | None] = {WHITE: None, BLACK: None}
        self.tc = FREE
        self.clocks: dict[Color, Clock] = {WHITE: Clock(None), BLACK: Clock(None)}
        self.turn_started = time.monotonic()
        self.result: tuple[str, Termination, str] | None = None
        self.search: asyncio.Task[None] | None = None
        self.flag_timer: asyncio.TimerHandle | None = None
        self.analysis: EngineSeat | None = None
        self.analysis_task: asyncio.Task[None] | None = None
        self.analysis_ply = 0
        self.analysis_round = 0  # bumped at each restart; a search of an older round is stale
        self.pgn_games: list[PgnGame] = []
        self.pgn_source: tuple[str, str] | None = None  # (White, Black) names of an opened record
        self.closed = False
        self.number = 0  # counts the games shown (each new game, set-up or record opened)
        self._reset_board("dipole", None)

    # -- the game's data ------------------------------------------------------------------
    def _reset_board(self, variant: str, fen: str | None) -> None:
        board = new_board(variant, fen)  # raises RulesError (FenError) for a bad FEN
        self.board: Board = board
        self.start_fen = None if fen is None or board.fen() == board.variant.start_fen else board.fen()
        self.moves: list[Any] = []
        self.records: list[MoveRecord] = []
        self.scores: list[dict[str, int] | None] = []
        self.view = 0
        self.result = None
        self.pgn_source = None
        self.number += 1

    @property
    def variant(self) -> str:
        return self.board.variant.name

    def board_at(self, ply: int) -> Board:
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

    # -- the connection -------------------------------------------------------------------
    async def open(self) -> None:
        self._writer = asyncio.create_task(self._write())
        self.post({"type": "hello", "engines": engine_list(self.config), "variants": variant_list(),
                   "limits": {"message": MAX_MESSAGE, "pgn": MAX_PGN}})
        self.push_state()

    def post(self, message: dict[str, Any]) -> None:
        """Queue a message for the page (sent in order by the writer task).

        A ``state`` or ``thinking`` message still waiting to be sent is replaced by a newer
        one of its kind, so a page that reads slowly gets the latest news, and the queue
        stays short however fast the engines talk (:class:`~gui.outbox.Outbox`)."""
        self._outbox.post(message)

    async def _write(self) -> None:
        while batch := await self._outbox.take():
            for message in batch:
                try:
                    await self._send(message)
                except (WebSocketDisconnect, RuntimeError, OSError):  # the page went away; the reader closes us
                    return

    def error(self, text: str) -> None:
        self.post({"type": "error", "message": text})

    async def handle_text(self, text: str) -> None:
        """One message from the page; anything wrong with it is answered with an error line."""
        if len(text) > MAX_MESSAGE:  # dipole-gui refuses longer ones before reading them (ws_max_size)
            self.error(f"message too long ({len(text)} characters; at most {MAX_MESSAGE})")
            return
        decoded = decode_message(text) if len(text) <= INLINE_MESSAGE else await asyncio.to_thread(decode_message, text)
        if isinstance(decoded, str):
            self.error(decoded)
            return
        message = decoded
        if self.closed:  # the page went away while a long message was decoded
            return
        handler = HANDLERS.get(message["type"])
        if handler is None:
            self.error(f"unknown message type {message['type'][:40]!r}")
            return
        try:
            await handler(self, message)
        except PageError as problem:
            self.error(str(problem))

    async def close(self) -> None:
        """Kill every engine of this session and stop its writer (idempotent)."""
        if self.closed:
            return
        self.generation += 1
        self._stop_analysis()
        self._end_seats()
        self.closed = True
        self._outbox.close()
        if self._writer is not None:
            self._writer.cancel()

    # -- the state the page draws ---------------------------------------------------------
    def push_state(self) -> None:
        """Send the page everything it draws, as of now (see the module docstring)."""
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
            result = {"result": WHITE_WINS if winner == WHITE else BLACK_WINS,
                      "reason": normal_reason(self.board, winner), "termination": "normal"}
        moves = []
        for index, (move, record) in enumerate(zip(self.moves, self.records)):
            moves.append({"text": str(move), "source": record.source.value, "score": self.scores[index]})
        self.post({
            "type": "state",
            "game": self.number,
            "variant": self.variant,
            "board": board_json(board, last),
            "fen": board.fen(),
            "startFen": self.start_fen,
            "firstTurn": side_letter(new_board(self.variant, self.start_fen).turn),
            "view": ply,
            "moves": moves,
            "players": {side_letter(c): {"name": self.player_name(c), "engine": self.players[c]}
                        for c in (WHITE, BLACK)},
            "tc": self.tc.to_page(),
            "clocks": clocks,
            "running": None if running is None else side_letter(running),
            "legal": self._legal_for_page(board) if self._human_may_move(board) else [],
            "thinking": self._thinker(),
            "result": result,
            "analysing": self.analysis is not None,
            "pgnGames": len(self.pgn_games),
        })
        if self.analysis is not None and self.analysis_ply != ply:
            self._restart_analysis()  # the analysis follows the position shown

    def _thinker(self) -> str | None:
        if self.search is not None and not self.search.done():
            return side_letter(self.board.turn)
        return None

    def _human_may_move(self, board: Board) -> bool:
        """Whether the page may enter a move at the viewed position ``board``: in an engine game
        only at the last ply on a human's turn; in a free game (no engine) anywhere, branching
        off the moves that followed."""
        if self.engine_game():
            return self.in_progress() and self.view == len(self.moves) and self.players[board.turn] is None
        return board.winner() is None

    def _legal_for_page(self, board: Board) -> list[dict[str, Any]]:
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
        started = await self._start_seats()
        if not started:
            return
        self.turn_started = time.monotonic()
        self._advance()

    def _player(self, value: Any, side: str) -> int | None:
        if value == HUMAN or value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < len(self.config.engines):
            raise PageError(f"new game: {side}: no such engine (choose one of the list)")
        return value

    async def _start_seats(self) -> bool:
        """Start the engines of the game (with a permit of the server's limits); when refused
        or on failure say so and leave the game without them."""
        if not self.engine_game():
            return True
        generation = self.generation
        try:
            permit = self.config.jobs.take(self.client, "the game")
        except LimitReached as refusal:
            self.players = {WHITE: None, BLACK: None}
            self.error(str(refusal))
            self.push_state()
            return False
        self.game_permit = permit
        seats: dict[Color, EngineSeat] = {}
        try:
            for color in (WHITE, BLACK):
                engine = self.players[color]
                if engine is None:
                    continue
                seat = EngineSeat(self.config.engines[engine], self.variant)
                seats[color] = seat
                self.seats[color] = seat
                await seat.start()
        except (EngineError, ArbiterError) as error:
            for seat in seats.values():
                seat.close()
            self.seats = {WHITE: None, BLACK: None}
            self._release_game_permit()
            if generation == self.generation:
                self.players = {WHITE: None, BLACK: None}
                self.error(f"the engine could not start: {error}")
                self.push_state()
            return False
        if generation != self.generation or self.closed:
            for seat in seats.values():
                seat.close()
            permit.release()
            return False
        return True

    async def on_move(self, message: dict[str, Any]) -> None:
        text = message.get("move")
        if not isinstance(text, str) or len(text) > 40:
            raise PageError("move: expected the move's text")
        if self.engine_game():
            if not self.in_progress():
                raise PageError("the game is over; start a new game or set up a position")
            if self.view != len(self.moves):
                raise PageError("go to the last move to play on")
        elif self.view != len(self.moves) or self.result is not None:
            self._truncate(self.view)  # a free game branches off here
            self.result = None
        color = self.board.turn
        if self.players[color] is not None:
            raise PageError(f"it is {self.player_name(color)}'s move")
        try:
            move = self.board.parse_move(text)
        except RulesError as error:
            raise PageError(f"illegal move: {error}") from None
        elapsed = time.monotonic() - self.turn_started
        if not self.clocks[color].spend(elapsed, 0.0):
            self._lose(color, Termination.TIME_FORFEIT)
            return
        self._play(move, MoveRecord(str(move), MoveSource.ENGINE, time=elapsed), None)

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
        self._cancel_search()
        self._truncate(len(self.moves) - 1)
        while self.moves and (self.players[self.board.turn] is not None or str(self.moves[-1]) == PASS_TEXT):
            self._truncate(len(self.moves) - 1)
        self.turn_started = time.monotonic()
        self.push_state()
        self._advance()

    async def on_resign(self, message: dict[str, Any]) -> None:
        if not self.in_progress():
            raise PageError("the game is over")
        if self.engine_game():
            humans = [c for c in (WHITE, BLACK) if self.players[c] is None]
            if not humans:
                raise PageError("only a human player can resign")
            loser = humans[0]
        else:
            loser = self.board.turn
        self._finish(-loser, Termination.CRASH, f"{color_name(loser)} resigns")

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
        self._advance()

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
        self.post({"type": "pgn-games", "games": [
            {"index": i, "white": g.tags.get("White", "?"), "black": g.tags.get("Black", "?"),
             "result": g.result or g.tags.get("Result", "*"), "round": g.tags.get("Round", ""),
             "variant": g.tags.get("Variant", "dipole"), "plies": len(g.moves)}
            for i, g in enumerate(games)]})
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
                problem = f"bad PGN: {game.label()}, ply {ply} (line {pgn_move.line}): {error}; shown up to ply {ply - 1}"
                break
            before = board.turn
            board.push(move)
            self.moves.append(move)
            self.records.append(move_record)
            self.scores.append(white_score(move_record.score_cp, move_record.score_mate, before))
        self.board = self.board_at(len(self.moves))
        self.view = 0
        self.pgn_source = (record.white, record.black)
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
        self.analysis_ply = -1  # so that the state pushed now starts the analysis of the view
        self.push_state()

    async def on_analyse_stop(self, message: dict[str, Any]) -> None:
        self._stop_analysis()
        self.push_state()

    # -- playing --------------------------------------------------------------------------
    def _advance(self) -> None:
        """After any change: play forced passes, end the game if it is over, or start the
        engine to move (or the human's flag timer)."""
        if self.closed or self.result is not None:
            return
        while True:
            winner = self.board.winner()
            if winner is not None:
                self._finish(winner, Termination.NORMAL, normal_reason(self.board, winner))
                return
            legal = self.board.legal_moves()
            if len(legal) == 1 and str(legal[0]) == PASS_TEXT:
                color = self.board.turn
                self.clocks[color].credit_forced_move()
                self.board.push(legal[0])
                self.moves.append(legal[0])
                self.records.append(MoveRecord(PASS_TEXT, MoveSource.FORCED))
                self.scores.append(None)
                self.view = len(self.moves)
                self.post({"type": "notice", "message": f"{color_name(color)} has no move and passes"})
                continue
            break
        color = self.board.turn
        seat = self.seats[color]
        if seat is not None:
            if self.search is None or self.search.done():
                self.search = asyncio.create_task(self._engine_move(color, seat, self.generation))
        elif self.clocks[color].control is not None:
            self._arm_flag(color)
        self.push_state()

    def _arm_flag(self, color: Color) -> None:
        if self.flag_timer is not None:
            self.flag_timer.cancel()
        generation, ply = self.generation, len(self.moves)
        delay = max(0.0, self.clocks[color].remaining - (time.monotonic() - self.turn_started)) + 0.05

        def flag() -> None:
            if generation != self.generation or ply != len(self.moves) or not self.in_progress():
                return
            elapsed = time.monotonic() - self.turn_started
            if elapsed > self.clocks[color].remaining:
                self.clocks[color].remaining = 0.0
                self._lose(color, Termination.TIME_FORFEIT)
            else:
                self._arm_flag(color)

        self.flag_timer = self._loop.call_later(delay, flag)

    def _limit_for(self, color: Color, seat: EngineSeat) -> tuple[Limit, float]:
        caps = seat.spec.limits
        tc = self.tc
        if tc.kind == "clock":
            white, black = self.clocks[WHITE], self.clocks[BLACK]
            limit = Limit(wtime=_ms(white.remaining), btime=_ms(black.remaining),
                          winc=_ms(tc.increment), binc=_ms(tc.increment), depth=caps.depth, nodes=caps.nodes)
            return limit, self.clocks[color].remaining + max(CLOCK_GRACE, caps.margin)
        if tc.kind == "movetime":
            limit = Limit(movetime=_ms(tc.seconds), depth=caps.depth, nodes=caps.nodes)
            return limit, tc.seconds + max(MOVETIME_GRACE, caps.margin)
        depth = tc.depth if caps.depth is None else min(tc.depth, caps.depth)
        return Limit(depth=depth, nodes=caps.nodes), STALL_TIMEOUT

    async def _engine_move(self, color: Color, seat: EngineSeat, generation: int) -> None:
        limit, deadline = self._limit_for(color, seat)
        texts = [str(move) for move in self.moves]
        mover = self.board.turn
        loop = self._loop

        def on_info(info: Info) -> None:
            if generation != self.generation:  # a stop sent just before this search began
                seat.stop()
            loop.call_soon_threadsafe(self._thinking, generation, side_letter(color), mover, info)

        self.turn_started = time.monotonic()
        try:
            answer = await seat.go(self.start_fen, texts, limit, deadline, on_info)
        except EngineTimeout:
            if generation != self.generation:
                return
            try:
                await seat.ready_after_stop(1.0)
            except EngineError:
                seat.close()
                self._lose(color, Termination.STALL)
                self.error(f"engine {seat.name!r} gave no move in time and was killed")
                return
            self._lose(color, Termination.TIME_FORFEIT)
            return
        except UnreadableMove as error:  # as the arbiter's referee: an illegal move, at once
            if generation != self.generation:
                return
            self.error(f"engine {seat.name!r} played an illegal move: {error}")
            self._finish(-color, Termination.ILLEGAL_MOVE, f"{color_name(color)} makes an illegal move: {error.line}")
            return
        except EngineStalled as error:  # it stopped reading its input, and was killed
            if generation != self.generation:
                return
            seat.close()
            self._lose(color, Termination.STALL)
            self.error(f"engine {seat.name!r} stalled: {error}")
            return
        except EngineError as error:
            if generation != self.generation:
                return
            seat.close()
            crashed = "crashed" if isinstance(error, EngineCrashed) else "failed"
            self.error(f"the engine {crashed}: {error}; the game so far is kept")
            self._lose(color, Termination.CRASH)
            return
        if generation != self.generation or self.closed:
            return
        self.search = None  # this search is done: the next one may start from _play
        clock = self.clocks[color]
        if clock.control is not None and not clock.spend(answer.elapsed, max(CLOCK_GRACE, seat.spec.limits.margin)):
            self._lose(color, Termination.TIME_FORFEIT)
            return
        token = answer.bestmove
        try:
            if token is None:
                raise RulesError("the engine answered bestmove (none) but the game is not over")
            move = self.board.parse_move(token)
        except RulesError as error:
            self.error(f"engine {seat.name!r} played an illegal move {token!r}: {error}")
            self._finish(-color, Termination.ILLEGAL_MOVE, f"{color_name(color)} makes an illegal move: {token}")
            return
        record = engine_move_record(str(move), answer)
        self._play(move, record, white_score(record.score_cp, record.score_mate, mover))

    def _thinking(self, generation: int, source: str, mover: Color, info: Info) -> None:
        if generation != self.generation or self.closed:
            return
        if info.error is not None:
            self.post({"type": "notice", "message": f"{self.player_name(mover)} reports an error: {info.error[:300]}"})
        if not shows_search(info):
            return
        self.post(_thinking_message(source, mover, info))

    def _play(self, move: Any, record: MoveRecord, score: dict[str, int] | None) -> None:
        following = self.view == len(self.moves)
        self.board.push(move)
        self.moves.append(move)
        self.records.append(record)
        self.scores.append(score)
        if following:
            self.view = len(self.moves)
        self.turn_started = time.monotonic()
        self._advance()

    def _truncate(self, ply: int) -> None:
        while len(self.moves) > ply:
            self.board.pop()
            self.moves.pop()
            self.records.pop()
            self.scores.pop()
        self.view = ply

    def _lose(self, color: Color, termination: Termination) -> None:
        """``color`` loses by ``termination``, in the arbiter's words."""
        self._finish(-color, termination, REASONS[termination].format(side=color_name(color)))

    def _finish(self, winner: Color, termination: Termination, reason: str) -> None:
        self.result = (WHITE_WINS if winner == WHITE else BLACK_WINS, termination, reason)
        self._abandon(keep_result=True)
        self.push_state()

    def _cancel_search(self) -> None:
        """Drop the search in progress (its answer will be ignored) and the human's flag timer."""
        self.generation += 1
        self.search = None
        for seat in self.seats.values():
            if seat is not None:
                seat.stop()
        if self.flag_timer is not None:
            self.flag_timer.cancel()
            self.flag_timer = None

    def _end_seats(self) -> None:
        for seat in self.seats.values():
            if seat is not None:
                seat.close()
        self.seats = {WHITE: None, BLACK: None}
        self._release_game_permit()

    def _release_game_permit(self) -> None:
        if self.game_permit is not None:
            self.game_permit.release()
            self.game_permit = None

    def _abandon(self, keep_result: bool = False) -> None:
        """Stop the game in progress: drop pending answers, kill its engines and the analysis."""
        self._cancel_search()
        self._end_seats()
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
        if seat is not self.analysis or round_ != self.analysis_round or not shows_search(info):
            return
        self.post(_thinking_message("analysis", mover, info))

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
        tc = self.tc.describe()
        return GameRecord(
            number=1, white=self.player_name(WHITE), black=self.player_name(BLACK), variant=self.variant,
            fen=self.start_fen, moves=tuple(self.records), result=result, termination=termination,
            reason=reason, white_tc=tc, black_tc=tc, event=EVENT, site=EVENT,
            date=datetime.date.today().strftime("%Y.%m.%d"),
        )


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


def _ms(seconds: float) -> int:
    return max(0, round(seconds * 1000))


def _thinking_message(source: str, mover: Color, info: Info) -> dict[str, Any]:
    """A ``thinking`` message: the search line as every page gets it (scores from White's side)."""
    return {"type": "thinking", "source": source, **search_line(info, mover)}


HANDLERS: dict[str, Callable[[Session, dict[str, Any]], Awaitable[None]]] = {
    "new": Session.on_new, "move": Session.on_move, "view": Session.on_view,
    "takeback": Session.on_takeback, "resign": Session.on_resign, "setup": Session.on_setup,
    "analyse": Session.on_analyse, "analyse-stop": Session.on_analyse_stop,
    "pgn-open": Session.on_pgn_open, "pgn-pick": Session.on_pgn_pick, "pgn-save": Session.on_pgn_save,
}

__all__ = ["HUMAN", "PageError", "Session", "TimeSetting"]
