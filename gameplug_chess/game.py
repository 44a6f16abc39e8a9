"""Chess and Chess960 behind gameplug's interface: :class:`ChessGame` and :data:`GAME`.

The variants ``chess`` and ``chess960``; their positions (:class:`~gameplug_chess.state.ChessState`)
live in :mod:`gameplug_chess.state`.  Engines are told nothing for chess (plain UCI); Chess960
needs the UCI option ``UCI_Chess960 true``, which gameplug's ``engine_variant`` (a
``UCI_Variant`` value) cannot say: :meth:`ChessGame.engine_options` names it for the host.
"""

# python-chess is imported (by .state) only when a chess position is made: its import costs
# ~50 ms that every host command would otherwise pay, since the registry imports every plug-in
# to list the variants.

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from gameplug import CheckPosition, Game, State, check_position, winning_moves

if TYPE_CHECKING:
    from .state import ChessState

STANDARD = "chess"
CHESS960 = "chess960"


class ChessGame(Game):
    """Chess (``chess``) and Chess960 (``chess960``, started from chess's own array unless a
    position is read: :func:`~gameplug_chess.state.chess960_start` gives the others)."""

    name = "chess"
    title = "Chess"

    def variant_names(self) -> Sequence[tuple[str, str]]:
        return [
            (STANDARD, "Chess: the standard rules and start (FEN; UCI moves; SAN records)"),
            (CHESS960, "Chess960 (Fischer random chess): X-FEN, castling written king-takes-rook"),
        ]

    def _mode(self, variant: str) -> bool:
        """Whether ``variant`` is Chess960; GameError when it is not one of chess's."""
        return self.variant(variant).name == CHESS960

    def start(self, variant: str) -> ChessState:
        from .state import start_position

        return start_position(self.variant(variant).name)

    def read_position(self, variant: str, text: str) -> ChessState:
        from .state import read_fen

        return read_fen(self.variant(variant).name, text)

    def engine_variant(self, variant: str) -> str | None:
        """None: a UCI engine plays chess unless told otherwise, and Chess960 is an option of its
        own (:meth:`engine_options`), not a ``UCI_Variant`` value."""
        self._mode(variant)
        return None

    def engine_options(self, variant: str) -> dict[str, str]:
        """The UCI options a host sets for ``variant``: ``UCI_Chess960 true`` for Chess960."""
        return {"UCI_Chess960": "true"} if self._mode(variant) else {}

    def good_opening(self, state: State[Any]) -> bool:
        """A random opening may end where the game goes on and material is level (a line that
        hangs a piece is not a start)."""
        from .state import ChessState

        if state.outcome().over or not isinstance(state, ChessState):
            return False
        white, black = state.material()
        return white == black

    def check_positions(self, variant: str) -> list[CheckPosition]:
        if self._mode(variant):
            castling = ("castling king-takes-rook", "r3k2r/8/8/8/8/8/8/R3K2R w HAha - 0 1")
            near = ("castling onto the rook's square", "1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w GBgb - 0 1")
        else:
            castling = ("castling both ways", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
            near = ("castling queenside only", "r3k2r/8/8/8/8/8/8/R3K1NR w Qkq - 0 1")
        mate = "7k/8/5K2/6Q1/8/8/8/8 w - - 0 1"  # Qg6 stalemates; Qg7, Qh4-h6 mate
        promotion = "7k/4P3/6K1/8/8/8/8/8 w - - 0 1"  # e8=Q and e8=R mate
        mated = "7k/6Q1/5K2/8/8/8/8/8 b - - 0 1"
        return [
            check_position(self, variant, "the start position"),
            check_position(self, variant, "a mate in one beside a stalemate", mate, answers=self._wins(variant, mate)),
            check_position(self, variant, "a promotion that mates", promotion, answers=self._wins(variant, promotion)),
            check_position(self, variant, castling[0], castling[1]),
            check_position(self, variant, near[0], near[1]),
            check_position(self, variant, "a move after castling", castling[1], [self._castle(variant, castling[1])]),
            check_position(self, variant, "a finished game (checkmate)", mated),
        ]

    def _wins(self, variant: str, fen: str) -> list[str]:
        return winning_moves(self.read_position(variant, fen))

    def _castle(self, variant: str, fen: str) -> str:
        """The protocol text of White's kingside castling at ``fen``."""
        state = self.read_position(variant, fen)
        return state.move_text(state.board.parse_san("O-O"))


GAME = ChessGame()
