"""Tournament schedules, the SQLite event store, and the SPRT's choice of pairs (no processes)."""

from __future__ import annotations

import fcntl
import itertools
import os
import random
import sqlite3
from collections import Counter
from pathlib import Path

import pytest
from test_arbiter_records import random_game

from arbiter.events.store import EventConfig, EventError, EventStore
from arbiter.events.tournament import (
    colour_reversed_pairs,
    make_schedule,
    openings_needed,
    pairings,
)
from arbiter.openings.positions import generate_openings
from arbiter.play.engines import EngineSpec
from arbiter.play.referee import RefereeSettings
from arbiter.play.timecontrol import SearchLimits, TimeControl
from arbiter.records.game import (
    BLACK_WINS,
    UNFINISHED,
    WHITE_WINS,
    GameRecord,
    MoveRecord,
    MoveSource,
    Termination,
)
from arbiter.stats.sprt import SprtParams
from arbiter.stats.sprt_monitor import SprtMonitor, consecutive_pairs

# -- schedules ------------------------------------------------------------------------------


@pytest.mark.parametrize(("engines", "rounds", "games"), [(3, 1, 2), (4, 2, 3), (5, 3, 1), (2, 2, 5)])
def test_round_robin_schedule_meets_everyone_with_balanced_colours(engines: int, rounds: int, games: int) -> None:
    schedule = make_schedule("round-robin", engines, rounds, games)
    pairs_of_engines = engines * (engines - 1) // 2
    assert len(schedule) == pairs_of_engines * rounds * games
    assert [game.number for game in schedule] == list(range(1, len(schedule) + 1))
    per_pairing = Counter(frozenset((game.white, game.black)) for game in schedule)
    assert set(per_pairing) == {frozenset(pair) for pair in itertools.combinations(range(engines), 2)}
    assert set(per_pairing.values()) == {rounds * games}
    whites = Counter((game.white, game.black) for game in schedule)
    for first, second in itertools.combinations(range(engines), 2):
        # each pairing's colours differ by at most one game (odd games alternate by round)
        assert abs(whites[(first, second)] - whites[(second, first)]) <= (rounds * games) % 2
    assert {game.round for game in schedule} == set(range(1, rounds + 1))
    assert max(game.opening for game in schedule) + 1 == openings_needed(rounds, games)


def test_pairs_share_an_opening_with_colours_reversed() -> None:
    schedule = make_schedule("round-robin", 3, 2, 4)
    by_number = {game.number: game for game in schedule}
    pairs = colour_reversed_pairs(schedule)
    assert len(pairs) == 3 * 2 * 2
    for first, second in pairs:
        a, b = by_number[first], by_number[second]
        assert (a.white, a.black) == (b.black, b.white)
        assert a.opening == b.opening and a.round == b.round and a.pair == b.pair
    # every pairing of a round uses the same openings, and the rounds use different ones
    openings = {
        (game.round, game.pairing): {g.opening for g in schedule if (g.round, g.pairing) == (game.round, game.pairing)}
        for game in schedule
    }
    assert openings[(1, 0)] == openings[(1, 1)] == openings[(1, 2)] == {0, 1}
    assert openings[(2, 0)] == {2, 3}
    # fewer openings than pairs: they are used in turn
    assert [game.opening for game in make_schedule("round-robin", 2, 3, 2, openings=2)] == [0, 0, 1, 1, 0, 0]


def test_gauntlet_plays_the_first_engine_against_each_other() -> None:
    assert pairings("gauntlet", 4) == [(0, 1), (0, 2), (0, 3)]
    schedule = make_schedule("gauntlet", 4, 1, 2)
    assert len(schedule) == 6
    assert all(0 in (game.white, game.black) for game in schedule)
    assert Counter(game.white for game in schedule)[0] == 3


def test_odd_games_alternate_the_single_games_colour_by_round() -> None:
    schedule = make_schedule("round-robin", 2, 2, 1)
    assert [(game.white, game.black) for game in schedule] == [(0, 1), (1, 0)]
    assert colour_reversed_pairs(schedule) == []


# -- the SPRT counts completed pairs in schedule order --------------------------------------


def decided(record_order: list[GameRecord], params: SprtParams) -> tuple[str | None, int, int]:
    monitor = SprtMonitor(params, "a", consecutive_pairs(len(record_order)))
    decisions = [d for d in (monitor.add(record) for record in record_order) if d is not None]
    assert len(decisions) <= 1  # the decision is reported once
    return monitor.decision, monitor.state.pairs, monitor.skipped


