"""gameplug: the one contract between a game and the host (arbiter, GUI, protocol host).

A game is a plug-in: a :class:`Game` (its variants, start positions, position text, what engines
are told, check-engine's positions, its random-opening filter) whose :class:`State` objects hold
a position and its history (legal moves, play and undo, the :class:`Outcome` with draws and the
game's own reasons, move text for the protocol and the records, forced moves, the board's
:class:`BoardPicture` and the move chooser's :class:`MoveChoice` data).  Games are found through
the entry-point group ``gameplug.games`` (:mod:`gameplug.registry`)::

    import gameplug

    state = gameplug.variant("dipole").start()
    while not state.outcome().over:
        state.play(state.legal_moves()[0])
    print(state.outcome().result, state.outcome().reason)   # 1-0 Black has no checkers left

Bad input anywhere is a :class:`GameError` whose message is one line.
"""

# First: the build's check (dipole_runtime) runs before any module of this package loads, since
# the compiled build compiles its outcomes with the rules.
import dipole_runtime  # noqa: F401

from .game import CheckPosition, Game, GameError, GameVariant, State, check_position, winning_moves
from .openings import RandomLine, random_line, random_openings
from .outcome import ONGOING, Outcome, OutcomeKind, Side
from .perft import divide, perft
from .picture import BoardPicture, Edge, Marker, MoveChoice, Piece, Square, choice_json, picture_json
from .registry import GROUP, all_variants, broken_plugins, game, installed_games, reload, variant

__all__ = [
    # the contract
    "Game",
    "State",
    "GameVariant",
    "CheckPosition",
    "check_position",
    "winning_moves",
    "Side",
    "Outcome",
    "OutcomeKind",
    "ONGOING",
    "BoardPicture",
    "Square",
    "Piece",
    "Marker",
    "Edge",
    "MoveChoice",
    "picture_json",
    "choice_json",
    # errors
    "GameError",
    # the installed games
    "GROUP",
    "installed_games",
    "broken_plugins",
    "all_variants",
    "game",
    "variant",
    "reload",
    # perft, random openings
    "perft",
    "divide",
    "RandomLine",
    "random_line",
    "random_openings",
]
