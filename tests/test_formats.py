"""Knockout and Swiss tournaments: the planning rules on their own (a stage at a time from the
results), and real events that are killed with SIGKILL, resumed and finished with the same
pairings as an event that was never interrupted."""

from __future__ import annotations

import itertools
import sqlite3
import subprocess
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from test_arbiter_cli import ARBITER, arbiter, toy
from test_arbiter_games import assert_all_gone
from test_tournament_cli import games_table, wait_for_games

from arbiter.events.pairings import TIEBREAK_PAIRS, EventShape, Plan, bracket_order, knockout_rounds, plan_event
from arbiter.events.store import ScheduledGame
from arbiter.records.game import BLACK_WINS, UNFINISHED, WHITE_WINS

Outcome = Callable[[ScheduledGame], str]


def run_plan(shape: EventShape, outcome: Outcome) -> tuple[list[ScheduledGame], dict[int, str], Plan, int]:
    """Play a whole event on paper: plan a stage, give every game its ``outcome``, repeat."""
    schedule: list[ScheduledGame] = []
    results: dict[int, str] = {}
    stages = 0
    while True:
        plan = plan_event(shape, schedule, results)
        if plan.complete:
            return schedule, results, plan, stages
        assert plan.next_games, "a plan with every game finished must go on or be complete"
        assert [game.number for game in plan.next_games] == list(
            range(len(schedule) + 1, len(schedule) + len(plan.next_games) + 1)
        )
        schedule += plan.next_games
        stages += 1
        # mid-stage, nothing new is planned, and planning again gives the same stage
        assert plan_event(shape, schedule, results).next_games == []
        for game in plan.next_games:
            results[game.number] = outcome(game)


def lower_index_wins(game: ScheduledGame) -> str:
    return WHITE_WINS if game.white < game.black else BLACK_WINS


def white_wins(game: ScheduledGame) -> str:
    return WHITE_WINS


def test_bracket_order_keeps_the_top_seeds_apart() -> None:
    assert bracket_order(2) == [0, 1]
    assert bracket_order(4) == [0, 3, 1, 2]
    assert bracket_order(8) == [0, 7, 3, 4, 1, 6, 2, 5]
    assert [knockout_rounds(n) for n in (2, 3, 4, 5, 8, 9)] == [1, 2, 2, 3, 3, 4]


@pytest.mark.parametrize("engines", [2, 3, 5, 6, 8])
def test_knockout_the_stronger_seed_always_wins_through_the_standard_bracket(engines: int) -> None:
    names = tuple(f"e{index}" for index in range(engines))
    shape = EventShape("knockout", names, knockout_rounds(engines), 2, 10)
    schedule, _, plan, _ = run_plan(shape, lower_index_wins)
    assert plan.champion == 0
    assert len(plan.rounds) == knockout_rounds(engines)
    byes = [encounter.first for encounter in plan.rounds[0] if encounter.second is None]
    assert byes == sorted(byes) and byes == list(range(2 ** knockout_rounds(engines) - engines))  # top seeds
    (final,) = plan.rounds[-1]
    assert {final.first, final.second} == {0, 1}
    # every game of an encounter: colour-reversed pairs sharing an opening, the higher seed White first
    pairs = Counter(game.pair for game in schedule)
    assert set(pairs.values()) == {2}
    for first, second in itertools.pairwise(schedule):
        if first.pair == second.pair:
            assert (first.white, first.black) == (second.black, second.white) and first.opening == second.opening
            assert first.white < first.black


def test_knockout_tie_breaks_then_the_higher_seed_goes_through() -> None:
    shape = EventShape("knockout", ("a", "b", "c", "d"), 2, 2, 7)
    schedule, _, plan, stages = run_plan(shape, white_wins)  # every encounter ties, every tie-break too
    assert stages == 2 * (1 + TIEBREAK_PAIRS)
    semis = plan.rounds[0]
    assert [(e.first, e.second, e.advances) for e in semis] == [(0, 3, 0), (1, 2, 1)]
    assert all(
        e.note == f"after {TIEBREAK_PAIRS} tie-break pairs; still tied: the higher seed goes through" for e in semis
    )
    assert plan.champion == 0
    assert len(schedule) == 2 * 2 * (1 + TIEBREAK_PAIRS) + 2 * (1 + TIEBREAK_PAIRS)
    # each stage takes fresh openings, cycling through the list of 7
    assert [game.opening for game in schedule if game.pairing == 0 and game.round == 1][::2] == [0, 1, 2, 3]

    def tie_then_decide(game: ScheduledGame) -> str:  # the first tie-break pair decides
        return lower_index_wins(game) if game.number > 4 else WHITE_WINS

    _, _, plan, _ = run_plan(shape, tie_then_decide)
    assert [e.note for e in plan.rounds[0]] == ["after 1 tie-break pair"] * 2
    assert plan.champion == 0


