"""What every game has in common: variants and their registry, and the ``Board`` base class.

A game (Dipole, later Impasse) subclasses :class:`Board` and declares its variants as
:class:`Variant` values; everything above the rules layer (perft, search, protocol, arbiter)
talks to boards only through the methods declared here.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from .common import (
    BLACK,
    WHITE,
    Color,
    FenError,
    IllegalMoveError,
    InvalidMoveError,
    UnknownVariantError,
    color_name,
)
from .fen import format_fen, parse_fen
from .geometry import Geometry, geometry
from .zobrist import BLACK_TO_MOVE, zobrist_table


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
    board_class: type[Board[Any]]

    @property
    def geometry(self) -> Geometry:
        return geometry(self.width, self.height)

    def new_board(self, fen: str | None = None) -> Board[Any]:
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


class NamedMove(Protocol):
    """What the base class needs of a game's moves: each carries its own move text."""

    @property
    def text(self) -> str: ...


MoveT = TypeVar("MoveT", bound=NamedMove)


class Board(ABC, Generic[MoveT]):
    """A position of some game plus the moves that led to it (so they can be taken back).

    Every game here is played with single-coloured stacks on the dark squares, so the state
    shared by all of them lives here: ``cells[square]`` is the signed height of the stack
    there (White positive, Black negative, 0 empty; read-only outside the board classes),
    ``material[color]`` is that side's number of checkers on the board (a 3-entry list
    indexed by ``WHITE`` = 1 and ``BLACK`` = -1, its last entry), ``occupied[color]`` the
    squares of that side's stacks in ascending order (indexed the same way), ``key`` the
    Zobrist hash.  ``push`` and ``pop`` keep all of them up to date, so nothing that reads a
    position ever has to scan the board; they are plain attributes because the search reads
    them at every node.

    Moves are immutable value objects whose ``str()`` is their move text.  ``push`` trusts
    its argument to be legal (as python-chess does); use :meth:`parse_move` or
    :meth:`push_text` for moves that come from outside.
    """

    game: ClassVar[str]
    empty_side_wins: ClassVar[bool]
    """True where running out of checkers wins (Impasse), False where it loses (Dipole)."""

    def __init__(self, variant: Variant | str, fen: str | None = None) -> None:
        if isinstance(variant, str):
            variant = variant_by_name(variant)
        if variant.board_class is not type(self):
            raise UnknownVariantError(f"variant {variant.name!r} is a {variant.game} variant, not {self.game}")
        self.variant = variant
        self.geometry = variant.geometry
        self._dark = self.geometry.dark_squares
        self._zobrist = zobrist_table(self.geometry.size, self.max_stack_height())
        self.turn: Color = WHITE
        self.cells: list[int] = [0] * self.geometry.size
        self.material: list[int] = [0, 0, 0]
        self.occupied: list[list[int]] = [[], [], []]
        self.key = 0
        # One undo record per move played; its first item is always the move.
        self._history: list[tuple[Any, ...]] = []
        self.set_fen(variant.start_fen if fen is None else fen)

    # -- game-specific hooks ---------------------------------------------------------
    def max_stack_height(self) -> int:
        """The tallest stack this game allows (a FEN with a taller one is rejected)."""
        return self.variant.checkers_per_side

    def check_position(self, turn: Color, stacks: dict[int, int]) -> None:
        """Raise FenError if ``stacks`` cannot occur in this game; the default accepts all."""

    # -- position text ---------------------------------------------------------------
    def set_fen(self, fen: str) -> None:
        """Replace the position by ``fen`` and forget the move history; raises FenError."""
        turn, stacks = parse_fen(
            fen,
            self.geometry,
            max_height=self.max_stack_height(),
            checkers_per_side=self.variant.checkers_per_side,
        )
        if not stacks:
            raise FenError("FEN: both sides have no checkers; a game ends when the first side has none")
        self.check_position(turn, stacks)
        self.cells = [0] * self.geometry.size
        self.material = [0, 0, 0]
        self.occupied = [[], [], []]
        key = 0 if turn == WHITE else BLACK_TO_MOVE
        for square, height in sorted(stacks.items()):
            side = 1 if height > 0 else -1
            self.cells[square] = height
            self.material[side] += abs(height)
            self.occupied[side].append(square)
            key ^= self._zobrist[square][height]
        self.turn = turn
        self.key = key
        self._history = []

    def fen(self) -> str:
        """The position as FEN text (side to move, then each side's stacks)."""
        return format_fen(self.turn, self.cells, self.geometry)

    @property
    def move_stack(self) -> list[MoveT]:
        """The moves played since the position was set, oldest first."""
        return [undo[0] for undo in self._history]

    def checkers(self, color: Color) -> int:
        """How many checkers ``color`` has on the board."""
        return self.material[color]

    def stacks(self, color: Color) -> list[tuple[int, int]]:
        """``(square, height)`` of each of ``color``'s stacks, by rank then file."""
        cells = self.cells
        return [(sq, cells[sq] * color) for sq in self.occupied[color]]

    # -- moves -----------------------------------------------------------------------
    @abstractmethod
    def legal_moves(self) -> list[MoveT]:
        """Every legal move, in a fixed order; empty exactly when the game is over."""

    def count_legal_moves(self) -> int:
        """``len(self.legal_moves())``, computed without building the moves where possible."""
        return len(self.legal_moves())

    def is_legal(self, move: MoveT) -> bool:
        """Whether ``move`` is legal here (games may answer without generating every move)."""
        return move in self.legal_moves()

    def must_pass(self) -> bool:
        """Whether the side to move may only pass: the game goes on and its one legal move is the
        pass, which a referee plays without asking (games may answer without generating every
        move)."""
        legal = self.legal_moves()
        return len(legal) == 1 and str(legal[0]) == "pass"

    def _move_named(self, token: str) -> MoveT | None:
        """A move whose own text is ``token``, legal here or not, where the game can find one
        without generating the legal moves (None: it cannot, or no move has that text)."""
        return None

    @abstractmethod
    def takes_checkers_off(self, move: MoveT) -> bool:
        """Whether ``move``, legal here, takes any checker (of either side) off the board."""

    @abstractmethod
    def push(self, move: MoveT) -> None:
        """Play ``move``, which must be legal here."""

    @abstractmethod
    def pop(self) -> MoveT:
        """Take back the last move played and return it."""

    def parse_move(self, text: str, legal: Sequence[MoveT] | None = None) -> MoveT:
        """The legal move that ``text`` names; raises InvalidMoveError or IllegalMoveError.
        ``legal``: the position's :meth:`legal_moves`, when the caller has them already (without
        them, a move given by its own text is looked up and checked alone where the game can:
        nothing is generated)."""
        token = self._move_token(text)
        if legal is None:
            named = self._move_named(token)
            if named is not None and self.is_legal(named):  # the usual case: nothing generated
                return named
            legal = self.legal_moves()
        for move in legal:  # the usual text: a move's own
            if move.text == token:
                return move
        return self._parse_other_text(token, legal)

    @abstractmethod
    def _parse_other_text(self, token: str, legal: Sequence[MoveT]) -> MoveT:
        """The legal move that ``token`` names other than by its own text (``legal``: the
        position's legal moves, none of which has that text), or the MoveError saying why
        there is none."""

    def _move_token(self, text: object) -> str:
        """``text`` stripped, once it is known to be text and the game to be still going on."""
        if not isinstance(text, str):
            raise InvalidMoveError(f"a move must be text, got {type(text).__name__}")
        token = text.strip()
        winner = self.winner()
        if winner is not None:
            raise IllegalMoveError(f"{token!r}: the game is over ({color_name(winner)} has won)")
        return token

    def _move_square(self, token: str, name: str) -> int:
        """The dark square ``name`` of move text ``token``; raises a MoveError naming it."""
        square = self.geometry.parse_square(name)
        if square is None:
            raise InvalidMoveError(f"{token!r}: {name} is not a square of the {self.geometry.describe()} board")
        if not self.geometry.is_dark(square):
            raise IllegalMoveError(f"{token!r}: {name} is a light square; only dark squares are used")
        return square

    def push_text(self, text: str) -> MoveT:
        """Parse ``text`` strictly and play it."""
        move = self.parse_move(text)
        self.push(move)
        return move

    # -- outcome ---------------------------------------------------------------------
    def winner(self) -> Color | None:
        """The side that has won, or None while the game goes on.  The game ends when a side
        has no checkers left; ``empty_side_wins`` says whether that side has won or lost."""
        if self.material[WHITE] == 0:
            empty = WHITE
        elif self.material[BLACK] == 0:
            empty = BLACK
        else:
            return None
        return empty if self.empty_side_wins else -empty

    def is_game_over(self) -> bool:
        return self.winner() is not None

    # -- convenience -----------------------------------------------------------------
    def copy(self) -> Board[MoveT]:
        """A new board at the same position, sharing no state, with an empty history."""
        return self.variant.new_board(self.fen())

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.variant.name} {self.fen()!r}>"

    def __str__(self) -> str:
        return self.fen()
