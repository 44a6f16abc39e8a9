"""What playing on a Dask cluster adds per game, against the local runner at the same concurrency.

    python benchmarks/cluster_bench.py               # 200 games per run, best of 3
    python benchmarks/cluster_bench.py --games 400 --repeat 5

Starts a real ``dask scheduler`` and ``dask worker`` processes (one thread each) on 127.0.0.1,
random ports, and plays the same games (the toy engine at depth 1: it answers at once, so the
games cost almost nothing but the refereeing) four ways:

- locally on 1 thread (:class:`~arbiter.pools.local.GamePool`, concurrency 1) and on the cluster
  with 1 worker;
- locally on 2 threads and on the cluster with 2 workers.

Each run starts its engines within the timed run (a fresh event, so the workers' warm engines
of an earlier run are not reused).  Local and cluster runs alternate, ``--repeat`` times each
(the machine is shared: the best run of each kind is shown).  Prints games/s of each, and the
cost the cluster adds per game at equal concurrency: (cluster wall - local wall) / games, in
milliseconds.  With several
games at once, that is the added wall time per game of the whole run, not the latency of one.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arbiter.openings.positions import generate_openings  # noqa: E402
from arbiter.play.engines import EngineSpec  # noqa: E402
from arbiter.play.referee import GameJob, RefereeSettings  # noqa: E402
from arbiter.play.timecontrol import SearchLimits  # noqa: E402
from arbiter.pools.cluster import ClusterPool  # noqa: E402
from arbiter.pools.local import GamePool  # noqa: E402

TOY = str(ROOT / "tests" / "engines" / "toy_engine.py")
DASK = [sys.executable, "-m", "dask"]


def jobs(games: int) -> list[GameJob]:
    first = EngineSpec("a", (sys.executable, TOY, "--seed", "a"), SearchLimits(depth=1))
    second = EngineSpec("b", (sys.executable, TOY, "--seed", "b"), SearchLimits(depth=1))
    openings = generate_openings("dipole", 2, (games + 1) // 2, seed=1)
    return [
        GameJob(
            n + 1, *((first, second) if n % 2 == 0 else (second, first)), openings[n // 2 % len(openings)], "dipole"
        )
        for n in range(games)
    ]


def timed(pool: GamePool, games: list[GameJob]) -> tuple[float, int]:
    """Wall seconds ``pool`` takes to play ``games``, and the plies it refereed."""
    plies: list[int] = []
    start = time.perf_counter()
    pool.run(games, lambda job: None, lambda record: plies.append(record.plies))
    wall = time.perf_counter() - start
    assert len(plies) == len(games), f"{len(plies)} of {len(games)} games finished"
    return wall, sum(plies)


class Cluster:
    def __init__(self, directory: str) -> None:
        self.directory = directory
        self.processes: list[subprocess.Popen[bytes]] = []
        scheduler_file = os.path.join(directory, "scheduler.json")
        self._start(
            [
                *DASK,
                "scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                "0",
                "--no-dashboard",
                "--scheduler-file",
                scheduler_file,
            ]
        )
        deadline = time.monotonic() + 60
        while not os.path.exists(scheduler_file) and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(0.2)
        with open(scheduler_file) as handle:
            self.address = json.load(handle)["address"]

    def _start(self, command: list[str]) -> None:
        self.processes.append(
            subprocess.Popen(
                command,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
                cwd=self.directory,
            )
        )

    def add_worker(self, count: int) -> None:
        from distributed import Client

        self._start([*DASK, "worker", self.address, "--nthreads", "1", "--no-nanny", "--no-dashboard"])
        with Client(self.address, timeout=30, set_as_default=False) as client:
            client.wait_for_workers(count, timeout=60)

    def stop(self) -> None:
        for process in self.processes:
            os.killpg(process.pid, signal.SIGTERM)
        for process in self.processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3, help="runs of each kind; the best is shown")
    args = parser.parse_args()
    games = jobs(args.games)
    print(
        f"Python {platform.python_version()}, {args.games} games of the toy engine at depth 1 per run, "
        f"best of {args.repeat} runs of each kind"
    )
    rows = []
    with tempfile.TemporaryDirectory() as directory:
        cluster = Cluster(directory)
        try:
            for workers in (1, 2):
                cluster.add_worker(workers)
                local_walls, remote_walls = [], []
                for run in range(args.repeat):  # alternated, so both see the same load
                    local = GamePool("dipole", RefereeSettings(event=f"local {run}"), concurrency=workers)
                    remote = ClusterPool(cluster.address, "dipole", RefereeSettings(event=f"cluster {workers} {run}"))
                    local_wall, plies = timed(local, games)
                    remote_wall, remote_plies = timed(remote, games)
                    assert remote_plies == plies, "the cluster played other games"
                    local_walls.append(local_wall)
                    remote_walls.append(remote_wall)
                rows.append((workers, min(local_walls), min(remote_walls), plies))
        finally:
            cluster.stop()
    print(f"{'games at once':>13}  {'local games/s':>13}  {'cluster games/s':>15}  {'added ms/game':>13}")
    for workers, local_wall, remote_wall, _ in rows:
        added = (remote_wall - local_wall) / args.games * 1000
        print(f"{workers:>13}  {args.games / local_wall:>13.1f}  {args.games / remote_wall:>15.1f}  {added:>13.1f}")
    print(f"({rows[0][3] / args.games:.0f} plies per game on average)")


if __name__ == "__main__":
    main()
