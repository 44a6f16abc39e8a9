"""Ratings of an event, and the state ``resume`` rebuilds (standings, SPRT, progress, the
results that plan a knockout/Swiss stage), come from its results alone: no move is read, so
memory does not grow with the moves played (issue 14).  Reading some games reads only those;
reading them all one at a time (``export``) holds one batch, however many games there are."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import random
import sqlite3
import tracemalloc
from pathlib import Path

import pytest
from test_arbiter_records import random_game
from test_tournament import config, create

from arbiter.cli.events import export_command
from arbiter.events.store import EventError, EventStore, GameOutcome
from arbiter.events.tournament import Tournament, colour_reversed_pairs, make_schedule
from arbiter.play.engines import EngineSpec
from arbiter.play.timecontrol import SearchLimits
from arbiter.records.game import UNFINISHED, GameRecord, MoveRecord, MoveSource, Termination
from arbiter.records.pgn import format_game
from arbiter.stats.ratings import fit_ratings
from arbiter.stats.sprt import SprtParams
from arbiter.stats.sprt_monitor import SprtMonitor
from arbiter.stats.tallies import MatchStats

NAMES = ["alpha", "beta", "gamma"]


def long_game(store: EventStore, number: int, plies: int) -> GameRecord:
    """Game ``number`` of the event's schedule, finished, with ``plies`` annotated moves."""
    template = random_game(number)
    planned = store.schedule[number - 1]
    white, black = NAMES[planned.white], NAMES[planned.black]
    moves = tuple(
        MoveRecord(f"c{ply % 7 + 1}-c{ply % 7 + 2}", MoveSource.ENGINE, ply, None, 6, 0.25) for ply in range(plies)
    )
    result = "1-0" if number % 4 else "0-1"
    return GameRecord(number, white, black, "dipole", None, moves, result, template.termination, template.reason)


def deny_reading_moves(store: EventStore) -> None:
    """Make any read of the ``moves`` table fail, so that a query touching it raises."""

    def authorize(action: int, table: str | None, *_: object) -> int:
        return sqlite3.SQLITE_DENY if action == sqlite3.SQLITE_READ and table == "moves" else sqlite3.SQLITE_OK

    store._db.set_authorizer(authorize)  # the test watches the store's own queries


def test_outcomes_never_read_a_move_and_fit_the_same_ratings(tmp_path: Path) -> None:
    store = create(tmp_path)
    games = [long_game(store, number, 40) for number in range(1, 13)]
    for game in games:
        store.commit(game)
    by_records = fit_ratings(store.records(), engines=NAMES)
    deny_reading_moves(store)
    outcomes = store.outcomes()
    assert outcomes == [GameOutcome.of(game) for game in games]
    assert fit_ratings(outcomes, engines=NAMES).text() == by_records.text()
    try:
        store.records()
    except EventError as error:  # the store's one line for a database it cannot read
        assert "prohibited" in str(error) or "not authorized" in str(error)
    else:
        raise AssertionError("the authorizer let a read of the moves table through")
    store.close()


def test_memory_of_outcomes_does_not_grow_with_the_moves(tmp_path: Path) -> None:
    peaks = []
    for plies in (10, 1000):
        store = create(tmp_path, name=f"e{plies}.db")
        for number in range(1, 13):
            store.commit(long_game(store, number, plies))
        tracemalloc.start()
        outcomes = store.outcomes()
        fit_ratings(outcomes, engines=NAMES)
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
        store.close()
    short, long = peaks
    assert long < short * 1.5 + 20_000, f"peak {long} bytes with 1000 plies a game against {short} with 10"


def resume(store: EventStore) -> Tournament:
    """What ``dipole-arbiter resume`` builds before it plays the games left."""
    return Tournament(store, io.StringIO(), io.StringIO(), tty=False)


