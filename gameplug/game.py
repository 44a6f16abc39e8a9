"""The contract between a game and the host: :class:`Game`, :class:`State`, :class:`GameVariant`.

OpenSpiel's split: a :class:`Game` is the game's description and its factories (its variants,
start positions, position text, what engines are told, the positions check-engine tests an
engine with, the filter of random openings); a :class:`State` is one position together with the
moves that led to it, mutable like python-chess's ``Board`` (:meth:`State.play` and
:meth:`State.undo`; :meth:`State.copy` for a second one), so rules that need the game's history
(repetition, move counters) are applied by the game in :meth:`State.outcome`, never by the host.

Moves are the game's own objects (``M``), opaque to the host; they cross the host's boundaries
as text: the protocol's (:meth:`State.move_text`, :meth:`State.read_move`: strict, one spelling
per move) and the record's (:meth:`State.notation`, :meth:`State.read_notation`: the game's own
notation, read leniently where it has common alternative spellings).  Every error the contract
raises for bad input is a :class:`GameError` whose message is one line.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar, Generic, TypeVar

from .outcome import Outcome, Side
from .picture import BoardPicture, MoveChoice

M = TypeVar("M")
SHOWN = 60  # characters of a bad text quoted in an error line
MAX_MESSAGE = 400  # characters of an error line (a plug-in's own message may quote anything)


class GameError(ValueError):
    """Bad input for a game (an unknown game or variant, bad position or move text) or a game
    plug-in that cannot be used; the message is one line saying what and where."""

    def __init__(self, message: str) -> None:
        line = one_line(message)
        super().__init__(line if len(line) <= MAX_MESSAGE else line[: MAX_MESSAGE - 3] + "...")


def one_line(text: str) -> str:
    """``text`` with its line breaks and runs of blanks made single spaces."""
    return " ".join(text.split())


def shown(text: object) -> str:
    """``text`` as an error line quotes it: repr, cut to :data:`SHOWN` characters."""
    if not isinstance(text, str):
        return f"a {type(text).__name__}"
    return repr(text if len(text) <= SHOWN else text[:SHOWN] + "...")


class State(ABC, Generic[M]):
    """One position of a game and the moves played to reach it (since the position it was
    started or read from).  ``variant`` is its variant's name.

    ``play`` trusts its move to be legal here (as python-chess's ``push`` does): moves from
    outside come through :meth:`read_move` or :meth:`read_notation`, which check them.
    """

    variant: str

    # -- the position ------------------------------------------------------------------
    @property
    @abstractmethod
    def turn(self) -> Side:
        """The side to move."""

    @abstractmethod
    def position_text(self) -> str:
        """The position as text (FEN or the game's own): what ``Game.read_position`` reads."""

    @abstractmethod
    def key(self) -> Hashable:
        """The position's identity, for repetitions and for telling random openings apart: equal
        for equal positions, different for different ones (but for hash collisions, where a
        game uses a hash)."""

    @abstractmethod
    def outcome(self) -> Outcome:
        """Whether the game is over here and how, history rules included (called every ply)."""

    @abstractmethod
    def picture(self) -> BoardPicture:
        """The position as the board drawing shows it."""

    # -- moves -------------------------------------------------------------------------
    @abstractmethod
    def legal_moves(self) -> Sequence[M]:
        """Every legal move, in a fixed order; empty exactly when the game is over."""

    @abstractmethod
    def play(self, move: M) -> None:
        """Play ``move``, legal here."""

    @abstractmethod
    def undo(self) -> M:
        """Take back the last move played and return it."""

    @property
    @abstractmethod
    def history(self) -> Sequence[M]:
        """The moves played since the start of this state, oldest first."""

    @abstractmethod
    def copy(self) -> State[M]:
        """An independent state at the same position with the same history."""

    def forced_move(self) -> M | None:
        """The move the host plays without asking the player (Dipole's pass: its only move,
        and not a move of anyone's choosing), or None; the default: never."""
        return None

    # -- move text ---------------------------------------------------------------------
    @abstractmethod
    def move_text(self, move: M) -> str:
        """``move`` (legal here) as the protocol writes it: one token, no spaces."""

    def read_move(self, text: str) -> M:
        """The legal move whose protocol text is exactly ``text``; GameError otherwise."""
        if not isinstance(text, str):
            raise GameError(f"a move must be text, got {shown(text)}")
        legal = self.legal_moves()
        for move in legal:
            if self.move_text(move) == text:
                return move
        if not legal:
            raise GameError(f"{shown(text)}: the game is over")
        raise GameError(f"{shown(text)} is not a legal move here")

    def notation(self, move: M) -> str:
        """``move`` (legal here) as the game's records write it; the default: its protocol text."""
        return self.move_text(move)

    def read_notation(self, text: str) -> M:
        """The legal move that ``text`` names in the game's notation, read leniently where the
        game has common alternative spellings; GameError otherwise.  The default: read_move."""
        return self.read_move(text)

    # -- the move chooser ---------------------------------------------------------------
    @abstractmethod
    def describe_move(self, move: M) -> MoveChoice:
        """How ``move`` (legal here) is entered and shown on the board: its origin, its marker
        (None: a move with no place on the board, entered by a button), its chooser label; also
        what an arrow of an engine's line or a last-move highlight is drawn from."""

    def move_choices(self) -> list[MoveChoice]:
        """The moves a player may enter here, for the page (the forced move is the host's)."""
        forced = self.forced_move()
        return [self.describe_move(move) for move in self.legal_moves() if move != forced]

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.variant} {self.position_text()!r}>"


@dataclass(frozen=True)
class GameVariant:
    """A named rule set of a game (its board, its start): what a host asks for by name."""

    name: str
    description: str
    game: Game = field(compare=False, repr=False)

    def start(self) -> State[Any]:
        """The variant's start position."""
        return self.game.start(self.name)

    def read_position(self, text: str) -> State[Any]:
        """The position ``text`` of this variant; GameError (one line) when it is not one."""
        return self.game.read_position(self.name, text)

    @property
    def engine_variant(self) -> str | None:
        """The protocol's ``UCI_Variant`` value for this variant, or None: engines are told nothing."""
        return self.game.engine_variant(self.name)

    @property
    def engine_options(self) -> dict[str, str]:
        """Engine options a host sets for this variant besides ``UCI_Variant`` (Chess960's)."""
        return self.game.engine_options(self.name)

    def check_positions(self) -> list[CheckPosition]:
        return self.game.check_positions(self.name)


@dataclass(frozen=True)
class CheckPosition:
    """A position check-engine sends an engine, with what the rules know of it: ``start`` (a
    position text, or None for the variant's start) and the protocol ``moves`` played from it;
    ``legal``, the legal moves' protocol texts at the end (sorted; empty: the game is over, the
    right answer is ``bestmove (none)``); ``answers``, the only right answers (a forced move, a
    win in one), or empty when any legal move is right."""

    variant: str
    description: str
    start: str | None
    moves: tuple[str, ...]
    legal: tuple[str, ...]
    answers: tuple[str, ...] = ()


class Game(ABC):
    """A game the host can play, as its plug-in describes it (see the module docstring).

    A plug-in subclasses it, sets ``name`` (the registry's key, lower case), ``title`` and
    ``side_names`` (the first player's first), and declares an instance under the entry-point
    group ``gameplug.games`` (:mod:`gameplug.registry`).
    """

    name: ClassVar[str]
    title: ClassVar[str]
    side_names: ClassVar[tuple[str, str]] = ("White", "Black")

    @abstractmethod
    def variant_names(self) -> Sequence[tuple[str, str]]:
        """``(name, description)`` of each variant, the default first.  Variant names are
        unique among all installed games (a game of one rule set names it after itself)."""

    @abstractmethod
    def start(self, variant: str) -> State[Any]:
        """The start position of ``variant`` (one of this game's)."""

    @abstractmethod
    def read_position(self, variant: str, text: str) -> State[Any]:
        """The position ``text`` of ``variant``; GameError (one line) when it is not one."""

    @cached_property
    def variants(self) -> tuple[GameVariant, ...]:
        return tuple(GameVariant(name, description, self) for name, description in self.variant_names())

    def variant(self, name: str) -> GameVariant:
        """This game's variant ``name``; GameError naming the game's variants otherwise."""
        for variant in self.variants:
            if variant.name == name:
                return variant
        known = ", ".join(v.name for v in self.variants)
        raise GameError(f"{self.title} has no variant {shown(name)}; its variants: {known}")

    def side_name(self, side: Side) -> str:
        return self.side_names[0 if side is Side.FIRST else 1]

    def engine_variant(self, variant: str) -> str | None:
        """What the protocol tells an engine about ``variant``: the ``UCI_Variant`` value a host
        sets (when the engine offers the option), or None to tell it nothing.  An engine without
        the option is taken to play the game's default variant (its first).  Default: the
        variant's name."""
        return variant

    def engine_options(self, variant: str) -> dict[str, str]:
        """The engine options (name to value) a host sets for ``variant`` besides ``UCI_Variant``,
        for a variant its engines select some other way (``UCI_Chess960 true``).  Default: none."""
        return {}

    def opening_moves(self, state: State[Any]) -> Sequence[Any]:
        """The moves a random opening draws from at ``state`` (the game's filter of bad starts:
        moves that decide the game before it begins).  Default: every legal move."""
        return state.legal_moves()

    def good_opening(self, state: State[Any]) -> bool:
        """Whether a random opening may end at ``state``.  Default: the game goes on there."""
        return not state.outcome().over

    def check_positions(self, variant: str) -> list[CheckPosition]:
        """The positions check-engine tests an engine with in ``variant``.  Default: the start."""
        return [check_position(self, variant, "the start position")]

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


def winning_moves(state: State[Any]) -> list[str]:
    """The protocol texts of the legal moves that win at once for the side to move."""
    mover = state.turn
    wins = []
    for move in state.legal_moves():
        text = state.move_text(move)
        state.play(move)
        if state.outcome().winner is mover:
            wins.append(text)
        state.undo()
    return wins


def check_position(
    game: Game,
    variant: str,
    description: str,
    start: str | None = None,
    moves: Sequence[str] = (),
    answers: Sequence[str] = (),
) -> CheckPosition:
    """A :class:`CheckPosition` whose legal moves are worked out by ``game``'s rules (the moves
    and answers are checked by them: a GameError says which does not hold)."""
    state = game.start(variant) if start is None else game.read_position(variant, start)
    for text in moves:
        state.play(state.read_move(text))
    legal = tuple(sorted(state.move_text(move) for move in state.legal_moves()))
    wrong = [text for text in answers if text not in legal]
    if wrong:
        raise GameError(f"{description}: the answer {shown(wrong[0])} is not a legal move there")
    return CheckPosition(variant, description, start, tuple(moves), legal, tuple(answers))
