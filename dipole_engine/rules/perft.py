"""Perft: count the positions exactly ``depth`` plies ahead, the standard move-generator check.

Game-independent; it needs only ``legal_moves``, ``count_legal_moves``, ``push`` and ``pop``.
A finished game has no moves, so it adds nothing below itself; a forced pass is a ply.
"""

from __future__ import annotations

from typing import Any

from .base import Board


def perft(board: Board[Any], depth: int) -> int:
    """The number of move sequences of exactly ``depth`` plies from ``board``'s position."""
    if depth <= 0:
        return 1
    if depth == 1:
        return board.count_legal_moves()  # bulk counting: the leaves are not played
    nodes = 0
    for move in board.legal_moves():
        board.push(move)
        nodes += perft(board, depth - 1)
        board.pop()
    return nodes


def divide(board: Board[Any], depth: int) -> list[tuple[Any, int]]:
    """``perft`` split by root move: ``(move, count)`` for each legal move, in move order."""
    results = []
    for move in board.legal_moves():
        board.push(move)
        results.append((move, perft(board, depth - 1)))
        board.pop()
    return results
