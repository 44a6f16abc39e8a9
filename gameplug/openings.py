"""Random openings of any game: ``plies`` random moves from a variant's start, reproducible by seed.

Each ply is drawn with ``rng.choice`` from the game's :meth:`~gameplug.game.Game.opening_moves`
(its filter of moves that would decide the game before it begins) and a line is kept only where
:meth:`~gameplug.game.Game.good_opening` accepts its last position, so one ``random.Random(seed)``
always gives the same openings.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from .game import GameError, GameVariant, State

ATTEMPTS = 100  # lines drawn for one opening before giving up (or accepting a repeated one)


@dataclass(frozen=True)
class RandomLine:
    """A line drawn from a variant's start: its moves' protocol texts and the state they reach."""

    moves: tuple[str, ...]
    state: State[Any]


def random_line(variant: GameVariant, plies: int, rng: random.Random) -> RandomLine | None:
    """``plies`` moves drawn from ``variant``'s start, or None when the game's filter refuses
    where they end (the game ended on the way, or the game says it is a bad start)."""
    game = variant.game
    state = variant.start()
    texts = []
    for _ in range(plies):
        move = rng.choice(game.opening_moves(state))
        texts.append(state.move_text(move))
        state.play(move)
        if state.outcome().over:
            break
    return RandomLine(tuple(texts), state) if game.good_opening(state) else None


def random_openings(variant: GameVariant, plies: int, count: int, seed: int) -> list[RandomLine]:
    """``count`` random lines of ``plies`` moves each, distinct positions where the variant allows.

    A refused line is drawn again; a repeated final position is drawn again a bounded number of
    times, then accepted.  Once one opening has needed every attempt, the distinct positions are
    taken to be used up (short openings of a small variant) and later repeats are accepted at
    once.  GameError when no acceptable line turns up in :data:`ATTEMPTS` draws.
    """
    rng = random.Random(seed)
    openings: list[RandomLine] = []
    seen: set[object] = set()
    exhausted = False
    for _ in range(count):
        for attempt in range(ATTEMPTS):
            line = random_line(variant, plies, rng)
            if line is None:
                continue
            if line.state.key() in seen and not exhausted:
                exhausted = attempt == ATTEMPTS - 1
                if not exhausted:
                    continue
            break
        else:
            raise GameError(f"cannot draw a {plies}-ply opening in {variant.name} that the game accepts")
        seen.add(line.state.key())
        openings.append(line)
    return openings
