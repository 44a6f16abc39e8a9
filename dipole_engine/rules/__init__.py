"""The rules of the games: boards, moves, variants, position text and perft.

Pure and self-contained: nothing here does I/O or knows about search.  Start with
:func:`new_board`::

    board = new_board("dipole")
    for move in board.legal_moves():
        ...
    board.push(board.parse_move("c1-c3"))
"""

from typing import Any

from .base import Board, Variant, all_variants, variant_by_name
from .common import (
    BLACK,
    WHITE,
    Color,
    FenError,
    IllegalMoveError,
    InvalidMoveError,
    MoveError,
    RulesError,
    UnknownVariantError,
    color_name,
)
from .dipole import PASS, DipoleBoard, DipoleMove, MoveKind
from .impasse import ImpasseBoard, ImpasseMove, ImpasseMoveKind
from .perft import divide, perft


def new_board(variant: str | Variant = "dipole", fen: str | None = None) -> Board[Any]:
    """A board of ``variant`` (a name or a Variant) at ``fen``, or at its start position."""
    if isinstance(variant, str):
        variant = variant_by_name(variant)
    return variant.new_board(fen)


__all__ = [
    "BLACK",
    "WHITE",
    "Board",
    "Color",
    "DipoleBoard",
    "DipoleMove",
    "FenError",
    "IllegalMoveError",
    "ImpasseBoard",
    "ImpasseMove",
    "ImpasseMoveKind",
    "InvalidMoveError",
    "MoveError",
    "MoveKind",
    "PASS",
    "RulesError",
    "UnknownVariantError",
    "Variant",
    "all_variants",
    "color_name",
    "divide",
    "new_board",
    "perft",
    "variant_by_name",
]
