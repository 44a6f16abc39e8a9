"""A rules :class:`~dipole_engine.rules.Board` as the JSON that ``static/board.js`` here draws.

The drawing (``arbiter/board/static/board.js`` and ``board.css``) has its one home here, package
data of arbiter: the GUI serves it to its pages, ``dipole-arbiter publish`` copies it into sites.

The shape (documented again at the top of ``board.js``, which is its only reader)::

    {"variant": "dipole", "game": "dipole", "width": 8, "height": 8,
     "squares": [{"square": "c1", "color": "w", "height": 12}, ...],   # occupied squares only
     "turn": "w",                       # "w" or "b": the side to move
     "lastMove": {"from": "c1", "to": "c3", "text": "c1-c3"} | null,
     "flip": false,                     # true: Black's side at the bottom
     "winner": null | "w" | "b"}

``lastMove.to`` is null for a move that leaves no stack on a square (a Dipole exit, an Impasse
removal) and both ends are null for a pass.  Everything here is plain data: names, never markup.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dipole_engine.rules import WHITE, Board, Color

BoardJson = dict[str, Any]
STATIC = Path(__file__).parent / "static"  # board.js, board.css


def side_letter(color: Color) -> str:
    """``"w"`` or ``"b"``."""
    return "w" if color == WHITE else "b"


def move_ends(board: Board[Any], move: Any) -> tuple[str | None, str | None]:
    """The names of a move's origin and target squares (None where it has none)."""
    name = board.geometry.name
    origin = getattr(move, "origin", -1)
    target = getattr(move, "target", -1)
    return (name(origin) if origin >= 0 else None, name(target) if target >= 0 else None)


def board_json(board: Board[Any], last_move: Any = None, flip: bool = False) -> BoardJson:
    """``board`` (and optionally the move that led to it) in the shape described above.

    ``last_move`` is a move object of ``board``'s game, played in the position before this one.
    """
    geometry = board.geometry
    cells = board.cells
    squares = [
        {"square": geometry.name(sq), "color": "w" if cells[sq] > 0 else "b", "height": abs(cells[sq])}
        for sq in geometry.dark_squares
        if cells[sq]
    ]
    last = None
    if last_move is not None:
        origin, target = move_ends(board, last_move)
        last = {"from": origin, "to": target, "text": str(last_move)}
    winner = board.winner()
    return {
        "variant": board.variant.name,
        "game": board.game,
        "width": geometry.width,
        "height": geometry.height,
        "squares": squares,
        "turn": side_letter(board.turn),
        "lastMove": last,
        "flip": flip,
        "winner": None if winner is None else side_letter(winner),
    }
