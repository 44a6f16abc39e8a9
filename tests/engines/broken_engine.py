"""An engine broken in exactly one way, for the tests of ``dipole-arbiter check-engine``.

Without a fault it is a correct engine (protocol.loop and the rules, playing the first legal
move, with the optional ``query`` and ``go perft`` answered, and the version 1.2 features:
``MultiPV`` lines, ``go searchmoves``, ``go mate`` finding a win in one, ``Ponder``).  ``--fault NAME`` breaks one
thing; each fault is one sentence in FAULTS below.
"""

from __future__ import annotations

import argparse
import io
import itertools
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from dipole_engine.rules import Board, all_variants, divide, new_board
from dipole_engine.uci import answer
from protocol import (
    BestMove,
    GoPerft,
    Info,
    PerftMove,
    PerftTotal,
    Response,
    Stop,
    UciNewGame,
    UciOk,
)
from protocol.loop import MULTI_PV, PONDER, EngineLoop, SearchJob

FAULTS = {
    "no-id-name": "the handshake has no 'id name' line",
    "bad-option-line": "one option line does not parse",
    "no-ugi": "'ugi' is an unknown command",
    "slow-isready": "the second 'isready' is answered after 1.5 s",
    "blocking-search": "the search runs on the thread that reads commands",
    "refuse-impasse": "setting UCI_Variant to impasse is refused",
    "no-reset-on-newgame": "'ucinewgame' keeps the position",
    "refuse-pass": "'pass' in a moves list is refused",
    "refuse-crown": "a crown (a move with '=') in a moves list is refused",
    "ignore-nodes": "'go nodes' searches until 'stop'",
    "ignore-depth": "'go depth N' with N > 1 searches until 'stop'",
    "ignore-stop": "'stop' is ignored",
    "slow-movetime": "'go movetime' answers 400 ms late",
    "ignore-clock": "a clock is ignored: it thinks 600 ms whatever is left",
    "early-infinite": "'go infinite' answers without waiting for 'stop'",
    "two-bestmoves": "every 'go' is answered twice",
    "illegal-moves": "after more than 6 moves it answers 'pass', which is illegal",
    "move-when-finished": "a finished position is answered 'pass' instead of '(none)'",
    "no-crlf": "a line ending in CR LF is an unknown command",
    "silent-bad-input": "bad input gets no error line",
    "crash-on-bad-input": "bad input ends the engine",
    "ignore-quit": "'quit' is ignored",
    "wrong-query": "'query fen' answers the start position",
    "wrong-perft": "'go perft' counts one node too many",
    "flood-perft": "'go perft' answers with ever new 'move: count' lines, forever, no total",
    "complains": "every 'go' is preceded by an error report, and then answered correctly",
    "shouts": "moves are answered in upper case (E1-E3)",
    "go-restarts": "a 'go' during a search ends it (with its bestmove) and starts another, as some UCI engines do",
    "crlf-output": "every line it writes ends in CR LF (allowed: not a fault)",
    "multipv-duplicates": "with MultiPV above 1 every line starts with the same move",
    "multipv-unordered": "with MultiPV above 1 the lines come worst first",
    "ignore-searchmoves": "'go searchmoves' is searched as if every move were listed",
    "false-mate": "'go mate' claims 'score mate 1' for its first legal move, which need not win",
    "early-ponder": "'go ponder' is answered at once, before 'ponderhit' or 'stop'",
    "silent-ponder-stop": "'stop' during 'go ponder' is ignored: no bestmove",
    "illegal-ponder": "'bestmove X ponder X': the predicted reply is the move itself",
}


