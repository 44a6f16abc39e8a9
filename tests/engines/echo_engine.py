"""A tiny scripted engine for testing the protocol client against a real process.

It speaks just enough of protocol/SPEC.md: ``uci``/``isready``/``setoption``/``position``/
``go``/``stop``/``quit``.  ``go`` answers ``info depth 1 ...`` and ``bestmove move<N>`` (N counts
the searches), after ``movetime`` ms when given; ``go infinite`` waits for ``stop``.  Flags make
it misbehave in one way each:

  --no-uciok           never finish the handshake
  --die-on-uci CODE    exit with CODE on ``uci``
  --die-on-go CODE     write a stderr line, then exit with CODE on ``go``
  --close-on-go        close stdout on ``go`` but keep running
  --hang-on-go         never answer ``go`` (not even after ``stop``)
  --ignore-quit        ignore ``quit`` and end of input (must be killed)
  --child              start a child process (``sleep 60``) in the engine's process group
                       and report its pid on stderr as ``child <pid>``
  --garbage            write a garbage line before every answer
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import threading
import time


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--no-uciok", action="store_true")
    parser.add_argument("--die-on-uci", type=int)
    parser.add_argument("--die-on-go", type=int)
    parser.add_argument("--close-on-go", action="store_true")
    parser.add_argument("--hang-on-go", action="store_true")
    parser.add_argument("--ignore-quit", action="store_true")
    parser.add_argument("--child", action="store_true")
    parser.add_argument("--garbage", action="store_true")
    args = parser.parse_args()

    lock = threading.Lock()
    pending: list[threading.Timer | None] = []
    searches = 0

    def say(*lines: str) -> None:
        with lock:
            for line in (["%%garbage%% 1 2 3"] if args.garbage else []) + list(lines):
                sys.stdout.write(line + "\n")
            sys.stdout.flush()

    def answer() -> None:
        """Finish the pending search (once)."""
        with lock:
            if not pending:
                return
            pending.clear()
        say("info depth 1 score cp 7 nodes 1 nps 1000 time 1 pv a1-a2", f"bestmove move{searches}")

    if args.child:
        child = subprocess.Popen(["sleep", "60"])
        print(f"child {child.pid}", file=sys.stderr, flush=True)

    for raw in sys.stdin:
        words = raw.split()
        if not words:
            continue
        command = words[0]
        if command == "uci":
            if args.die_on_uci is not None:
                sys.exit(args.die_on_uci)
            say(
                "id name Echo Engine",
                "id author the tests",
                "option name Hash type spin default 16 min 1 max 1024",
                "option name Ponder type check default false",
                "option name UCI_Variant type combo default dipole var dipole var dipole-s",
                "option name Clear Hash type button",
                "option name Book File type string default <empty>",
            )
            if not args.no_uciok:
                say("uciok")
        elif command == "isready":
            say("readyok")
        elif command == "go":
            searches += 1
            if args.die_on_go is not None:
                print("echo engine: dying as asked", file=sys.stderr, flush=True)
                sys.exit(args.die_on_go)
            if args.close_on_go:
                os.close(1)
                continue
            if args.hang_on_go:
                continue
            pending.append(None)
            if "movetime" in words:
                delay = int(words[words.index("movetime") + 1]) / 1000
                timer = threading.Timer(delay, answer)
                timer.daemon = True
                timer.start()
            elif "infinite" not in words:
                answer()
        elif command == "stop":
            answer()
        elif command == "quit":
            if not args.ignore_quit:
                answer()
                return
        elif command == "echo":  # for tests: write the rest of the line back
            say(" ".join(words[1:]))
    if args.ignore_quit:
        while True:
            time.sleep(60)


if __name__ == "__main__":
    main()
