"""Dipole and Impasse as gameplug games: the rules (:mod:`dipole_engine.rules`) behind the host's
one game interface (:mod:`gameplug`), registered under the entry-point group ``gameplug.games``.

A :class:`RulesState` wraps one rules ``Board`` (its make/unmake, its history, its move objects:
nothing is copied per move).  What the host knew of these games becomes the game's answers here:
the result sentences ("Black has no checkers left"), Dipole's forced pass, the stacks as pieces
with counts, the exits drawn off the board, the chooser's questions (how many checkers leave,
which single crowns), the random-opening filter (no move that takes checkers off) and
check-engine's positions (a pass and a crown in a moves list, a win in one, a finished game).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from functools import cache
from typing import Any, ClassVar

from mypy_extensions import mypyc_attr

from gameplug import (
    ONGOING,
    BoardPicture,
    CheckPosition,
    Edge,
    GameError,
    Marker,
    MoveChoice,
    Outcome,
    Piece,
    Side,
    Square,
    State,
    check_position,
    winning_moves,
)
from gameplug.game import Game, shown  # (by its module: mypyc's code for a subclass of it needs that)

from .rules import PASS, WHITE, Board, RulesError, all_variants, new_board
from .rules.geometry import FILE_LETTERS, Geometry

_SIDES = {1: Side.FIRST, -1: Side.SECOND}  # the rules' WHITE and BLACK
_KIND_WORDS = {  # the rules' move kinds as the drawing's marker kinds
    "BASIC": "move",
    "MERGE": "merge",
    "CAPTURE": "capture",
    "EXIT": "exit",
    "SLIDE": "move",
    "TRANSPOSE": "merge",
    "REMOVE": "remove",
}


@mypyc_attr(allow_interpreted_subclasses=True)  # (tests subclass it)
class RulesState(State[Any]):
    """A position of Dipole or Impasse and its history: one rules board, played on in place.
    ``board`` is that board (read-only outside: the engine's search may read it)."""

    def __init__(self, game: Game, board: Board[Any], start: str | None = None) -> None:
        # ``game`` typed Game, not RulesGame, and text below typed object: compiled code checks
        # an argument's type before the method runs, and would refuse a game subclassed outside
        # this module, or a bad text, with a TypeError instead of the method's GameError.  (Nor
        # is ``isinstance(game, RulesGame)`` asked: compiled, it is False for these non-native
        # classes.)
        self.game = game
        self.passes: bool = getattr(game, "passes", False)  # Dipole's forced pass (RulesGame.passes)
        self.board = board
        self.variant = board.variant.name
        self._start = board.fen() if start is None else start  # where ``board``'s history begins

    @property
    def turn(self) -> Side:
        return _SIDES[self.board.turn]

    def position_text(self) -> str:
        return self.board.fen()

    def key(self) -> Hashable:
        return self.board.key

    def outcome(self) -> Outcome:
        board = self.board
        winner = board.winner()
        if winner is None:
            return ONGOING
        name = self.game.side_name
        if board.checkers(-winner) == 0:
            return Outcome.win(_SIDES[winner], f"{name(_SIDES[-winner])} has no checkers left")
        return Outcome.win(_SIDES[winner], f"{name(_SIDES[winner])} has no checkers left, and wins")

    def picture(self) -> BoardPicture:
        board = self.board
        geometry = board.geometry
        cells = board.cells
        pieces = tuple(
            Piece(
                geometry.name(sq),
                _SIDES[1 if cells[sq] > 0 else -1],
                "checker",
                _COLOURS[cells[sq] > 0],
                abs(cells[sq]),
            )
            for sq in geometry.dark_squares
            if cells[sq]
        )
        files, ranks, squares = _board_squares(geometry)
        return BoardPicture(geometry.width, geometry.height, files, ranks, squares, pieces)

    def legal_moves(self) -> Sequence[Any]:
        return self.board.legal_moves()

    def play(self, move: Any) -> None:
        self.board.push(move)

    def undo(self) -> Any:
        return self.board.pop()

    @property
    def history(self) -> Sequence[Any]:
        return self.board.move_stack

    def copy(self) -> RulesState:
        board = new_board(self.board.variant, self._start)
        for move in self.board.move_stack:
            board.push(move)
        return RulesState(self.game, board, self._start)

    def forced_move(self) -> Any:
        return PASS if self.passes and self.board.must_pass() else None

    def move_text(self, move: Any) -> str:
        text: str = move.text
        return text

    def read_move(self, text: object) -> Any:
        """Strict: only the move's own spelling (protocol/SPEC.md section 1); the rules' reason
        for anything else, or the spelling to write for an alternative one (``e1e3``)."""
        move = self.read_notation(text)
        if move.text != text:
            raise GameError(f"{shown(text)}: the protocol writes this move {move.text}")
        return move

    def read_notation(self, text: object) -> Any:
        """The rules' reader: a move's own text, or an alternative spelling (``e1e3``, ``c7-off``,
        an Impasse move without its only possible crown)."""
        if not isinstance(text, str):  # (the compiled rules raise TypeError for anything else)
            raise GameError(f"a move must be text, got a {type(text).__name__}")
        try:
            return self.board.parse_move(text)
        except RulesError as error:
            raise GameError(str(error)) from None

    def describe_move(self, move: Any) -> MoveChoice:
        kind = move.kind.name
        if kind == "PASS":
            return MoveChoice(move.text, None, None, "pass (no stack can move)")
        name = self.board.geometry.name
        origin = name(move.origin)
        word = _KIND_WORDS[kind]
        if word == "exit":
            edge: Edge = "top" if self.board.turn == WHITE else "bottom"  # the mover's far edge
            count = move.count
            label = f"{count} checker{'s' if count != 1 else ''} off the board"
            return MoveChoice(move.text, origin, Marker("exit", origin, edge), label, "How many checkers leave?")
        target = Marker(word, origin if word == "remove" else name(move.target))
        crown = getattr(move, "crown", -1)
        if crown >= 0:
            return MoveChoice(
                move.text, origin, target, f"crown with the single from {name(crown)}", "Which single crowns?"
            )
        if word == "remove":
            return MoveChoice(move.text, origin, target, f"remove a checker from {origin}")
        return MoveChoice(move.text, origin, target, move.text)


_COLOURS = {True: "white", False: "black"}


@cache
def _board_squares(geometry: Geometry) -> tuple[tuple[str, ...], tuple[str, ...], tuple[Square, ...]]:
    """The file and rank names and the squares of a board (built once per size)."""
    files = tuple(FILE_LETTERS[: geometry.width])
    ranks = tuple(str(rank + 1) for rank in range(geometry.height))
    squares = tuple(
        Square(
            geometry.name(sq), geometry.file_of(sq), geometry.rank_of(sq), "dark" if geometry.is_dark(sq) else "light"
        )
        for sq in range(geometry.size)
    )
    return files, ranks, squares


@mypyc_attr(native_class=False)  # (Game.variants is a cached_property: it needs a __dict__)
class RulesGame(Game):
    """A game of the rules package (its variants are the rules' variants of that game)."""

    passes: ClassVar[bool]
    """Whether the game has a forced pass (Dipole), which the host plays without asking."""
    mate_position: ClassVar[str]
    """A position with a win in one (and, in Dipole, other moves that do not win), for check-engine."""

    def variant_names(self) -> Sequence[tuple[str, str]]:
        return [(v.name, v.description) for v in all_variants() if v.game == self.name]

    def start(self, variant: str) -> RulesState:
        self.variant(variant)
        return RulesState(self, new_board(variant))

    def read_position(self, variant: str, text: object) -> RulesState:
        self.variant(variant)
        if not isinstance(text, str):  # (the rules read None as the start position)
            raise GameError(f"a position must be text, got a {type(text).__name__}")
        try:
            return RulesState(self, new_board(variant, text))
        except RulesError as error:
            raise GameError(str(error)) from None

    def opening_moves(self, state: State[Any]) -> Sequence[Any]:
        """The legal moves that take no checker off the board, or, when every move does, all of
        them: in both games the checkers left decide the game (a random Dipole exit of half a
        stack loses before the game starts; a random Impasse bear-off is a free step to a win)."""
        assert isinstance(state, RulesState)
        board = state.board
        legal = board.legal_moves()
        return [move for move in legal if not board.takes_checkers_off(move)] or legal

    def check_positions(self, variant: str) -> list[CheckPosition]:
        start = check_position(self, variant, "the start position")
        if not self._fits(variant):
            return [start]
        wins = winning_moves(self.read_position(variant, self.mate_position))
        return [
            start,
            *self._special_positions(variant),
            check_position(self, variant, "a win in one", self.mate_position, answers=wins),
            check_position(self, variant, "a finished game", self.mate_position, wins[:1]),
        ]

    def _fits(self, variant: str) -> bool:
        """Whether the hand-made positions (8x8) are positions of ``variant``."""
        board = new_board(variant)
        return board.geometry.width == 8 and board.geometry.height == 8

    def _special_positions(self, variant: str) -> list[CheckPosition]:
        """The positions of the game's own rules (8x8 variants only)."""
        return []


@mypyc_attr(native_class=False)
class DipoleGame(RulesGame):
    name = "dipole"
    title = "Dipole"
    passes = True
    mate_position = "W:W2d4:B1d6"

    def _special_positions(self, variant: str) -> list[CheckPosition]:
        stuck = "W:W1d4:B2c5,2e5"  # White's single cannot move: it must pass
        return [
            check_position(self, variant, "a forced pass", stuck, answers=["pass"]),
            check_position(self, variant, "a pass in a moves list", stuck, ["pass"]),
        ]


@mypyc_attr(native_class=False)
class ImpasseGame(RulesGame):
    name = "impasse"
    title = "Impasse"
    passes = False
    mate_position = "W:W1a1:B2b2"

    def _special_positions(self, variant: str) -> list[CheckPosition]:
        crown = "W:W1a1,1c3,1g7:B1a7,1c7"  # g7-h8 leaves a single waiting on h8: a1 or c3 crowns
        return [check_position(self, variant, "a crown in a moves list", crown, ["g7-h8=a1"])]


DIPOLE = DipoleGame()
IMPASSE = ImpasseGame()
