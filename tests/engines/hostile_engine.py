"""An engine built to attack its host: the toy engine (``toy_engine.py``) plus one hostile act.

Each act is chosen by one flag; it happens on this process's N-th ``go`` (``--after N``,
default 1) unless it says otherwise.  Every other answer is the toy engine's (legal moves).

  --flood-info        write ``info`` lines as fast as it can, forever, never ``bestmove``
  --flood-then-move   write 200,000 ``info`` lines, then a legal ``bestmove``
  --endless-line      write one line that never ends (no line feed), forever
  --long-line         write one 2 MB line (ended by a line feed), then a legal ``bestmove``
  --long-infos        write ``info`` lines with a ``pv`` of 100,000 moves (just under 1 MB),
                      forever, never ``bestmove``
  --flood-handshake   answer ``uci`` with ``id``/``option``/garbage lines, forever, no ``uciok``
  --flood-options     answer ``uci`` with well-formed ``option`` lines (each a new name), forever,
                      no ``uciok``
  --flood-garbage     answer ``uci`` with lines that are not protocol at all, forever
  --double-bestmove   answer every ``go`` with two ``bestmove`` lines
  --early-bestmove    write a ``bestmove`` on ``ucinewgame`` (before any ``go``)
  --escape DIR        at start, leave a helper behind in a new session (double fork, setsid)
                      and one in a new process group; each writes DIR/<pid> and sleeps
  --control-move      answer with a move text full of control characters and an ANSI escape
  --flood-stderr      write endless stderr output (long lines) while it plays legal moves
  --deaf              fill its own input pipe to the brim (through /proc/self/fd/0), say so
                      (``info string my input is full``), answer this ``go`` (not a ``go
                      infinite``: that waits for a ``stop`` it never reads), then stay alive
                      without reading another byte, like an engine that peeks at its
                      input with tee(2): the host's next write finds the pipe full (Linux)
  --extra-token       answer ``bestmove <move> foo`` (a token the grammar does not have)
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from toy_engine import ToyEngine  # the script's own directory, put first above

CHUNK = "x" * 65536


def leave_helpers(directory: str) -> None:
    """Start two processes that try to outlive the engine: one in a new session (its parent
    exits, so it is an orphan), one in a new process group of the engine's session."""
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            Path(directory, str(os.getpid())).touch()
            os.closerange(0, 3)
            while True:
                time.sleep(3600)
        os._exit(0)
    if os.fork() == 0:
        os.setpgid(0, 0)
        Path(directory, str(os.getpid())).touch()
        while True:
            time.sleep(3600)


class HostileEngine(ToyEngine):
    last_line = ""

    def triggered(self) -> bool:
        return self.searches >= self.args.after

    def go(self) -> None:
        self.searches += 1
        args = self.args
        if not self.triggered():
            move = self.choose()
            self.say(f"bestmove {move}")
            return
        if args.flood_info:
            line = "info depth 1 score cp 1 nodes 1 time 0 pv a1-a2 a3-a4 a5-a6 string flood\n" * 200
            while True:
                sys.stdout.write(line)
        if args.long_infos:
            line = "info depth 1 score cp 1 pv " + "a1-a2 " * 100_000 + "\n"
            while True:
                sys.stdout.write(line)
        if args.endless_line:
            sys.stdout.write("info string ")
            while True:
                sys.stdout.write(CHUNK)
        move = self.choose()
        if args.long_line:
            sys.stdout.write("info string " + "x" * (2 << 20) + "\n")
            self.say(f"bestmove {move}")
            return
        if args.deaf:
            fill_own_input()
            self.say("info string my input is full")
            if self.last_line.split()[1:2] != ["infinite"]:
                self.say(f"bestmove {move}")
            while True:
                time.sleep(3600)
        if args.extra_token:
            self.say(f"bestmove {move} foo")
            return
        if args.flood_then_move:
            sys.stdout.write("info depth 1 score cp 5 nodes 1 time 0\n" * 200_000)
            self.say(f"bestmove {move}")
            return
        if args.double_bestmove:
            self.say(f"bestmove {move}", f"bestmove {move}")
            return
        if args.control_move:
            self.say("bestmove \x1b[2J\x1b[31mc1\x07-\x08c3\x1b]0;pwned\x07")
            return
        self.say(f"bestmove {move}")

    def run(self) -> None:
        if self.args.flood_handshake:
            sys.stdin.readline()
            line = "id name Flood\noption name O type spin default 1 min 0 max 9\n%% garbage %%\n" * 100
            while True:
                sys.stdout.write(line)
        if self.args.flood_options:
            sys.stdin.readline()
            sys.stdout.write("id name Flood\n")
            number = 0
            while True:
                sys.stdout.write(
                    "".join(f"option name O{number + i} type spin default 1 min 0 max 9\n" for i in range(100))
                )
                number += 100
        if self.args.flood_garbage:
            sys.stdin.readline()
            while True:
                sys.stdout.write("%% not the protocol %%\n" * 1000)
        sys.stdin = WatchedInput(self)  # type: ignore[assignment]
        super().run()


class WatchedInput:
    """Stands for stdin: remembers the last line read (``go``'s parameters) and, with
    ``--early-bestmove``, answers ``ucinewgame`` with a ``bestmove`` before passing it on."""

    def __init__(self, engine: HostileEngine) -> None:
        self.engine = engine
        self.stdin = sys.stdin

    def readline(self) -> str:
        line = self.stdin.readline()
        self.engine.last_line = line
        if self.engine.args.early_bestmove and line.startswith("ucinewgame"):
            self.engine.say(f"bestmove {self.engine.choose()}")
        return line


def fill_own_input() -> None:
    """Write into this process's own stdin pipe until it is full."""
    writer = os.open("/proc/self/fd/0", os.O_WRONLY | os.O_NONBLOCK)  # a second write end
    for piece in (CHUNK.encode(), b"\n"):  # then byte by byte: not even a short command fits
        try:
            while True:
                os.write(writer, piece)
        except BlockingIOError:  # no room left for this piece
            pass


def main() -> None:
    parser = argparse.ArgumentParser(description="A hostile engine for the arbiter's tests.")
    parser.add_argument("--pick", choices=("first", "random"), default="random")
    parser.add_argument("--seed", default="0")
    parser.add_argument("--after", type=int, default=1)
    for flag in (
        "flood-info",
        "flood-then-move",
        "endless-line",
        "long-line",
        "long-infos",
        "flood-handshake",
        "flood-options",
        "flood-garbage",
        "double-bestmove",
        "early-bestmove",
        "control-move",
        "flood-stderr",
        "deaf",
        "extra-token",
    ):
        parser.add_argument(f"--{flag}", action="store_true")
    parser.add_argument("--escape", metavar="DIR")
    parser.add_argument("--pid-dir", metavar="DIR")
    args = parser.parse_args()
    for name in (
        "crash",
        "hang",
        "badmove",
        "illegal",
        "none",
        "garbage",
        "no_uciok",
        "ignore_quit",
        "multipv",
        "more_options",
    ):
        setattr(args, name, False)
    args.overrun = args.think = args.pv = 0
    if args.pid_dir:
        Path(args.pid_dir, str(os.getpid())).touch()
    if args.escape:
        leave_helpers(args.escape)
    if args.flood_stderr:

        def flood() -> None:
            while True:
                sys.stderr.write(CHUNK * 40 + "\n")

        threading.Thread(target=flood, daemon=True).start()
    HostileEngine(args).run()


if __name__ == "__main__":
    main()
