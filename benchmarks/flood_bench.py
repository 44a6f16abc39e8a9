"""What one engine's output flood costs the engines of the other games: their recorded move times.

    python benchmarks/flood_bench.py                    # 3 rounds each way, alternating
    python benchmarks/flood_bench.py --rounds 5 --games 40 --neighbours 2
    python benchmarks/flood_bench.py --flood stderr     # another of hostile_engine.py's floods

Each round plays ``--games`` games of two well-behaved engines that answer at once
(``tests/engines/toy_engine.py`` at depth 1) on a :class:`arbiter.pools.local.GamePool` of
``--neighbours`` workers, while one more game runs beside them on its own thread, as a third
worker of the pool would: either the toy engine against the toy engine (the "quiet" rounds) or
``tests/engines/hostile_engine.py --flood-info`` against it (the "flood" rounds: the hostile
engine writes ``info`` lines as fast as it can, without end, from its first ``go``, which
lasts the whole round: the neighbours' games start once it floods, and it is killed when they
are over).  ``--flood`` picks another of its floods: ``long-infos`` (1 MB ``info`` lines without
end, ``--long-infos``), ``stderr`` (endless stderr output while it plays at once, ``--flood-stderr``).

What is reported is what the neighbours' clocks were charged: the recorded time of each of
their engine moves (``go`` written to ``bestmove`` read), over all rounds of each kind:
median, 90th and 99th percentiles and worst, in milliseconds.  The rounds alternate (quiet, flood,
quiet, ...) because the shared machine's speed drifts.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arbiter.events.match import schedule  # noqa: E402
from arbiter.openings.positions import generate_openings  # noqa: E402
from arbiter.play.engines import EngineSpec  # noqa: E402
from arbiter.play.referee import EngineSlot, GameJob, RefereeSettings, play_game  # noqa: E402
from arbiter.play.timecontrol import SearchLimits  # noqa: E402
from arbiter.pools.local import GamePool  # noqa: E402
from arbiter.records.game import GameRecord, MoveSource  # noqa: E402

ENGINES = ROOT / "tests" / "engines"
TOY = (sys.executable, str(ENGINES / "toy_engine.py"))
FLOODS = {"info": "--flood-info", "long-infos": "--long-infos", "stderr": "--flood-stderr"}
INSTANT = SearchLimits(depth=1)
FLOOD_MOVE = SearchLimits(movetime=600.0)  # the flooder's first move lasts the whole round
START_UP = 1.0  # seconds for the game beside to start (and the flooder to flood) before the neighbours
SETTINGS = RefereeSettings(stop_grace=1.0, quit_grace=0.3)
VARIANT = "dipole"


def side_game(flood: str | None, done: threading.Event, niceness: int = 0) -> int:
    """Play games beside the neighbours until ``done``: the flooder (``hostile_engine.py`` with
    the flag ``flood``, at ``niceness``; None: a toy engine in its place) against a toy engine;
    how many were played."""
    nice = ("nice", "-n", str(niceness)) if flood and niceness else ()
    command = (*nice, sys.executable, str(ENGINES / "hostile_engine.py"), flood) if flood else (*TOY, "--seed", "3")
    third = EngineSpec("third", command, FLOOD_MOVE if flood else INSTANT)
    partner = EngineSpec("partner", (*TOY, "--seed", "4"), INSTANT)
    slots = {spec.name: EngineSlot(spec, VARIANT, SETTINGS) for spec in (third, partner)}
    opening = generate_openings(VARIANT, 2, 1, seed=3)[0]
    played = 0

    def stop_when_done() -> None:
        done.wait()
        client = slots["third"].client
        if flood and client is not None:  # a flooder's move lasts until it is killed
            client.kill()

    stopper = threading.Thread(target=stop_when_done)
    stopper.start()
    try:
        while not done.is_set():
            white, black = (third, partner) if played % 2 == 0 else (partner, third)
            play_game(
                GameJob(played + 1, white, black, opening, VARIANT), slots[white.name], slots[black.name], SETTINGS
            )
            played += 1
    finally:
        done.set()
        stopper.join()
        for slot in slots.values():
            slot.quit()
    return played


def neighbour_times(flood: str | None, games: int, neighbours: int, niceness: int = 0) -> tuple[list[float], int]:
    """One round beside the flood ``flood`` (a flag of ``hostile_engine.py``; None: a quiet game),
    the flooder run at ``niceness``: the neighbours' engine move times (seconds), and the games
    played beside them."""
    first = EngineSpec("first", (*TOY, "--seed", "1"), INSTANT)
    second = EngineSpec("second", (*TOY, "--seed", "2"), INSTANT)
    jobs = schedule(first, second, games, generate_openings(VARIANT, 2, (games + 1) // 2, seed=1), VARIANT)
    done = threading.Event()
    beside: list[int] = []
    thread = threading.Thread(target=lambda: beside.append(side_game(flood, done, niceness)), name="side-game")
    thread.start()
    time.sleep(START_UP)
    records: list[GameRecord] = []
    try:
        GamePool(VARIANT, SETTINGS, concurrency=neighbours).run(jobs, lambda job: None, records.append)
    finally:
        done.set()
        thread.join()
    times = [
        move.time
        for record in records
        for move in record.moves
        if move.source is MoveSource.ENGINE and move.time is not None
    ]
    return times, beside[0] if beside else 0


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def describe(times: list[float]) -> str:
    ms = [1000 * t for t in times]
    return (
        f"median {statistics.median(ms):6.2f} ms, p90 {percentile(ms, 0.9):6.2f} ms, p99 {percentile(ms, 0.99):6.2f} ms, "
        f"worst {max(ms):6.2f} ms  ({len(ms)} moves)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40, help="neighbour games per round")
    parser.add_argument("--neighbours", type=int, default=2, help="neighbour games at once")
    parser.add_argument("--rounds", type=int, default=3, help="rounds each way, alternating")
    parser.add_argument("--flood", choices=list(FLOODS), default="info", help="which flood (see above)")
    args = parser.parse_args()
    times: dict[bool, list[float]] = {False: [], True: []}
    for number in range(1, args.rounds + 1):
        for flood in (False, True):
            round_times, beside = neighbour_times(FLOODS[args.flood] if flood else None, args.games, args.neighbours)
            times[flood] += round_times
            print(
                f"round {number} {'flood' if flood else 'quiet'}: {describe(round_times)}; {beside} games beside",
                flush=True,
            )
    print(
        f"{platform.python_implementation()} {platform.python_version()}, {args.rounds} rounds of "
        f"{args.games} games each way, {args.neighbours} neighbour games at once + 1 beside"
    )
    print(f"neighbours' move times, quiet game beside: {describe(times[False])}")
    print(f"neighbours' move times, flooder beside:    {describe(times[True])}  ({FLOODS[args.flood]})")


if __name__ == "__main__":
    main()
