"""Matches and tournaments on a Dask cluster (``--cluster``), against real processes: a
``dask scheduler`` and ``dask worker`` processes on 127.0.0.1 (random ports), the arbiter as a
user runs it.  Games played on the cluster must be the same games, with the same results and
records, as a local run of the same event; a worker killed mid-game loses nothing and
duplicates nothing; a lost scheduler stops the arbiter in one line and the event is resumed;
every process a test starts is gone at its end."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_arbiter_cli import ARBITER, FINISHED, arbiter
from test_arbiter_games import TOY, alive

from arbiter.records.game import GameRecord

pytest.importorskip("distributed")  # the cluster extra; the test extra installs it, so CI runs these

DASK = [sys.executable, "-m", "dask"]
OWN_ENGINE = f"cmd={sys.executable} -m dipole_engine"
SITE = re.compile(r'^\[Site "([^"]+):(\d+)"\]$', re.MULTILINE)


def own(name: str, depth: int) -> list[str]:
    return ["--engine", OWN_ENGINE, f"name={name}", f"depth={depth}"]


class Cluster:
    """A scheduler and workers as real processes, each in its own process group; ``stop()``
    ends them all (SIGTERM, then SIGKILL) and waits for them."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.scheduler_file = directory / "scheduler.json"
        self.processes: list[subprocess.Popen[bytes]] = []
        self.scheduler = self._start(
            [
                *DASK,
                "scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                "0",
                "--no-dashboard",
                "--scheduler-file",
                str(self.scheduler_file),
            ],
            "scheduler",
        )
        deadline = time.monotonic() + 60
        while not self.scheduler_file.exists() or not self.scheduler_file.read_text().strip():
            assert self.scheduler.poll() is None and time.monotonic() < deadline, "the scheduler did not start"
            time.sleep(0.1)
        time.sleep(0.1)  # the file is written whole, but let it settle
        self.address: str = json.loads(self.scheduler_file.read_text())["address"]
        self.workers: list[subprocess.Popen[bytes]] = []

    def _start(self, command: list[str], log: str, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
        with open(self.directory / f"{log}.log", "ab") as output:
            process = subprocess.Popen(
                command, stdout=output, stderr=subprocess.STDOUT, start_new_session=True, env=env, cwd=self.directory
            )
        self.processes.append(process)
        return process

    def add_worker(self, name: str, threads: int = 1, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
        """A worker without a nanny, so its pid is the worker process (the engines' parent)."""
        worker = self._start(
            [*DASK, "worker", self.address, "--nthreads", str(threads), "--no-nanny", "--no-dashboard", "--name", name],
            f"worker-{name}",
            env,
        )
        self.workers.append(worker)
        self.wait_for_worker(name, worker)
        return worker

    def wait_for_worker(self, name: str, worker: subprocess.Popen[bytes]) -> None:
        """Until the scheduler knows the worker ``name``."""
        from distributed import Client

        deadline = time.monotonic() + 60
        with Client(self.address, timeout=30, set_as_default=False) as client:
            while name not in {w.get("name") for w in client.scheduler_info(n_workers=-1)["workers"].values()}:
                assert worker.poll() is None and time.monotonic() < deadline, f"worker {name} did not join"
                time.sleep(0.1)

    def stop(self) -> None:
        """The workers first (each kills its engines as it closes), then the scheduler."""
        for process in reversed(self.processes):
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        deadline = time.monotonic() + 10
        for process in reversed(self.processes):
            try:
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """One scheduler and two single-thread workers, shared by the tests of this module."""
    running = Cluster(tmp_path_factory.mktemp("cluster"))
    try:
        running.add_worker("w1")
        running.add_worker("w2")
        yield running
    finally:
        running.stop()


@contextlib.contextmanager
def running_arbiter(*args: str) -> Iterator[subprocess.Popen[str]]:
    """The arbiter as a process the test talks to; killed at the end if the test left it running."""
    with subprocess.Popen([*ARBITER, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as process:
        try:
            yield process
        finally:
            if process.poll() is None:
                process.kill()


def children(pid: int) -> set[int]:
    """The direct children of ``pid`` (its engines, for a worker)."""
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found.update(int(child) for child in (task / "children").read_text().split())
        except OSError:
            pass
    return found


def wait_until_gone(pids: set[int], timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while any(map(alive, pids)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [pid for pid in pids if alive(pid)] == []


def games(db: Path) -> list[tuple[object, ...]]:
    """Every stored game with its moves, without what depends on where and when it was played
    (the site, the times)."""
    connection = sqlite3.connect(db)
    try:
        rows = connection.execute(
            "SELECT number, white, black, variant, fen, result, termination, reason, white_tc, black_tc, opening, "
            "plies FROM games ORDER BY number"
        ).fetchall()
        moves = connection.execute(
            "SELECT game, ply, text, source, score_cp, score_mate, depth FROM moves ORDER BY game, ply"
        ).fetchall()
        return [*rows, *moves]
    finally:
        connection.close()


def sites(db: Path) -> set[str]:
    connection = sqlite3.connect(db)
    try:
        return {row[0] for row in connection.execute("SELECT site FROM games")}
    finally:
        connection.close()


def finished_numbers(out: str) -> list[int]:
    return sorted(int(match.group(1)) for line in out.splitlines() if (match := FINISHED.match(line)))


@pytest.mark.slow
def test_round_robin_on_the_cluster_is_the_local_round_robin(cluster: Cluster, tmp_path: Path) -> None:
    event = [
        *own("d3", 3),
        *own("d2", 2),
        *own("d1", 1),
        "--rounds",
        "1",
        "--games",
        "2",
        "--opening-plies",
        "2",
        "--seed",
        "11",
    ]
    local = arbiter("tournament", *event, "--concurrency", "2", "--db", str(tmp_path / "local.db"))
    assert local.returncode == 0, local.stderr
    pgn, logs = tmp_path / "cluster.pgn", tmp_path / "logs"
    remote = arbiter(
        "tournament",
        *event,
        "--cluster",
        cluster.address,
        "--db",
        str(tmp_path / "cluster.db"),
        "--pgn",
        str(pgn),
        "--log",
        str(logs),
    )
    assert remote.returncode == 0, remote.stderr
    assert f"games, variant dipole, on the Dask cluster at {cluster.address}" in remote.stdout.splitlines()[0]
    assert f"Cluster: {cluster.address}, 2 workers, 2 threads" in remote.stderr
    assert finished_numbers(remote.stdout) == list(range(1, 7))
    assert games(tmp_path / "cluster.db") == games(tmp_path / "local.db")
    # The ratings table is computed from the same results, so it is the same table.
    table = [line for line in local.stdout.splitlines() if line.lstrip().startswith(("1 d", "2 d", "3 d"))]
    assert table and all(line in remote.stdout for line in table)
    # Every game says which worker process played it; both workers played; replay accepts the records.
    workers = {str(worker.pid) for worker in cluster.workers}
    text = pgn.read_text()
    played_by = {pid for _, pid in SITE.findall(text)}
    assert len(SITE.findall(text)) == 6 and played_by == workers
    assert {site.rpartition(":")[2] for site in sites(tmp_path / "cluster.db")} == workers
    replay = arbiter("replay", str(pgn))
    assert replay.returncode == 0 and replay.stdout.endswith("6 games replayed, all hold\n")
    # The engines' I/O came back from the workers into the arbiter's logs, stamped with the worker.
    log = (logs / "d3.log").read_text()
    assert "> go depth 3" in log and any(f":{pid} < bestmove " in log for pid in workers)


@pytest.mark.slow
def test_the_live_file_shows_the_games_played_on_the_cluster(cluster: Cluster, tmp_path: Path) -> None:
    from arbiter.live.livefiles import live_path, read_live
    from arbiter.records.pgn import read_pgn

    db, pgn = tmp_path / "live.db", tmp_path / "live.pgn"
    live = live_path(str(db))
    seen: dict[int, list[str]] = {}  # each game's longest move list the live file showed
    shown: dict | None = None  # type: ignore[type-arg]  # a game in progress with moves, clocks and lines
    with running_arbiter(
        "tournament",
        "--engine",
        OWN_ENGINE,
        "name=a",
        "tc=2+0.05",
        "--engine",
        OWN_ENGINE,
        "name=b",
        "tc=2+0.05",
        "--games",
        "2",
        "--opening-plies",
        "2",
        "--seed",
        "3",
        "--cluster",
        cluster.address,
        "--db",
        str(db),
        "--live-pgn",
        str(pgn),
    ) as process:
        deadline = time.monotonic() + 60
        while process.poll() is None and time.monotonic() < deadline:
            document = read_live(live) or {}
            for game in document.get("games", []):
                if len(game["moves"]) > len(seen.get(game["number"], [])):
                    seen[game["number"]] = game["moves"]
                if shown is None and len(game["moves"]) >= 4 and any(line["pv"] for line in game["lines"].values()):
                    shown = game
                    assert document["state"] == "running" and document["pid"] == process.pid
                    assert {int(g.tags["Round"]) for g in read_pgn(pgn.read_text())} <= {1, 2}
            time.sleep(0.05)
        out, err = process.communicate(timeout=30)
    assert process.returncode == 0, err
    assert finished_numbers(out) == [1, 2]
    assert shown is not None, "the live file never showed a game in progress on the cluster"
    assert all(
        isinstance(shown["clocks"][side], float) and 0 <= shown["clocks"][side] <= 10 for side in ("white", "black")
    )
    assert shown["turn"] in ("white", "black") and shown["white"] in ("a", "b")
    # What was shown live is the start of the game as recorded; once over, no game is left in view.
    connection = sqlite3.connect(db)
    try:
        for number, moves in seen.items():
            recorded = [
                row[0] for row in connection.execute("SELECT text FROM moves WHERE game = ? ORDER BY ply", (number,))
            ]
            assert moves == recorded[: len(moves)]
    finally:
        connection.close()
    final = read_live(live)
    assert final is not None and final["state"] == "finished" and final["games"] == []
    assert final["done_this_run"] == 2 and read_pgn(pgn.read_text()) == []


@pytest.mark.slow
def test_sprt_match_on_the_cluster_decides_as_locally(cluster: Cluster, tmp_path: Path) -> None:
    match = [
        *own("d3", 3),
        *own("d1", 1),
        "--games",
        "40",
        "--opening-plies",
        "2",
        "--seed",
        "5",
        "--sprt",
        "elo0=0 elo1=150 alpha=0.1 beta=0.1",
    ]
    local = arbiter("match", *match, "--concurrency", "2")
    remote = arbiter("match", *match, "--cluster", cluster.address)
    assert local.returncode == 0 and remote.returncode == 0, remote.stderr
    decision = [line for line in local.stdout.splitlines() if line.startswith("SPRT (")]
    assert len(decision) == 1 and re.search(r": H[01] accepted after \d+ pairs", decision[0])
    assert decision == [line for line in remote.stdout.splitlines() if line.startswith("SPRT (")]
    assert re.search(r"^Match stopped after \d+ of 40 games: SPRT H[01] accepted$", remote.stdout, re.MULTILINE)
    assert remote.stdout.rstrip().endswith("Finished match")


@pytest.mark.slow
def test_a_worker_killed_mid_game_loses_nothing_and_counts_nothing_twice(cluster: Cluster, tmp_path: Path) -> None:
    toy = [sys.executable, TOY, "--think", "30", "--pid-dir", str(tmp_path / "pids")]
    (tmp_path / "pids").mkdir()
    event = [
        "--engine",
        f"cmd={' '.join(toy)} --seed a",
        "name=a",
        "--engine",
        f"cmd={' '.join(toy)} --seed b",
        "name=b",
        "--depth",
        "1",
        "--rounds",
        "2",
        "--games",
        "4",
        "--opening-plies",
        "2",
        "--seed",
        "3",
    ]
    victim = cluster.add_worker("victim")
    db = tmp_path / "killed.db"
    try:
        with running_arbiter("tournament", *event, "--cluster", cluster.address, "--db", str(db)) as run:
            deadline = time.monotonic() + 60
            while len(engines := children(victim.pid)) < 2:  # the victim is playing a game
                assert time.monotonic() < deadline and run.poll() is None, "the third worker got no game"
                time.sleep(0.02)
            time.sleep(0.3)  # into the game
            os.kill(victim.pid, signal.SIGKILL)
            out, err = run.communicate(timeout=180)
    finally:
        if victim.poll() is None:
            os.kill(victim.pid, signal.SIGKILL)
        victim.wait()
    assert run.returncode == 0, err
    wait_until_gone(engines)  # the dead worker's engines died with it (parent-death signal)
    assert finished_numbers(out) == list(range(1, 9))  # every game once, none twice
    local = arbiter("tournament", *event, "--concurrency", "2", "--db", str(tmp_path / "local.db"))
    assert local.returncode == 0, local.stderr
    assert games(db) == games(tmp_path / "local.db")


@pytest.mark.slow
def test_an_engine_missing_on_a_worker_is_reported_and_the_others_play(cluster: Cluster, tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    engine = bin_dir / "only-here-engine"
    engine.write_text(f'#!/bin/sh\nexec {sys.executable} {TOY} "$@"\n')
    engine.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    keeper = cluster.add_worker("keeper", env=env)
    try:
        result = arbiter(
            "match",
            "--engine",
            "cmd=only-here-engine --seed x",
            "name=x",
            "--engine",
            "cmd=only-here-engine --seed y",
            "name=y",
            "--depth",
            "1",
            "--games",
            "4",
            "--cluster",
            cluster.address,
        )
        wait_until_gone(children(keeper.pid))  # the event's engines end with it; the worker goes on
    finally:
        os.kill(keeper.pid, signal.SIGTERM)
        keeper.wait(timeout=30)
    assert result.returncode == 0, result.stderr
    assert finished_numbers(result.stdout) == [1, 2, 3, 4]
    warnings = [line for line in result.stderr.splitlines() if line.startswith("Warning: worker ")]
    # Each worker without it that was given a game says so once (the scheduler chose which got one).
    assert 1 <= len(warnings) <= 2 and len(set(warnings)) == len(warnings), result.stderr
    assert all(
        re.fullmatch(
            r"Warning: worker [^ ]+:\d+ \(tcp://127\.0\.0\.1:\d+\) cannot start engine '[xy]': "
            r"engine program 'only-here-engine' not found on PATH; "
            r"it plays no more games of this event",
            line,
        )
        for line in warnings
    ), warnings


@pytest.mark.parametrize("stop", [signal.SIGKILL, signal.SIGINT], ids=["SIGKILL", "SIGINT"])
@pytest.mark.slow
def test_the_arbiter_stopped_then_resume_reconnects_to_the_cluster(
    cluster: Cluster, tmp_path: Path, stop: signal.Signals
) -> None:
    db = tmp_path / "event.db"
    event = [*own("d2", 2), *own("d1", 1), "--rounds", "6", "--games", "2", "--opening-plies", "2", "--seed", "8"]
    with running_arbiter("tournament", *event, "--cluster", cluster.address, "--db", str(db)) as run:
        assert run.stdout is not None
        for line in run.stdout:
            if line.startswith("Finished game"):
                break
        run.send_signal(stop)
        out, err = run.communicate(timeout=60)
    if stop == signal.SIGINT:  # a clean stop: one line, the summary, status 130
        assert run.returncode == 130 and "Traceback" not in err, err
        assert re.search(
            rf"^Interrupted by SIGINT: ([1-9]|1[01]) of 12 games finished; the game\(s\) in progress were "
            rf"abandoned; continue with: dipole-arbiter resume {re.escape(str(db))}$",
            out,
            re.MULTILINE,
        )
    resumed = arbiter("resume", str(db))
    assert resumed.returncode == 0, resumed.stderr
    assert f"on the Dask cluster at {cluster.address}" in resumed.stdout.splitlines()[0]
    assert re.search(r"^Resuming: ([1-9]|1[01]) of 12 games already finished$", resumed.stdout, re.MULTILINE)
    local = arbiter("tournament", *event, "--db", str(tmp_path / "local.db"))
    assert local.returncode == 0, local.stderr
    assert games(db) == games(tmp_path / "local.db")


@pytest.mark.parametrize("freeze", [False, True], ids=["running", "results-waiting"])
@pytest.mark.slow
def test_the_scheduler_gone_stops_in_one_line_and_resume_finishes_locally(tmp_path: Path, freeze: bool) -> None:
    """``results-waiting``: the arbiter is frozen while the worker finishes the next games, so the
    scheduler dies with results the arbiter was told of but has not fetched yet."""
    own_cluster = Cluster(tmp_path)
    try:
        own_cluster.add_worker("solo")
        db = tmp_path / "event.db"
        with running_arbiter(
            "tournament",
            *own("d3", 3),
            *own("d2", 2),
            "--rounds",
            "6",
            "--opening-plies",
            "2",
            "--seed",
            "2",
            "--cluster",
            own_cluster.address,
            "--db",
            str(db),
        ) as run:
            assert run.stdout is not None
            lines = []
            for line in run.stdout:
                lines.append(line)
                if line.startswith("Finished game 2 "):
                    break
            if freeze:
                run.send_signal(signal.SIGSTOP)
                time.sleep(3)  # a d3-d2 game takes well under a second
            os.killpg(own_cluster.scheduler.pid, signal.SIGKILL)
            if freeze:
                run.send_signal(signal.SIGCONT)
            out, err = run.communicate(timeout=60)
    finally:
        own_cluster.stop()
    out = "".join(lines) + out
    assert run.returncode == 1, out + err
    assert re.search(
        rf"^Tournament stopped after \d+ of 12 games: lost the Dask scheduler at "
        rf"{re.escape(own_cluster.address)} \(the connection closed\); the games in progress were not "
        rf"recorded; continue with: dipole-arbiter resume {re.escape(str(db))}$",
        out,
        re.MULTILINE,
    ), out + err
    assert "Traceback" not in err and "ERROR" not in err, err
    resumed = arbiter("resume", str(db), "--local")
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout.splitlines()[0].endswith("variant dipole, concurrency 1")
    assert finished_numbers(out + resumed.stdout) == list(range(1, 13))


def test_cluster_without_dask_says_how_to_install_it() -> None:
    hide = "import sys; sys.modules['distributed'] = None; from arbiter.cli import main; main()"
    result = subprocess.run(
        [sys.executable, "-c", hide, "match", "--cluster", "tcp://127.0.0.1:8786"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        "dipole-arbiter: error: --cluster needs Dask's distributed package: pip install 'dipole-engine[cluster]'"
    ]


@pytest.mark.parametrize("address", ["nonsense", "http://127.0.0.1:8786", "tcp://127.0.0.1:port"])
def test_a_bad_cluster_address_is_one_line(address: str) -> None:
    result = arbiter("match", "--cluster", address)
    assert result.returncode == 2
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and "is not a Dask scheduler address (tcp://HOST:PORT)" in lines[0], result.stderr


def test_a_crash_without_recover_stops_the_match_as_locally(cluster: Cluster, tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    pids.mkdir()
    engines = [
        "--engine",
        f"cmd={sys.executable} {TOY} --seed a --pid-dir {pids}",
        "name=a",
        "--engine",
        f"cmd={sys.executable} {TOY} --seed b --crash --after 5 --pid-dir {pids}",
        "name=b",
    ]
    result = arbiter("match", *engines, "--depth", "1", "--games", "6", "--no-recover", "--cluster", cluster.address)
    assert result.returncode == 1, result.stderr
    assert re.search(
        r"^Match stopped after [1-6] of 6 games: engine 'b' can no longer play \(.+\); "
        r"use --recover to restart crashed engines and go on$",
        result.stdout,
        re.MULTILINE,
    )
    assert re.search(
        r"^Finished game \d+ \((a vs b|b vs a)\): (1-0|0-1) \{(White|Black) disconnects\}$", result.stdout, re.MULTILINE
    )
    # The incident comes back from the worker that saw it, named.
    assert re.search(r"^Warning: worker [^ ]+:\d+: game \d+: b \((White|Black)\): ", result.stderr, re.MULTILINE)


def test_a_job_source_that_waits_for_results_gets_them(cluster: Cluster) -> None:
    """A knockout or Swiss event plans its next round only once the games before it have
    finished: the pool must keep taking results while its job source waits for them."""
    from arbiter.play.engines import EngineSpec
    from arbiter.play.referee import GameJob, RefereeSettings
    from arbiter.play.timecontrol import SearchLimits
    from arbiter.pools.cluster import ClusterPool
    from arbiter.records.game import START

    first, second = (EngineSpec(name, (sys.executable, TOY, "--seed", name), SearchLimits(depth=1)) for name in "ab")
    results: dict[int, str] = {}
    seen_before_round_2: list[int] = []
    stage = threading.Condition()
    pool = ClusterPool(cluster.address, "dipole", RefereeSettings(event="staged"))

    def jobs() -> Iterator[GameJob]:
        yield from (GameJob(n, first, second, START, "dipole") for n in (1, 2, 3))
        with stage:
            while len(results) < 3 and not pool.interrupted:
                stage.wait(0.5)
            seen_before_round_2.extend(sorted(results))
        yield from (GameJob(n, second, first, START, "dipole") for n in (4, 5))

    def finished(record: GameRecord) -> None:
        with stage:
            results[record.number] = record.result
            stage.notify_all()

    runner = threading.Thread(target=pool.run, args=(jobs(), lambda job: None, finished), daemon=True)
    runner.start()
    runner.join(timeout=120)
    if runner.is_alive():
        pool.interrupt()
        runner.join(timeout=10)
        pytest.fail("the pool stopped taking results while its job source waited for them")
    assert seen_before_round_2 == [1, 2, 3] and sorted(results) == [1, 2, 3, 4, 5]
