"""Draws in real matches: engines on protocol.loop that call every position level
(tests/engines/level_engine.py, ``score cp 0``) drawn by ``--draw`` and ``--maxmoves``, the
PGN records, the summary's W-D-L and Ptnml lines, ``replay`` checking the adjudications, and a
tournament's event database holding the draws through ``resume``, ``ratings`` and ``export``
(and a database made before draws existed opening as it did), and the watch page's feed."""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from test_arbiter_cli import arbiter

from arbiter.events.store import EventStore
from arbiter.play.adjudication import DrawRule
from arbiter.records.pgn import read_pgn_file
from dipole_gui.watch import EventFeed
from dipole_gui.workbench.events import event_command

LEVEL = str(Path(__file__).parent / "engines" / "level_engine.py")


def level(name: str, *flags: str) -> list[str]:
    return ["--engine", f"cmd={sys.executable} {LEVEL} --seed {name} {' '.join(flags)}".strip(), f"name={name}"]


def test_draw_adjudication_in_a_real_match(tmp_path: Path) -> None:
    pgn = tmp_path / "games.pgn"
    result = arbiter(
        "match",
        *level("a"),
        *level("b"),
        "--depth",
        "1",
        "--games",
        "4",
        "--pgn",
        str(pgn),
        "--draw",
        "movenumber=5",
        "movecount=3",
        "score=0",
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout.splitlines()
    rule = "adjudication: draw movenumber=5 movecount=3 score=0; +0.00 +0.00 +0.00 +0.00 +0.00 +0.00"
    finished = [line for line in out if line.startswith("Finished game")]
    assert finished == [
        f"Finished game {n} ({white} vs {black}): 1/2-1/2 {{Draw by adjudication ({rule})}}"
        for n, (white, black) in enumerate([("a", "b"), ("b", "a")] * 2, 1)
    ]
    assert "Score of a vs b: 0 - 0 - 4  [0.500] 4" in out
    assert "Games: 4, Wins: 0, Losses: 0, Draws: 4, Points: 2.0 (50.00 %)" in out
    assert "Ptnml(0-2): [0, 0, 2, 0, 0]" in out
    assert "Terminations: adjudication 4" in out
    assert "Elo difference: 0.0 +/- 0.0, LOS: 50.0 %" in out
    for game in read_pgn_file(str(pgn)):
        assert game.result == "1/2-1/2" and game.tags["Result"] == "1/2-1/2"
        assert game.tags["Termination"] == "adjudication"
        assert len(game.moves) == 10  # move 5 reached, and the 6 level scores from ply 5 on
    replayed = arbiter("replay", str(pgn))
    assert replayed.returncode == 0, replayed.stdout
    # a record whose scores do not draw it by the rule it names is caught
    tampered = tmp_path / "tampered.pgn"
    tampered.write_text(pgn.read_text().replace("movenumber=5", "movenumber=4", 1))
    result = arbiter("replay", str(tampered))
    assert result.returncode == 1
    assert (
        "game 1 (round 1: a vs b, line 1): adjudication: by the recorded scores, draw movenumber=4 movecount=3 "
        "score=0 draws the game at ply 8, not 10"
    ) in result.stdout


def test_maxmoves_draws_a_long_game(tmp_path: Path) -> None:
    pgn = tmp_path / "games.pgn"
    result = arbiter(
        "match", *level("a", "--score", "300"), *level("b"), "--depth", "1", "--games", "2", "--pgn", str(pgn),
        "--maxmoves", "7", "--draw", "movenumber=1 movecount=1 score=10",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    # a's +3.00 breaks every run of level scores: the draw rule never fires, the length does
    assert result.stdout.count("1/2-1/2 {Draw by adjudication (adjudication: maxmoves 7)}") == 2
    assert "Games: 2, Wins: 0, Losses: 0, Draws: 2, Points: 1.0 (50.00 %)" in result.stdout
    assert [len(game.moves) for game in read_pgn_file(str(pgn))] == [14, 14]
    assert arbiter("replay", str(pgn)).returncode == 0


@pytest.mark.parametrize(
    ("flag", "words", "message"),
    [
        ("--draw", ["movenumber=4", "movecount=2"], "score missing"),
        ("--draw", ["movenumber=4", "movecount=0", "score=1"], "movecount must be a whole number of at least 1"),
        ("--maxmoves", ["-3"], "-3"),
        ("--maxmoves", ["many"], "many"),
    ],
)
def test_a_bad_draw_option_is_one_line(flag: str, words: list[str], message: str) -> None:
    result = arbiter("match", flag, *words, "--games", "1")
    assert result.returncode == 2
    assert re.fullmatch(rf"dipole-arbiter: error: .*{flag}.*\n", result.stderr), result.stderr
    assert message in result.stderr


def test_draws_in_an_event_database_resume_rate_and_export(tmp_path: Path) -> None:
    db, pgn = tmp_path / "draws.db", tmp_path / "all.pgn"
    result = arbiter(
        "tournament", *level("a"), *level("b"), "--depth", "1", "--games", "2", "--rounds", "2",
        "--db", str(db), "--maxmoves", "5",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("1/2-1/2 {Draw by adjudication (adjudication: maxmoves 5)}") == 4
    rated = arbiter("ratings", str(db))
    assert rated.returncode == 0, rated.stderr
    assert "White scored 2 of 4 (50.0%)" in rated.stdout and "0-0-2/0-0-2" in rated.stdout
    assert arbiter("export", str(db), "--pgn", str(pgn)).returncode == 0
    assert [game.result for game in read_pgn_file(str(pgn))] == ["1/2-1/2"] * 4
    resumed = arbiter("resume", str(db))  # nothing left to play; the stored rule and results hold
    assert resumed.returncode == 0, resumed.stderr
    # the watch page's feed: the draws in the games list, the standings and the crosstable
    feed = EventFeed(str(db))
    event = next(message for message in feed.poll() if message["type"] == "event")
    assert [game["result"] for game in event["games"]] == ["1/2-1/2"] * 4
    assert [row["score"] for row in event["ratings"]["rows"]] == [2.0, 2.0]
    assert event["ratings"]["crosstable"] == [["", "0-0-2/0-0-2"], ["0-0-2/0-0-2", ""]]

    # a database made before draws: its referee settings have no draw rule and no length limit
    with sqlite3.connect(db) as connection:
        (text,) = connection.execute("SELECT settings FROM event WHERE id = 1").fetchone()
        settings = json.loads(text)
        del settings["referee"]["draw"], settings["referee"]["maxmoves"]
        connection.execute("UPDATE event SET settings = ? WHERE id = 1", (json.dumps(settings),))
    assert arbiter("ratings", str(db)).stdout == rated.stdout
    assert arbiter("resume", str(db)).returncode == 0


def test_the_workbench_form_passes_the_draw_rule_and_maxmoves(tmp_path: Path) -> None:
    """The new-event form's draw fields become the arbiter's options, and the event it starts
    draws its games by them."""
    engines = tmp_path / "engines.json"
    engines.write_text(
        json.dumps({"engines": [{"name": name, "cmd": f"{sys.executable} {LEVEL} --seed {name}"} for name in "ab"]})
    )
    form = {
        "name": "drawn",
        "engines": ["a", "b"],
        "format": "match",
        "games": "2",
        "depth": "1",
        "draw": "movenumber=2 movecount=1 score=0",
        "maxmoves": "9",
    }
    args, db = event_command(form, str(tmp_path), str(engines))
    assert args[args.index("--draw") + 1] == "movenumber=2 movecount=1 score=0"
    assert args[args.index("--maxmoves") + 1] == "9"
    result = subprocess.run(args, capture_output=True, text=True, timeout=120, check=False, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    rule = "adjudication: draw movenumber=2 movecount=1 score=0; +0.00 +0.00"
    assert result.stdout.count(f"1/2-1/2 {{Draw by adjudication ({rule})}}") == 2
    store = EventStore.open(db, write=False)
    try:
        assert [(game.result, game.plies) for game in store.outcomes()] == [("1/2-1/2", 4)] * 2
        assert store.config.referee.draw == DrawRule(2, 1, 0) and store.config.referee.maxmoves == 9
    finally:
        store.close()
