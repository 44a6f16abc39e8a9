"""A position of any game (a :class:`gameplug.State`) as the JSON that ``static/board.js`` here draws.

The drawing (``arbiter/board/static/board.js`` and ``board.css``) has its one home here, package
data of arbiter: the GUI serves it to its pages, ``dipole-arbiter publish`` copies it into sites.
It knows no game: the board is the game's own picture (:func:`gameplug.picture_json`: squares,
pieces, names of the columns and rows), with what the page needs around it.

The shape (documented again at the top of ``board.js``, which is its only reader)::

    {"variant": "dipole", "game": "dipole",
     ...the picture: "width", "height", "files", "ranks", "squares", "pieces"...,
     "images": {"i3f9a0c1e2b7d": "data:image/svg+xml;base64,..."},  # a piece's "image" is a key here
     "sides": {"w": "White", "b": "Black"},   # the game's names of its sides
     "turn": "w",                             # "w": the first player to move, "b": the second
     "lastMove": {"from": "c1" | null,        # as the game describes the move (MoveChoice)
                  "target": {"kind": "move", "square": "c3", "edge": null} | null,
                  "text": "c1-c3"} | null,
     "flip": false,                           # true: the second player's side at the bottom
     "result": null | {"result": "1-0" | "0-1" | "1/2-1/2", "winner": "w" | "b" | null,
                       "reason": "Black has no checkers left"}}

Everything here is plain data: names and words, never markup.  A piece's image (a game's
``data:`` URI, a kilobyte or more: a chess piece's) is named by a key of its content, so that
a page that keeps the board of every ply gets each image once, like the squares, which never
change in a game: :func:`ply_json` leaves both out, :func:`images_of` gathers the images.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import Any

import gameplug
from gameplug import MoveChoice, Side, State, choice_json, picture_json

BoardJson = dict[str, Any]
LastMove = dict[str, Any]
STATIC = Path(__file__).parent / "static"  # board.js, board.css


def side_letter(side: Side) -> str:
    """``"w"`` (the first player) or ``"b"`` (the second): how pages key sides."""
    return "w" if side is Side.FIRST else "b"


def move_json(choice: MoveChoice) -> dict[str, Any]:
    """Where a move is drawn (a last move, an engine's arrow): its origin and target marker."""
    shown = choice_json(choice)
    return {"from": shown["origin"], "target": shown["target"]}


def play_shown(state: State[Any], move: Any) -> LastMove:
    """Play ``move`` (legal in ``state``) on ``state`` and return it as ``lastMove``: where the
    game draws it, and its text in the game's notation (both known only before it is played)."""
    last = {**move_json(state.describe_move(move)), "text": state.notation(move)}
    state.play(move)
    return last


def board_json(state: State[Any], last: LastMove | None = None, flip: bool = False) -> BoardJson:
    """``state`` in the shape described above; ``last`` is :func:`play_shown`'s answer for the
    move that led to it."""
    game = gameplug.variant(state.variant).game
    outcome = state.outcome()
    result = None
    if outcome.over:
        winner = None if outcome.winner is None else side_letter(outcome.winner)
        result = {"result": outcome.result, "winner": winner, "reason": outcome.reason}
    picture = picture_json(state.picture())
    images = {}
    for piece in picture["pieces"]:
        if piece["image"] is not None:
            key = image_key(piece["image"])
            images[key] = piece["image"]
            piece["image"] = key
    return {
        "variant": state.variant,
        "game": game.name,
        **picture,
        "images": images,
        "sides": {"w": game.side_name(Side.FIRST), "b": game.side_name(Side.SECOND)},
        "turn": side_letter(state.turn),
        "lastMove": last,
        "flip": flip,
        "result": result,
    }


@cache
def image_key(uri: str) -> str:
    """A short name of an image's content (the same image is the same key on every board)."""
    return "i" + hashlib.blake2b(uri.encode(), digest_size=6).hexdigest()


def ply_json(board: BoardJson) -> BoardJson:
    """``board`` without its squares and images: a ply's board for a page that has the game's
    squares and gets the images with :func:`images_of`."""
    return {key: value for key, value in board.items() if key not in ("squares", "images")}


def images_of(boards: Iterable[BoardJson]) -> dict[str, str]:
    """The images of ``boards``, by key."""
    return {key: uri for board in boards for key, uri in board["images"].items()}
