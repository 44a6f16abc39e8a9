"""Game knowledge for the search, per game: :func:`hooks_for` binds a board to its game's
:class:`~dipole_engine.hooks.GameHooks`::

    hooks = hooks_for(board)        # dispatches on board.game
    hooks.evaluate()                # static score of board's current position

Dipole's evaluation is in :mod:`dipole_engine.evaluate_dipole`, Impasse's in
:mod:`dipole_engine.evaluate_impasse`; both build their hooks from :mod:`dipole_engine.hooks`
and know nothing of this module.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .evaluate_dipole import DIPOLE_WEIGHTS, DipoleWeights, bind_dipole
from .evaluate_impasse import IMPASSE_ENDGAME_WEIGHTS, IMPASSE_WEIGHTS, ImpasseWeights, bind_impasse, in_endgame
from .hooks import GameHooks
from .rules import Board, DipoleBoard, ImpasseBoard

Weights = DipoleWeights | ImpasseWeights
"""An evaluation's weights: each game has its own kind."""

_BINDERS: dict[str, Callable[..., GameHooks]] = {DipoleBoard.game: bind_dipole, ImpasseBoard.game: bind_impasse}

PHASES = ("middle", "end")
"""The phases a game's weights may differ by: before the endgame, and in it.  Dipole has one
set of weights for both; Impasse has two (see :mod:`dipole_engine.evaluate_impasse`)."""

_WEIGHTS: dict[tuple[str, str], Weights] = {
    (DipoleBoard.game, "middle"): DIPOLE_WEIGHTS,
    (ImpasseBoard.game, "middle"): IMPASSE_WEIGHTS,
    (ImpasseBoard.game, "end"): IMPASSE_ENDGAME_WEIGHTS,
}


def evaluates(game: str) -> bool:
    """Whether an evaluation is known for ``game`` (a :attr:`Variant.game`)."""
    return game in _BINDERS


def engine_weights(game: str, phase: str = "middle") -> Weights:
    """The weights the engine plays ``game`` with in ``phase`` (one of :data:`PHASES`); raises
    ValueError for an unknown game, or a phase that has no weights of its own in it."""
    try:
        return _WEIGHTS[game, phase]
    except KeyError:
        if not evaluates(game):
            raise ValueError(f"no evaluation is known for the game {game!r}") from None
        raise ValueError(f"the {game} evaluation has no weights of its own for the phase {phase!r}") from None


def phases(game: str) -> tuple[str, ...]:
    """The phases (of :data:`PHASES`) that have weights of their own in ``game``'s evaluation."""
    return tuple(phase for phase in PHASES if (game, phase) in _WEIGHTS)


def phase_of(board: Board[Any]) -> str:
    """The phase (see :data:`PHASES`) whose weights evaluate ``board``."""
    if isinstance(board, ImpasseBoard) and in_endgame(board):
        return "end"
    return "middle"


def hooks_for(board: Board[Any], weights: Weights | None = None) -> GameHooks:
    """The hooks for ``board``'s game, bound to ``board``, with the engine's weights (each
    phase's) or ``weights`` in every phase (of that game's kind: a tuner tries others)."""
    default = engine_weights(board.game)
    if weights is None:
        return _BINDERS[board.game](board)
    if type(weights) is not type(default):
        raise ValueError(f"{type(weights).__name__} are not weights for the game {board.game!r}")
    return _BINDERS[board.game](board, weights)


def evaluate(board: Board[Any], weights: Weights | None = None) -> int:
    """The static score of ``board`` for the side to move (convenience; searches bind once)."""
    return hooks_for(board, weights).evaluate()
