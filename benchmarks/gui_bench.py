"""How fast the GUI shows engine moves, and how it holds up with many games at once.

1. Latency: one engine-vs-engine game (``--st`` seconds a move) watched in headless Chromium,
   start to end.  Each engine runs behind a thin proxy that stamps the wall-clock time at which
   it handed ``bestmove`` to the GUI server; the page stamps the time at which the move is in
   the page's DOM (the board and the move list redrawn) and at the next animation frame
   (painted).  Reported: median, 95th percentile and worst of (page time - bestmove time) over
   every engine move.  (With engines that answer in a few milliseconds, ``--st 0.001``, the
   page itself becomes the bottleneck and moves queue up: that measures drawing speed.)
2. Load: N engine-vs-engine games (default 8, 2N engine processes, each engine thinking
   ``--movetime`` seconds a move) running at once, each watched over its own WebSocket (as its
   page would be); meanwhile a client keeps stepping through a game of its own (a ``view``
   round trip) and fetching ``/api/engines``.  Reported: those round trips, and the time from
   each bestmove to its state arriving at the game's socket (the server's share of the
   latency; the browser's share is measured in part 1, without 8 tabs competing for the CPU).

    python benchmarks/gui_bench.py [--st 0.1] [--games 8] [--movetime 0.5] [--seconds 30]

Needs the ``gui`` and ``test`` extras and the system's Chromium (/usr/bin/chromium).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, sync_playwright
from websockets.sync.client import connect

ROOT = Path(__file__).resolve().parent.parent

PROXY = r"""
import subprocess, sys, threading, time
log = open(sys.argv[1], "a", buffering=1)
engine = subprocess.Popen(sys.argv[2:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
def down():
    for line in sys.stdin:
        engine.stdin.write(line)
        engine.stdin.flush()
    engine.stdin.close()
threading.Thread(target=down, daemon=True).start()
for line in engine.stdout:
    stamp = time.time()
    sys.stdout.write(line)
    sys.stdout.flush()
    if line.startswith("bestmove"):
        log.write(f"{stamp:.6f} {line.split()[1]}\n")
engine.wait()
"""

WATCH = """() => {
  window.__plies = [];
  new MutationObserver(() => {
    const plies = Number(document.body.dataset.plies);
    const moves = document.querySelectorAll('#moves .move:not(.empty)');
    const last = moves[moves.length - 1];
    const seen = window.__plies.length ? window.__plies[window.__plies.length - 1].ply : 0;
    if (plies <= seen || !last) return;
    const entry = {ply: plies, text: last.textContent, forced: last.classList.contains('forced'),
                   dom: performance.timeOrigin + performance.now(), frame: null};
    window.__plies.push(entry);
    requestAnimationFrame(() => { entry.frame = performance.timeOrigin + performance.now(); });
  }).observe(document.body, {attributes: true, attributeFilter: ['data-plies']});
}"""


def start_server(args: list[str]) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", "from dipole_gui.cli import main; main()", "--port", "0", *args],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        match = re.search(r"open (\S+)", line)
        if match:
            return proc, match.group(1)
    raise SystemExit("dipole-gui did not start")


def start_game(page: Page, variant: str, seconds: float) -> None:
    page.goto(page.url)
    page.wait_for_selector("g.stack")
    page.evaluate(WATCH)
    page.select_option("#variant", variant)
    page.select_option("#white", "0")
    page.select_option("#black", "1")
    page.select_option("#tc-kind", "movetime")
    page.fill("#tc-movetime", str(seconds))
    page.click("#new")


def latencies(page: Page, logs: list[Path]) -> list[tuple[float, float]]:
    """(DOM ms, painted ms) after each engine move the page showed (``logs``: White's engine's,
    then Black's)."""
    moves = page.evaluate(
        "() => [...document.querySelectorAll('#moves .move:not(.empty)')]"
        ".map(e => [e.textContent, e.classList.contains('forced')])"
    )
    shown = [
        (entry["ply"], entry["text"], entry["dom"], entry["frame"] or entry["dom"])
        for entry in page.evaluate("() => window.__plies")
    ]
    return match(moves, shown, logs)


def match(
    moves: list[list[Any]], shown: list[tuple[int, str, float, float]], logs: list[Path]
) -> list[tuple[float, float]]:
    """Pair each move shown (ply, text, and two times in ms) with its engine's bestmove stamp;
    the differences.  ``moves`` is the game's whole move list ([text, forced] per ply, White
    first), so a state the watcher never saw (superseded by a newer one) is no trouble."""
    stamps = [[(float(t), move) for t, move in (line.split() for line in log.read_text().splitlines())] for log in logs]
    engine_move = {}  # ply -> (side, index among that side's engine moves)
    counts = [0, 0]
    for ply, (_, forced) in enumerate(moves, 1):
        side = (ply - 1) % 2
        if not forced:
            engine_move[ply] = (side, counts[side])
            counts[side] += 1
    result = []
    for ply, text, first, second in shown:
        if ply not in engine_move:
            continue
        side, index = engine_move[ply]
        if index >= len(stamps[side]):
            continue  # a game still running: its proxy is about to log this move
        stamp, move = stamps[side][index]
        if move != text:
            raise SystemExit(f"bestmove {move} but the page shows {text}")
        result.append((first - stamp * 1000, second - stamp * 1000))
    return result


def watch_socket(
    url: str,
    white: int,
    black: int,
    variant: str,
    movetime: float,
    stop: threading.Event,
    out: list[list[tuple[float, float]]],
    logs: list[Path],
) -> None:
    """A game played over a WebSocket of its own: (ms from bestmove to the state arriving)."""
    socket_url = url.split("?", maxsplit=1)[0].replace("http:", "ws:") + "ws"
    shown: list[tuple[int, str, float, float]] = []
    moves: list[list[Any]] = []
    with connect(socket_url, max_size=None) as socket:
        socket.send(
            json.dumps(
                {
                    "type": "new",
                    "variant": variant,
                    "white": white,
                    "black": black,
                    "tc": {"kind": "movetime", "seconds": movetime},
                }
            )
        )
        seen = 0
        while not stop.is_set():
            try:
                message = json.loads(socket.recv(timeout=0.5))
            except TimeoutError:
                continue
            arrived = time.time() * 1000
            if message["type"] != "state":
                continue
            moves = [[m["text"], m["source"] == "forced"] for m in message["moves"]]
            if len(moves) > seen:
                seen = len(moves)
                shown.append((seen, moves[-1][0], arrived, arrived))
            if message["result"]:
                break
    out.append(match(moves, shown, logs))


def probe(url: str, seconds: float) -> tuple[list[float], list[float]]:
    """Round trips (ms) of a WebSocket ``view`` request and of ``GET /api/engines``, every
    50 ms for ``seconds``."""
    socket_url = url.split("?", maxsplit=1)[0].replace("http:", "ws:") + "ws"
    views: list[float] = []
    fetches: list[float] = []
    with connect(socket_url) as socket:
        socket.send(json.dumps({"type": "setup", "variant": "dipole", "fen": "W:W12c1:B12d8"}))
        socket.send(json.dumps({"type": "move", "move": "c1-c3"}))
        ply = 0
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            started = time.perf_counter()
            with urllib.request.urlopen(url.split("?", maxsplit=1)[0] + "api/engines", timeout=30) as answer:
                answer.read()
            fetches.append((time.perf_counter() - started) * 1000)
            ply = 1 - ply
            started = time.perf_counter()
            socket.send(json.dumps({"type": "view", "ply": ply}))
            while True:
                message = json.loads(socket.recv(timeout=30))
                if message["type"] == "state" and message["view"] == ply and len(message["moves"]) == 1:
                    break
            views.append((time.perf_counter() - started) * 1000)
            time.sleep(0.05)
    return views, fetches


def describe(values: list[float]) -> str:
    values = sorted(values)
    p95 = values[min(len(values) - 1, int(0.95 * len(values)))]
    return f"median {statistics.median(values):.1f} ms, p95 {p95:.1f} ms, max {values[-1]:.1f} ms (n={len(values)})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--st", type=float, default=0.1, help="seconds a move in the latency test")
    parser.add_argument("--variant", default="dipole")
    parser.add_argument("--movetime", type=float, default=0.5, help="seconds a move in the load test")
    parser.add_argument("--seconds", type=float, default=30, help="length of the load test")
    options = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="gui-bench-"))
    proxy = work / "proxy.py"
    proxy.write_text(PROXY)
    engine = f"{sys.executable} -m dipole_engine"
    chromium = shutil.which("chromium")
    if chromium is None:
        raise SystemExit("no chromium on PATH")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium)
        # 1. One game, nothing else running.
        logs = [work / "a.log", work / "b.log"]
        proc, url = start_server(
            [
                "--engine",
                f"cmd={sys.executable} {proxy} {logs[0]} {engine}",
                "name=a",
                "--engine",
                f"cmd={sys.executable} {proxy} {logs[1]} {engine}",
                "name=b",
            ]
        )
        try:
            page = browser.new_page()
            page.goto(url)
            start_game(page, options.variant, options.st)
            page.wait_for_function("() => document.body.dataset.result", timeout=600_000)
            page.wait_for_timeout(200)
            measured = latencies(page, logs)
            print(f"one game ({options.variant}, {options.st:g} s a move, {len(measured)} engine moves)")
            print(f"  bestmove -> in the page's DOM: {describe([m[0] for m in measured])}")
            print(f"  bestmove -> painted:           {describe([m[1] for m in measured])}")
            page.close()
        finally:
            proc.terminate()
            proc.wait()
        # 2. N games at once, each engine thinking --movetime seconds a move.
        games = options.games
        logs = [work / f"g{i}.log" for i in range(2 * games)]
        engines: list[str] = []
        for i, log in enumerate(logs):
            engines += ["--engine", f"cmd={sys.executable} {proxy} {log} {engine}", f"name=e{i}"]
        # All the games come from this one client: raise its limit (and the server's) to the test's.
        proc, url = start_server([*engines, "--max-games", str(games), "--max-games-per-client", str(games)])
        try:
            stop = threading.Event()
            results: list[list[tuple[float, float]]] = []
            watchers = [
                threading.Thread(
                    target=watch_socket,
                    args=(
                        url,
                        2 * i,
                        2 * i + 1,
                        options.variant,
                        options.movetime,
                        stop,
                        results,
                        logs[2 * i : 2 * i + 2],
                    ),
                )
                for i in range(games)
            ]
            for watcher in watchers:
                watcher.start()
            views, fetches = probe(url, options.seconds)
            stop.set()
            for watcher in watchers:
                watcher.join()
            measured = [m for result in results for m in result]
            print(
                f"{games} games at once ({2 * games} engines, {options.movetime} s a move, each watched over a "
                f"WebSocket), {options.seconds:g} s"
            )
            print(f"  a page's step (view request -> its new state):   {describe(views)}")
            print(f"  GET /api/engines:                                {describe(fetches)}")
            print(f"  bestmove -> the new state at the game's socket: {describe([m[0] for m in measured])}")
        finally:
            proc.terminate()
            proc.wait()
        browser.close()


if __name__ == "__main__":
    main()
