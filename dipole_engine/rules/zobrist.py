"""Zobrist keys shared by every game: one random 60-bit number per (square, signed height).

Sixty bits keep every key, and the XOR of any of them, a machine integer in the compiled
build (mypyc's short ints hold 62 bits; wider ones take its slow, allocating path) and two
30-bit digits in CPython, while two positions in one search still share a key about never.

``table[square][height]`` is indexed directly by the signed height: a list of ``2n+1``
entries holds the positive heights 1..n at indexes 1..n and the negative heights -1..-n at
Python's negative indexes (the list's tail), so no offset is needed.  Height 0 (an empty
square) has key 0, so a position's key is the XOR over its occupied squares only, plus
``BLACK_TO_MOVE`` when Black moves.
"""

from __future__ import annotations

import random
from functools import cache
from typing import Final

KEY_BITS: Final = 60
BLACK_TO_MOVE: Final = 0x9E3779B97F4A7C1

_SEED: Final = 20070901


@cache
def zobrist_table(size: int, max_height: int) -> tuple[tuple[int, ...], ...]:
    """Keys for a board of ``size`` squares whose stacks hold at most ``max_height`` checkers.

    A fixed seed makes keys, and so everything hashed with them, identical on every run.
    """
    rng = random.Random(_SEED * 1000 + size * 100 + max_height)
    table = []
    for _square in range(size):
        keys = [rng.getrandbits(KEY_BITS) for _ in range(2 * max_height + 1)]
        keys[0] = 0
        table.append(tuple(keys))
    return tuple(table)