def test_knockout_unfinished_games_score_nothing() -> None:
    shape = EventShape("knockout", ("a", "b"), 1, 1, 1)
    schedule, _, plan, _ = run_plan(shape, lambda game: UNFINISHED if game.number == 1 else lower_index_wins(game))
    assert plan.rounds[0][0].points == (2.0, 0.0) and plan.champion == 0 and len(schedule) == 3  # 0-0, then a pair


@pytest.mark.parametrize("engines,rounds", [(4, 3), (5, 5), (6, 4), (7, 3), (8, 7)])
def test_swiss_pairs_similar_scores_without_rematches_with_byes_and_balanced_colours(engines: int, rounds: int) -> None:
    names = tuple(f"e{index}" for index in range(engines))
    shape = EventShape("swiss", names, rounds, 1, 5)
    schedule, results, plan, stages = run_plan(shape, lower_index_wins)
    assert stages == rounds and len(plan.rounds) == rounds
    met = Counter(frozenset((game.white, game.black)) for game in schedule)
    assert max(met.values()) == 1  # nobody meets twice while a fresh pairing exists
    byes = [e.first for encounters in plan.rounds for e in encounters if e.second is None]
    assert len(byes) == (rounds if engines % 2 else 0) and len(set(byes)) == len(byes)
    for encounters in plan.rounds:  # each engine exactly once per round
        seen = [engine for e in encounters for engine in (e.first, e.second) if engine is not None]
        assert sorted(seen) == list(range(engines))
    whites = Counter(game.white for game in schedule)
    blacks = Counter(game.black for game in schedule)
    assert all(abs(whites[e] - blacks[e]) <= 2 for e in range(engines))
    # round 2 on pairs engines by score: the winners of round 1 meet winners
    winners = {game.white if results[game.number] == WHITE_WINS else game.black for game in schedule if game.round == 1}
    winners |= {e.first for e in plan.rounds[0] if e.second is None}
    top = plan.rounds[1][0]
    assert {top.first, top.second} <= winners
    # the standings: points (a bye is a full point), then Buchholz, then seed
    assert plan.standings[0][0] == 0
    assert sum(row[1] for row in plan.standings) == len(schedule) + len(byes)


def test_swiss_allows_a_rematch_only_when_no_fresh_pairing_exists() -> None:
    shape = EventShape("swiss", ("a", "b", "c", "d"), 5, 2, 3)
    schedule, _, plan, _ = run_plan(shape, lower_index_wins)
    met = Counter(frozenset((game.white, game.black)) for game in schedule if game.round <= 3)
    assert set(met.values()) == {2}  # three rounds: each of the 6 encounters once (2 games each)
    assert len(plan.rounds) == 5


# -- real events ------------------------------------------------------------------------------
def schedule_table(db: Path) -> list[tuple[int, ...]]:
    connection = sqlite3.connect(db)
    try:
        return connection.execute(
            "SELECT number, round, pairing, pair, white, black, opening FROM schedule ORDER BY number"
        ).fetchall()
    finally:
        connection.close()


def plan_text(out: str) -> list[str]:
    """The bracket or pairings lines of a summary: from the first ``Round 1:`` to the blank line."""
    lines = out.splitlines()
    start = max(index for index, line in enumerate(lines) if line.startswith("Round 1: ") and "games" not in line)
    return lines[start : lines.index("", start)]


def event_args(tmp_path: Path, format_: str, *extra: str, think: int = 8) -> list[str]:
    pids = tmp_path / "pids"
    engines = [word for name in ("a", "b", "c", "d", "e") for word in toy(name, pids, "--think", str(think))]
    return ["tournament", *engines, "--format", format_, "--depth", "1", "--opening-plies", "2", "--seed", "5", *extra]


