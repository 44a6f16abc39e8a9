"""What every game has in common: colours, errors, variants, and the abstract ``Board``.

A game (Dipole, later Impasse) subclasses :class:`Board` and declares its variants as
:class:`Variant` values; everything above the rules layer (perft, search, protocol, arbiter)
talks to boards only through the methods declared here.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import ClassVar, Generic, TypeVar

from .geometry import Geometry, geometry

Color = int
"""A side: ``WHITE`` (+1) or ``BLACK`` (-1).  The sign doubles as the sign of that side's
stack heights on the board, which keeps the hot paths free of branches on colour."""

WHITE: Color = 1
BLACK: Color = -1
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


@dataclass(frozen=True)
class Variant:
    """A named rule set: which game, on which board, from which start position."""

    name: str
    game: str
    width: int
    height: int
    checkers_per_side: int
    start_fen: str
    description: str
    board_class: "type[Board]"

    @property
    def geometry(self) -> Geometry:
        return geometry(self.width, self.height)

    def new_board(self, fen: str | None = None) -> "Board":
        """A board of this variant at ``fen`` (default: the start position)."""
        return self.board_class(self, fen)


_VARIANTS: dict[str, Variant] = {}


def register_variants(variants: tuple[Variant, ...]) -> None:
    """Make ``variants`` known by name (each game module registers its own on import)."""
    for variant in variants:
        _VARIANTS[variant.name] = variant


def variant_by_name(name: str) -> Variant:
    """The variant called ``name``; raises UnknownVariantError listing the known ones."""
    try:
        return _VARIANTS[name]
    except KeyError:
        known = ", ".join(_VARIANTS)
        raise UnknownVariantError(f"unknown variant {name!r}; known variants: {known}") from None


def all_variants() -> list[Variant]:
    """Every registered variant, in registration order (each game's default first)."""
    return list(_VARIANTS.values())


MoveT = TypeVar("MoveT")


class Board(ABC, Generic[MoveT]):
    """A position of some game plus the moves that led to it (so they can be taken back).

    Moves are immutable value objects whose ``str()`` is their move text.  ``push`` trusts
    its argument to be legal (as python-chess does); use :meth:`parse_move` or
    :meth:`push_text` for moves that come from outside.
    """

    game: ClassVar[str]

    def __init__(self, variant: Variant | str) -> None:
        if isinstance(variant, str):
            variant = variant_by_name(variant)
        if variant.board_class is not type(self):
            raise UnknownVariantError(f"variant {variant.name!r} is a {variant.game} variant, not {self.game}")
        self.variant = variant
        self.geometry = variant.geometry
        self.turn: Color = WHITE

    # -- position text ---------------------------------------------------------------
    @abstractmethod
    def fen(self) -> str:
        """The position as FEN text (side to move, then each side's stacks)."""

    @abstractmethod
    def set_fen(self, fen: str) -> None:
        """Replace the position by ``fen`` and forget the move history; raises FenError."""

    # -- moves -----------------------------------------------------------------------
    @abstractmethod
    def legal_moves(self) -> list[MoveT]:
        """Every legal move, in a fixed order; empty exactly when the game is over."""

    def count_legal_moves(self) -> int:
        """``len(self.legal_moves())``, computed without building the moves where possible."""
        return len(self.legal_moves())

    @abstractmethod
    def push(self, move: MoveT) -> None:
        """Play ``move``, which must be legal here."""

    @abstractmethod
    def pop(self) -> MoveT:
        """Take back the last move played and return it."""

    @abstractmethod
    def parse_move(self, text: str) -> MoveT:
        """The legal move that ``text`` names; raises InvalidMoveError or IllegalMoveError."""

    def push_text(self, text: str) -> MoveT:
        """Parse ``text`` strictly and play it."""
        move = self.parse_move(text)
        self.push(move)
        return move

    @property
    @abstractmethod
    def move_stack(self) -> list[MoveT]:
        """The moves played since the position was set, oldest first."""

    # -- outcome ---------------------------------------------------------------------
    @abstractmethod
    def winner(self) -> Color | None:
        """The side that has won, or None while the game goes on."""

    def is_game_over(self) -> bool:
        return self.winner() is not None

    @abstractmethod
    def checkers(self, color: Color) -> int:
        """How many checkers ``color`` has on the board."""

    @property
    @abstractmethod
    def key(self) -> int:
        """A 64-bit Zobrist hash of the position (board and side to move)."""

    # -- convenience -----------------------------------------------------------------
    def copy(self) -> "Board[MoveT]":
        """A new board at the same position, sharing no state, with an empty history."""
        return self.variant.new_board(self.fen())

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.variant.name} {self.fen()!r}>"

    def __str__(self) -> str:
        return self.fen()