def test_resume_reads_no_move_and_rebuilds_the_state_of_an_uninterrupted_run(tmp_path: Path) -> None:
    engines = (
        EngineSpec("alpha", ("alpha",), SearchLimits(depth=3)),
        EngineSpec("beta", ("beta",), SearchLimits(depth=3)),
    )
    event = config(
        tmp_path,
        engines=engines,
        rounds=1,
        games_per_pairing=60,
        pgn=None,
        report=None,
        anchor=None,
        sprt=SprtParams.parse("elo0=0 elo1=100 alpha=0.05 beta=0.05"),
    )
    schedule = make_schedule("round-robin", 2, 1, 60, openings=len(event.openings))
    store = EventStore.create(str(tmp_path / "sprt.db"), event, schedule)
    rng = random.Random(3)
    games = []
    for planned in schedule[:50]:
        if planned.number == 37:  # a pair still waiting for its second game when the run stopped
            continue
        white, black = engines[planned.white].name, engines[planned.black].name
        alpha_wins = rng.random() < 0.6
        result = "1-0" if (white == "alpha") == alpha_wins else "0-1"
        moves = tuple(MoveRecord("c1-c2", MoveSource.ENGINE, 10, None, 3, 0.1) for _ in range(rng.randrange(5, 60)))
        termination = Termination.NORMAL if planned.number % 5 else Termination.TIME_FORFEIT
        if planned.number == 9:  # both engines failed to start: the pair is passed over
            result, termination, moves = UNFINISHED, Termination.HANDSHAKE, ()
        games.append(GameRecord(planned.number, white, black, "dipole", None, moves, result, termination, "why"))
    for game in games:
        store.commit(game)
    # The uninterrupted run counted the whole records, as they finished (out of order).
    finishing = games[:]
    rng.shuffle(finishing)
    stats = MatchStats(["alpha", "beta"])
    sprt = SprtMonitor(event.sprt, "alpha", colour_reversed_pairs(schedule))  # type: ignore[arg-type]
    for game in finishing:
        stats.add(game)
        sprt.add(game)
    deny_reading_moves(store)
    resumed = resume(store)
    assert vars(resumed.stats) == vars(stats)
    assert resumed.stats.summary("alpha", "beta") == stats.summary("alpha", "beta")
    assert resumed.sprt is not None
    assert (resumed.sprt.state.counts, resumed.sprt.state.llr, resumed.sprt.decision, resumed.sprt.skipped) == (
        sprt.state.counts,
        sprt.state.llr,
        sprt.decision,
        sprt.skipped,
    )
    assert resumed.sprt.summary() == sprt.summary() and resumed.sprt.skipped == 1
    assert resumed.finished_before == len(games) == 49
    assert resumed.results == {game.number: game.result for game in games}
    assert f"Resuming: 49 of {len(schedule)} games already finished" in resumed.header()
    # The resumed run goes on as the uninterrupted one: game 37 completes the pair that waited.
    late = GameRecord(37, "alpha", "beta", "dipole", None, (), "1-0", Termination.NORMAL, "")
    assert resumed.sprt.add(late) == sprt.add(late)
    assert resumed.sprt.state.counts == sprt.state.counts and resumed.sprt.state.pairs == sprt.state.pairs
    store.close()


def test_memory_of_resume_does_not_grow_with_the_moves(tmp_path: Path) -> None:
    peaks = []
    for plies in (10, 1000):
        store = create(tmp_path, name=f"r{plies}.db", pgn=None, report=None)
        for number in range(1, 13):
            store.commit(long_game(store, number, plies))
        tracemalloc.start()
        resumed = resume(store)
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
        assert resumed.finished_before == 12
        store.close()
    short, long = peaks
    assert long < short * 1.5 + 20_000, f"resume's peak {long} bytes with 1000 plies a game against {short} with 10"


def test_records_of_some_games_are_exactly_those(tmp_path: Path) -> None:
    store = create(tmp_path)
    games = [long_game(store, number, 3 * number) for number in range(1, 13) if number != 5]
    for game in games:
        store.commit(game)
    assert store.records() == games
    assert store.records([7, 2, 7]) == [games[1], games[5]]  # by number, each once
    assert store.records([5, 99]) == []  # not finished, not scheduled
    assert store.records([]) == []
    assert store.records(iter([12])) == [games[-1]]
    # More numbers than SQLite takes bound parameters (32766 at most) still work.
    assert store.records(range(1, 40_000)) == games
    store.close()


def vm_steps_to_read(store: EventStore, numbers: list[int]) -> int:
    """How many SQLite virtual-machine steps (in hundreds) ``store.records(numbers)`` takes: it
    grows with every row its queries visit, returned or not."""
    steps = 0

    def count() -> int:
        nonlocal steps
        steps += 1
        return 0

    store._db.set_progress_handler(count, 100)  # the test watches the store's own queries
    store.records(numbers)
    store._db.set_progress_handler(None, 100)
    return steps


