"""What ``dipole-arbiter publish`` costs for a large event: the time and size of the site of
``--games`` games (10,000 by default) from one event database, its largest file, and the
time of publishing again after ``--more`` more games (only the new games' pages are written).

    python benchmarks/publish_bench.py [--games 10000] [--more 100] [--engines 10] [--dir DIR]

The games are random games of legal moves annotated as the arbiter annotates them
(``event_bench.random_record``), committed through the event database's own writer
(:meth:`arbiter.events.store.EventStore.commit`) into a round-robin schedule of ``--engines``.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import random
import tempfile
import time
from pathlib import Path

from event_bench import random_record

from arbiter.events.store import EventConfig, EventStore
from arbiter.events.tournament import make_schedule
from arbiter.play.engines import EngineSpec
from arbiter.play.referee import RefereeSettings
from arbiter.play.timecontrol import SearchLimits, TimeControl
from arbiter.publish.site import publish
from arbiter.records.game import START


def make_event(path: Path, engines: int, games: int) -> EventStore:
    limits = SearchLimits(TimeControl(0, 10.0, 0.1))
    names = [f"engine-{index:02d}" for index in range(engines)]
    pairs_per_round = engines * (engines - 1) // 2
    rounds = -(-games // (2 * pairs_per_round))
    config = EventConfig(
        "round-robin",
        "dipole",
        tuple(EngineSpec(name, (name,), limits) for name in names),
        rounds,
        2,
        (START,),
        "start",
        RefereeSettings(event="bench"),
    )
    store = EventStore.create(str(path), config, make_schedule("round-robin", engines, rounds, 2, 1))
    store._db.execute("PRAGMA synchronous=OFF")  # the benchmark measures publish, not commits
    return store


def commit(store: EventStore, numbers: range, rng: random.Random) -> None:
    names = [spec.name for spec in store.config.engines]
    for game in store.schedule[numbers.start - 1 : numbers.stop - 1]:
        record = random_record(game.number, rng)
        store.commit(dataclasses.replace(record, white=names[game.white], black=names[game.black]))


def site_size(directory: Path) -> tuple[int, int, int, str]:
    files = [path for path in directory.rglob("*") if path.is_file()]
    largest = max((path for path in files if path.suffix == ".html"), key=lambda path: path.stat().st_size)
    return len(files), sum(path.stat().st_size for path in files), largest.stat().st_size, str(largest.name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--more", type=int, default=100)
    parser.add_argument("--engines", type=int, default=10)
    parser.add_argument("--dir")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.dir) as temporary:
        directory = Path(temporary)
        store = make_event(directory / "event.db", args.engines, args.games + args.more)
        rng = random.Random(1)
        started = time.perf_counter()
        commit(store, range(1, args.games + 1), rng)
        print(f"{args.games} random games committed in {time.perf_counter() - started:.1f}s")
        site = directory / "site"
        started = time.perf_counter()
        first = publish([str(store.path)], str(site))
        elapsed = time.perf_counter() - started
        count, size, largest, name = site_size(site)
        print(
            f"publish: {elapsed:.1f}s, {first.written} files written; site {count} files, {size / 1e6:.1f} MB "
            f"(du: {os.popen(f'du -sh {site}').read().split()[0]}), largest page {largest / 1e3:.1f} kB ({name})"
        )
        started = time.perf_counter()
        again = publish([str(store.path)], str(site))
        print(f"publish again, nothing new: {time.perf_counter() - started:.1f}s, {again.written} files written")
        commit(store, range(args.games + 1, args.games + args.more + 1), rng)
        started = time.perf_counter()
        more = publish([str(store.path)], str(site))
        print(
            f"publish after {args.more} more games: {time.perf_counter() - started:.1f}s, {more.written} files "
            f"written, {more.unchanged} unchanged"
        )
        store.close()


if __name__ == "__main__":
    main()
