"""What a page draws of its game: the ``state``, ``plies`` and ``thinking`` messages.

``state`` is the game as of now: the board at the viewed ply (:mod:`arbiter.board`), the move
list with each ply's score and the analysis's evaluation, the players and clocks (the running
clock counted down to this moment), the legal moves when a human may move at the viewed ply
(each with the label the page shows), who is thinking, the result, and the analysis's lines.
``plies`` gives the page the board of each ply from one on, so that it draws any ply at once
when stepping, without the rules.  ``thinking`` is an engine's search line, scores from White's
side.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from arbiter.board import board_json, move_ends, side_letter
from arbiter.live.searchline import search_line
from arbiter.play.referee import normal_reason
from arbiter.records.game import BLACK_WINS, WHITE_WINS
from dipole_engine.rules import BLACK, WHITE, Board, Color, new_board
from protocol import Info

from .analysislines import KIND_WORDS, multipv_range

if TYPE_CHECKING:
    from .session import Session


def plies_message(session: Session, start: int) -> dict[str, Any]:
    """The ``plies`` message: the board of each ply from ``start`` to the last."""
    board = session.board_at(start)
    boards = [board_json(board, session.moves[start - 1] if start else None)]
    for move in session.moves[start:]:
        board.push(move)
        boards.append(board_json(board, move))
    return {"type": "plies", "game": session.number, "from": start, "boards": boards}


def state_message(session: Session) -> dict[str, Any]:
    """The ``state`` message: everything the page draws, as of now (see the module docstring)."""
    ply = session.view
    board = session.board_at(ply)
    last = session.moves[ply - 1] if ply else None
    now = time.monotonic()
    running: Color | None = None
    if session.in_progress() and session.tc.kind == "clock":
        running = session.board.turn
    clocks: dict[str, int | None] = {}
    for color in (WHITE, BLACK):
        clock = session.clocks[color]
        if clock.control is None:
            clocks[side_letter(color)] = None
            continue
        remaining = clock.remaining - (now - session.turn_started if running == color else 0.0)
        clocks[side_letter(color)] = round(remaining * 1000)
    winner = session.board.winner()
    result = None
    if session.result is not None:
        result = {"result": session.result[0], "reason": session.result[2], "termination": session.result[1].tag}
    elif winner is not None:
        result = {
            "result": WHITE_WINS if winner == WHITE else BLACK_WINS,
            "reason": normal_reason(session.board, winner),
            "termination": "normal",
        }
    moves = []
    for index, (move, record) in enumerate(zip(session.moves, session.records)):
        moves.append(
            {
                "text": str(move),
                "source": record.source.value,
                "score": session.scores[index],
                "eval": session.evals.get(index + 1),
            }
        )
    seat = session.analysis.seat
    multipv = None
    if seat is not None and (most := multipv_range(seat.options)) > 1:
        multipv = {"value": min(session.analysis.multipv, most), "max": most}
    return {
        "type": "state",
        "game": session.number,
        "variant": session.variant,
        "board": board_json(board, last),
        "fen": board.fen(),
        "startFen": session.start_fen,
        "firstTurn": side_letter(new_board(session.variant, session.start_fen).turn),
        "view": ply,
        "moves": moves,
        "players": {
            side_letter(c): {"name": session.player_name(c), "engine": session.players[c]} for c in (WHITE, BLACK)
        },
        "tc": session.tc.to_page(),
        "clocks": clocks,
        "running": None if running is None else side_letter(running),
        "legal": _legal_for_page(board) if _human_may_move(session, board) else [],
        "thinking": _thinker(session),
        "result": result,
        "analysing": seat is not None,
        "multipv": multipv,
        "startEval": session.evals.get(0),
        "pgnGames": len(session.pgn_games),
    }


def thinking_message(source: str, mover: Color, info: Info) -> dict[str, Any]:
    """A ``thinking`` message: the search line as every page gets it (scores from White's side)."""
    return {"type": "thinking", "source": source, **search_line(info, mover)}


def _thinker(session: Session) -> str | None:
    turn = session.board.turn
    if session.control is not None and session.in_progress() and session.players[turn] is not None:
        return side_letter(turn)
    return None


def _human_may_move(session: Session, board: Board[Any]) -> bool:
    """Whether the page may enter a move at the viewed position ``board``: in an engine game
    only at the last ply on a human's turn; in a free game (no engine) anywhere, branching
    off the moves that followed."""
    if session.engine_game():
        return session.in_progress() and session.view == len(session.moves) and session.players[board.turn] is None
    return board.winner() is None


def _legal_for_page(board: Board[Any]) -> list[dict[str, Any]]:
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
