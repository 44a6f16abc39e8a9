"""A Connect Four engine on ``protocol.loop``: iterative-deepening alpha-beta over the plug-in's
own rules, centre columns first, scoring the open lines of four.

The loop does the protocol (protocol/SPEC.md: handshake, ``UCI_Variant``, ``position``, the clock,
``stop``, ``bestmove``, ``query``, ``go perft``, error lines) and :func:`gameplug.serve.serve_game`
hands it the game's positions and moves through the gameplug interface: the engine is its search.
Run it as ``connect-four-engine``, or ``python -m connect_four_plug.engine``.
"""

from __future__ import annotations

from gameplug.serve import serve_game
from protocol.loop import SearchJob

from .rules import DIRECTIONS, EMPTY, GAME, HEIGHT, WIDTH, ConnectFourState

WIN = 100_000  # a win now; a win found n plies ahead scores WIN - n
ORDER = sorted(range(WIDTH), key=lambda column: abs(2 * column - (WIDTH - 1)))  # the centre first
WINDOWS = [  # every line of four cells, as (column, row) pairs
    [(c + i * dc, r + i * dr) for i in range(4)]
    for c in range(WIDTH)
    for r in range(HEIGHT)
    for dc, dr in DIRECTIONS
    if 0 <= c + 3 * dc < WIDTH and 0 <= r + 3 * dr < HEIGHT
]
LINE_VALUE = (0, 1, 8, 60)  # a line holding 0-3 discs of one side and none of the other


def evaluate(state: ConnectFourState) -> int:
    """The open lines of the side to move less those of the other (no line is yet four)."""
    cells = state.cells
    score = 0
    for window in WINDOWS:
        mine = theirs = 0
        for c, r in window:
            cell = cells[c][r]
            if cell == state.turn:
                mine += 1
            elif cell != EMPTY:
                theirs += 1
        if not theirs:
            score += LINE_VALUE[mine]
        elif not mine:
            score -= LINE_VALUE[theirs]
    return score


def negamax(
    state: ConnectFourState, depth: int, ply: int, alpha: int, beta: int, job: SearchJob[ConnectFourState]
) -> tuple[int, list[int]]:
    """The score of ``state`` for the side to move, searched ``depth`` plies, and its line."""
    outcome = state.outcome()
    if outcome.over:  # the side that just moved won, or the board is full
        return (0 if outcome.winner is None else -(WIN - ply)), []
    if depth == 0 or job.stopped():
        return evaluate(state), []
    best: list[int] = []
    for move in sorted(state.legal_moves(), key=ORDER.index):
        state.play(move)
        score, line = negamax(state, depth - 1, ply + 1, -beta, -alpha, job)
        state.undo()
        score = -score
        if score > alpha or not best:
            alpha, best = max(alpha, score), [move, *line]
        if alpha >= beta:
            break
    return alpha, best


def search(job: SearchJob[ConnectFourState]) -> str | None:
    state = job.position.copy()  # the loop may read its position during the search
    if not state.legal_moves():
        return None
    best = [min(state.legal_moves(), key=ORDER.index)]  # the centre-most column, if no iteration ends
    for depth in range(1, min(job.limit.depth or 64, WIDTH * HEIGHT) + 1):
        score, line = negamax(state, depth, 0, -WIN - 1, WIN + 1, job)
        if not line or (job.stopped() and depth > 1):
            break  # stopped at once, or an interrupted iteration: keep the last whole one
        best = line
        mate = (WIN - abs(score) + 1) // 2 if abs(score) > WIN - 100 else None
        job.info(
            depth=depth,
            score_cp=None if mate is not None else score,
            score_mate=None if mate is None else (mate if score > 0 else -mate),
            nodes=job.nodes,
            pv=tuple(state.move_text(move) for move in line),  # (a column's letter, wherever it is played)
        )
        if mate is not None:
            break
    return state.move_text(best[0])


def main() -> int:
    return serve_game(GAME, search, name="Connect Four example", author="the dipole-engine project")


if __name__ == "__main__":
    raise SystemExit(main())