class BrokenLoop(EngineLoop[Board]):
    def __init__(self, fault: str | None) -> None:
        super().__init__(
            self.first_move,
            name="" if fault == "no-id-name" else "Broken Engine",
            variants=[variant.name for variant in all_variants()],
            new_position=new_board,
            play=self.play_move,
            turn=lambda board: board.turn > 0,
            answer=self.answer_query,
            options=(MULTI_PV, PONDER),
            analysis=True,
        )
        self.fault = fault
        self.errors_sent = 0
        self.isready_count = 0
        self._handlers[GoPerft] = self.perft_command
        if fault == "no-reset-on-newgame":
            self._handlers[UciNewGame] = lambda _: None
        if fault == "ignore-stop":
            self._handlers[Stop] = lambda _: None

    def play_move(self, board: Board, move: str) -> None:
        if (self.fault == "refuse-pass" and move == "pass") or (self.fault == "refuse-crown" and "=" in move):
            raise ValueError(f"{move!r} is not understood")
        board.push_text(move)

    def first_move(self, job: SearchJob[Board]) -> str | None:
        limit, fault = job.limit, self.fault
        moves = job.position.legal_moves()
        if fault == "complains":
            job.info(string="error the hash table is on fire")
        if (fault == "ignore-nodes" and limit.nodes is not None) or (
            fault == "ignore-depth" and (limit.depth or 0) > 1
        ):
            job._stop.wait()
        if fault == "slow-movetime" and limit.movetime is not None:
            time.sleep((limit.movetime + 400) / 1000)
        if fault == "ignore-clock" and limit.wtime is not None:
            # twice the tests' bound (150 ms + a margin of 150): a busy machine cannot hide it
            time.sleep(0.6)
        if fault == "early-infinite" and limit.infinite:
            self._send(BestMove(str(moves[0]) if moves else None))
            job._stop.wait()
        if fault == "two-bestmoves":
            self._send(BestMove(str(moves[0]) if moves else None))
        if fault == "illegal-moves" and len(job.position.move_stack) > 6 and moves:
            return "pass" if str(moves[0]) != "pass" else str(moves[-1])
        if fault == "move-when-finished" and not moves:
            return "pass"
        if fault == "shouts" and moves:
            return str(moves[0]).upper()
        if limit.searchmoves and fault != "ignore-searchmoves":
            moves = [move for move in moves if str(move) in limit.searchmoves]
        if not moves:
            return None
        board, first = job.position, str(moves[0])
        if fault == "early-ponder" and limit.ponder:
            self._send(BestMove(first))
        if limit.mate is not None:
            winning = next((move for move in moves if wins_at_once(board, move)), None)
            if fault == "false-mate":
                winning = moves[0]
            if winning is not None:
                job.info(depth=1, score_mate=1, pv=(str(winning),))
                return str(winning)
        if job.multipv > 1:
            lines = moves[: job.multipv]
            if fault == "multipv-duplicates":
                lines = [moves[0]] * len(lines)
            worst_first = fault == "multipv-unordered"
            for number, move in enumerate(lines, start=1):
                job.info(depth=1, multipv=number, score_cp=number if worst_first else -number, pv=(str(move),))
        elif job.options.get(PONDER.name):
            board.push(moves[0])
            replies = board.legal_moves()
            board.pop()
            reply = first if fault == "illegal-ponder" else (str(replies[0]) if replies else None)
            job.info(depth=1, score_cp=0, pv=(first, reply) if reply else (first,))
        return first

    def handle(self, line: str) -> bool:
        fault, word = self.fault, (line.split() or [""])[0]
        if fault == "no-ugi" and word == "ugi":
            line = "unknown-ugi"
        elif fault == "slow-isready" and word == "isready":
            self.isready_count += 1
            if self.isready_count == 2:
                time.sleep(1.5)
        elif fault == "no-crlf" and line.endswith("\r\n"):
            line = "unknown-with-cr"
        elif fault == "ignore-quit" and word == "quit":
            return True
        elif fault == "refuse-impasse" and word == "setoption" and line.split()[-1] == "impasse":
            line = "setoption name UCI_Variant value impasse-is-refused"
        elif fault == "silent-ponder-stop" and word == "stop" and self._job is not None and self._job.pondering:
            return True
        elif fault == "go-restarts" and word == "go" and self._busy:
            self.end_search()
        elif fault == "blocking-search" and word == "go":
            keep_going = super().handle(line)
            if self._thread is not None:
                self._thread.join()
            return keep_going
        before = self.errors_sent
        keep_going = super().handle(line)
        if fault == "crash-on-bad-input" and self.errors_sent > before:
            os._exit(3)
        return keep_going

    def _send(self, *responses: Response) -> None:
        errors = [r for r in responses if isinstance(r, Info) and r.error]
        self.errors_sent += len(errors)
        if self.fault == "silent-bad-input":
            responses = tuple(r for r in responses if r not in errors)
        if self.fault == "bad-option-line" and responses and isinstance(responses[-1], UciOk):
            with self._output:
                self.output.write("option name Broken type spin default lots\n")
        super()._send(*responses)

    def answer_query(self, board: Board, item: str) -> str:
        if item == "fen" and self.fault == "wrong-query":
            return board.variant.start_fen
        return answer(board, item)

    def perft_command(self, command: GoPerft) -> None:
        if self.fault == "flood-perft":
            with self._output:
                for number in itertools.count():
                    self.output.write(f"m{number}: 1\n")
        counts = divide(self.position.copy(), command.depth) if command.depth else []
        extra = 1 if self.fault == "wrong-perft" else 0
        total = sum(count for _, count in counts) if command.depth else 1
        self._send(*(PerftMove(str(move), count) for move, count in counts), PerftTotal(total + extra))


def wins_at_once(board: Board[Any], move: Any) -> bool:
    """Whether ``move`` ends the game with a win for the side that plays it."""
    mover = board.turn
    board.push(move)
    try:
        return board.winner() == mover
    finally:
        board.pop()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fault", choices=sorted(FAULTS))
    fault = parser.parse_args().fault
    stdout = sys.stdout
    if fault == "crlf-output":
        stdout = io.TextIOWrapper(sys.stdout.buffer, encoding="ascii", newline="\r\n")
    return BrokenLoop(fault).run(sys.stdin.buffer, stdout)


if __name__ == "__main__":
    raise SystemExit(main())
