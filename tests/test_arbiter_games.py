"""Refereed games against real engine processes: misbehaving engines, clocks, passes, recovery,
concurrency, and no process left behind.

The engines are tests/engines/toy_engine.py (legal moves at once, or one misbehaviour on
request); each writes its pid into a directory so the tests can check every one has gone.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import threading
import time
from pathlib import Path

import pytest

from arbiter.events.match import schedule
from arbiter.openings.positions import generate_openings
from arbiter.play.engines import EngineSpec
from arbiter.play.referee import EngineSlot, GameControl, GameJob, HumanSeat, RefereeSettings, SetupError, play_game
from arbiter.play.replay import check_game
from arbiter.play.timecontrol import Clock, SearchLimits, TimeControl
from arbiter.pools.local import EngineLogs, GamePool
from arbiter.records.game import START, GameRecord, MoveRecord, MoveSource, Opening, Termination
from arbiter.records.pgn import format_game, read_pgn
from gameplug import Side

pytestmark = pytest.mark.build  # the compiled client, transport, referee or hub: CI runs these on both builds

TOY = str(Path(__file__).parent / "engines" / "toy_engine.py")
# 8 s to start: Python starts slowly on a loaded machine (an engine that never answers the
# handshake is tested with 2 s, below)
FAST = RefereeSettings(handshake_timeout=8.0, stall_timeout=5.0, stop_grace=1.5, quit_grace=0.3)
TIMED = SearchLimits(movetime=0.2, margin=0.3)  # a well-behaved engine never comes near 0.5 s


DEPTH_1 = SearchLimits(depth=1)


def toy(name: str, pid_dir: Path, *flags: str, limits: SearchLimits = DEPTH_1) -> EngineSpec:
    command = (sys.executable, TOY, "--pid-dir", str(pid_dir), "--seed", name, *flags)
    return EngineSpec(name, command, limits)


def alive(pid: int) -> bool:
    """True while ``pid`` is a live process (a zombie awaiting its reaper counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):  # gone before the open, or between open and read
        return False


