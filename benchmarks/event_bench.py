"""What the event database costs: committing one finished game (its row and every move, one
transaction, WAL with synchronous=FULL as the arbiter uses it, and NORMAL for comparison),
reading every game back, and exporting them as PGN; and what ``resume`` costs before it plays
on: rebuilding the standings, the SPRT and the results of an event of ``--resume-games``
finished games (from their outcomes: peak Python memory by tracemalloc, and time), beside
reading every one of those games with its moves (what resume read before); and what
``export`` of that event costs: streamed (each game written as it is read), beside reading
every game, joining the whole PGN text and writing it (what export did before).

    python benchmarks/event_bench.py [--games 300] [--resume-games 9000] [--dir DIR]

The games are whole random games of legal moves, annotated as the arbiter annotates them
(about 40-80 plies each).  ``--dir`` puts the databases on the disk you want to measure
(default: a temporary directory).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import io
import random
import sqlite3
import statistics
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

from arbiter.cli.events import export_command
from arbiter.events.store import EventConfig, EventStore
from arbiter.events.tournament import Tournament, make_schedule
from arbiter.files import replace_text
from arbiter.play.engines import EngineSpec
from arbiter.play.referee import RefereeSettings
from arbiter.play.timecontrol import SearchLimits, TimeControl
from arbiter.records.game import (
    BLACK_WINS,
    START,
    WHITE_WINS,
    GameRecord,
    MoveRecord,
    MoveSource,
    Termination,
)
from arbiter.records.pgn import format_game
from arbiter.stats.sprt import SprtParams
from dipole_engine.rules import WHITE, new_board


def random_record(number: int, rng: random.Random) -> GameRecord:
    board = new_board("dipole")
    moves = []
    while not board.is_game_over():
        move = rng.choice(board.legal_moves())
        board.push(move)
        source = MoveSource.FORCED if str(move) == "pass" else MoveSource.ENGINE
        moves.append(
            MoveRecord(str(move), source, rng.randint(-500, 500), None, rng.randint(1, 12), rng.randint(1, 900) / 1000)
            if source is MoveSource.ENGINE
            else MoveRecord("pass", source)
        )
    white, black = ("alpha", "beta") if number % 2 else ("beta", "alpha")
    result = WHITE_WINS if board.winner() == WHITE else BLACK_WINS
    return GameRecord(
        number,
        white,
        black,
        "dipole",
        None,
        tuple(moves),
        result,
        Termination.NORMAL,
        "Black has no checkers left",
        "10+0.1",
        "10+0.1",
        "start position",
        "bench",
    )


def bench_config(games: int, sprt: SprtParams | None = None) -> EventConfig:
    limits = SearchLimits(TimeControl(0, 10.0, 0.1))
    return EventConfig(
        "round-robin",
        "dipole",
        (EngineSpec("alpha", ("alpha",), limits), EngineSpec("beta", ("beta",), limits)),
        1,
        games,
        (START,),
        "start",
        RefereeSettings(event="bench"),
        sprt=sprt,
    )


def measure(directory: Path, games: int, synchronous: str) -> tuple[list[float], float, float]:
    config = bench_config(games)
    path = directory / f"bench-{synchronous.lower()}.db"
    store = EventStore.create(str(path), config, make_schedule("round-robin", 2, 1, games, 1))
    store._db.execute(f"PRAGMA synchronous={synchronous}")  # the benchmark's one reach inside
    rng = random.Random(1)
    records = [random_record(number, rng) for number in range(1, games + 1)]
    costs = []
    for record in records:
        started = time.perf_counter()
        store.commit(record)
        costs.append(time.perf_counter() - started)
    started = time.perf_counter()
    back = store.records()
    read = time.perf_counter() - started
    assert back == records
    started = time.perf_counter()
    "".join(format_game(record) for record in back)
    export = time.perf_counter() - started
    store.close()
    return costs, read, export


def peak(call: Callable[[], Any]) -> tuple[float, float]:
    """The peak Python memory (MB, tracemalloc) ``call()`` takes, and its seconds (timed in a
    second call, without tracemalloc's overhead)."""
    tracemalloc.start()
    call()
    memory = tracemalloc.get_traced_memory()[1] / 1e6
    tracemalloc.stop()
    started = time.perf_counter()
    call()
    return memory, time.perf_counter() - started


def measure_resume(directory: Path, games: int) -> tuple[float, float, float, float, int]:
    """Resume's rebuild of an event of ``games`` finished games (a 2-engine SPRT match), and
    reading them all with their moves; the moves stored."""
    config = bench_config(games, SprtParams.parse("elo0=0 elo1=5 alpha=0.05 beta=0.05"))
    store = EventStore.create(str(directory / "resume.db"), config, make_schedule("round-robin", 2, 1, games, 1))
    store._db.execute("PRAGMA synchronous=OFF")  # only to fill it quickly
    rng = random.Random(2)
    distinct = [random_record(number, rng) for number in range(1, 201)]  # even: each keeps its colours
    for number in range(1, games + 1):
        store.commit(dataclasses.replace(distinct[(number - 1) % len(distinct)], number=number))
    moves = sum(outcome.plies for outcome in store.outcomes())
    resume_memory, resume_time = peak(lambda: Tournament(store, io.StringIO(), io.StringIO(), tty=False))
    records_memory, records_time = peak(store.records)
    store.close()
    return resume_memory, resume_time, records_memory, records_time, moves


def export_all_at_once(db: str, pgn: str) -> None:
    """``export`` before it streamed: every game read, the whole text joined, then written."""
    store = EventStore.open(db, write=False)
    try:
        records = store.records()
    finally:
        store.close()
    replace_text(pgn, "".join(format_game(record) for record in records))


def export_streamed(db: str, pgn: str) -> None:
    """``dipole-arbiter export DB --pgn FILE`` itself, in this process."""
    with contextlib.redirect_stdout(io.StringIO()):
        export_command.callback(db_path=db, pgn_path=pgn)  # type: ignore[misc]


def measure_export(db: Path) -> tuple[float, float, float, float, int]:
    """Exporting the event ``db`` streamed and all at once (peak MB, seconds each); the bytes."""
    streamed, at_once = db.with_suffix(".streamed.pgn"), db.with_suffix(".at-once.pgn")
    streamed_memory, streamed_time = peak(lambda: export_streamed(str(db), str(streamed)))
    at_once_memory, at_once_time = peak(lambda: export_all_at_once(str(db), str(at_once)))
    assert streamed.read_bytes() == at_once.read_bytes()
    return streamed_memory, streamed_time, at_once_memory, at_once_time, streamed.stat().st_size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--resume-games", type=int, default=9000)
    parser.add_argument("--dir", help="where to put the databases (default: a temporary directory)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.dir) as directory:
        print(f"SQLite {sqlite3.sqlite_version}, {args.games} games, databases in {directory}")
        for synchronous in ("FULL", "NORMAL"):
            costs, read, export = measure(Path(directory), args.games, synchronous)
            costs_ms = sorted(1000 * cost for cost in costs)
            print(
                f"synchronous={synchronous:<6} commit per game: median {statistics.median(costs_ms):.2f} ms, "
                f"90th percentile {costs_ms[int(0.9 * len(costs_ms))]:.2f} ms, max {costs_ms[-1]:.2f} ms; "
                f"read all back {1000 * read:.0f} ms; export as PGN {1000 * export:.0f} ms"
            )
        resume_memory, resume_time, records_memory, records_time, moves = measure_resume(
            Path(directory), args.resume_games
        )
        print(
            f"resume of {args.resume_games} finished games ({moves} moves): standings, SPRT and results rebuilt "
            f"from the outcomes: peak {resume_memory:.1f} MB, {1000 * resume_time:.0f} ms; every game read "
            f"with its moves (as resume did before): peak {records_memory:.1f} MB, {1000 * records_time:.0f} ms"
        )
        streamed_memory, streamed_time, at_once_memory, at_once_time, size = measure_export(
            Path(directory) / "resume.db"
        )
        print(
            f"export of those {args.resume_games} games ({size / 1e6:.1f} MB of PGN): streamed: peak "
            f"{streamed_memory:.1f} MB, {1000 * streamed_time:.0f} ms; every game read and the text joined "
            f"first (as export did before): peak {at_once_memory:.1f} MB, {1000 * at_once_time:.0f} ms"
        )


if __name__ == "__main__":
    main()
