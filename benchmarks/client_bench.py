"""What the protocol client adds to every move, and what a move costs over real pipes.

* in memory: ``set_position`` + ``go`` + ``bestmove`` against an in-memory engine that answers
  at once (the client's own work per move: formatting, parsing, queueing, one info line);
* over pipes: the same against ``tests/engines/echo_engine.py`` (a Python process answering
  at once), i.e. client + pipes + a minimal engine;
* ``dipole-engine``: ``go depth 1`` from the start position, the real engine's turnaround.

Run: ``python benchmarks/client_bench.py``.
"""

from __future__ import annotations

import shutil
import sys
import time
from pathlib import Path

from protocol import EngineClient, Limit, MemoryTransport

ECHO = Path(__file__).parent.parent / "tests" / "engines" / "echo_engine.py"


def answer_at_once(line: str, transport: MemoryTransport) -> None:
    word = line.split(maxsplit=1)[0]
    if word == "uci":
        transport.reply("id name memory", "uciok")
    elif word == "isready":
        transport.reply("readyok")
    elif word == "go":
        transport.reply("info depth 1 score cp 7 nodes 20 nps 20000 time 1 pv c1-c3", "bestmove c1-c3")


def per_move_ms(client: EngineClient, moves: int, limit: Limit) -> float:
    client.start()
    try:
        client.go(limit)
        begin = time.perf_counter()
        for _ in range(moves):
            client.set_position(None, ["c1-c3", "d8-d6"])
            client.go(limit, timeout=10)
        return (time.perf_counter() - begin) / moves * 1000
    finally:
        client.quit()


def main() -> None:
    clock = Limit(wtime=60000, btime=60000, winc=1000, binc=1000)
    memory = per_move_ms(EngineClient(["memory"], transport=MemoryTransport(answer_at_once)), 20000, clock)
    print(f"client alone (in-memory engine)      {memory * 1000:8.1f} us/move")
    pipes = per_move_ms(EngineClient([sys.executable, str(ECHO)]), 2000, clock)
    print(f"client + pipes + echo engine process {pipes * 1000:8.1f} us/move")
    engine = shutil.which("dipole-engine")
    if engine:
        real = per_move_ms(EngineClient([engine]), 300, Limit(depth=1))
        print(f"dipole-engine, go depth 1            {real * 1000:8.1f} us/move")


if __name__ == "__main__":
    main()
