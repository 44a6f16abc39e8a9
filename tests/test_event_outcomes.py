"""Ratings of an event come from its results alone: no move is read, so memory does not grow
with the moves played (issue 14)."""

from __future__ import annotations

import sqlite3
import tracemalloc
from pathlib import Path

from test_arbiter_records import random_game
from test_tournament import create

from arbiter.event import EventError, EventStore, GameOutcome
from arbiter.ratings import fit_ratings
from arbiter.records import GameRecord, MoveRecord, MoveSource

NAMES = ["alpha", "beta", "gamma"]


def long_game(store: EventStore, number: int, plies: int) -> GameRecord:
    """Game ``number`` of the event's schedule, finished, with ``plies`` annotated moves."""
    template = random_game(number)
    planned = store.schedule[number - 1]
    white, black = NAMES[planned.white], NAMES[planned.black]
    moves = tuple(MoveRecord(f"c{ply % 7 + 1}-c{ply % 7 + 2}", MoveSource.ENGINE, ply, None, 6, 0.25)
                  for ply in range(plies))
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
