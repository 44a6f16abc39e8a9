"""Perft over the game interface: the move sequences ``depth`` plies deep, the move generator's
check (a finished game adds nothing below itself; a forced move is a ply like any other)."""

from __future__ import annotations

from typing import Any

from .game import State


def perft(state: State[Any], depth: int) -> int:
    """The number of move sequences of exactly ``depth`` plies from ``state`` (left as it was)."""
    if depth <= 0:
        return 1
    return sum(count for _, count in divide(state, depth))


def divide(state: State[Any], depth: int) -> list[tuple[str, int]]:
    """``perft`` split by first move: ``(protocol text, count)`` for each legal move, in order."""
    counts = []
    for move in state.legal_moves():
        text = state.move_text(move)
        state.play(move)
        counts.append((text, perft(state, depth - 1)))
        state.undo()
    return counts
