"""A UCI chess engine that plays a script: for the chess tests of the arbiter's referee.

``scripted_chess.py MOVE...`` answers its N-th ``go`` of a game with the N-th word given, sent
as it is (a legal UCI move, or anything else: an illegal move, SAN, castling written the other
mode's way), and once the words run out with the first legal move in UCI order.  It offers
``UCI_Chess960`` and writes its moves in that mode's UCI (python-chess's rules).
"""

from __future__ import annotations

import sys

import chess


def main(script: list[str]) -> None:
    chess960 = False
    board = chess.Board()
    played = 0  # this game's answers so far
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        command = words[0]
        if command == "uci":
            reply("id name scripted", "option name UCI_Chess960 type check default false", "uciok")
        elif command == "isready":
            reply("readyok")
        elif command == "setoption" and words[1:5] == ["name", "UCI_Chess960", "value", "true"]:
            chess960 = True
        elif command == "ucinewgame":
            played = 0
        elif command == "position":
            board = position(words[1:], chess960)
        elif command == "go":
            if played < len(script):
                move = script[played]
            else:
                move = min((board.uci(legal) for legal in board.legal_moves), default="(none)")
            played += 1
            reply("info depth 1 score cp 0 nodes 1", f"bestmove {move}")
        elif command == "quit":
            return


def position(words: list[str], chess960: bool) -> chess.Board:
    """The board of a ``position`` command's words (after ``position``)."""
    moves = words.index("moves") if "moves" in words else len(words)
    fen = chess.STARTING_FEN if words[0] == "startpos" else " ".join(words[1:moves])
    board = chess.Board(fen, chess960=chess960)
    for text in words[moves + 1 :]:
        board.push_uci(text)
    return board


def reply(*lines: str) -> None:
    for line in lines:
        sys.stdout.write(line + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
