"""Search speed: nodes per second over the bench positions (``dipole-engine bench``).

A node is every position the search visits: the root, every position reached by a move in
the main search, and every quiescence position (see dipole_engine/search.py).  Prints, per
repetition and per game (Dipole, Impasse), the node count (always the same) with wall-clock
and CPU-time rates; the best repetition is the figure to quote, since other processes on the
machine only slow runs down.

    python benchmarks/search_bench.py [--depth 6] [--repeat 3] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time

from dipole_engine.bench import BENCH_POSITIONS, DEFAULT_DEPTH
from dipole_engine.rules import new_board
from dipole_engine.search import Searcher
from dipole_engine.tt import TranspositionTable
from dipole_runtime.build import build_name
from protocol import Limit


def one_run(depth: int) -> dict[str, tuple[int, float, float]]:
    """Per game: (nodes, wall seconds, CPU seconds) of searching its bench positions to ``depth``."""
    totals: dict[str, tuple[int, float, float]] = {}
    for variant, fen in BENCH_POSITIONS:
        board = new_board(variant, fen)
        searcher = Searcher(TranspositionTable(16))
        wall_start, cpu_start = time.perf_counter(), time.process_time()
        nodes = searcher.search(board, Limit(depth=depth)).nodes
        wall = time.perf_counter() - wall_start
        cpu = time.process_time() - cpu_start
        before = totals.get(board.game, (0, 0.0, 0.0))
        totals[board.game] = (before[0] + nodes, before[1] + wall, before[2] + cpu)
    return totals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--depth", type=int, default=DEFAULT_DEPTH)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--profile", action="store_true", help="run once under cProfile and print the hot spots")
    args = parser.parse_args()
    if args.profile:
        profiler = cProfile.Profile()
        profiler.runcall(one_run, args.depth)
        pstats.Stats(profiler).sort_stats("tottime").print_stats(15)
        return
    best: dict[str, tuple[int, int]] = {}
    for number in range(1, args.repeat + 1):
        for game, (nodes, wall, cpu) in one_run(args.depth).items():
            wall_nps, cpu_nps = int(nodes / wall), int(nodes / cpu)
            best_wall, best_cpu = best.get(game, (0, 0))
            best[game] = (max(best_wall, wall_nps), max(best_cpu, cpu_nps))
            print(
                f"run {number} {game}: {nodes} nodes, {wall:.2f} s wall ({wall_nps} nodes/s), "
                f"{cpu:.2f} s CPU ({cpu_nps} nodes/s)"
            )
    for game, (best_wall, best_cpu) in best.items():
        print(
            f"best {game}: {best_wall} nodes/s wall-clock, {best_cpu} nodes/s CPU time (depth {args.depth}, "
            f"{build_name()} build)"
        )


if __name__ == "__main__":
    main()
