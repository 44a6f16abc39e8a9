"""Faults thrown at the processes of a running ``dipole-arbiter`` tournament, as a user would meet
them (real engine processes, the event database, ``resume``): the process playing a game, or the
arbiter, stopped (SIGSTOP, then SIGCONT) for longer than the engines' clocks, which must cost no
engine its game, and the fork server killed under its game processes, which the stop line must
count right."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_arbiter_cli import ARBITER, arbiter
from test_arbiter_games import TOY, assert_all_gone


def toy(name: str, pid_dir: Path, think_ms: int) -> list[str]:
    return [
        "--engine",
        f"cmd={sys.executable} {TOY} --seed {name} --think {think_ms} --pid-dir {pid_dir}",
        f"name={name}",
    ]


@contextlib.contextmanager
def tournament(
    tmp_path: Path, think_ms: int, *options: str, games: int = 2
) -> Iterator[tuple[subprocess.Popen[str], Path, Path]]:
    """A tournament of ``games`` games between two toy engines that take ``think_ms`` a move,
    run with ``options``: the arbiter's process (killed on the way out, if still running), its
    database, and the folder where each engine leaves its pid.  Its output goes to the files
    ``out`` and ``err`` in ``tmp_path`` (:func:`output`)."""
    pids, db = tmp_path / "pids", tmp_path / "event.db"
    pids.mkdir()
    command = [*ARBITER, "tournament", *toy("a", pids, think_ms), *toy("b", pids, think_ms)]
    command += ["--games", str(games), "--opening-plies", "2", "--seed", "6", "--db", str(db), *options]
    with (tmp_path / "out").open("w") as out, (tmp_path / "err").open("w") as err:
        process = subprocess.Popen(command, stdout=out, stderr=err, text=True)
    try:
        yield process, db, pids
    finally:
        process.kill()
        process.wait()


def output(tmp_path: Path) -> tuple[str, str]:
    return (tmp_path / "out").read_text(), (tmp_path / "err").read_text()


def engines_started(pid_dir: Path, count: int, timeout: float = 30) -> list[int]:
    deadline = time.monotonic() + timeout
    while len(found := list(pid_dir.iterdir())) < count:
        assert time.monotonic() < deadline, f"{count} engines never started"
        time.sleep(0.02)
    return [int(path.name) for path in found]


def parent(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as stat:
        return int(stat.read().rsplit(")", 1)[1].split()[1])


def player(engine: int) -> int:
    """The process that plays ``engine``'s game: the parent of the engine's guard."""
    return parent(parent(engine))


def terminations(db: Path) -> list[tuple[int, str]]:
    connection = sqlite3.connect(db)
    try:
        return connection.execute("SELECT number, termination FROM games ORDER BY number").fetchall()
    finally:
        connection.close()


def stop_for_a_while(pid: int, seconds: float = 3.0) -> None:
    """Stop ``pid`` for ``seconds`` (longer than either clock), then let it go on."""
    os.kill(pid, signal.SIGSTOP)
    try:
        time.sleep(seconds)
    finally:
        os.kill(pid, signal.SIGCONT)


@pytest.mark.parametrize("concurrency", ["2", "1"], ids=["game-process", "arbiter"])
@pytest.mark.slow
def test_a_process_stopped_mid_game_costs_no_engine_its_game(tmp_path: Path, concurrency: str) -> None:
    """SIGSTOP stops the process that referees a game (a game process, or with one game at a
    time the arbiter itself) but not its engines; after SIGCONT the referee would see a move
    that took the whole stop, longer than the mover's clock.  The game does not count, one line
    says so, and it is played again: the event completes, every game decided on the board."""
    with tournament(tmp_path, 30, "--tc", "2+0.05", "--concurrency", concurrency) as (process, db, pids):
        engines = engines_started(pids, 2 * int(concurrency))
        time.sleep(0.5)  # into the game
        stopped = player(engines[0])
        host = "the arbiter" if stopped == process.pid else "the game process"
        if concurrency == "1":
            assert stopped == process.pid
        stop_for_a_while(stopped)
        status = process.wait(timeout=60)
    out, err = output(tmp_path)
    assert status == 0, out + err
    assert "Finished tournament" in out
    assert terminations(db) == [(1, "NORMAL"), (2, "NORMAL")], err  # no loss on time, no stall
    assert re.search(
        rf"^Warning: game [12] does not count: {host} \(pid {stopped}\) was frozen for [3-9]\.\d s "
        r"during the game; it is played again$",
        err,
        re.MULTILINE,
    ), err
    assert_all_gone(pids, expected_at_least=4)


@pytest.mark.slow
def test_an_arbiter_stopped_mid_event_costs_no_engine_a_game(tmp_path: Path) -> None:
    """Stopped, the arbiter takes none of its game processes' messages (here each ply's, for the
    live view); once the pipe between them is full, a game process waits at each message, and
    its games' engines' clocks run on (four game processes at most, 32 games: some 10 KiB of
    messages a game, more than a pipe holds for each process).  The games it played meanwhile
    do not count, one line each says so, and they are played again: the event completes, every
    game decided on the board."""
    options = ("--tc", "1+0.01", "--concurrency", "4", "--live-pgn", str(tmp_path / "live.pgn"))
    with tournament(tmp_path, 0, *options, games=32) as (process, db, pids):
        engines_started(pids, 8)
        time.sleep(0.2)
        stop_for_a_while(process.pid)
        status = process.wait(timeout=60)
    out, err = output(tmp_path)
    assert status == 0, out + err
    assert terminations(db) == [(number, "NORMAL") for number in range(1, 33)], err
    void = re.search(
        r"^Warning: game \d+ does not count: the game process \(pid \d+\) waited [1-3]\.\d s during "
        r"the game for the arbiter to take its messages; it is played again$",
        err,
        re.MULTILINE,
    )
    assert void, err
    assert_all_gone(pids, expected_at_least=8)


@pytest.mark.slow
def test_the_fork_servers_death_is_one_line_naming_its_game_processes_and_their_games(tmp_path: Path) -> None:
    """The game processes of an arbiter that has other threads (a tournament's: its live view)
    come from the fork server; killed, it takes them (and their games in progress) with it.
    The stop line names the fork server, every game process and every game lost; ``resume``
    plays them."""
    with tournament(tmp_path, 30, "--depth", "1", "--concurrency", "2") as (process, db, pids):
        engines = engines_started(pids, 4)
        time.sleep(0.3)  # both games under way (each lasts seconds)
        game_processes = {player(engine) for engine in engines}
        assert len(game_processes) == 2
        (server,) = {parent(game_process) for game_process in game_processes}
        assert server != process.pid and parent(server) == process.pid
        os.kill(server, signal.SIGKILL)
        status = process.wait(timeout=30)
    out, err = output(tmp_path)
    assert status != 0, out
    stop = re.search(
        rf"^Tournament stopped after 0 of 2 games: the fork server \(pid {server}\) died, and with it "
        r"game processes 1 \(pid (\d+)\) and 2 \(pid (\d+)\); the 2 games they were playing "
        rf"\(games 1 and 2\) were not recorded; continue with: dipole-arbiter resume {re.escape(str(db))}$",
        out,
        re.MULTILINE,
    )
    assert stop is not None, out + err
    assert {int(stop[1]), int(stop[2])} == game_processes
    assert_all_gone(pids, expected_at_least=4)
    assert terminations(db) == []

    resumed = arbiter("resume", str(db), "--concurrency", "2")
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert [number for number, _ in terminations(db)] == [1, 2]
