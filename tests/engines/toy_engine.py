"""A small engine for the arbiter's tests: plays legal moves at once, or misbehaves on request.

It speaks the protocol (``uci``, ``isready``, ``setoption``, ``ucinewgame``, ``position``, ``go``,
``stop``, ``quit``) and picks a move with the rules core: the first legal move, or a random
one drawn from ``random.Random(seed, position)`` so that a game is the same on every run (one
that takes no checker off the board, nineteen times in twenty, so that games last).
It never asks to pass: the arbiter plays forced passes itself.

Misbehaviours, each triggered on this process's N-th ``go`` (``--after N``, default 1):

  --crash         exit with status 3 (a crash mid-game)
  --hang          stop reading and answering anything (a hang; only a kill ends it)
  --badmove       answer ``bestmove @@@`` (not a move at all)
  --illegal       answer a well-formed move that is not legal in the position
  --none          answer ``bestmove (none)`` although the game is not over
  --overrun MS    answer only after MS milliseconds, whatever the clock or ``stop`` say

and, from the start:

  --garbage       write garbage lines around every answer (the game itself stays legal)
  --no-uciok      never finish the handshake
  --ignore-quit   ignore ``quit`` and the end of input (must be killed)
  --think MS      take MS milliseconds over every move
  --score CP      report the score CP (centipawns, the mover's view) with every move
  --pid-dir DIR   create the empty file DIR/<pid> at start (so tests can find every process)
  --multipv       declare ``option name MultiPV type spin default 1 min 1 max 5`` and answer
                  each search with that many distinct legal lines (``info ... multipv k``, 3
                  plies each where the game lasts), the k-th scored 30 cp below the (k-1)-th;
                  without --score the best line's score moves with the ply (-120..+120 cp)
  --pv PLIES      report lines of PLIES plies (as --multipv does, with 3), the move first
  --more-options  also offer an option of every other type (a combo, a check, a string, a
                  button), and say each ``setoption`` it takes on standard error
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

from dipole_engine.rules import Board, RulesError, new_board


def illegal_move(board: Board) -> str:
    """Some well-formed move text that names no legal move here."""
    names = [board.geometry.name(square) for square in board.geometry.dark_squares]
    for origin in names:
        for target in names:
            if target == origin:
                continue
            text = f"{origin}-{target}"
            try:
                board.parse_move(text)
            except RulesError:
                return text
    raise AssertionError("every move text is legal?")


class ToyEngine:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.variant = "dipole"
        self.fen: str | None = None
        self.board = new_board(self.variant)
        self.moves: list[str] = []
        self.searches = 0
        self.lines = 1  # MultiPV, as set

    def say(self, *lines: str) -> None:
        garbage = ["%% garbage &&", "bestmoveX nonsense"] if self.args.garbage else []
        sys.stdout.write("".join(line + "\n" for line in [*garbage, *lines, *garbage]))
        sys.stdout.flush()

    def set_position(self, words: list[str]) -> None:
        """``position startpos|fen F [moves ...]``, replaying only what is new since last time."""
        if words[1] == "fen":
            fen, rest = words[2], words[3:]
        else:
            fen, rest = None, words[2:]
        moves = rest[1:] if rest and rest[0] == "moves" else []
        if fen != self.fen or moves[: len(self.moves)] != self.moves:
            self.fen = fen
            self.board = new_board(self.variant, fen)
            self.moves = []
        for text in moves[len(self.moves) :]:
            self.board.push_text(text)
            self.moves.append(text)

    def choose(self) -> str:
        legal = self.board.legal_moves()
        if not legal:
            return "(none)"
        if self.args.pick == "first":
            return str(legal[0])
        rng = random.Random(f"{self.args.seed}/{self.board.fen()}")  # the FEN: stable whatever the keys are
        # Mostly moves that keep every checker on the board: random Dipole play otherwise throws
        # its stacks off within a few moves, and tests need games that last.
        keep = [move for move in legal if not self.board.takes_checkers_off(move)]
        return str(rng.choice(keep if keep and rng.random() >= 0.05 else legal))

    def go(self) -> None:
        self.searches += 1
        args = self.args
        triggered = self.searches >= args.after
        if triggered and args.crash:
            print("toy engine: crashing as asked", file=sys.stderr, flush=True)
            sys.exit(3)
        if triggered and args.hang:
            while True:
                time.sleep(3600)
        if args.think:
            time.sleep(args.think / 1000)
        if triggered and args.overrun:
            time.sleep(args.overrun / 1000)
        if triggered and args.badmove:
            move = "@@@"
        elif triggered and args.illegal:
            move = illegal_move(self.board)
        elif triggered and args.none:
            move = "(none)"
        else:
            move = self.choose()
        if (args.multipv or args.pv) and move != "(none)":
            self.say(*self.multipv_lines(move), f"bestmove {move}")
            return
        score = len(self.moves) % 7 - 3 if args.score is None else args.score
        self.say(f"info depth 1 score cp {score} nodes 1 time 0 pv {move}", f"bestmove {move}")

    @staticmethod
    def kept_first(board: Board) -> list[Any]:
        """The legal moves, those that keep every checker on the board first (lines that last)."""
        return sorted(board.legal_moves(), key=board.takes_checkers_off)

    def multipv_lines(self, best: str) -> list[str]:
        """``self.lines`` info lines, best first: distinct legal first moves (``best`` the first)."""
        firsts = [best, *(str(move) for move in self.kept_first(self.board) if str(move) != best)][: self.lines]
        top = 60 * (len(self.moves) % 5) - 120 if self.args.score is None else self.args.score
        lines = []
        for number, first in enumerate(firsts, 1):
            board = self.board.copy()
            pv = []
            for text in (first, *[None] * ((self.args.pv or 3) - 1)):
                legal = self.kept_first(board)
                if not legal:
                    break
                move = board.parse_move(text) if text else legal[0]
                board.push(move)
                pv.append(str(move))
            score = top - 30 * (number - 1)
            lines.append(
                f"info depth 3 seldepth 4 multipv {number} score cp {score} nodes {1000 * number} "
                f"nps 50000 time 20 pv {' '.join(pv)}"
            )
        return lines

    def run(self) -> None:
        while True:
            line = sys.stdin.readline()
            if not line:
                break
            words = line.split()
            if not words:
                continue
            command = words[0]
            if command == "uci":
                self.say(
                    "id name Toy",
                    "id author the arbiter tests",
                    "option name UCI_Variant type combo default dipole var dipole var dipole-s "
                    "var dipole-10 var dipole-10s",
                    "option name Hash type spin default 1 min 1 max 64",
                )
                if self.args.multipv:
                    self.say("option name MultiPV type spin default 1 min 1 max 5")
                if self.args.more_options:
                    self.say(
                        "option name Style type combo default solid var solid var wild var careful",
                        "option name Ponder type check default false",
                        "option name Book File type string default <empty>",
                        "option name Clear Hash type button",
                    )
                if not self.args.no_uciok:
                    self.say("uciok")
            elif command == "isready":
                self.say("readyok")
            elif command == "setoption" and words[1:3] == ["name", "UCI_Variant"]:
                self.variant = words[4]
                self.fen = None
                self.board = new_board(self.variant)
                self.moves = []
            elif command == "setoption" and words[1:3] == ["name", "MultiPV"] and self.args.multipv:
                self.lines = int(words[4])
            elif command == "setoption" and self.args.more_options:
                print(f"toy: {line.strip()}", file=sys.stderr, flush=True)
            elif command == "position":
                self.set_position(words)
            elif command == "go":
                self.go()
            elif command == "quit" and not self.args.ignore_quit:
                return
        while self.args.ignore_quit:
            time.sleep(3600)


def main() -> None:
    parser = argparse.ArgumentParser(description="A toy engine for the arbiter's tests.")
    parser.add_argument("--pick", choices=("first", "random"), default="random")
    parser.add_argument("--seed", default="0")
    parser.add_argument("--after", type=int, default=1)
    for flag in (
        "crash",
        "hang",
        "badmove",
        "illegal",
        "none",
        "garbage",
        "no-uciok",
        "ignore-quit",
        "multipv",
        "more-options",
    ):
        parser.add_argument(f"--{flag}", action="store_true")
    parser.add_argument("--overrun", type=int, default=0, metavar="MS")
    parser.add_argument("--think", type=int, default=0, metavar="MS")
    parser.add_argument("--pv", type=int, default=0, metavar="PLIES")
    parser.add_argument("--score", type=int, default=None, metavar="CP")
    parser.add_argument("--pid-dir", metavar="DIR")
    args = parser.parse_args()
    if args.pid_dir:
        Path(args.pid_dir, str(os.getpid())).touch()
    ToyEngine(args).run()


if __name__ == "__main__":
    main()
