"""An engine on protocol.loop that always says the position is level: ``score cp 0`` (or
``--score CP``) with every move, for the tests of draw adjudication.

It plays a legal move drawn from ``random.Random(seed, position)`` (the same game on every run),
one that takes no checker off the board when it can, so that games last.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from dipole_engine.rules import Board, new_board
from protocol.loop import SearchJob, serve


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--score", type=int, default=0, help="the centipawns reported with every move")
    parser.add_argument("--seed", default="1")
    arguments = parser.parse_args()

    def search(job: SearchJob[Board]) -> str | None:
        board = job.position
        moves = board.legal_moves()
        if not moves:
            return None
        keep = [move for move in moves if not board.takes_checkers_off(move)] or list(moves)
        move = random.Random(f"{arguments.seed} {board.fen()}").choice(keep)
        job.info(depth=1, score_cp=arguments.score, pv=(str(move),))
        return str(move)

    return serve(
        search,
        name="level",
        variants=["dipole", "impasse"],
        new_position=new_board,
        play=lambda board, move: board.push_text(move),
    )


if __name__ == "__main__":
    raise SystemExit(main())
