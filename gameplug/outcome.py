"""The sides of a two-player game and how a position stands: going on, won, or drawn.

:class:`Side` is ``FIRST`` (+1, PGN's White) or ``SECOND`` (-1, PGN's Black): the same numbers as
the Dipole rules' ``WHITE`` and ``BLACK``, so a side is also a key of anything the host keeps by
colour.  What a game calls its sides ("White", "Red") is the game's (:attr:`Game.side_names`).

:class:`Outcome` is what :meth:`State.outcome` answers after every ply: :data:`ONGOING`, or a win
for one side, or a draw, each with the reason in the game's own words ("Black has no checkers
left", "the board is full") and the PGN result it gives.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum, IntEnum


class Side(IntEnum):
    """One of the two players: ``FIRST`` moves first from a game's standard start."""

    FIRST = 1
    SECOND = -1

    @property
    def other(self) -> Side:
        return Side.SECOND if self is Side.FIRST else Side.FIRST


class OutcomeKind(Enum):
    ONGOING = "ongoing"
    WIN = "win"
    DRAW = "draw"


_RESULTS = {Side.FIRST: "1-0", Side.SECOND: "0-1"}


@dataclass(frozen=True)
class Outcome:
    """How a position stands.  Make one with :meth:`win` or :meth:`draw`, or use :data:`ONGOING`;
    ``reason`` is one line in the game's own words (empty while the game goes on)."""

    kind: OutcomeKind
    winner: Side | None = None
    reason: str = ""

    def __post_init__(self) -> None:
        if (self.kind is OutcomeKind.WIN) != (self.winner is not None):
            raise ValueError("an outcome has a winner exactly when it is a win")
        if (self.kind is OutcomeKind.ONGOING) != (not self.reason):
            raise ValueError("a finished game's outcome has a reason, an ongoing one none")
        if "\n" in self.reason:
            raise ValueError("an outcome's reason is one line")

    @classmethod
    def win(cls, winner: Side, reason: str) -> Outcome:
        return cls(OutcomeKind.WIN, winner, reason)

    @classmethod
    def draw(cls, reason: str) -> Outcome:
        return cls(OutcomeKind.DRAW, None, reason)

    @property
    def over(self) -> bool:
        return self.kind is not OutcomeKind.ONGOING

    @property
    def result(self) -> str:
        """The PGN result: ``1-0``, ``0-1``, ``1/2-1/2``, or ``*`` while the game goes on."""
        if self.winner is not None:
            return _RESULTS[self.winner]
        return "1/2-1/2" if self.kind is OutcomeKind.DRAW else "*"


ONGOING = Outcome(OutcomeKind.ONGOING)
"""The outcome of every position whose game goes on (one object: nothing is built per ply)."""
