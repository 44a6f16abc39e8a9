"""The position text (FEN) shared by both games: ``<side>:W<items>:B<items>``.

``side`` is ``W`` or ``B`` (the side to move); each items list is comma-separated
``<height><square>`` (``W:W12c1:B12d8``, ``B:W3e1,1g5:B2d6,1h8``); a side with no checkers is
written as its letter alone (``W:W:B3d4``).  The writer lists items by rank, then file, so a
position has exactly one FEN.  The reader checks everything and raises :class:`FenError`
with what is wrong and where.
"""

from __future__ import annotations

import re

from .common import BLACK, WHITE, Color, FenError
from .geometry import Geometry

_ITEM = re.compile(r"([0-9]+)([a-z][0-9]+)")
_SIDES = {"W": WHITE, "B": BLACK}


def parse_fen(fen: str, geom: Geometry, *, max_height: int, checkers_per_side: int) -> tuple[Color, dict[int, int]]:
    """Read ``fen`` into the side to move and a map square -> signed stack height.

    Heights are positive for White and negative for Black.  ``max_height`` bounds a single
    stack, ``checkers_per_side`` the sum of one side's stacks.
    """
    if not isinstance(fen, str):
        raise FenError(f"FEN must be text, got {type(fen).__name__}")
    text = fen.strip()
    fields = text.split(":")
    if len(fields) != 3:
        raise FenError(
            f"FEN {text!r}: expected 3 fields '<side>:W<items>:B<items>' separated by ':', found {len(fields)}"
        )
    side_field, white_field, black_field = fields
    if side_field not in _SIDES:
        raise FenError(f"FEN {text!r}: side to move must be 'W' or 'B', found {side_field!r}")
    cells: dict[int, int] = {}
    for letter, color, field in (("W", WHITE, white_field), ("B", BLACK, black_field)):
        if not field.startswith(letter):
            expected = "second" if color == WHITE else "third"
            raise FenError(f"FEN {text!r}: the {expected} field must start with {letter!r}, found {field!r}")
        total = 0
        items = field[1:]
        if not items:
            continue
        for position, item in enumerate(items.split(","), start=1):
            where = f"FEN {text!r}: {letter} item {position} {item!r}"
            match = _ITEM.fullmatch(item)
            if match is None:
                raise FenError(f"{where}: expected <height><square> such as '3e1'")
            height = int(match.group(1))
            square = geom.parse_square(match.group(2))
            if height < 1:
                raise FenError(f"{where}: height must be at least 1")
            if height > max_height:
                raise FenError(f"{where}: height {height} exceeds the largest allowed, {max_height}")
            if square is None:
                raise FenError(f"{where}: {match.group(2)!r} is not a square of the {geom.describe()} board")
            if not geom.is_dark(square):
                raise FenError(f"{where}: {match.group(2)} is a light square; only dark squares are used")
            if square in cells:
                raise FenError(f"{where}: square {match.group(2)} is occupied twice")
            total += height
            cells[square] = height * color
        if total > checkers_per_side:
            raise FenError(
                f"FEN {text!r}: {letter} has {total} checkers, more than the {checkers_per_side} "
                f"a side has in this variant"
            )
    return _SIDES[side_field], cells


def format_fen(turn: Color, cells: list[int], geom: Geometry) -> str:
    """Write the FEN of a position held as a flat list of signed heights."""
    white: list[str] = []
    black: list[str] = []
    for square in range(geom.size):  # square order is rank-major, as the writer requires
        height = cells[square]
        if height > 0:
            white.append(f"{height}{geom.name(square)}")
        elif height < 0:
            black.append(f"{-height}{geom.name(square)}")
    side = "W" if turn == WHITE else "B"
    return f"{side}:W{','.join(white)}:B{','.join(black)}"
