"""What a page draws of its game: the ``state``, ``plies`` and ``thinking`` messages.

``state`` is the game as of now: the board at the viewed ply (:mod:`arbiter.board`), the move
list in the game's notation with each ply's score and the analysis's evaluation, the players
and clocks (the running clock counted down to this moment), the moves a human may enter at the
viewed ply (the game's :class:`gameplug.MoveChoice` data: where each is clicked, and the
question and labels of the chooser when one click fits several), who is thinking, the result
(the referee's, or the game's own ending, draws included), and the analysis's lines.
``plies`` gives the page the board of each ply from one on (without the squares and images it
has: :func:`arbiter.board.ply_json`), so that it draws any ply at once when stepping, without
the game's rules.  ``thinking`` is an engine's search line, scores from the first player's side.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from arbiter.board import board_json, images_of, play_shown, ply_json, side_letter
from arbiter.live.searchline import search_line
from gameplug import Side, State, choice_json
from protocol import Info

from .analysislines import multipv_range

if TYPE_CHECKING:
    from .session import Session


def plies_message(session: Session, start: int) -> dict[str, Any]:
    """The ``plies`` message: the board of each ply from ``start`` to the last, and their images."""
    state = session.state_at(max(start - 1, 0))
    last = play_shown(state, session.moves[start - 1]) if start else None
    boards = [board_json(state, last)]
    for move in session.moves[start:]:
        boards.append(board_json(state, play_shown(state, move)))
    return {
        "type": "plies",
        "game": session.number,
        "from": start,
        "boards": [ply_json(board) for board in boards],
        "images": images_of(boards),
    }


def state_message(session: Session) -> dict[str, Any]:
    """The ``state`` message: everything the page draws, as of now (see the module docstring)."""
    ply = session.view
    state = session.start_state()
    first_turn = side_letter(state.turn)
    viewed = state.copy()  # the position at the viewed ply, and the move that led to it
    last = None
    moves = []
    for index, (move, record) in enumerate(zip(session.moves, session.records)):
        shown = play_shown(state, move)
        if index + 1 == ply:
            viewed, last = state.copy(), shown
        moves.append(
            {
                "text": shown["text"],
                "source": record.source.value,
                "score": session.scores[index],
                "eval": session.evals.get(index + 1),
            }
        )
    now = time.monotonic()
    running: Side | None = None
    if session.in_progress() and session.tc.kind == "clock":
        running = session.state.turn
    clocks: dict[str, int | None] = {}
    for side in Side:
        clock = session.clocks[side]
        if clock.control is None:
            clocks[side_letter(side)] = None
            continue
        remaining = clock.remaining - (now - session.turn_started if running == side else 0.0)
        clocks[side_letter(side)] = round(remaining * 1000)
    outcome = session.state.outcome()
    result = None
    if session.result is not None:
        result = {"result": session.result[0], "reason": session.result[2], "termination": session.result[1].tag}
    elif outcome.over:
        result = {"result": outcome.result, "reason": outcome.reason, "termination": "normal"}
    seat = session.analysis.seat
    multipv = None
    if seat is not None and (most := multipv_range(seat.options)) > 1:
        multipv = {"value": min(session.analysis.multipv, most), "max": most}
    return {
        "type": "state",
        "game": session.number,
        "variant": session.variant,
        "board": board_json(viewed, last),
        "fen": viewed.position_text(),
        "startFen": session.start_fen,
        "firstTurn": first_turn,
        "view": ply,
        "moves": moves,
        "players": {side_letter(s): {"name": session.player_name(s), "engine": session.players[s]} for s in Side},
        "tc": session.tc.to_page(),
        "clocks": clocks,
        "running": None if running is None else side_letter(running),
        "legal": _legal_for_page(viewed) if _human_may_move(session, viewed) else [],
        "thinking": _thinker(session),
        "result": result,
        "analysing": seat is not None,
        "multipv": multipv,
        "startEval": session.evals.get(0),
        "pgnGames": len(session.pgn_games),
    }


def thinking_message(source: str, mover: Side, info: Info) -> dict[str, Any]:
    """A ``thinking`` message: the search line as every page gets it (scores from the first player's side)."""
    return {"type": "thinking", "source": source, **search_line(info, mover)}


def _thinker(session: Session) -> str | None:
    turn = session.state.turn
    if session.control is not None and session.in_progress() and session.players[turn] is not None:
        return side_letter(turn)
    return None


def _human_may_move(session: Session, state: State[Any]) -> bool:
    """Whether the page may enter a move at the viewed position ``state``: in an engine game
    only at the last ply on a human's turn; in a free game (no engine) anywhere, branching
    off the moves that followed."""
    if session.engine_game():
        return session.in_progress() and session.view == len(session.moves) and session.players[state.turn] is None
    return not state.outcome().over


def _legal_for_page(state: State[Any]) -> list[dict[str, Any]]:
    """The moves a player may enter at ``state``, as the game describes them (the forced move
    is the referee's to play)."""
    return [choice_json(choice) for choice in state.move_choices()]
