"""Search speed: nodes per second over the bench positions (``dipole-engine bench``).

A node is every position the search visits: the root, every position reached by a move in
the main search, and every quiescence position (see dipole_engine/search.py).  Prints, per
repetition, the node count (always the same) with wall-clock and CPU-time rates; the best
repetition is the figure to quote, since other processes on the machine only slow runs down.

    python benchmarks/search_bench.py [--depth 6] [--repeat 3] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time

from dipole_engine.bench import BENCH_POSITIONS, DEFAULT_DEPTH
from dipole_engine.rules import new_board
from dipole_engine.search import Limits, Searcher
from dipole_engine.tt import TranspositionTable


def one_run(depth: int) -> tuple[int, float, float]:
    """(nodes, wall seconds, CPU seconds) of searching every bench position to ``depth``."""
    nodes = 0
    wall = cpu = 0.0
    for variant, fen in BENCH_POSITIONS:
        board = new_board(variant, fen)
        searcher = Searcher(TranspositionTable(16))
        wall_start, cpu_start = time.perf_counter(), time.process_time()
        nodes += searcher.search(board, Limits(depth=depth)).nodes
        wall += time.perf_counter() - wall_start
        cpu += time.process_time() - cpu_start
    return nodes, wall, cpu


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
    best_wall = best_cpu = 0
    for number in range(1, args.repeat + 1):
        nodes, wall, cpu = one_run(args.depth)
        wall_nps, cpu_nps = int(nodes / wall), int(nodes / cpu)
        best_wall, best_cpu = max(best_wall, wall_nps), max(best_cpu, cpu_nps)
        print(f"run {number}: {nodes} nodes, {wall:.2f} s wall ({wall_nps} nodes/s), {cpu:.2f} s CPU ({cpu_nps} nodes/s)")
    print(f"best: {best_wall} nodes/s wall-clock, {best_cpu} nodes/s CPU time (depth {args.depth})")


if __name__ == "__main__":
    main()
