"""The contract between the search and a game's knowledge: :class:`GameHooks`.

The search is game-agnostic.  Everything it needs to know about a game beyond the rules
(``legal_moves``/``push``/``pop``/``key``/``winner``/``turn``) comes from a :class:`GameHooks`
bound to one board, which each game's evaluation module builds
(:func:`dipole_engine.evaluate_dipole.bind_dipole`,
:func:`dipole_engine.evaluate_impasse.bind_impasse`) and :func:`dipole_engine.evaluate.hooks_for`
chooses by the board's ``game``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

Move = Any

NO_TACTICAL: Final[tuple[tuple[int, Move], ...]] = ()
"""The ``tactical`` of a ``quiesce`` that stands pat: one shared empty sequence, since most
quiescence nodes return it and a fresh list each time would cost an allocation."""


@dataclass(frozen=True)
class GameHooks:
    """The game knowledge the search uses, bound to one board (each reads its current position).

    * ``evaluate()``: the static score for the side to move, strictly inside +-MATE_BOUND.
    * ``quiesce(alpha=-INFINITE, beta=INFINITE)``: ``(stand_pat, tactical)`` in one go, for a
      quiescence node with the window ``(alpha, beta)``.  ``stand_pat`` is ``evaluate()`` when
      that lies inside the window; at or below ``alpha`` it may be any value from
      ``evaluate()`` up to ``alpha``, at or above ``beta`` any value from ``beta`` up to
      ``evaluate()`` (fail-soft bounds): terms that cannot move the score across the window
      are not worked out.  ``tactical`` lists the moves
      quiescence search plays as ``(gain, move)`` pairs, largest gain first; ``gain`` is an
      estimate (>= 0) of the score the move wins, used to skip hopeless ones (delta pruning).
      ``tactical`` is left empty (``NO_TACTICAL``), and not worked out, when ``stand_pat`` is ``beta`` or more:
      the search stands pat then (most quiescence nodes), so only the score is needed.
      For Dipole: the captures, each worth the captured stack less the checkers moved when
      the enemy can retake them on the landing square; captures that lose are left out.
      For Impasse: the moves that take a checker off (bear-offs, impasse removals).
    * ``tactical_moves()``: the legal tactical moves, the most promising (search earliest)
      first: Dipole's captures, biggest victim then smallest attacker first; Impasse's moves
      that take checkers off, biggest gain first.
    * ``quiet_moves()``: every other legal move, except a forced pass (``legal_moves()``
      names that).  The search asks for them only when no tactical move has refuted the
      position, so most nodes that fail high never generate them.
    * ``is_legal(move)``: whether a move (a killer from another position) is legal here.
    """

    evaluate: Callable[[], int]
    quiesce: Callable[[int, int], tuple[int, Sequence[tuple[int, Move]]]]
    tactical_moves: Callable[[], list[Move]]
    quiet_moves: Callable[[], list[Move]]
    is_legal: Callable[[Move], bool]
