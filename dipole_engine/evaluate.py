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
from .evaluate_impasse import IMPASSE_WEIGHTS, ImpasseWeights, bind_impasse
from .hooks import GameHooks
from .rules import Board, DipoleBoard, ImpasseBoard

Weights = DipoleWeights | ImpasseWeights
"""An evaluation's weights: each game has its own kind."""

_BINDERS: dict[str, Callable[[Any, Any], GameHooks]] = {DipoleBoard.game: bind_dipole, ImpasseBoard.game: bind_impasse}
_WEIGHTS: dict[str, Weights] = {DipoleBoard.game: DIPOLE_WEIGHTS, ImpasseBoard.game: IMPASSE_WEIGHTS}


def evaluates(game: str) -> bool:
    """Whether an evaluation is known for ``game`` (a :attr:`Variant.game`)."""
    return game in _BINDERS


def engine_weights(game: str) -> Weights:
    """The weights the engine plays ``game`` with; raises ValueError for an unknown game."""
    try:
        return _WEIGHTS[game]
    except KeyError:
        raise ValueError(f"no evaluation is known for the game {game!r}") from None


def hooks_for(board: Board[Any], weights: Weights | None = None) -> GameHooks:
    """The hooks for ``board``'s game, bound to ``board``, with the engine's weights or
    ``weights`` (of that game's kind: a tuner tries others)."""
    default = engine_weights(board.game)
    if weights is None:
        weights = default
    elif type(weights) is not type(default):
        raise ValueError(f"{type(weights).__name__} are not weights for the game {board.game!r}")
    return _BINDERS[board.game](board, weights)


def evaluate(board: Board[Any], weights: Weights | None = None) -> int:
    """The static score of ``board`` for the side to move (convenience; searches bind once)."""
    return hooks_for(board, weights).evaluate()
