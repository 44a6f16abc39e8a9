"""What a page may ask of its game: one handler per message type (:data:`HANDLERS`).

Each handler checks its message and the game before anything changes, and refuses with a
:class:`~dipole_gui.timesetting.PageError`, one line that goes to the asking page only.  A new
game or a set-up position is handed to the referee (:mod:`.refereeing`); a page's move is
checked here for a clear error line, then submitted to the referee, and the handler waits (at
most :data:`MOVE_LANDS` seconds) until the referee has played it, so that the page's next
message meets the game with the move in it.  A take-back, or a move on an earlier ply of a game
without engines, abandons the refereed game and hands the game to a new referee from that
position, with the clocks as they stand.  The analysis's requests go to :mod:`.analysis`, the
PGN files' to :mod:`.pgnfiles`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import gameplug
from arbiter.play.timecontrol import Clock
from gameplug import GameError, Side

from . import refereeing
from .analysislines import MAX_LINES
from .pgnfiles import on_pgn_open, on_pgn_pick, on_pgn_save
from .timesetting import PageError, TimeSetting

if TYPE_CHECKING:
    from .session import Session

HUMAN = "human"  # a player of a new game who plays on the page
MOVE_LANDS = 30.0  # longest wait for the referee to play a human's move
MAX_LINE_MOVES = 64  # moves of an engine's line the page may ask to play out
STARTING = "the game's engines are starting; try again in a moment"


async def on_new(session: Session, message: dict[str, Any]) -> None:
    variant = message.get("variant")
    if not isinstance(variant, str):
        raise PageError("new game: no variant")
    try:
        chosen = gameplug.variant(variant)
    except GameError as error:
        raise PageError(f"new game: {error}") from None
    fen = message.get("fen")
    if fen is not None and not isinstance(fen, str):
        raise PageError("new game: the FEN must be text")
    players = {
        side: _player(session, message.get(key), key) for side, key in ((Side.FIRST, "white"), (Side.SECOND, "black"))
    }
    tc = TimeSetting.from_page(message.get("tc"))
    if fen is not None:
        try:
            chosen.read_position(fen)
        except GameError as error:
            raise PageError(f"new game: bad FEN: {error}") from None
    session.abandon()
    session.reset_board(variant, fen)
    session.players = players
    session.tc = tc
    session.clocks = {Side.FIRST: Clock(tc.control()), Side.SECOND: Clock(tc.control())}
    session.push_state()
    if await refereeing.open_table(session):
        refereeing.hand_over(session)
        session.push_state()


def _player(session: Session, value: Any, side: str) -> int | None:
    if value == HUMAN or value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < len(session.config.engines):
        raise PageError(f"new game: {side}: no such engine (choose one of the list)")
    return value


async def on_move(session: Session, message: dict[str, Any]) -> None:
    text = message.get("move")
    if not isinstance(text, str) or len(text) > 40:
        raise PageError("move: expected the move's text")
    if session.engine_game():
        if not session.in_progress():
            raise PageError("the game is over; start a new game or set up a position")
        if session.view != len(session.moves):
            raise PageError("go to the last move to play on")
        if session.control is None:
            raise PageError(STARTING)
    elif session.view != len(session.moves) or session.control is None:
        try:  # a game without engines branches off here: checked before anything changes
            session.state_at(session.view).read_move(text)
        except GameError as error:
            raise PageError(f"illegal move: {error}") from None
        refereeing.abandon(session)
        session.truncate(session.view)
        session.result = None
        if session.table is None and not await refereeing.open_table(session):
            return
        refereeing.hand_over(session)
    side = session.state.turn
    if session.players[side] is not None:
        raise PageError(f"it is {session.player_name(side)}'s move")
    try:
        session.state.read_move(text)
    except GameError as error:
        raise PageError(f"illegal move: {error}") from None
    assert session.control is not None
    landed = session.landed = session.loop.create_future()
    session.control.submit(len(session.moves), text)  # the referee plays it, on the human's clock
    # So that the page's next message meets the game with this move in it.  The referee takes
    # it at once unless still ending an abandoned game, which its own timeouts bound.
    await asyncio.wait({landed}, timeout=MOVE_LANDS)


async def on_view(session: Session, message: dict[str, Any]) -> None:
    ply = message.get("ply")
    if isinstance(ply, bool) or not isinstance(ply, int):
        raise PageError("view: expected a ply number")
    session.view = max(0, min(ply, len(session.moves)))
    session.push_state()


async def on_takeback(session: Session, message: dict[str, Any]) -> None:
    if session.result is not None:
        raise PageError("the game is over; nothing to take back")
    humans = [side for side in Side if session.players[side] is None]
    if not humans:
        raise PageError("take back is for a game with a human player")
    if not session.moves:
        raise PageError("no move to take back")
    refereeing.abandon(session)
    session.truncate(len(session.moves) - 1)
    while session.moves and (session.players[session.state.turn] is not None or _forced_last(session)):
        session.truncate(len(session.moves) - 1)
    if session.table is not None:
        refereeing.hand_over(session)  # from the position before, with the clocks as they stand
    session.push_state()


def _forced_last(session: Session) -> bool:
    """Whether the game's last move was forced (the referee's to play: a take-back goes past it)."""
    before = session.state.copy()
    move = before.undo()
    return bool(move == before.forced_move())


async def on_resign(session: Session, message: dict[str, Any]) -> None:
    if not session.in_progress():
        raise PageError("the game is over")
    if session.engine_game():
        humans = [side for side in Side if session.players[side] is None]
        if not humans:
            raise PageError("only a human player can resign")
        loser = humans[0]
        if session.control is None:
            raise PageError(STARTING)
    else:
        loser = session.state.turn
    if session.control is None:  # a game nobody referees yet (an opened record): the referee takes it
        if session.table is None and not await refereeing.open_table(session):
            return
        refereeing.hand_over(session)
    assert session.control is not None
    session.control.resign(loser)  # the referee ends the game and records it


async def on_setup(session: Session, message: dict[str, Any]) -> None:
    variant, fen = message.get("variant"), message.get("fen")
    if not isinstance(variant, str) or not isinstance(fen, str):
        raise PageError("set up: give a variant and a FEN")
    try:
        gameplug.variant(variant).read_position(fen.strip())
    except GameError as error:
        raise PageError(f"bad FEN: {error}") from None
    session.abandon()
    session.reset_board(variant, fen.strip())
    session.free_game()
    session.post({"type": "notice", "message": f"position set up ({variant})"})
    session.push_state()
    if await refereeing.open_table(session):
        refereeing.hand_over(session)  # which plays a forced pass, or ends a game already over


async def on_line(session: Session, message: dict[str, Any]) -> None:
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
    if session.engine_game():
        raise PageError("lines are played out on an analysis board, not in an engine game")
    state = session.state_at(session.view)
    forced = []
    for number, text in enumerate(moves, 1):
        try:
            move = state.read_move(text)
        except GameError as error:
            raise PageError(f"line: move {number} ({text}) is illegal: {error}") from None
        forced.append(move == state.forced_move())
        state.play(move)
    start = session.view
    for number, text in enumerate(moves, 1):
        if forced[number - 1]:  # the referee plays it itself
            deadline = time.monotonic() + MOVE_LANDS
            while len(session.moves) < start + number and time.monotonic() < deadline:
                await asyncio.sleep(0.02)
            continue
        await on_move(session, {"type": "move", "move": text})


async def on_analyse(session: Session, message: dict[str, Any]) -> None:
    engine = message.get("engine")
    if isinstance(engine, bool) or not isinstance(engine, int) or not 0 <= engine < len(session.config.engines):
        raise PageError("analysis: choose an engine from the list")
    if session.engine_game() and session.in_progress():
        raise PageError("analysis is for positions outside a running engine game")
    await session.analysis.start(engine)


async def on_analyse_stop(session: Session, message: dict[str, Any]) -> None:
    session.analysis.stop()
    session.push_state()


async def on_multipv(session: Session, message: dict[str, Any]) -> None:
    """How many lines the analysis shows (the engine is asked for them at once)."""
    lines = message.get("lines")
    if isinstance(lines, bool) or not isinstance(lines, int) or not 1 <= lines <= MAX_LINES:
        raise PageError(f"lines: choose 1 to {MAX_LINES}")
    await session.analysis.show_lines(lines)


HANDLERS: dict[str, Callable[[Session, dict[str, Any]], Awaitable[None]]] = {
    "new": on_new,
    "move": on_move,
    "view": on_view,
    "takeback": on_takeback,
    "resign": on_resign,
    "setup": on_setup,
    "analyse": on_analyse,
    "analyse-stop": on_analyse_stop,
    "multipv": on_multipv,
    "line": on_line,
    "pgn-open": on_pgn_open,
    "pgn-pick": on_pgn_pick,
    "pgn-save": on_pgn_save,
}
