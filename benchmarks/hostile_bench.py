"""What hostile engines cost the arbiter, and what the process-tree guard costs an engine start.

* peak memory: the arbiter's own maximum resident set (``VmHWM``, measured inside a child
  arbiter process by ``tests/engines/peak_arbiter.py``) over a 2-game match (``--st 1
  --recover``) against an engine from ``tests/engines/hostile_engine.py`` that floods ``info``
  lines forever / writes one endless line / writes 200,000 ``info`` lines before every move;
  and, for comparison, against a well-behaved engine;
* engine start: ``EngineClient.start()`` + ``quit()`` of ``tests/engines/echo_engine.py``,
  under the guard (Linux) and without it (the engine's process group only).

Run: ``python benchmarks/hostile_bench.py``.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

from protocol import EngineClient, guardstart

ROOT = Path(__file__).parent.parent
ENGINES = ROOT / "tests" / "engines"


def peak_mb(bad_flags: list[str]) -> tuple[float, float]:
    """The arbiter's peak RSS (MB) and the wall seconds of the match."""
    bad = [sys.executable, str(ENGINES / ("hostile_engine.py" if bad_flags else "toy_engine.py")), *bad_flags]
    begin = time.monotonic()
    done = subprocess.run(
        [
            sys.executable,
            str(ENGINES / "peak_arbiter.py"),
            str(ROOT),
            "match",
            "--games",
            "2",
            "--st",
            "1",
            "--recover",
            "--engine",
            "cmd=" + " ".join(bad),
            "name=bad",
            "--engine",
            f"cmd={sys.executable} {ENGINES / 'toy_engine.py'}",
            "name=good",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    return int(done.stderr.split("PEAK")[-1]) / 1024, time.monotonic() - begin


def start_quit_ms() -> float:
    begin = time.perf_counter()
    client = EngineClient([sys.executable, str(ENGINES / "echo_engine.py")])
    client.start()
    client.quit()
    return (time.perf_counter() - begin) * 1000


def guard_cost(runs: int) -> tuple[float, float]:
    """Median ms of start + quit under the guard and without it, run in turn (the machine drifts)."""
    guarded, bare = [], []
    for _ in range(runs):
        guardstart.GUARDED = True
        guarded.append(start_quit_ms())
        guardstart.GUARDED = False
        bare.append(start_quit_ms())
    guardstart.GUARDED = True
    return statistics.median(guarded), statistics.median(bare)


def main() -> None:
    for label, flags in (
        ("well-behaved engine", []),
        ("info flood", ["--flood-info"]),
        ("endless line", ["--endless-line"]),
        ("1 MB info lines", ["--long-infos"]),
        ("200,000 infos per move", ["--flood-then-move"]),
    ):
        peak, seconds = peak_mb(flags)
        print(f"arbiter peak RSS, {label:24s} {peak:6.1f} MB  ({seconds:.1f} s)")
    guarded, bare = guard_cost(15)
    print(f"engine start + quit, median of 15: {guarded:.0f} ms under the guard, {bare:.0f} ms without")


if __name__ == "__main__":
    main()
