"""Board geometry shared by every game: square numbering, square names, dark squares.

A square is a plain ``int``: ``rank * width + file``, both counted from 0, so ``a1`` is 0
on every board.  Only dark squares are ever occupied; ``a1`` is dark, and a square is dark
when ``file + rank`` is even.  Games keep their cells in a flat list indexed by square, so
light squares are simply never touched.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

FILE_LETTERS = "abcdefghijklmnopqrstuvwxyz"


@dataclass(frozen=True)
class Geometry:
    """A rectangular checkers board of ``width`` files and ``height`` ranks."""

    width: int
    height: int
    dark_squares: tuple[int, ...] = field(init=False, repr=False, compare=False)
    names: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        size = self.width * self.height
        dark = tuple(sq for sq in range(size) if self.is_dark(sq))
        names = tuple(FILE_LETTERS[sq % self.width] + str(sq // self.width + 1) for sq in range(size))
        object.__setattr__(self, "dark_squares", dark)
        object.__setattr__(self, "names", names)

    @property
    def size(self) -> int:
        """Number of squares, light ones included."""
        return self.width * self.height

    def square(self, file: int, rank: int) -> int:
        return rank * self.width + file

    def file_of(self, square: int) -> int:
        return square % self.width

    def rank_of(self, square: int) -> int:
        return square // self.width

    def on_board(self, file: int, rank: int) -> bool:
        return 0 <= file < self.width and 0 <= rank < self.height

    def is_dark(self, square: int) -> bool:
        return (square % self.width + square // self.width) % 2 == 0

    def name(self, square: int) -> str:
        return self.names[square]

    def parse_square(self, text: str) -> int | None:
        """The square named ``text`` (e.g. ``"c1"``), or None if no such square is on this board."""
        digits = text[1:]
        if not text or text[0] not in FILE_LETTERS or not (digits.isascii() and digits.isdigit()) or digits[0] == "0":
            return None
        file = FILE_LETTERS.index(text[0])
        rank = int(digits) - 1
        if not self.on_board(file, rank):
            return None
        return self.square(file, rank)

    def describe(self) -> str:
        return f"{self.width}x{self.height}"


@cache
def geometry(width: int, height: int) -> Geometry:
    """The shared, immutable geometry of a ``width`` x ``height`` board."""
    return Geometry(width, height)
