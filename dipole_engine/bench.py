"""The search benchmark: fixed positions searched to a fixed depth (``dipole-engine bench``).

Like Stockfish's ``bench``, its total node count is a signature of the search: every run on
every machine gives the same number (each position gets a fresh transposition table and no
time limit), so a change to the search that alters the count changes what the engine does.
The positions are each variant's start and middlegames from engine games, in both games.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from protocol import Limit

from .rules import new_board
from .search import Searcher, mate_moves
from .tt import TranspositionTable

DEFAULT_DEPTH = 6
BENCH_HASH_MB = 16

BENCH_POSITIONS: tuple[tuple[str, str | None], ...] = (
    ("dipole", None),
    ("dipole-s", None),
    ("dipole-10", None),
    ("dipole-10s", None),
    ("dipole", "W:W2c1,3c3,2c5,5h6:B1g5,10d8"),
    ("dipole", "W:W5c3,2f6,1h6,2h8:B1c5,4b6,5d8"),
    ("dipole", "B:W3c3,2f8,5h8:B1g1,2f2,2b6,5d8"),
    ("dipole-s", "W:W2e1,5g3,3b4,2c7:B2f2,5d6,2f6,3d8"),
    ("dipole-s", "W:W1g3,4h4,2e5,2c7,3e7:B5f2,3a5,4d6"),
    ("dipole-10s", "W:W9e1,1c3,2e3,2g3,5b4,1f8:B2f2,2h6,16f10"),
    ("impasse", None),
    ("impasse-singles", None),
    ("impasse", "W:W2h2,2c3,2g7,2b8,2f8:B2e1,2g1,1b2,2e5,2e7,1d8"),
    ("impasse-singles", "W:W1e3,1g3,1b4,1d4,1a5,1c5,2a7,2d8:B2g1,2a3,1h4,1e5,1g5,1b6,1d6,1f6,1h6,1g7"),
)


@dataclass(frozen=True)
class BenchResult:
    nodes: int
    seconds: float

    @property
    def nps(self) -> int:
        return int(self.nodes / self.seconds) if self.seconds > 0 else 0


def run_bench(depth: int = DEFAULT_DEPTH, out: Callable[[str], None] = print) -> BenchResult:
    """Search every bench position to ``depth``, report one line each through ``out`` and
    return the totals (time is search time only, setup excluded)."""
    total_nodes = 0
    total_seconds = 0.0
    for number, (variant, fen) in enumerate(BENCH_POSITIONS, 1):
        board = new_board(variant, fen)
        searcher = Searcher(TranspositionTable(BENCH_HASH_MB))
        started = time.perf_counter()
        result = searcher.search(board, Limit(depth=depth))
        seconds = time.perf_counter() - started
        total_nodes += result.nodes
        total_seconds += seconds
        mate = mate_moves(result.score)
        score = f"mate {mate}" if mate is not None else f"cp {result.score}"
        out(
            f"Position {number}/{len(BENCH_POSITIONS)} {variant} {board.fen()}: bestmove {result.best_move} "
            f"score {score} depth {result.depth} nodes {result.nodes}"
        )
    bench = BenchResult(total_nodes, total_seconds)
    out(f"Total time (ms): {int(total_seconds * 1000)}")
    out(f"Nodes searched: {bench.nodes}")
    out(f"Nodes/second: {bench.nps}")
    return bench
