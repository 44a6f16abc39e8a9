"""The live files (``arbiter.live.livefiles``): the live file and the live PGN of a running event, read
by another process while real arbiters play, are killed and resume."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

import pytest
from test_arbiter_cli import ARBITER, arbiter, toy
from test_arbiter_games import assert_all_gone
from test_tournament_cli import games_table, own, wait_for_games

from arbiter.events.running import event_running
from arbiter.live.livefiles import (
    LiveFiles,
    live_path,
    live_running,
    read_live,
)
from arbiter.openings.positions import generate_openings
from arbiter.play.engines import EngineSpec
from arbiter.play.referee import GameJob
from arbiter.play.timecontrol import Clock, SearchLimits, TimeControl
from arbiter.records.game import START, MoveRecord
from arbiter.records.pgn import read_pgn
from dipole_engine.rules import BLACK, WHITE, new_board
from protocol.codec import Info


def wait_for(condition, timeout: float = 60, step: float = 0.02):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(step)
    raise AssertionError("timed out waiting")


def test_a_move_reaches_the_live_file_within_a_second(tmp_path: Path) -> None:
    spec = EngineSpec("a", ("true",), SearchLimits(clock=TimeControl.parse("60+0.1")))
    job = GameJob(7, spec, spec, START, "dipole")
    board = new_board("dipole")
    moves: list[MoveRecord] = []
    clocks = {WHITE: Clock(spec.limits.clock), BLACK: Clock(spec.limits.clock)}
    live = str(tmp_path / "latency-live.json")
    publisher = LiveFiles(live, None, header={"event": "latency"})
    try:
        game = publisher.open_game(job, None, moves, clocks, board.turn)
        assert wait_for(lambda: (read_live(live) or {}).get("games"), timeout=1)
        worst = 0.0
        for ply, text in enumerate(generate_openings("dipole", 12, 1, seed=1)[0].moves):
            move = board.parse_move(text)
            board.push(move)
            clocks[-board.turn].spend(0.5, 0)
            moves.append(MoveRecord(str(move), depth=3, score_cp=12))
            game.info(Info(depth=4, score_cp=-20, pv=("a1-a2",)))  # the next mover's line
            game.moved(board.turn)
            played = time.monotonic()
            wait_for(
                lambda count=ply + 1: len((read_live(live) or {"games": [{}]})["games"][0].get("moves", [])) == count,
                timeout=2,
                step=0.005,
            )
            worst = max(worst, time.monotonic() - played)
            time.sleep(0.01 * (ply % 3))  # moves at different paces, some faster than the throttle
        assert worst < 1.0
        shown = read_live(live)["games"][0]  # type: ignore[index]
        assert shown["number"] == 7 and shown["moves"] == [m.text for m in moves]
        assert shown["clocks"]["white"] == round(clocks[WHITE].remaining, 3) < 60
        assert shown["lines"][shown["turn"]]["pv"] == ["a1-a2"]
        publisher.game_over(7)
        assert wait_for(lambda: read_live(live)["games"] == [], timeout=1)  # type: ignore[index]
    finally:
        publisher.close()
    assert read_live(live)["state"] == "finished"  # type: ignore[index]


@pytest.mark.slow
def test_live_file_follows_a_running_tournament_then_says_it_stopped(tmp_path: Path) -> None:
    db, pgn = tmp_path / "live.db", tmp_path / "live.pgn"
    process = subprocess.Popen(
        [
            *ARBITER,
            "tournament",
            *own("a", "tc=30+0.3"),
            *own("b", "tc=30+0.3"),
            "--games",
            "2",
            "--concurrency",
            "2",
            "--db",
            str(db),
            "--live-pgn",
            str(pgn),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:

        def rich() -> dict | None:  # type: ignore[type-arg]
            document = read_live(live_path(str(db)))
            for game in (document or {}).get("games", []):
                lines = game["lines"]
                if len(game["moves"]) >= 4 and len(lines) == 2 and all(line["pv"] for line in lines.values()):
                    return document
            return None

        document = wait_for(rich, timeout=90)
        assert document["pid"] == process.pid and document["state"] == "running"
        assert abs(time.time() - document["heartbeat"]) < 2.0
        assert live_running(document) and event_running(str(db))
        game = document["games"][0]
        assert all(
            isinstance(game["clocks"][side], float) and 0 < game["clocks"][side] <= 30.3 for side in ("white", "black")
        )
        assert game["turn"] in ("white", "black") and game["since"] <= time.time()
        assert {line["depth"] for line in game["lines"].values()} <= set(range(1, 100))
        in_pgn = {int(g.tags["Round"]): [m.text for m in g.moves] for g in read_pgn(pgn.read_text())}
        assert set(in_pgn) <= {1, 2} and all(g for g in in_pgn.values())
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)
    assert process.returncode == 128 + signal.SIGTERM
    stopped = read_live(live_path(str(db)))
    assert stopped is not None and stopped["state"] == "stopped" and stopped["games"] == []
    assert not live_running(stopped) and not event_running(str(db))
    assert read_pgn(pgn.read_text()) == []


@pytest.mark.slow
def test_live_pgn_always_parses_while_games_run(tmp_path: Path) -> None:
    pids, db, pgn = tmp_path / "pids", tmp_path / "p.db", tmp_path / "p.pgn"
    engines = [*toy("a", pids, "--think", "3"), *toy("b", pids, "--think", "3"), *toy("c", pids, "--think", "3")]
    process = subprocess.Popen(
        [
            *ARBITER,
            "tournament",
            *engines,
            "--depth",
            "1",
            "--games",
            "4",
            "--concurrency",
            "3",
            "--opening-plies",
            "2",
            "--seed",
            "5",
            "--db",
            str(db),
            "--live-pgn",
            str(pgn),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    reads, with_games, most = 0, 0, 0
    try:
        wait_for(pgn.exists)
        while process.poll() is None and reads < 400:
            text = pgn.read_text(encoding="utf-8")
            games = read_pgn(text, str(pgn))  # raises on a half-written file
            reads += 1
            for game in games:
                assert game.result == "*" and game.tags["Termination"] == "unterminated"
                board = new_board(game.tags["Variant"], game.tags.get("FEN"))
                for move in game.moves:
                    board.push(board.parse_move(move.text))  # every move legal, in order
                assert int(game.tags["PlyCount"]) == len(game.moves)
            if games:
                with_games += 1
                most = max(most, len(games))
            time.sleep(0.005)
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)
    assert reads >= 50 and with_games >= 20 and most >= 2, (reads, with_games, most)
    assert_all_gone(pids)


@pytest.mark.slow
def test_sigkilled_event_reads_as_not_running_and_resume_publishes_again(tmp_path: Path) -> None:
    pids, db = tmp_path / "pids", tmp_path / "k.db"
    # Moves of 0.1 s: a game lasts seconds, so the one seen in progress is still in progress
    # when the kill lands (at 10 ms a move, one ended in between in a CI run).
    engines = [*toy("a", pids, "--think", "100"), *toy("b", pids, "--think", "100")]
    process = subprocess.Popen(
        [*ARBITER, "tournament", *engines, "--depth", "1", "--games", "30", "--db", str(db)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    live = live_path(str(db))
    wait_for_games(db, 1)
    assert event_running(str(db)) and live_running(read_live(live))
    wait_for(lambda: (read_live(live) or {}).get("games"))
    process.kill()
    process.wait(timeout=10)
    assert not event_running(str(db))
    left = read_live(live)
    assert left is not None and left["state"] == "running" and left["games"]  # as the kill left it
    assert not live_running(left)  # ... but its arbiter is gone
    done = len(games_table(db))

    resumed = subprocess.Popen([*ARBITER, "resume", str(db)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        document = wait_for(lambda: (d := read_live(live)) and d["pid"] == resumed.pid and d["games"] and d)
        assert event_running(str(db)) and live_running(document)
        assert document["done_before"] >= done and document["games_total"] == 30
    finally:
        resumed.send_signal(signal.SIGTERM)
        resumed.wait(timeout=30)
    assert_all_gone(pids)


@pytest.mark.slow
def test_match_live_file_and_bad_live_paths(tmp_path: Path) -> None:
    live = tmp_path / "m.json"
    result = arbiter(
        "match",
        *toy("a", tmp_path / "pids"),
        *toy("b", tmp_path / "pids"),
        "--depth",
        "1",
        "--games",
        "2",
        "--live",
        str(live),
        "--live-pgn",
        str(tmp_path / "m.pgn"),
    )
    assert result.returncode == 0, result.stderr
    document = json.loads(live.read_text())
    assert document["state"] == "finished" and document["games"] == [] and document["games_total"] == 2
    assert document["done_this_run"] == 2
    bad = arbiter("match", "--live", str(tmp_path / "no" / "such.json"))
    assert bad.returncode == 2
    assert bad.stderr == f"dipole-arbiter: error: --live {tmp_path}/no/such.json: no such directory {tmp_path}/no\n"
    bad = arbiter("tournament", "--live-pgn", str(tmp_path), "--db", str(tmp_path / "x.db"))
    assert bad.returncode == 2 and bad.stderr == f"dipole-arbiter: error: --live-pgn {tmp_path}: is a directory\n"
    assert not (tmp_path / "x.db").exists()
