#!/usr/bin/env python3
"""A complete engine in one page: protocol.loop does the protocol, dipole_engine.rules the rules.

Iterative-deepening alpha-beta over material, for every Dipole and Impasse variant.  Run it:
    dipole-arbiter match --engine cmd="python3 examples/minimal_engine.py" --engine cmd=dipole-engine --each depth=2"""

from typing import Any

from dipole_engine.rules import Board, all_variants, new_board
from protocol.loop import SearchJob, serve

MATE = 10_000


def evaluate(board: Board[Any]) -> int:
    """Material from the mover's side: checkers are wealth in Dipole and a burden in Impasse."""
    me, them = board.checkers(board.turn), board.checkers(-board.turn)
    return them - me if board.empty_side_wins else me - them


def negamax(board: Board[Any], depth: int, alpha: int, beta: int, job: SearchJob[Board[Any]]) -> int:
    winner = board.winner()
    if winner is not None:  # the game is over: the side to move has won or lost
        return MATE if winner == board.turn else -MATE
    if depth == 0 or job.stopped():
        return evaluate(board)
    for move in board.legal_moves():
        board.push(move)
        score = -negamax(board, depth - 1, -beta, -alpha, job)
        board.pop()
        if score >= beta:
            return score
        alpha = max(alpha, score)
    return alpha


def search(job: SearchJob[Board[Any]]) -> str | None:
    board, best = job.position, None
    moves = board.legal_moves()
    for depth in range(1, (job.limit.depth or 64) + 1):
        alpha, choice = -MATE - 1, None
        for move in moves:
            board.push(move)
            score = -negamax(board, depth - 1, -MATE - 1, -alpha, job)
            board.pop()
            if score > alpha:
                alpha, choice = score, move
        if choice is None or (job.stopped() and best is not None):
            break  # no moves (the game is over), or an interrupted iteration: keep the last one
        best = choice
        moves.insert(0, moves.pop(moves.index(choice)))  # search the best move first next time
        job.info(depth=depth, score_cp=alpha, pv=(str(best),))
    return None if best is None else str(best)


if __name__ == "__main__":
    variants, turn = [variant.name for variant in all_variants()], lambda board: board.turn > 0
    raise SystemExit(
        serve(search, name="Minimal Engine", variants=variants, new_position=new_board, play=Board.push_text, turn=turn)
    )
