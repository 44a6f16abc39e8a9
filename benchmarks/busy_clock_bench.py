"""Time forfeits on a busy machine: games at a fast clock, two at once, beside a CPU-bound process.

    python benchmarks/busy_clock_bench.py                          # 400 games a game, 1+0.01
    python benchmarks/busy_clock_bench.py --variant impasse --games 60
    python benchmarks/busy_clock_bench.py --engine "/tmp/venv-c/bin/dipole-engine" --hogs 2

Starts ``--hogs`` processes that spin on the processor until the end (one by default), then
has ``dipole-arbiter match`` play the engine (``--engine``, default this Python's
``dipole_engine``) against itself (or ``--opponent``) at ``--tc`` with ``--concurrency``
games at once, for each ``--variant``; reads the games back from the PGN and prints, per
variant, the games, the time forfeits (by the engine that lost them), and each engine's
lowest time left as a move arrived (from the move times the arbiter recorded).  The load average
before and after is printed too: on a machine shared with other work the figures say what
the engine met, not what it causes.  The exit status is 1 when any game was lost on time, 2
when the arbiter failed.
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from arbiter.play.timecontrol import TimeControl
from arbiter.records.pgn import read_pgn_file

HOG = "while True: pass"


@dataclass
class Tally:
    """One variant's games: how many, who lost on time, and each engine's least time left as a
    move arrived (ms)."""

    games: int = 0
    forfeits: dict[str, int] = field(default_factory=dict)
    lowest_ms: dict[str, float] = field(default_factory=dict)


def tally(pgn: Path, base_ms: float, increment_ms: float) -> Tally:
    """Count the games of ``pgn`` (a clock of ``base_ms`` plus ``increment_ms`` a move)."""
    result = Tally()
    for game in read_pgn_file(str(pgn)):
        record = game.to_record()
        result.games += 1
        if record.termination.name == "TIME_FORFEIT":
            loser = record.black if record.result == "1-0" else record.white
            result.forfeits[loser] = result.forfeits.get(loser, 0) + 1
        clocks = {record.white: base_ms, record.black: base_ms}
        black_first = record.fen is not None and record.fen.startswith("B")
        for ply, move in enumerate(record.moves):
            if move.time is None:  # a book move: no clock
                continue
            mover = record.white if (ply % 2 == 0) != black_first else record.black
            clocks[mover] -= move.time * 1000
            result.lowest_ms[mover] = min(result.lowest_ms.get(mover, base_ms), clocks[mover])
            clocks[mover] += increment_ms
    return result


def load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", default=f"{shlex.quote(sys.executable)} -m dipole_engine", help="engine command")
    parser.add_argument("--opponent", help="the other engine's command (default: the engine itself)")
    parser.add_argument("--variant", action="append", help="dipole, impasse, ... (repeat; default both games)")
    parser.add_argument("--games", type=int, default=400, help="games a variant (default 400)")
    parser.add_argument("--tc", default="1+0.01", help="time control (default 1+0.01)")
    parser.add_argument("--concurrency", type=int, default=2, help="games at once (default 2)")
    parser.add_argument("--hogs", type=int, default=1, help="CPU-bound processes beside the games (default 1)")
    parser.add_argument("--seed", type=int, default=48)
    args = parser.parse_args()
    time_control = TimeControl.parse(args.tc)
    if time_control is None or time_control.moves:
        parser.error(f"--tc {args.tc}: a sudden-death clock is needed, as 1+0.01")
    base_ms, increment_ms = time_control.base * 1000, time_control.increment * 1000
    engines = [["--engine", f"cmd={args.engine}", "name=engine"]]
    other = ["--engine", f"cmd={args.opponent or args.engine}", f"name={'opponent' if args.opponent else 'engine-2'}"]
    engines.append(other)
    hogs = [subprocess.Popen([sys.executable, "-c", HOG]) for _ in range(args.hogs)]
    forfeits = 0
    try:
        for variant in args.variant or ["dipole", "impasse"]:
            with tempfile.TemporaryDirectory() as folder:
                pgn = Path(folder) / "games.pgn"
                before = load()
                command = [
                    sys.executable, "-m", "arbiter", "match", *engines[0], *engines[1],
                    "--variant", variant, "--tc", args.tc, "--games", str(args.games),
                    "--concurrency", str(args.concurrency), "--openings", "balanced", "order=random",
                    "--seed", str(args.seed), "--pgn", str(pgn), "--recover",
                ]  # fmt: skip
                if subprocess.run(command, stdout=subprocess.DEVNULL).returncode != 0:
                    print(f"{variant}: the arbiter failed (its message is above)", file=sys.stderr)
                    return 2
                counted = tally(pgn, base_ms, increment_ms)
            forfeits += sum(counted.forfeits.values())
            lowest = ", ".join(f"{name} {ms:.0f} ms" for name, ms in sorted(counted.lowest_ms.items()))
            lost = ", ".join(f"{name} {count}" for name, count in sorted(counted.forfeits.items())) or "none"
            print(
                f"{variant}: {counted.games} games at {args.tc}, {args.concurrency} at once, {args.hogs} hog(s); "
                f"time forfeits: {lost}; least time left at a move: {lowest}; load average {before} -> {load()}"
            )
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    return 1 if forfeits else 0


if __name__ == "__main__":
    raise SystemExit(main())