def test_records_of_some_games_read_only_those(tmp_path: Path) -> None:
    steps = []
    for other_plies in (10, 1000):
        store = create(tmp_path, name=f"s{other_plies}.db")
        for number in range(1, 13):
            store.commit(long_game(store, number, 50 if number in (3, 8) else other_plies))
        assert [game.number for game in store.records([3, 8])] == [3, 8]
        steps.append(vm_steps_to_read(store, [3, 8]))
        store.close()
    short, long = steps
    assert long <= short + 2, f"{long}00 steps to read two games beside long ones, {short}00 beside short ones"


TWO_ENGINES = (
    EngineSpec("alpha", ("alpha",), SearchLimits(depth=3)),
    EngineSpec("beta", ("beta",), SearchLimits(depth=3)),
)


def finished_event(path: Path, games: int, unfinished: frozenset[int] = frozenset()) -> EventStore:
    """A two-engine event of ``games`` games, all finished but ``unfinished``: copies of 20
    distinct games (random legal ones, and one that never started: no moves), renumbered,
    committed without fsync to fill it quickly (as ``benchmarks/event_bench.py`` does)."""
    event = config(
        path.parent, engines=TWO_ENGINES, rounds=1, games_per_pairing=games, pgn=None, report=None, anchor=None
    )
    store = EventStore.create(str(path), event, make_schedule("round-robin", 2, 1, games, len(event.openings)))
    store._db.execute("PRAGMA synchronous=OFF")  # the test's one reach inside: only to fill it quickly
    distinct = [random_game(seed) for seed in range(1, 20)]
    distinct.append(GameRecord(0, "beta", "alpha", "dipole", None, (), UNFINISHED, Termination.HANDSHAKE, "no start"))
    for number in range(1, games + 1):
        if number not in unfinished:
            store.commit(dataclasses.replace(distinct[number % len(distinct)], number=number))
    return store


def test_iter_records_gives_the_records_one_at_a_time_from_one_snapshot(tmp_path: Path) -> None:
    late = frozenset({7, 40, 41})
    store = finished_event(tmp_path / "e.db", 41, unfinished=late)
    reader = EventStore.open(str(tmp_path / "e.db"), write=False)
    everything = reader.records()
    assert [game.number for game in everything] == [n for n in range(1, 42) if n not in late]
    for batch in (1, 2, 3, 64):
        assert list(reader.iter_records(batch)) == everything
    # Games committed while the reading runs (a running event) are not in it, before or after
    # where it has got to; the next reading has them.
    reading = reader.iter_records(2)
    first = next(reading)
    for number in sorted(late):
        store.commit(dataclasses.replace(random_game(number), number=number))
    assert [first, *reading] == everything
    assert [game.number for game in reader.iter_records()] == list(range(1, 42))
    assert reader.scheduled() == 41 and len(reader.schedule) == 41
    reader.close()
    store.close()


def export_text_and_peak(db: Path, pgn: Path) -> tuple[str, int]:
    """``dipole-arbiter export DB --pgn FILE`` run in this process: what it prints, and its
    peak Python memory (tracemalloc)."""
    printed = io.StringIO()
    tracemalloc.start()
    with contextlib.redirect_stdout(printed):
        assert export_command.callback(db_path=str(db), pgn_path=str(pgn)) == 0  # type: ignore[misc]
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return printed.getvalue(), peak


@pytest.mark.slow
def test_export_writes_what_every_record_formatted_at_once_gives_in_bounded_memory(tmp_path: Path) -> None:
    peaks = {}
    for games in (200, 2000):
        db, pgn = tmp_path / f"e{games}.db", tmp_path / f"e{games}.pgn"
        store = finished_event(db, games, unfinished=frozenset({games // 2}))
        tracemalloc.start()
        records = store.records()
        reading_all = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        expected = "".join(format_game(record) for record in records)  # what export wrote before
        del records
        store.close()
        printed, peaks[games] = export_text_and_peak(db, pgn)
        assert printed == f"Exported {games - 1} of {games} scheduled games to {pgn}\n"
        assert pgn.read_bytes() == expected.encode("utf-8")
        assert export_text_and_peak(db, Path("-"))[0] == expected  # --pgn -: the same text on standard output
    # Ten times the games, not ten times the memory (measured: 119 kB, then 138 kB); far below
    # what reading every record takes (measured: 10.7 MB).
    assert peaks[2000] < 2 * peaks[200] + 50_000, peaks
    assert peaks[2000] < reading_all / 10, (peaks, reading_all)
