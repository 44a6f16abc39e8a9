"""Move-generation speed: perft from a start position, in nodes per second.

    python benchmarks/perft_bench.py                # perft 5 from the dipole start, best of 3
    python benchmarks/perft_bench.py --variant dipole-10 --depth 4 --runs 5

Perft counts leaves by bulk counting (``count_legal_moves`` at depth 1), as python-chess's
bulk perft does; nodes/s is leaf nodes over wall time.  Run it on an idle machine: the best of
several runs is the figure to compare.
"""

from __future__ import annotations

import argparse
import platform
import time

from dipole_engine.rules import new_board, perft


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="dipole")
    parser.add_argument("--depth", type=int, default=5)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    board = new_board(args.variant)
    best = float("inf")
    nodes = 0
    for _ in range(args.runs):
        start = time.perf_counter()
        nodes = perft(board, args.depth)
        best = min(best, time.perf_counter() - start)
    print(f"{platform.python_implementation()} {platform.python_version()}, "
          f"{args.variant} perft {args.depth}: {nodes} nodes in {best:.3f} s (best of {args.runs}) "
          f"= {nodes / best:,.0f} nodes/s")


if __name__ == "__main__":
    main()