def assert_all_gone(pid_dir: Path, expected_at_least: int = 1) -> None:
    pids = [int(path.name) for path in pid_dir.iterdir()]
    assert len(pids) >= expected_at_least
    deadline = time.monotonic() + 5
    while any(map(alive, pids)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [pid for pid in pids if alive(pid)] == []


def run_pool(
    first: EngineSpec,
    second: EngineSpec,
    games: int,
    *,
    recover: bool = True,
    concurrency: int = 1,
    openings: list[Opening] | None = None,
    settings: RefereeSettings = FAST,
    logs: EngineLogs | None = None,
) -> tuple[list[GameRecord], GamePool]:
    pool = GamePool("dipole", settings, concurrency=concurrency, recover=recover, logs=logs)
    records: list[GameRecord] = []
    jobs = schedule(first, second, games, openings or [START], "dipole")
    pool.run(jobs, lambda job: None, records.append)
    return sorted(records, key=lambda record: record.number), pool


def replays(record: GameRecord) -> bool:
    (game,) = read_pgn(format_game(record))
    return check_game(game) is None


MISBEHAVIOURS = [
    # flags of the bad engine, its limits, the termination, the reason after "White"/"Black"
    (("--crash", "--after", "3"), SearchLimits(depth=1), Termination.CRASH, " disconnects"),
    (("--hang", "--after", "3"), TIMED, Termination.STALL, "'s connection stalls"),
    (("--hang", "--after", "2"), SearchLimits(depth=1), Termination.STALL, "'s connection stalls"),
    (("--badmove", "--after", "3"), SearchLimits(depth=1), Termination.ILLEGAL_MOVE, " makes an illegal move: @@@"),
    (("--illegal", "--after", "2"), SearchLimits(depth=1), Termination.ILLEGAL_MOVE, " makes an illegal move: "),
    (("--none", "--after", "2"), SearchLimits(depth=1), Termination.ILLEGAL_MOVE, " makes an illegal move: (none)"),
    (("--no-uciok",), SearchLimits(depth=1), Termination.HANDSHAKE, " fails to start"),
    (("--overrun", "800", "--after", "2"), TIMED, Termination.TIME_FORFEIT, " loses on time"),
]


@pytest.mark.parametrize(
    ("flags", "limits", "termination", "reason"),
    MISBEHAVIOURS,
    ids=lambda value: " ".join(value) if isinstance(value, tuple) else None,
)
def test_misbehaving_engine_loses_with_the_right_termination(
    tmp_path: Path, flags: tuple[str, ...], limits: SearchLimits, termination: Termination, reason: str
) -> None:
    settings = FAST
    if termination is Termination.HANDSHAKE:
        settings = dataclasses.replace(FAST, handshake_timeout=2.0)
    elif termination is Termination.STALL and not limits.movetime:
        settings = dataclasses.replace(FAST, stall_timeout=0.5)
    bad = toy("bad", tmp_path, *flags, limits=limits)
    good = toy("good", tmp_path, limits=limits)
    records, pool = run_pool(bad, good, 2, settings=settings)
    assert [record.number for record in records] == [1, 2]
    for record in records:
        bad_colour = "White" if record.white == "bad" else "Black"
        assert record.termination is termination, record
        assert record.result == ("0-1" if bad_colour == "White" else "1-0")
        assert record.reason.startswith(bad_colour + reason)
        assert replays(record)
    assert pool.stop_reason is None
    assert_all_gone(tmp_path, expected_at_least=2)


def test_overrunning_the_game_clock_loses_on_time(tmp_path: Path) -> None:
    slow = toy("slow", tmp_path, "--think", "150", limits=SearchLimits(clock=TimeControl(0, 0.6, 0.0)))
    quick = toy("quick", tmp_path, limits=SearchLimits(clock=TimeControl(0, 30.0, 0.0)))
    records, _ = run_pool(slow, quick, 2)
    for record in records:
        assert record.termination is Termination.TIME_FORFEIT
        assert record.winner() == "quick"
        slow_moves = [m for i, m in enumerate(record.moves) if (i % 2 == 0) == (record.white == "slow")]
        assert 1 <= len(slow_moves) <= 4  # 0.6 s lasts at most four 150 ms moves
        assert all(m.time is not None and m.time >= 0.14 for m in slow_moves)
        assert {record.white_tc, record.black_tc} == {"0.6", "30"}
    assert_all_gone(tmp_path)


def test_garbage_lines_are_ignored_and_the_game_is_normal(tmp_path: Path) -> None:
    records, _ = run_pool(toy("noisy", tmp_path, "--garbage"), toy("plain", tmp_path), 2)
    assert [record.termination for record in records] == [Termination.NORMAL] * 2
    assert all(replays(record) for record in records)


def test_engine_that_ignores_quit_is_killed_at_the_end(tmp_path: Path) -> None:
    started = time.monotonic()
    records, _ = run_pool(toy("deaf", tmp_path, "--ignore-quit"), toy("plain", tmp_path), 2)
    assert [record.termination for record in records] == [Termination.NORMAL] * 2
    assert time.monotonic() - started < 20
    assert_all_gone(tmp_path, expected_at_least=2)


def test_without_recover_a_crash_stops_the_match(tmp_path: Path) -> None:
    records, pool = run_pool(toy("bad", tmp_path, "--crash", "--after", "2"), toy("good", tmp_path), 6, recover=False)
    assert len(records) == 1 and records[0].termination is Termination.CRASH
    assert pool.stop_reason is not None and "'bad' can no longer play" in pool.stop_reason
    assert "--recover" in pool.stop_reason
    assert_all_gone(tmp_path, expected_at_least=2)


def test_with_recover_a_crashed_engine_is_restarted(tmp_path: Path) -> None:
    records, _ = run_pool(toy("bad", tmp_path, "--crash", "--after", "3"), toy("good", tmp_path), 4)
    assert [record.termination for record in records] == [Termination.CRASH] * 4
    assert len(list(tmp_path.iterdir())) == 5  # bad started once per game, good once
    assert_all_gone(tmp_path, expected_at_least=5)


def test_forced_pass_is_played_by_the_arbiter(tmp_path: Path) -> None:
    # White must pass at once.  An engine asked for that move would answer "@@@" and lose.
    opening = Opening("W:W1d4:B2c5,2e5", (), "pass position")
    white = toy("white", tmp_path, "--badmove", "--after", "1")
    black = toy("black", tmp_path)
    job = GameJob(1, white, black, opening, "dipole")
    slots = [EngineSlot(spec, "dipole", FAST) for spec in (white, black)]
    record = play_game(job, slots[0], slots[1], FAST)
    for slot in slots:
        slot.quit()
    assert record.moves[0].text == "pass" and record.moves[0].source is MoveSource.FORCED
    assert record.moves[1].source is MoveSource.ENGINE
    assert record.fen == "W:W1d4:B2c5,2e5"
    assert replays(record)
    assert "1. pass {forced}" in format_game(record)
    if record.termination is Termination.ILLEGAL_MOVE:  # White's engine was asked later on
        assert record.reason == "White makes an illegal move: @@@" and len(record.moves) >= 2
    assert_all_gone(tmp_path)


def test_book_moves_are_recorded_and_sent(tmp_path: Path) -> None:
    opening = Opening(None, ("c1-c3", "d8-d6"), "test opening")
    records, _ = run_pool(toy("a", tmp_path), toy("b", tmp_path), 2, openings=[opening])
    for record in records:
        assert [m.text for m in record.moves[:2]] == ["c1-c3", "d8-d6"]
        assert [m.source for m in record.moves[:2]] == [MoveSource.BOOK] * 2
        assert record.opening == "test opening"
        assert replays(record)


def test_unknown_option_stops_with_a_setup_error(tmp_path: Path) -> None:
    spec = toy("a", tmp_path)
    wrong = EngineSpec("wrong", spec.command, spec.limits, options=(("Hsh", "8"),))
    with pytest.raises(SetupError, match="has no option 'Hsh'"):
        run_pool(wrong, toy("b", tmp_path), 2)
    assert_all_gone(tmp_path)


def test_concurrency_two_gives_the_same_games_as_one(tmp_path: Path) -> None:
    openings = generate_openings("dipole", 2, 4, seed=3)
    first, second = toy("x", tmp_path), toy("y", tmp_path)
    one, _ = run_pool(first, second, 8, concurrency=1, openings=openings)
    two, _ = run_pool(first, second, 8, concurrency=2, openings=openings)
    assert [(r.number, r.white, r.result, [m.text for m in r.moves]) for r in one] == [
        (r.number, r.white, r.result, [m.text for m in r.moves]) for r in two
    ]
    assert len({tuple(m.text for m in r.moves) for r in one}) > 1
    assert_all_gone(tmp_path, expected_at_least=6)


def test_engine_logs_keep_every_line_timestamped(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    pids.mkdir()
    logs = EngineLogs(str(tmp_path / "logs"))
    run_pool(toy("a", pids), toy("b", pids), 2, logs=logs)
    logs.close()
    lines = (tmp_path / "logs" / "a.log").read_text().splitlines()
    assert any(line.endswith(" w1 > uci") for line in lines)
    assert any(" w1 < bestmove " in line for line in lines)
    assert any(" w1 # started, pid " in line for line in lines)
    stamp = lines[0].split()[0]
    assert len(stamp) == 26 and stamp[10] == "T"  # 2026-01-02T12:34:56.123456
    assert os.path.exists(tmp_path / "logs" / "b.log")


# -- human seats (dipole-gui's players): the same referee --------------------------------------
PATIENT = RefereeSettings(handshake_timeout=30.0, stall_timeout=60.0, stop_grace=5.0, quit_grace=1.0)


def test_a_human_seat_plays_what_is_submitted_and_resigns_while_the_engine_thinks() -> None:
    """The human's move is the one submitted for the ply to play (one for another ply is
    dropped); a resignation while the engine thinks stops it, and its answer is not played."""
    engine = EngineSpec("engine", (sys.executable, "-m", "dipole_engine"), SearchLimits(movetime=60.0, margin=1.0))
    human = HumanSeat("Human", SearchLimits(clock=TimeControl(0, 300)))
    slot = EngineSlot(engine, "dipole", PATIENT)
    control = GameControl()
    control.submit(3, "c1-c2")  # not this ply's: dropped
    control.submit(0, "c1-c3")
    records: list[GameRecord] = []
    thinking = threading.Event()

    class Watcher:  # told when the engine thinks (its info lines)
        def open_game(self, *game: object) -> Watcher:
            return self

        def moved(self, turn: int) -> None:
            pass

        def info(self, info: object) -> None:
            thinking.set()

    game = threading.Thread(
        target=lambda: records.append(
            play_game(
                GameJob(1, human.spec, engine, START, "dipole"), human, slot, PATIENT, live=Watcher(), control=control
            )
        )
    )
    game.start()
    try:
        assert thinking.wait(60)
        time.sleep(0.5)  # well into its minute
        resigned = time.monotonic()
        control.resign(Side.FIRST)
        game.join(30)
        assert not game.is_alive() and time.monotonic() - resigned < 5
    finally:
        slot.quit()
    record = records[0]
    assert (record.result, record.termination, record.reason) == ("0-1", Termination.RESIGNATION, "White resigns")
    assert [move.text for move in record.moves] == ["c1-c3"]
    assert not slot.broken  # the engine answered the stop and stays usable
    assert replays(record) and '[Termination "resignation"]' in format_game(record)


def test_a_game_taken_over_part_way_keeps_its_plies_and_clocks_and_a_human_flag_falls() -> None:
    """A take-over (the GUI's take-back) starts from the plies played, as recorded, with the
    clocks as they stand: White's last 0.3 s run out while the referee waits for its move."""
    control = TimeControl(0, 300)
    human = HumanSeat("Human", SearchLimits(clock=control))
    engine = EngineSpec("engine", (sys.executable, TOY), SearchLimits(clock=control))
    slot = EngineSlot(engine, "dipole", PATIENT)
    played = (MoveRecord("c1-c3", time=12.0), MoveRecord("d8-d6", score_cp=15, depth=3, time=1.5))
    clocks = {Side.FIRST: Clock(control), Side.SECOND: Clock(control)}
    clocks[Side.FIRST].remaining = 0.3
    started = time.monotonic()
    try:
        record = play_game(
            GameJob(1, human.spec, engine, START, "dipole"),
            human,
            slot,
            PATIENT,
            control=GameControl(),
            played=played,
            clocks=clocks,
        )
    finally:
        slot.quit()
    assert 0.3 <= time.monotonic() - started < 10
    assert (record.result, record.termination, record.reason) == (
        "0-1",
        Termination.TIME_FORFEIT,
        "White loses on time",
    )
    assert record.moves == played and clocks[Side.FIRST].remaining < 0
    assert replays(record)


def test_an_abandoned_game_ends_unfinished_at_once() -> None:
    human = HumanSeat("Human", SearchLimits())
    control = GameControl()
    threading.Timer(0.3, control.abandon).start()
    record = play_game(GameJob(1, human.spec, human.spec, START, "dipole"), human, human, PATIENT, control=control)
    assert (record.result, record.termination, record.reason) == ("*", Termination.UNTERMINATED, "game abandoned")
