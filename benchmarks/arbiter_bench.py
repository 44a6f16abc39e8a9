"""What the arbiter itself costs per move, with two engines that answer at once.

    python benchmarks/arbiter_bench.py               # 20 games of the toy engine at depth 1
    python benchmarks/arbiter_bench.py --games 50
    python benchmarks/arbiter_bench.py --live        # publishing the live file, as a tournament does
    python benchmarks/arbiter_bench.py --live --live-pgn   # and a live PGN (--live-pgn FILE)
    python benchmarks/arbiter_bench.py --compare --games 100   # without and with the live file, alternately

Three figures:

- plies/s: whole games refereed by ``play_game`` (engines already running), wall time;
- arbiter cost per move: wall time of those games minus the time the engines had the move
  (the arbiter's own clock, ``go`` written to ``bestmove`` read), per engine move; this is
  everything the arbiter does between moves: checking the move with the rules, the clock,
  the record, writing ``position``/``go``, plus each game's ``ucinewgame``/``isready``;
- added latency per move: the arbiter's wall time per engine move minus that of a bare
  baseline that replays the same moves to the same engine over raw pipes (one
  ``position``+``go`` write, read to ``bestmove``), with no client, no rules and no clocks.

With ``--live`` (and ``--live-pgn``) the games are published as they are played
(:mod:`arbiter.live.livefiles`, files in a temporary directory), so the difference in the arbiter's cost
per move is what publishing costs.  ``--compare`` measures that difference on a shared,
noisy machine: rounds of ``--games`` games alternately without and with publishing (the live
file, plus the live PGN with ``--live-pgn``), then the median cost per move of each.

The engine is tests/engines/toy_engine.py (a random legal move, seeded): it answers at once.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arbiter.live.livefiles import LiveFiles  # noqa: E402
from arbiter.openings.positions import generate_openings  # noqa: E402
from arbiter.play.engines import EngineSpec  # noqa: E402
from arbiter.play.referee import EngineSlot, GameJob, RefereeSettings, play_game  # noqa: E402
from arbiter.play.timecontrol import SearchLimits  # noqa: E402
from arbiter.records.game import GameRecord, MoveSource  # noqa: E402

ENGINE = (sys.executable, str(ROOT / "tests" / "engines" / "toy_engine.py"), "--seed", "1")


def referee(games: int, variant: str, live: LiveFiles | None = None) -> tuple[list[GameRecord], float]:
    """Play ``games`` games (pairs from generated openings); their records and the wall time."""
    settings = RefereeSettings()
    limits = SearchLimits(depth=1)
    first = EngineSpec("first", ENGINE, limits)
    second = EngineSpec("second", ENGINE, limits)
    slots = {spec.name: EngineSlot(spec, variant, settings) for spec in (first, second)}
    openings = generate_openings(variant, 2, (games + 1) // 2, seed=1)
    jobs = [
        GameJob(i + 1, *((first, second) if i % 2 == 0 else (second, first)), openings[i // 2], variant)
        for i in range(games)
    ]
    for slot in slots.values():  # start outside the timing: process start-up is not per move
        slot.start()
    records = []
    started = time.perf_counter()
    for job in jobs:
        records.append(play_game(job, slots[job.white.name], slots[job.black.name], settings, live=live))
        if live is not None:
            live.game_over(job.number)
    wall = time.perf_counter() - started
    for slot in slots.values():
        slot.quit()
    return records, wall


def baseline(records: list[GameRecord], variant: str) -> float:
    """Wall time to feed the same engine moves to one engine process over bare pipes."""
    process = subprocess.Popen(ENGINE, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(f"uci\nsetoption name UCI_Variant value {variant}\nisready\n")
    while process.stdout.readline().strip() != "readyok":
        pass
    started = time.perf_counter()
    for record in records:
        moves: list[str] = []
        for move in record.moves:
            if move.source is MoveSource.ENGINE:
                process.stdin.write(f"position startpos moves {' '.join(moves)}\ngo depth 1\n")
                while not process.stdout.readline().startswith("bestmove"):
                    pass
            moves.append(move.text)
    wall = time.perf_counter() - started
    process.stdin.write("quit\n")
    process.wait()
    return wall


def cost_per_move(records: list[GameRecord], wall: float) -> float:
    """The arbiter's own milliseconds per engine move: wall time minus the engines' time."""
    moves = [m for record in records for m in record.moves if m.source is MoveSource.ENGINE]
    return 1000 * (wall - sum(m.time or 0.0 for m in moves)) / len(moves)


def compare(games: int, variant: str, rounds: int, pgn: bool) -> None:
    costs: dict[bool, list[float]] = {False: [], True: []}
    with tempfile.TemporaryDirectory() as directory:
        for _ in range(rounds):
            for publish in (False, True):
                live = (
                    LiveFiles(f"{directory}/live.json", f"{directory}/live.pgn" if pgn else None) if publish else None
                )
                records, wall = referee(games, variant, live)
                if live is not None:
                    live.close()
                costs[publish].append(cost_per_move(records, wall))
    plain, published = (statistics.median(costs[key]) for key in (False, True))
    what = "live file and live PGN" if pgn else "live file"
    print(f"{platform.python_implementation()} {platform.python_version()}, {rounds} rounds of {games} games each way")
    print(
        f"arbiter cost per move, no publishing:  {plain:.3f} ms (median; {min(costs[False]):.3f}-{max(costs[False]):.3f})"
    )
    print(f"arbiter cost per move, {what}: {published:.3f} ms (median; {min(costs[True]):.3f}-{max(costs[True]):.3f})")
    print(f"difference:                            {published - plain:+.3f} ms per move")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--variant", default="dipole")
    parser.add_argument("--live", action="store_true", help="publish the games to a live file")
    parser.add_argument("--live-pgn", action="store_true", help="publish them to a live PGN too")
    parser.add_argument("--compare", action="store_true", help="alternate rounds without and with publishing")
    parser.add_argument("--rounds", type=int, default=5, help="rounds each way for --compare")
    args = parser.parse_args()
    if args.compare:
        compare(args.games, args.variant, args.rounds, args.live_pgn)
        return
    with tempfile.TemporaryDirectory() as directory:
        live = None
        if args.live or args.live_pgn:
            live = LiveFiles(
                f"{directory}/live.json" if args.live else None, f"{directory}/live.pgn" if args.live_pgn else None
            )
        records, wall = referee(args.games, args.variant, live)
        if live is not None:
            live.close()
    plies = sum(record.plies for record in records)
    engine_moves = [m for record in records for m in record.moves if m.source is MoveSource.ENGINE]
    engine_time = sum(m.time or 0.0 for m in engine_moves)
    base = baseline(records, args.variant)
    n = len(engine_moves)
    print(
        f"{platform.python_implementation()} {platform.python_version()}, {args.games} games, "
        f"{plies} plies ({n} engine moves), toy engine answering at once (depth 1)"
        f"{', live file' if args.live else ''}{', live PGN' if args.live_pgn else ''}"
    )
    print(f"refereed games:           {plies / wall:,.0f} plies/s ({wall:.3f} s)")
    print(
        f"arbiter cost per move:    {1000 * (wall - engine_time) / n:.3f} ms "
        f"(wall {1000 * wall / n:.3f} ms - engine {1000 * engine_time / n:.3f} ms)"
    )
    print(f"bare-pipe baseline:       {1000 * base / n:.3f} ms per move")
    print(f"added latency per move:   {1000 * (wall - base) / n:.3f} ms (arbiter wall - baseline wall)")


if __name__ == "__main__":
    main()
