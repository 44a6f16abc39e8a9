"""A board as the one board drawing draws it, whatever the game: squares, pieces, markers.

A game describes its position as a :class:`BoardPicture` (:meth:`State.picture`) and each legal
move as a :class:`MoveChoice` (:meth:`State.describe_move`); the host turns them into JSON with
:func:`picture_json` and :func:`choice_json` for the drawing (``board.js``), which needs to know
nothing of the game.  Everything here is plain data: names, words and numbers, never markup; a
piece's image is a ``data:image/...`` URI, so a page fetches nothing a game names.

Coordinates are the first player's view: ``file`` 0 is the left column, ``rank`` 0 the bottom
row; a drawing flipped for the second player turns them round itself.

The JSON (one object per picture)::

    {"width": 8, "height": 8, "files": ["a", ...], "ranks": ["1", ...],
     "squares": [{"name": "a1", "file": 0, "rank": 0, "shade": "dark"}, ...],
     "pieces": [{"square": "c1", "side": "first", "kind": "stack", "colour": "white",
                 "count": 12, "label": null, "glyph": null, "image": null}, ...]}

and per move choice::

    {"move": "c7-off:3", "origin": "c7",
     "target": {"kind": "exit", "square": "c7", "edge": "top"},
     "label": "3 checkers off the board", "question": "How many checkers leave?"}
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

from .outcome import Side

Edge = Literal["top", "bottom", "left", "right"]
EDGES: tuple[Edge, ...] = ("top", "bottom", "left", "right")

_COLOUR = re.compile(r"[a-z]{1,20}|#[0-9a-f]{6}")  # a CSS colour word or #rrggbb
_WORD = re.compile(r"[a-z][a-z0-9-]{0,23}")  # a kind: the drawing's style name
_IMAGE = re.compile(r"data:image/(?:png|svg\+xml|webp|gif|jpeg);base64,[A-Za-z0-9+/=]+")
MAX_TEXT = 40  # characters of a square's name, a label, a glyph (the drawing shows them small)


def _check_text(what: str, text: str) -> None:
    if not text or len(text) > MAX_TEXT or not text.isprintable():
        raise ValueError(f"{what} {text[:MAX_TEXT]!r}: expected 1 to {MAX_TEXT} printable characters")


@dataclass(frozen=True)
class Square:
    """One square of the board: its name, where it is, and its shade: ``dark`` or ``light``
    (the drawing's own colours) or a colour of the game's (a CSS colour word or ``#rrggbb``)."""

    name: str
    file: int
    rank: int
    shade: str = "light"

    def __post_init__(self) -> None:
        _check_text("square name", self.name)
        if not _COLOUR.fullmatch(self.shade):
            raise ValueError(f"square {self.name}: shade {self.shade!r} is not a colour word or #rrggbb")


@dataclass(frozen=True)
class Piece:
    """What stands on a square: whose it is, its ``kind`` (a word the drawing may style: ``stack``,
    ``disc``...), its ``colour``, how many it is (``count``, shown when above 1: a stack's height),
    and optionally a ``label`` shown on it, a ``glyph`` (a character drawn instead of a disc) or an
    ``image`` (a ``data:image/...;base64,`` URI drawn instead of a disc)."""

    square: str
    side: Side
    kind: str
    colour: str
    count: int = 1
    label: str | None = None
    glyph: str | None = None
    image: str | None = None

    def __post_init__(self) -> None:
        if not _WORD.fullmatch(self.kind):
            raise ValueError(f"piece on {self.square}: kind {self.kind!r} is not a lower-case word")
        if not _COLOUR.fullmatch(self.colour):
            raise ValueError(f"piece on {self.square}: colour {self.colour!r} is not a colour word or #rrggbb")
        if self.count < 1:
            raise ValueError(f"piece on {self.square}: count {self.count} is below 1")
        for what, text in (("label", self.label), ("glyph", self.glyph)):
            if text is not None:
                _check_text(f"piece on {self.square}: {what}", text)
        if self.image is not None and not _IMAGE.fullmatch(self.image):
            raise ValueError(f"piece on {self.square}: the image must be a data:image/...;base64, URI")


@dataclass(frozen=True)
class Marker:
    """Where a move is shown and clicked: on ``square``, or, with an ``edge``, off the board
    beyond that edge next to ``square`` (a Dipole exit is drawn above its origin's column).
    ``kind`` is the drawing's style for it: ``move``, ``capture``, ``merge``, ``exit``,
    ``remove``, ``drop``... (a kind the drawing does not know is drawn as ``move``)."""

    kind: str
    square: str
    edge: Edge | None = None

    def __post_init__(self) -> None:
        if not _WORD.fullmatch(self.kind):
            raise ValueError(f"marker on {self.square}: kind {self.kind!r} is not a lower-case word")
        if self.edge is not None and self.edge not in EDGES:
            raise ValueError(f"marker on {self.square}: edge {self.edge!r} is not one of {', '.join(EDGES)}")


@dataclass(frozen=True)
class MoveChoice:
    """How a player enters one legal move on the board: click ``origin`` (None: nothing to pick
    first), then the ``target`` marker (None: a move with no place on the board, such as a pass,
    entered by a button showing ``label``).  When one click fits several moves (how many checkers
    leave, which single crowns) the page asks ``question`` with one button per move, each
    showing its ``label``.  ``move`` is the move's protocol text, what the page sends back."""

    move: str
    origin: str | None
    target: Marker | None
    label: str
    question: str = "Which move?"


@dataclass(frozen=True)
class BoardPicture:
    """A position as the drawing shows it (see the module docstring): the board's size, the names
    of its columns and rows as written beside it, its squares and what stands on them."""

    width: int
    height: int
    files: tuple[str, ...]
    ranks: tuple[str, ...]
    squares: tuple[Square, ...]
    pieces: tuple[Piece, ...]

    def __post_init__(self) -> None:
        if len(self.files) != self.width or len(self.ranks) != self.height:
            raise ValueError(
                f"a {self.width}x{self.height} picture needs {self.width} file and {self.height} rank names"
            )
        names = set()
        for square in self.squares:
            if not (0 <= square.file < self.width and 0 <= square.rank < self.height):
                raise ValueError(f"square {square.name} lies outside the {self.width}x{self.height} board")
            names.add(square.name)
        for piece in self.pieces:
            if piece.square not in names:
                raise ValueError(f"a piece stands on {piece.square!r}, which is not a square of the picture")


def _side_word(side: Side) -> str:
    return "first" if side is Side.FIRST else "second"


def picture_json(picture: BoardPicture) -> dict[str, Any]:
    """``picture`` as the drawing's JSON (see the module docstring)."""
    return {
        "width": picture.width,
        "height": picture.height,
        "files": list(picture.files),
        "ranks": list(picture.ranks),
        "squares": [{"name": s.name, "file": s.file, "rank": s.rank, "shade": s.shade} for s in picture.squares],
        "pieces": [
            {
                "square": p.square,
                "side": _side_word(p.side),
                "kind": p.kind,
                "colour": p.colour,
                "count": p.count,
                "label": p.label,
                "glyph": p.glyph,
                "image": p.image,
            }
            for p in picture.pieces
        ],
    }


def choice_json(choice: MoveChoice) -> dict[str, Any]:
    """``choice`` as the page's JSON (see the module docstring)."""
    target = choice.target
    return {
        "move": choice.move,
        "origin": choice.origin,
        "target": None if target is None else {"kind": target.kind, "square": target.square, "edge": target.edge},
        "label": choice.label,
        "question": choice.question,
    }