def result_game(number: int, a_wins: bool) -> GameRecord:
    white, black = ("a", "b") if number % 2 else ("b", "a")
    result = WHITE_WINS if (white == "a") == a_wins else BLACK_WINS
    return GameRecord(number, white, black, "dipole", None, (), result, Termination.NORMAL, "")


def test_sprt_decision_does_not_depend_on_the_order_games_finish() -> None:
    rng = random.Random(5)
    games = [result_game(n, rng.random() < 0.75) for n in range(1, 41)]
    params = SprtParams.parse("elo0=0 elo1=150 alpha=0.1 beta=0.1")
    expected = decided(games, params)
    assert expected[0] is not None and expected[1] < 20
    for _ in range(20):
        shuffled = games[:]
        # out of order, but within a window (as concurrent workers finish them)
        for i in range(0, len(shuffled) - 3, 3):
            window = shuffled[i : i + 4]
            rng.shuffle(window)
            shuffled[i : i + 4] = window
        assert decided(shuffled, params) == expected


def test_a_pair_waits_for_every_earlier_pair() -> None:
    monitor = SprtMonitor(SprtParams.parse("elo0=0 elo1=300 alpha=0.05 beta=0.05"), "a", consecutive_pairs(6))
    for number in (3, 4, 5, 6):
        monitor.add(result_game(number, True))
    assert monitor.state.pairs == 0
    monitor.add(result_game(1, True))
    assert monitor.state.pairs == 0
    monitor.add(result_game(2, True))
    assert monitor.state.pairs == 3 and monitor.state.counts == (0, 0, 3)


def test_a_pair_with_an_unfinished_game_is_passed_over() -> None:
    monitor = SprtMonitor(SprtParams.parse("elo0=0 elo1=300 alpha=0.05 beta=0.05"), "a", consecutive_pairs(4))
    unfinished = GameRecord(1, "a", "b", "dipole", None, (), UNFINISHED, Termination.HANDSHAKE, "")
    for record in (unfinished, result_game(2, True), result_game(3, False), result_game(4, True)):
        monitor.add(record)
    assert monitor.skipped == 1 and monitor.state.counts == (0, 1, 0)
    assert any("not counted" in line for line in monitor.summary())


# -- the event store -------------------------------------------------------------------------


def config(tmp_path: Path, **changes: object) -> EventConfig:
    engines = (
        EngineSpec(
            "alpha",
            ("python3", "alpha.py", "--level", "3"),
            SearchLimits(TimeControl(40, 60.0, 0.5), margin=0.05),
            options=(("Hash", "32"), ("Style", "sharp play")),
        ),
        EngineSpec("beta", ("beta",), SearchLimits(movetime=0.25, depth=7), cwd=str(tmp_path)),
        EngineSpec("gamma", ("gamma",), SearchLimits(nodes=5000)),
    )
    values: dict[str, object] = {
        "format": "round-robin",
        "variant": "dipole",
        "engines": engines,
        "rounds": 2,
        "games_per_pairing": 2,
        "openings": tuple(generate_openings("dipole", 3, 2, 1)),
        "openings_note": "3 random plies, seed 1",
        "referee": RefereeSettings(handshake_timeout=3.5, stall_timeout=20, event="Test Cup", date="2026.01.02"),
        "concurrency": 2,
        "recover": True,
        "pgn": str(tmp_path / "t.pgn"),
        "log_dir": None,
        "report": str(tmp_path / "r.html"),
        "anchor": ("beta", 1500.0),
        "sprt": None,
        "command_line": "dipole-arbiter tournament ...",
    }
    values.update(changes)
    return EventConfig(**values)  # type: ignore[arg-type]


def create(tmp_path: Path, name: str = "e.db", **changes: object) -> EventStore:
    event = config(tmp_path, **changes)
    return EventStore.create(
        str(tmp_path / name),
        event,
        make_schedule(event.format, len(event.engines), event.rounds, event.games_per_pairing),
    )


def test_the_event_reads_back_as_it_was_planned(tmp_path: Path) -> None:
    sprt = SprtParams(-1.5, 4.25, 0.025, 0.1)
    store = create(tmp_path, sprt=sprt)
    planned = store.config
    store.close()
    reopened = EventStore.open(str(tmp_path / "e.db"), write=False)
    assert reopened.config.engines[0] == planned.engines[0]
    assert reopened.config.engines[1] == planned.engines[1]
    assert reopened.config.engines[2].cwd == os.getcwd()  # no dir=: where the event began
    assert reopened.config.engines[2].limits == planned.engines[2].limits
    assert reopened.config.openings == planned.openings
    assert reopened.config.referee == planned.referee
    assert reopened.config.sprt == sprt and reopened.config.anchor == ("beta", 1500.0)
    assert reopened.schedule == make_schedule("round-robin", 3, 2, 2)
    assert reopened.finished() == set() and reopened.records() == []
    reopened.close()
    connection = sqlite3.connect(tmp_path / "e.db")
    assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert connection.execute("SELECT version FROM schema_version").fetchall() == [(1,)]


