"""A page's PGN files: the records it opens, shown as a game, and the game it saves.

A file the page opens (at most :data:`~dipole_gui.pagemessages.MAX_PGN` characters) is read on a
worker thread (:func:`arbiter.records.pgn.read_pgn`), so other pages are not held up; its games
are listed on the page (``pgn-games``) and the first, or the one picked, becomes the session's
game, free to step through, analyse and play on, with its players' names and its tags kept for
saving.  A move the game refuses shows the game up to the ply before, with one line saying where.
The game saved is the session's as the arbiter's record (:func:`game_record`).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

import gameplug
from arbiter.errors import ArbiterError
from arbiter.live.searchline import white_score
from arbiter.records.game import SCORED, UNFINISHED, GameRecord, Termination
from arbiter.records.pgn import format_game, read_pgn
from gameplug import GameError, Side

from .pagemessages import MAX_PGN
from .refereeing import EVENT, GAME_NUMBER, today
from .timesetting import PageError

if TYPE_CHECKING:
    from .session import Session


async def on_pgn_open(session: Session, message: dict[str, Any]) -> None:
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
    if session.closed:
        return
    if not games:
        raise PageError(f"bad PGN: {name[:200]} holds no game")
    session.pgn_games = games
    session.post(
        {
            "type": "pgn-games",
            "games": [
                {
                    "index": i,
                    "white": g.tags.get("White", "?"),
                    "black": g.tags.get("Black", "?"),
                    "result": g.result or g.tags.get("Result", "*"),
                    "round": g.tags.get("Round", ""),
                    "variant": g.variant,
                    "plies": len(g.moves),
                }
                for i, g in enumerate(games)
            ],
        }
    )
    await on_pgn_pick(session, {"index": 0})


async def on_pgn_pick(session: Session, message: dict[str, Any]) -> None:
    index = message.get("index")
    if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(session.pgn_games):
        raise PageError("open PGN: no such game in the file")
    game = session.pgn_games[index]
    record = game.to_record()
    variant = record.variant
    try:
        chosen = gameplug.variant(variant)
        if record.fen is not None:
            chosen.read_position(record.fen)
    except GameError as error:
        raise PageError(f"bad PGN: {game.label()}: {error}") from None
    session.abandon()
    session.reset_board(variant, record.fen)
    session.free_game()
    state = session.state
    problem = None
    for ply, (pgn_move, move_record) in enumerate(zip(game.moves, record.moves), 1):
        try:
            move = state.read_notation(pgn_move.text)
        except GameError as error:
            problem = f"bad PGN: {game.label()}, ply {ply} (line {pgn_move.line}): {error}; shown up to ply {ply - 1}"
            break
        before = state.turn
        state.play(move)
        session.moves.append(move)
        session.records.append(move_record)
        session.scores.append(white_score(move_record.score_cp, move_record.score_mate, before))
    session.view = 0
    session.pgn_source = (record.white, record.black)
    session.pgn_origin = record
    if record.result in SCORED and problem is None:  # a win, or a draw (an adjudication's)
        session.result = (record.result, record.termination, record.reason or "")
        if state.outcome().over:
            session.result = None  # the game's own ending, said in the game's words
    if problem is not None:
        session.error(problem)
    session.push_state()


async def on_pgn_save(session: Session, message: dict[str, Any]) -> None:
    text = format_game(game_record(session))
    session.post({"type": "pgn", "text": text, "name": f"{EVENT}-{session.variant}.pgn"})


def game_record(session: Session) -> GameRecord:
    """The session's game so far as the arbiter's record (``*`` while it goes on)."""
    outcome = session.state.outcome()
    if session.result is not None:
        result, termination, reason = session.result
    elif outcome.over:
        result, termination, reason = outcome.result, Termination.NORMAL, outcome.reason
    else:
        result, termination, reason = UNFINISHED, Termination.UNTERMINATED, "game in progress"
    tc = session.tc.limits(None).describe()  # every seat's, as the referee writes it
    origin = session.pgn_origin
    return GameRecord(
        number=GAME_NUMBER if origin is None else origin.number,
        white=session.player_name(Side.FIRST),
        black=session.player_name(Side.SECOND),
        variant=session.variant,
        fen=session.start_fen,
        moves=tuple(session.records),
        result=result,
        termination=termination,
        reason=reason,
        white_tc=tc,
        black_tc=tc,
        opening=session.opening().source if origin is None else origin.opening,
        event=EVENT if origin is None else origin.event,
        site=EVENT if origin is None else origin.site,
        date=today() if origin is None else origin.date,
    )
