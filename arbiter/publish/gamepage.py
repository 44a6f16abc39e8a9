"""One game made ready for its page: every position, the evaluations and the clocks.

The page draws the board with the GUI's ``board.js`` and has no rules code, so the positions
are computed here, by replaying the record through its game (:mod:`gameplug`): the start
position as the board JSON (:func:`arbiter.board.board_json`), then per ply only what changed
(the pieces of a few squares, the side to move, the last move, the game's result), which keeps
a game's data near a kilobyte whatever the board; each piece image once.  The page's
``game.js`` applies the changes in turn to rebuild each position's board JSON.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup

import gameplug
from gameplug import GameError, Side

from ..board import board_json, images_of, play_shown, side_letter
from ..errors import ArbiterError
from ..records.game import GameRecord, MoveSource

GRAPH_PAWNS = 8.0  # the evaluation graph's range, in pawns either way (mates are drawn at the edge)


@dataclass(frozen=True)
class Ply:
    """One ply as the move list shows it: the mover (``w``/``b``), the move in the game's
    notation, the evaluation from the first player's view (pawns; None: no score), its text as the mover gave it, the depth and
    time, and the mover's clock after it (None: no clock)."""

    number: int
    mover: str
    text: str
    white_pawns: float | None
    score: str
    note: str
    clock: str


@dataclass(frozen=True)
class ReplayedGame:
    plies: list[Ply]
    data: Markup  # the JSON for game.js, safe inside a <script type="application/json">
    graph: str  # the SVG polyline points of the evaluation graph ("" without scores)
    sides: tuple[str, str]  # what the game calls its sides ("White", "Black"; "Red", "Yellow")


def script_json(value: Any) -> Markup:
    """``value`` as JSON to put inside a ``<script>`` element: ``<`` is escaped, so no text in
    it can close the element or open a comment; the browser's JSON.parse reads it back."""
    return Markup(json.dumps(value, separators=(",", ":")).replace("<", "\\u003c"))


def _clock_text(seconds: float | None) -> str:
    if seconds is None:
        return ""
    minutes, rest = divmod(max(seconds, 0.0), 60)
    return f"{int(minutes)}:{rest:06.3f}" if minutes else f"{rest:.3f}s"


def replay(record: GameRecord, clocks: list[float | None], where: str) -> ReplayedGame:
    """Replay ``record`` (ArbiterError naming ``where`` and the ply if a move does not hold)."""
    try:
        variant = gameplug.variant(record.variant)
        state = variant.start() if record.fen is None else variant.read_position(record.fen)
    except GameError as error:
        raise ArbiterError(f"{where}: {error}") from None
    game = variant.game
    start = board_json(state)
    boards = [start]
    pieces = {piece["square"]: piece for piece in start["pieces"]}
    changes: list[list[Any]] = []
    plies: list[Ply] = []
    points: list[str] = []
    for number, (move, clock) in enumerate(zip(record.moves, clocks), 1):
        mover = state.turn
        try:
            last = play_shown(state, state.read_notation(move.text))
        except GameError as error:
            raise ArbiterError(
                f"{where}, ply {number}: {game.side_name(mover)}'s move {move.text!r} does not hold: {error}"
            ) from None
        after = board_json(state, last)
        boards.append(after)
        now = {piece["square"]: piece for piece in after["pieces"]}
        diff = [
            [square, now.get(square)]
            for square in sorted(set(pieces) | set(now))
            if pieces.get(square) != now.get(square)
        ]
        pieces = now
        changes.append([diff, after["turn"], last, after["result"]])
        white_pawns = None
        if move.score_mate is not None:
            white_pawns = GRAPH_PAWNS if move.score_mate > 0 else -GRAPH_PAWNS
        elif move.score_cp is not None:
            white_pawns = max(-GRAPH_PAWNS, min(GRAPH_PAWNS, move.score_cp / 100))
        if white_pawns is not None and mover is not Side.FIRST:
            white_pawns = -white_pawns
        if white_pawns is not None:
            points.append(f"{number},{-white_pawns:g}")
        comment = move.comment()
        score, _, note = (
            comment.partition(" ")
            if move.source is MoveSource.ENGINE and (move.score_cp is not None or move.score_mate is not None)
            else ("", "", comment)
        )
        plies.append(Ply(number, side_letter(mover), last["text"], white_pawns, score, note, _clock_text(clock)))
    data = {"start": start, "plies": changes, "images": images_of(boards)}
    sides = (game.side_name(Side.FIRST), game.side_name(Side.SECOND))
    return ReplayedGame(plies, script_json(data), " ".join(points), sides)
