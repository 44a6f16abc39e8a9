"""Zobrist keys shared by every game: one random 64-bit number per (square, signed height).

``table[square][height]`` is indexed directly by the signed height: a list of ``2n+1``
entries holds the positive heights 1..n at indexes 1..n and the negative heights -1..-n at
Python's negative indexes (the list's tail), so no offset is needed.  Height 0 (an empty
square) has key 0, so a position's key is the XOR over its occupied squares only, plus
``BLACK_TO_MOVE`` when Black moves.
"""

from __future__ import annotations

import random
from functools import cache

BLACK_TO_MOVE = 0x9E3779B97F4A7C15

_SEED = 20070901


@cache
def zobrist_table(size: int, max_height: int) -> tuple[tuple[int, ...], ...]:
    """Keys for a board of ``size`` squares whose stacks hold at most ``max_height`` checkers.

    A fixed seed makes keys, and so everything hashed with them, identical on every run.
    """
    rng = random.Random(_SEED * 1000 + size * 100 + max_height)
    table = []
    for _square in range(size):
        keys = [rng.getrandbits(64) for _ in range(2 * max_height + 1)]
        keys[0] = 0
        table.append(tuple(keys))
    return tuple(table)
