"""A Dask cluster's faults, against real processes (a ``dask scheduler`` and ``dask worker``
processes on 127.0.0.1, see ``test_cluster.Cluster``): two events sharing the workers, workers
restarted under an event, a worker frozen mid-game, workers dying on one game, a worker lost
after it played a game, and servers at ``--cluster`` that are not a Dask scheduler.  Each test
has its own cluster (it restarts, freezes or kills workers), and hard timeouts."""

from __future__ import annotations

import contextlib
import http.server
import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

import pytest
from test_arbiter_cli import ARBITER
from test_arbiter_games import TOY
from test_cluster import Cluster, children, finished_numbers, wait_until_gone

pytest.importorskip("distributed")  # the cluster extra; the test extra installs it, so CI runs these


def toy(name: str, *flags: str) -> list[str]:
    return ["--engine", f"cmd={sys.executable} {TOY} --seed {name} {' '.join(flags)}".rstrip(), f"name={name}"]


class Arbiter:
    """The arbiter as a running process whose output lines the test reads as they come."""

    def __init__(self, *args: str, env: dict[str, str] | None = None) -> None:
        self.process = subprocess.Popen(
            [*ARBITER, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
        )
        self.out: list[str] = []
        self.err: list[str] = []
        self._readers = [
            threading.Thread(target=self._read, args=(stream, lines), daemon=True)
            for stream, lines in ((self.process.stdout, self.out), (self.process.stderr, self.err))
        ]
        for reader in self._readers:
            reader.start()

    @staticmethod
    def _read(stream: IO[str], lines: list[str]) -> None:
        for line in stream:
            lines.append(line.rstrip("\n"))

    def wait_for(self, pattern: str, lines: list[str], timeout: float = 60) -> str:
        """The first line of ``lines`` (self.out or self.err) that matches ``pattern``."""
        deadline = time.monotonic() + timeout
        while True:
            ended = self.process.poll() is not None
            if ended:  # what it wrote last is read
                for reader in self._readers:
                    reader.join(timeout=5)
            found = [line for line in list(lines) if re.search(pattern, line)]
            if found:
                return found[0]
            assert not ended, f"the arbiter ended without {pattern!r}:\n" + "\n".join(self.out + self.err)
            assert time.monotonic() < deadline, f"no {pattern!r} within {timeout} s:\n" + "\n".join(self.out + self.err)
            time.sleep(0.05)

    def finish(self, timeout: float) -> int:
        """The exit status, once the arbiter has ended (within ``timeout`` seconds, else the test fails)."""
        try:
            status = self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise AssertionError(
                f"the arbiter did not end within {timeout} s:\n" + "\n".join(self.out + self.err)
            ) from None
        for reader in self._readers:
            reader.join(timeout=5)
        return status

    @property
    def stdout(self) -> str:
        return "\n".join(self.out) + "\n"

    @property
    def stderr(self) -> str:
        return "\n".join(self.err) + "\n"

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


@contextlib.contextmanager
def own_cluster(directory: Path) -> Iterator[Cluster]:
    running = Cluster(directory)
    try:
        yield running
    finally:
        running.stop()


@contextlib.contextmanager
def arbiter_running(*args: str, env: dict[str, str] | None = None) -> Iterator[Arbiter]:
    run = Arbiter(*args, env=env)
    try:
        yield run
    finally:
        run.kill()


def terminations(db: Path) -> list[tuple[int, str, str]]:
    connection = sqlite3.connect(db)
    try:
        return connection.execute("SELECT number, termination, reason FROM games ORDER BY number").fetchall()
    finally:
        connection.close()


def wait_playing(worker: subprocess.Popen[bytes], timeout: float = 60) -> set[int]:
    """Until ``worker`` runs a game's two engines; their pids."""
    deadline = time.monotonic() + timeout
    while len(engines := children(worker.pid)) < 2:
        assert worker.poll() is None and time.monotonic() < deadline, "the worker got no game"
        time.sleep(0.02)
    return engines


def restart(cluster: Cluster, worker: subprocess.Popen[bytes], name: str, env: dict[str, str]) -> None:
    """Close ``worker`` as an operator does (SIGTERM) and start a new one in its place (a new address)."""
    os.kill(worker.pid, signal.SIGTERM)
    worker.wait(timeout=30)
    cluster.add_worker(name, env=env)


def engine_path(directory: Path) -> dict[str, str]:
    """An environment whose PATH has ``only-here-engine`` (the toy engine), which the bare worker lacks."""
    bin_dir = directory / "bin"
    bin_dir.mkdir(exist_ok=True)
    engine = bin_dir / "only-here-engine"
    engine.write_text(f'#!/bin/sh\nexec {sys.executable} {TOY} "$@"\n')
    engine.chmod(0o755)
    return {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}


@pytest.mark.slow
def test_two_events_at_once_share_the_workers_and_touch_no_other_engines(tmp_path: Path) -> None:
    """The second event registers on the workers while the first one's games are running: the
    first one's engines must live on (a game they lose by being killed is a wrong result)."""
    with own_cluster(tmp_path) as cluster:
        first_worker = cluster.add_worker("w1")
        second_worker = cluster.add_worker("w2")
        events = {name: tmp_path / f"{name}.db" for name in ("first", "second")}

        def event(think: int) -> list[str]:
            return [
                *toy("a", f"--think {think}"),
                *toy("b", f"--think {think}"),
                "--depth",
                "1",
                "--games",
                "2",
                "--opening-plies",
                "2",
                "--cluster",
                cluster.address,
            ]

        # The first event's engines think long enough to be still playing whenever the second
        # event, started meanwhile, is ready (a Python start and a Dask connection: seconds on
        # a busy machine); engines whose game ended would leave /proc without being killed.
        with arbiter_running("tournament", *event(400), "--seed", "1", "--db", str(events["first"])) as first:
            engines = wait_playing(first_worker)
            time.sleep(0.3)
            with arbiter_running("tournament", *event(60), "--seed", "2", "--db", str(events["second"])) as second:
                second.wait_for(r"^Cluster: ", second.err)  # registered on every worker
                time.sleep(1.0)
                assert all(os.path.exists(f"/proc/{pid}") for pid in engines), "the second event killed engines"
                assert second.finish(120) == 0, second.stderr
            assert first.finish(120) == 0, first.stderr
        # An event's engines end with its arbiter's run, though the workers go on.
        wait_until_gone(children(first_worker.pid) | children(second_worker.pid))
    for run, db in ((first, events["first"]), (second, events["second"])):
        assert finished_numbers(run.stdout) == [1, 2]
        assert [row[1] for row in terminations(db)] == ["NORMAL", "NORMAL"], terminations(db)
        assert "disconnects" not in run.stdout and "was killed" not in run.stderr, run.stderr


@pytest.mark.parametrize("at_once", [False, True], ids=["one-after-another", "all-at-once"])
@pytest.mark.slow
def test_workers_restarted_under_an_event_never_hang_it_nor_lose_its_database(tmp_path: Path, at_once: bool) -> None:
    """A worker without the engine sends its games back; the others are then restarted (new
    addresses) while games are running and waiting: the event must finish, every game once,
    none lost to the engines killed by a closing worker."""
    env = engine_path(tmp_path)
    db = tmp_path / "event.db"
    with own_cluster(tmp_path) as cluster:
        cluster.add_worker("bare")
        good = [cluster.add_worker("g1", env=env), cluster.add_worker("g2", env=env)]
        with arbiter_running(
            "tournament",
            "--engine",
            "cmd=only-here-engine --seed x --think 60",
            "name=x",
            "--engine",
            "cmd=only-here-engine --seed y --think 60",
            "name=y",
            "--depth",
            "1",
            "--games",
            "4",
            "--opening-plies",
            "2",
            "--seed",
            "4",
            "--cluster",
            cluster.address,
            "--db",
            str(db),
        ) as run:
            run.wait_for(r"cannot start engine '[xy]'", run.err)
            if at_once:
                for worker in good:
                    os.kill(worker.pid, signal.SIGTERM)
                for worker in good:
                    worker.wait(timeout=30)
                time.sleep(2.0)  # only the bare worker is left: the games must wait, not stop the event
                cluster.add_worker("g3", env=env)
                cluster.add_worker("g4", env=env)
            else:
                restart(cluster, good[0], "g3", env)
                restart(cluster, good[1], "g4", env)
            status = run.finish(180)
    assert status == 0, run.stdout + run.stderr
    assert finished_numbers(run.stdout) == [1, 2, 3, 4]
    assert [row[1] for row in terminations(db)] == ["NORMAL"] * 4, terminations(db)
    assert "disconnects" not in run.stdout


@pytest.mark.slow
def test_a_frozen_worker_costs_no_engine_its_game_and_a_slow_engine_still_loses(tmp_path: Path) -> None:
    """SIGSTOP freezes the worker (its referee) but not the engines, its children in their own
    process groups; after SIGCONT the referee would see a move that took the whole freeze.
    That game does not count and is played again; an engine that is slow by itself still
    loses on time."""
    db = tmp_path / "frozen.db"
    with own_cluster(tmp_path) as cluster:
        worker = cluster.add_worker("solo")
        with arbiter_running(
            "tournament",
            *toy("a", "--think 30"),
            *toy("b", "--think 30"),
            "--tc",
            "4+0.05",
            "--games",
            "2",
            "--opening-plies",
            "2",
            "--seed",
            "6",
            "--cluster",
            cluster.address,
            "--db",
            str(db),
        ) as run:
            wait_playing(worker)
            time.sleep(0.5)
            os.kill(worker.pid, signal.SIGSTOP)
            try:
                time.sleep(6.0)  # longer than either clock
            finally:
                os.kill(worker.pid, signal.SIGCONT)
            status = run.finish(120)
        assert status == 0, run.stdout + run.stderr
        assert finished_numbers(run.stdout) == [1, 2]
        assert [row[1] for row in terminations(db)] == ["NORMAL", "NORMAL"], terminations(db)
        assert any(
            re.fullmatch(
                r"Warning: worker [^ ]+:\d+: game 1 does not count: the worker process was frozen "
                r"for ([6-9]|\d\d)\.\d s during the game; it is played again",
                line,
            )
            for line in run.err
        ), run.stderr
        # An engine that overruns its clock by itself loses on time, on the cluster as locally.
        slow = subprocess.run(
            [
                *ARBITER,
                "match",
                *toy("a"),
                *toy("late", "--overrun 1500 --after 3"),
                "--tc",
                "1+0",
                "--games",
                "1",
                "--cluster",
                cluster.address,
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert slow.returncode == 0, slow.stderr
    assert re.search(r"^Finished game 1 \(a vs late\): 1-0 \{Black loses on time\}$", slow.stdout, re.MULTILINE), (
        slow.stdout
    )
    assert "does not count" not in slow.stderr


@pytest.mark.slow
def test_three_worker_deaths_on_one_game_stop_the_event_which_resumes(tmp_path: Path) -> None:
    """The README's promise: a game on which three workers die in turn stops the event (in one
    line, the database kept), instead of going to a fourth."""
    db = tmp_path / "event.db"
    with own_cluster(tmp_path) as cluster:
        with arbiter_running(
            "tournament",
            *toy("a", "--think 60"),
            *toy("b", "--think 60"),
            "--depth",
            "1",
            "--rounds",
            "1",
            "--games",
            "1",
            "--opening-plies",
            "2",
            "--seed",
            "3",
            "--cluster",
            cluster.address,
            "--db",
            str(db),
        ) as run:
            for death in range(3):
                victim = cluster.add_worker(f"victim{death}")
                wait_playing(victim)
                time.sleep(0.3)
                os.kill(victim.pid, signal.SIGKILL)
                victim.wait()
            status = run.finish(60)
        assert status == 1, run.stdout + run.stderr
        assert re.search(
            rf"^Tournament stopped after 0 of 1 games: game 1 was lost 3 times \(the worker playing it "
            rf"died, closed or froze each time\); see the workers' logs; continue with: "
            rf"dipole-arbiter resume {re.escape(str(db))}$",
            run.stdout,
            re.MULTILINE,
        ), run.stdout
        assert len(re.findall(r"left the cluster with game 1 of this event; it is played again", run.stderr)) == 2
        assert "Traceback" not in run.stderr
        cluster.add_worker("survivor")
        resumed = subprocess.run([*ARBITER, "resume", str(db)], capture_output=True, text=True, timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    assert finished_numbers(resumed.stdout) == [1]


def processed(address: str) -> Counter[int]:
    """How many times the scheduler gave each game of the arbiter's to a worker (its transitions
    to ``processing``), by game number."""
    from distributed import Client

    with Client(address, timeout=30, set_as_default=False) as client:
        log = client.run_on_scheduler(lambda dask_scheduler: [(t[0], t[2]) for t in dask_scheduler.transition_log])
    return Counter(
        int(str(key).split("-")[3])
        for key, finish in log
        if str(key).startswith("dipole-game-") and finish == "processing"
    )


@pytest.mark.slow
def test_a_worker_lost_after_its_game_was_recorded_plays_it_no_more(tmp_path: Path) -> None:
    """Game 1 (two fast engines) ends long before games 2 and 3 (a slow one): killing the worker
    that played it must not make Dask play it again for a result already taken."""
    db = tmp_path / "event.db"
    with own_cluster(tmp_path) as cluster:
        workers = {str(cluster.add_worker(name).pid): name for name in ("w1", "w2")}
        by_pid = {str(worker.pid): worker for worker in cluster.workers}
        with arbiter_running(
            "tournament",
            *toy("a"),
            *toy("b"),
            *toy("s", "--think 100"),
            "--depth",
            "1",
            "--rounds",
            "1",
            "--games",
            "1",
            "--opening-plies",
            "2",
            "--seed",
            "9",
            "--cluster",
            cluster.address,
            "--db",
            str(db),
        ) as run:
            run.wait_for(r"^Finished game 1 ", run.out)
            connection = sqlite3.connect(db)
            try:
                (site,) = connection.execute("SELECT site FROM games WHERE number = 1").fetchone()
            finally:
                connection.close()
            pid = site.rpartition(":")[2]
            assert pid in workers
            time.sleep(0.5)
            os.kill(int(pid), signal.SIGKILL)
            by_pid[pid].wait()
            status = run.finish(120)
        assert status == 0, run.stdout + run.stderr
        assert finished_numbers(run.stdout) == [1, 2, 3]
        time.sleep(1.0)  # a replay of game 1 would have been given out at once
        assert processed(cluster.address)[1] == 1


def silent_server(sock: socket.socket, stop: threading.Event) -> None:
    """Accepts connections and never says a word."""
    held = []
    sock.settimeout(0.2)
    while not stop.is_set():
        with contextlib.suppress(OSError):
            held.append(sock.accept()[0])
    for connection in held:
        connection.close()


def garbage_server(sock: socket.socket, stop: threading.Event) -> None:
    """Answers every connection with bytes that mean nothing (the first eight a huge length)."""
    sock.settimeout(0.2)
    while not stop.is_set():
        with contextlib.suppress(OSError):
            connection = sock.accept()[0]
            connection.sendall(b"\xff" * 7 + b"\x7f" + b"garbage" * 100)
            time.sleep(0.1)
            connection.close()


@contextlib.contextmanager
def serving(kind: str) -> Iterator[str]:
    """A server that is not a Dask scheduler, on a free port of 127.0.0.1: its address."""
    stop = threading.Event()
    if kind in ("http", "tls"):
        httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
        thread = threading.Thread(target=httpd.serve_forever, daemon=True)
        thread.start()
        try:
            yield f"{'tls' if kind == 'tls' else 'tcp'}://127.0.0.1:{httpd.server_address[1]}"
        finally:
            httpd.shutdown()
            httpd.server_close()
        return
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    target: Callable[[socket.socket, threading.Event], None] = silent_server if kind == "silent" else garbage_server
    thread = threading.Thread(target=target, args=(sock, stop), daemon=True)
    thread.start()
    try:
        yield f"tcp://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        stop.set()
        thread.join(timeout=5)
        sock.close()


@pytest.mark.parametrize(
    "kind, reason",
    [
        ("http", r"is not a Dask scheduler: it accepted the connection but said nothing in 5 s"),
        ("silent", r"is not a Dask scheduler: it accepted the connection but said nothing in 5 s"),
        ("garbage", r"is not a Dask scheduler: what it sends is not Dask's protocol"),
        ("tls", r"TLS is not configured here \(set Dask's distributed\.comm\.tls options .+\)"),
    ],
)
@pytest.mark.slow
def test_a_server_that_is_not_a_dask_scheduler_is_one_line_in_seconds(tmp_path: Path, kind: str, reason: str) -> None:
    db = tmp_path / "event.db"
    with serving(kind) as address:
        began = time.monotonic()
        result = subprocess.run(
            [*ARBITER, "tournament", *toy("a"), *toy("b"), "--depth", "1", "--cluster", address, "--db", str(db)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        took = time.monotonic() - began
    assert result.returncode == 2, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("dipole-arbiter: error: ") and address in lines[0], result.stderr
    assert re.search(reason, lines[0]), lines[0]
    assert took < 45, took  # 5 s at most for the answer, plus starting Python (and Dask) under load:
    # 21 s was seen on the shared 2-core machine at a load average of 12; a hang would be 60 s
    assert not db.exists()  # the event never started: the same command can be given again