@pytest.mark.parametrize(
    "format_,extra,think",
    [
        # the toy engines report -3..+3 centipawns, so this resign rule ends games within a few moves
        ("knockout", ("--games", "2", "--resign", "movecount=1", "score=3"), 40),
        ("swiss", ("--games", "1", "--rounds", "4", "--rating-interval", "3"), 8),
    ],
)
@pytest.mark.slow
def test_killed_and_resumed_event_has_the_pairings_of_an_uninterrupted_one(
    tmp_path: Path, format_: str, extra: tuple[str, ...], think: int
) -> None:
    reference_db = tmp_path / "reference.db"
    reference = arbiter(*event_args(tmp_path, format_, *extra, "--db", str(reference_db), think=think), timeout=300)
    assert reference.returncode == 0, reference.stderr
    # the toy engines' moves depend only on the position, so the same event gives the same games
    db, pgn, report = tmp_path / "killed.db", tmp_path / "killed.pgn", tmp_path / "killed.html"
    process = subprocess.Popen(
        [
            *ARBITER,
            *event_args(
                tmp_path,
                format_,
                *extra,
                "--db",
                str(db),
                "--pgn",
                str(pgn),
                "--report",
                str(report),
                "--concurrency",
                "2",
                think=think,
            ),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wait_for_games(db, 3)
    process.kill()
    process.wait(timeout=10)
    assert_all_gone(tmp_path / "pids")
    before = games_table(db)
    assert len(before) < len(games_table(reference_db))
    resumed = arbiter("resume", str(db), timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert schedule_table(db) == schedule_table(reference_db)
    assert games_table(db) == games_table(reference_db) and len(games_table(db)) >= 8
    lines = [line for line in resumed.stdout.splitlines() if line.startswith("Round ")]
    planned = [line for line in reference.stdout.splitlines() if line.startswith("Round ")]
    assert lines and lines == planned[-len(lines) :]
    # the bracket / the pairings are printed and in the report, the games export and replay
    if format_ == "knockout":  # the resign rule was stored with the event and applied on resuming
        terminations = Counter(row[0] for row in sqlite3.connect(db).execute("SELECT termination FROM games"))
        assert terminations["ADJUDICATION"] >= 4
        assert f"adjudication {terminations['ADJUDICATION']}" in resumed.stdout.splitlines()[-3]
        assert "Knockout winner: " in resumed.stdout
        page = report.read_text()
        assert "Knockout bracket" in page and '<td rowspan="4">' in page  # 5 engines: 3 rounds, 4 first-round rows
        winner = resumed.stdout.split("Knockout winner: ")[1].split()[0]
        assert f"<p>Winner: <strong>{winner}</strong></p>" in page
    else:
        assert "  1. " in resumed.stdout and "Buchholz" in resumed.stdout
        assert "Swiss pairings by round" in report.read_text()
        assert "Standings after 3 games:" in reference.stdout and "Standings after 6 games:" in reference.stdout
        assert ("Standings after 6 games:" in resumed.stdout) == (len(before) < 6)
    exported = tmp_path / "all.pgn"
    assert arbiter("export", str(db), "--pgn", str(exported)).returncode == 0
    assert arbiter("replay", str(exported)).returncode == 0
    rated = arbiter("ratings", str(db), "--report", str(tmp_path / "rated.html"))
    assert rated.returncode == 0 and f"{db}: {format_}" in rated.stdout
    assert plan_text(resumed.stdout) == plan_text(rated.stdout)  # the same bracket / pairings
    section = "Knockout bracket" if format_ == "knockout" else "Swiss pairings by round"
    assert section in (tmp_path / "rated.html").read_text()
    assert_all_gone(tmp_path / "pids")


def test_knockout_refuses_rounds_and_sprt(tmp_path: Path) -> None:
    result = arbiter(*event_args(tmp_path, "knockout", "--rounds", "5", "--db", str(tmp_path / "x.db")))
    assert result.returncode == 2 and "a knockout of 5 engines has 3 round(s)" in result.stderr
    result = arbiter(
        *event_args(tmp_path, "swiss", "--sprt", "elo0=0 elo1=10 alpha=0.05 beta=0.05", "--db", str(tmp_path / "y.db"))
    )
    assert result.returncode == 2 and "--sprt needs a fixed schedule" in result.stderr
    assert not (tmp_path / "x.db").exists() and not (tmp_path / "y.db").exists()
