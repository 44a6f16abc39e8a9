"""Protocol latency during a search: how long ``isready`` waits for ``readyok`` (and ``stop``
for ``bestmove``) while the engine runs ``go infinite``.

    python benchmarks/isready_bench.py                 # the installed build, 60 isready, Dipole
    python benchmarks/isready_bench.py --pure          # force the pure-Python modules
    python benchmarks/isready_bench.py --variant impasse --count 100

Starts ``dipole-engine`` (or ``--engine CMD``), searches the start position with ``go
infinite``, sends ``isready`` every 20-60 ms (random, seeded) and times each ``readyok`` from
the moment the line is written; then times ``stop`` until ``bestmove``.  Prints the median,
90th percentile and worst latency in milliseconds.
"""

from __future__ import annotations

import argparse
import os
import queue
import random
import shlex
import statistics
import subprocess
import threading
import time


def reader(stream: object, lines: queue.Queue[tuple[float, str]]) -> None:
    for line in stream:  # type: ignore[attr-defined]
        lines.put((time.perf_counter(), line.strip()))
    lines.put((time.perf_counter(), ""))


def wait_for(lines: queue.Queue[tuple[float, str]], prefix: str, timeout: float = 30.0) -> float:
    """The arrival time of the next line starting with ``prefix``."""
    deadline = time.monotonic() + timeout
    while True:
        arrived, line = lines.get(timeout=max(0.01, deadline - time.monotonic()))
        if line.startswith(prefix):
            return arrived
        if not line and arrived and time.monotonic() > deadline:
            raise TimeoutError(prefix)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", default="dipole-engine", help="the engine command (default: dipole-engine)")
    parser.add_argument("--variant", default="dipole")
    parser.add_argument("--count", type=int, default=60, help="isready commands to time")
    parser.add_argument("--pure", action="store_true", help="run the pure-Python modules (DIPOLE_ENGINE_PURE=1)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    env = dict(os.environ)
    if args.pure:
        env["DIPOLE_ENGINE_PURE"] = "1"
    engine = subprocess.Popen(
        shlex.split(args.engine), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1, env=env
    )
    assert engine.stdin is not None and engine.stdout is not None
    lines: queue.Queue[tuple[float, str]] = queue.Queue()
    threading.Thread(target=reader, args=(engine.stdout, lines), daemon=True).start()
    rng = random.Random(args.seed)

    def send(text: str) -> float:
        assert engine.stdin is not None
        sent = time.perf_counter()
        engine.stdin.write(text + "\n")
        engine.stdin.flush()
        return sent

    try:
        send("uci")
        wait_for(lines, "uciok")
        name = ""
        send(f"setoption name UCI_Variant value {args.variant}")
        send("isready")
        wait_for(lines, "readyok")
        send("position startpos")
        send("go infinite")
        time.sleep(0.3)  # well into the search
        latencies = []
        for _ in range(args.count):
            time.sleep(rng.uniform(0.02, 0.06))
            sent = send("isready")
            latencies.append((wait_for(lines, "readyok") - sent) * 1000)
        sent = send("stop")
        stop_ms = (wait_for(lines, "bestmove") - sent) * 1000
        send("uci")
        for arrived, line in iter(lambda: lines.get(timeout=10), None):
            if line.startswith("id name "):
                name = line[len("id name ") :]
            if line == "uciok" or (not line and arrived):
                break
        send("quit")
    finally:
        try:
            engine.wait(timeout=10)
        except subprocess.TimeoutExpired:
            engine.kill()
            engine.wait()
    latencies.sort()
    p90 = latencies[int(0.9 * (len(latencies) - 1))]
    print(
        f"{name}, {args.variant}, go infinite: isready -> readyok over {len(latencies)}: "
        f"median {statistics.median(latencies):.1f} ms, 90% {p90:.1f} ms, worst {latencies[-1]:.1f} ms; "
        f"stop -> bestmove {stop_ms:.1f} ms"
    )


if __name__ == "__main__":
    main()