def test_a_game_is_committed_whole_and_read_back_equal(tmp_path: Path) -> None:
    store = create(tmp_path)
    record = random_game(4)
    record = GameRecord(
        3,
        "alpha",
        "beta",
        record.variant,
        record.fen,
        record.moves,
        record.result,
        record.termination,
        record.reason,
        "40/60+0.5",
        "0.25/move",
        "opening #2",
        "Test Cup",
    )
    store.commit(record)
    assert store.finished() == {3}
    assert store.records() == [record]
    assert store.pgn_pending() == [3]
    store.mark_pgn_written([3])
    assert store.pgn_pending() == []
    with pytest.raises(EventError, match="cannot record game 3"):
        store.commit(record)  # a finished game is never recorded twice
    with pytest.raises(EventError, match="cannot record game 99"):
        store.commit(GameRecord(99, "alpha", "beta", "dipole", None, (), WHITE_WINS, Termination.NORMAL, ""))
    assert store.finished() == {3}
    store.close()


def test_clocks_are_kept_per_move(tmp_path: Path) -> None:
    store = create(tmp_path)
    moves = (
        MoveRecord("c1-c3", MoveSource.BOOK),
        MoveRecord("d8-d6", MoveSource.ENGINE, time=0.3),
        MoveRecord("c3-c5", MoveSource.ENGINE, 12, None, 4, 1.5),
        MoveRecord("d6-d5", MoveSource.ENGINE, time=0.2),
    )
    # beta (White here) has a time per move and no clock; alpha has 40/60+0.5
    store.commit(GameRecord(1, "beta", "alpha", "dipole", None, moves, UNFINISHED, Termination.UNTERMINATED, ""))
    store.close()
    connection = sqlite3.connect(tmp_path / "e.db")
    rows = connection.execute("SELECT ply, source, time, clock FROM moves WHERE game = 1 ORDER BY ply").fetchall()
    assert rows == [
        (1, "book", None, None),
        (2, "engine", 0.3, 60.7),  # 60 + 0.5 (on the clock from the first move) - 0.3 + 0.5
        (3, "engine", 1.5, None),
        (4, "engine", 0.2, 61.0),
    ]
    assert connection.execute("SELECT white_time, black_time FROM games").fetchone() == (1.5, 0.5)


def test_one_arbiter_at_a_time(tmp_path: Path) -> None:
    store = create(tmp_path)
    with pytest.raises(EventError, match=rf"e.db is in use by another running arbiter \(pid {os.getpid()}\)"):
        EventStore.open(str(tmp_path / "e.db"), write=True)
    reader = EventStore.open(str(tmp_path / "e.db"), write=False)  # readers need no lock
    assert len(reader.schedule) == 12
    reader.close()
    store.close()
    again = EventStore.open(str(tmp_path / "e.db"), write=True)  # the lock went with the first
    again.close()
    fd = os.open(tmp_path / "e.db", os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # and the second let it go too
    os.close(fd)


def test_databases_that_are_not_events_are_refused_in_one_line(tmp_path: Path) -> None:
    create(tmp_path).close()
    with pytest.raises(EventError, match="already exists; continue its event with: dipole-arbiter resume"):
        create(tmp_path)
    (tmp_path / "text.db").write_text("hello\n")
    (tmp_path / "empty.db").write_bytes(b"")
    other = sqlite3.connect(tmp_path / "other.db")
    other.execute("CREATE TABLE t (x)")
    other.commit()
    other.close()
    newer = sqlite3.connect(tmp_path / "e.db")
    newer.execute("UPDATE schema_version SET version = 2")
    newer.commit()
    newer.close()
    cases = {
        "missing.db": "event database {} : no such file",
        "text.db": "{} is not an event database (not an SQLite database at all)",
        "empty.db": "{} is not a dipole-arbiter event database (an empty SQLite database)",
        "other.db": "{} is not a dipole-arbiter event database (an SQLite database of some other program)",
        "e.db": "event database {} has schema version 2; this dipole-arbiter reads version 1",
    }
    for name, message in cases.items():
        path = str(tmp_path / name)
        with pytest.raises(EventError) as raised:
            EventStore.open(path, write=True)
        assert str(raised.value) == message.format(path).replace(" : ", ": ")
    assert not (tmp_path / "missing.db").exists()
