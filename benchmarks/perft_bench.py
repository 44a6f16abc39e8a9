"""Move-generation speed: perft from a start position, in nodes per second.

    python benchmarks/perft_bench.py                # perft 5 from the dipole start, best of 3
    python benchmarks/perft_bench.py --variant dipole-10 --depth 4 --runs 5

Perft counts leaves by bulk counting (``count_legal_moves`` at depth 1), as python-chess's
bulk perft does; nodes/s is leaf nodes over wall time, and over CPU time (which other processes
on a busy machine disturb less).  The best of several runs is the figure to compare; the
first line names the build that runs (mypyc or pure Python, see the README).
"""

from __future__ import annotations

import argparse
import platform
import time

from dipole_engine.rules import new_board, perft
from dipole_runtime.build import build_name


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="dipole")
    parser.add_argument("--depth", type=int, default=5)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    board = new_board(args.variant)
    best = best_cpu = float("inf")
    nodes = 0
    for _ in range(args.runs):
        start, cpu_start = time.perf_counter(), time.process_time()
        nodes = perft(board, args.depth)
        best = min(best, time.perf_counter() - start)
        best_cpu = min(best_cpu, time.process_time() - cpu_start)
    print(
        f"{platform.python_implementation()} {platform.python_version()} ({build_name()} build), "
        f"{args.variant} perft {args.depth}: {nodes} nodes in {best:.3f} s (best of {args.runs}) "
        f"= {nodes / best:,.0f} nodes/s; {best_cpu:.3f} s CPU = {nodes / best_cpu:,.0f} nodes/s"
    )


if __name__ == "__main__":
    main()
