"""Colours and the errors the rules layer raises: the vocabulary every rules module shares."""

from __future__ import annotations

from typing import Final

Color = int
"""A side: ``WHITE`` (+1) or ``BLACK`` (-1).  The sign doubles as the sign of that side's
stack heights on the board, which keeps the hot paths free of branches on colour."""

WHITE: Final = 1
BLACK: Final = -1
COLOR_NAMES: dict[Color, str] = {WHITE: "White", BLACK: "Black"}


def color_name(color: Color) -> str:
    return COLOR_NAMES[color]


class RulesError(ValueError):
    """Base class of every error the rules layer raises for bad input."""


class FenError(RulesError):
    """A position text (FEN) that cannot be read, with the reason and where."""


class MoveError(RulesError):
    """A move text that is not a legal move in the position."""


class InvalidMoveError(MoveError):
    """A move text that is not well formed (cannot name any move)."""


class IllegalMoveError(MoveError):
    """A well formed move text that names no legal move in the position."""


class UnknownVariantError(RulesError):
    """A variant name that no game provides."""
