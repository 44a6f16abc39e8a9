"""How fast the GUI shows engine moves, and how it holds up with many games at once.

1. Latency: one engine-vs-engine game watched in headless Chromium, start to end.  Each engine
   runs behind a thin proxy that stamps the wall-clock time at which it handed ``bestmove`` to
   the GUI server; the page stamps the time at which the move is in the page's DOM (the board
   and the move list redrawn) and at the next animation frame (painted).  Reported: median,
   95th percentile and worst of (page time - bestmove time) over every engine move.
2. Load: N engine-vs-engine games (default 8, 2N engine processes, each engine thinking
   ``--movetime`` seconds a move) running at once, each in its own page; meanwhile a client
   keeps stepping through a game of its own (a ``view`` round trip over a WebSocket) and
   fetching ``/api/engines``.  Reported: those round trips, and the bestmove-to-page latency
   under load.

    python benchmarks/gui_bench.py [--games 8] [--depth 2] [--movetime 0.5] [--seconds 30]

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
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import Page, sync_playwright
from websockets.sync.client import connect

ROOT = Path(__file__).resolve().parent.parent

PROXY = r'''
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
'''

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
    proc = subprocess.Popen([sys.executable, "-c", "from gui.cli import main; main()", "--port", "0", *args],
                            stdout=subprocess.PIPE, text=True, cwd=ROOT)
    assert proc.stdout is not None
    for line in proc.stdout:
        match = re.search(r"open (\S+)", line)
        if match:
            return proc, match.group(1)
    raise SystemExit("dipole-gui did not start")


def start_game(page: Page, variant: str, depth: int) -> None:
    page.goto(page.url)
    page.wait_for_selector("g.stack")
    page.evaluate(WATCH)
    page.select_option("#variant", variant)
    page.select_option("#white", "0")
    page.select_option("#black", "1")
    page.select_option("#tc-kind", "depth")
    page.fill("#tc-depth", str(depth))
    page.click("#new")


def latencies(page: Page, logs: list[Path]) -> list[tuple[float, float]]:
    """(DOM ms, painted ms) after each engine move of the page's game (``logs``: White's
    engine's, then Black's; the game starts with White)."""
    plies = page.evaluate("() => window.__plies")
    result = []
    for parity, log in enumerate(logs):
        stamps = [(float(t), move) for t, move in (line.split() for line in log.read_text().splitlines())]
        shown = [p for p in plies if not p["forced"] and p["ply"] % 2 != parity]
        result += _pair(stamps, shown)
    return result


def _pair(stamps: list[tuple[float, str]], shown: list[dict]) -> list[tuple[float, float]]:
    result = []
    for (stamp, move), entry in zip(stamps, shown):
        if move != entry["text"]:
            raise SystemExit(f"bestmove {move} but the page shows {entry['text']}")
        frame = entry["frame"] if entry["frame"] is not None else entry["dom"]
        result.append((entry["dom"] - stamp * 1000, frame - stamp * 1000))
    return result


def probe(url: str, seconds: float) -> tuple[list[float], list[float]]:
    """Round trips (ms) of a WebSocket ``view`` request and of ``GET /api/engines``, every
    50 ms for ``seconds``."""
    socket_url = url.split("?")[0].replace("http:", "ws:") + "ws"
    views: list[float] = []
    fetches: list[float] = []
    with connect(socket_url) as socket:
        socket.send(json.dumps({"type": "setup", "variant": "dipole", "fen": "W:W12c1:B12d8"}))
        socket.send(json.dumps({"type": "move", "move": "c1-c3"}))
        ply = 0
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            started = time.perf_counter()
            with urllib.request.urlopen(url.split("?")[0] + "api/engines", timeout=30) as answer:
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
    parser.add_argument("--depth", type=int, default=2)
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
        proc, url = start_server(["--engine", f"cmd={sys.executable} {proxy} {logs[0]} {engine}", "name=a",
                                  "--engine", f"cmd={sys.executable} {proxy} {logs[1]} {engine}", "name=b"])
        try:
            page = browser.new_page()
            page.goto(url)
            start_game(page, options.variant, options.depth)
            page.wait_for_function("() => document.body.dataset.result", timeout=600_000)
            page.wait_for_timeout(200)
            measured = latencies(page, logs)
            print(f"one game ({options.variant}, depth {options.depth}, {len(measured)} engine moves)")
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
        proc, url = start_server(engines)
        try:
            pages = []
            for i in range(games):
                page = browser.new_page()
                page.goto(url)
                page.wait_for_selector("g.stack")
                page.evaluate(WATCH)
                page.select_option("#variant", options.variant)
                page.select_option("#white", str(2 * i))
                page.select_option("#black", str(2 * i + 1))
                page.select_option("#tc-kind", "movetime")
                page.fill("#tc-movetime", str(options.movetime))
                page.click("#new")
                pages.append(page)
            views, fetches = probe(url, options.seconds)
            measured = []
            for i, page in enumerate(pages):
                measured += latencies(page, logs[2 * i:2 * i + 2])
            print(f"{games} games at once ({2 * games} engines, {options.movetime} s a move), "
                  f"{options.seconds} s of probes")
            print(f"  a page's step (view request -> its new state, over a WebSocket): {describe(views)}")
            print(f"  GET /api/engines:                                               {describe(fetches)}")
            print(f"  bestmove -> in the page's DOM:                                  {describe([m[0] for m in measured])}")
        finally:
            proc.terminate()
            proc.wait()
        browser.close()


if __name__ == "__main__":
    main()
