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

from .evaluate_dipole import bind_dipole
from .evaluate_impasse import bind_impasse
from .hooks import GameHooks
from .rules import Board, DipoleBoard, ImpasseBoard

_BINDERS: dict[str, Callable[[Any], GameHooks]] = {DipoleBoard.game: bind_dipole, ImpasseBoard.game: bind_impasse}


def evaluates(game: str) -> bool:
    """Whether an evaluation is known for ``game`` (a :attr:`Variant.game`)."""
    return game in _BINDERS


def hooks_for(board: Board[Any]) -> GameHooks:
    """The hooks for ``board``'s game, bound to ``board``."""
    try:
        binder = _BINDERS[board.game]
    except KeyError:
        raise ValueError(f"no evaluation is known for the game {board.game!r}") from None
    return binder(board)


def evaluate(board: Board[Any]) -> int:
    """The static score of ``board`` for the side to move (convenience; searches bind once)."""
    return hooks_for(board).evaluate()
