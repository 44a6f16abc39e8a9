"""What the chess tests of the host share: the real programs they drive (the arbiter, Stockfish,
pgn-extract, the scripted engine), and the check that a PGN file reads as the chess world reads
it (python-chess and pgn-extract, each game the same as our own reader has it)."""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import chess
import chess.pgn
import pytest

from arbiter.records.pgn import read_pgn_file

ARBITER = [sys.executable, "-c", "from arbiter.cli import main; main()"]
UCI_COMMANDS = {"uci", "isready", "setoption", "ucinewgame", "position", "go", "stop", "ponderhit", "quit"}
"""What a UCI GUI sends (the UCI specification's commands): all a plain UCI engine is ever sent."""
SCRIPTED = Path(__file__).resolve().parent / "engines" / "scripted_chess.py"
FINISHED = re.compile(r"^Finished game (\d+) \((\S+) vs (\S+)\): (1-0|0-1|1/2-1/2|\*) \{(.+)\}$", re.MULTILINE)
ENDINGS = {  # cutechess-cli's words for the game's own endings, and python-chess's
    "White mates": chess.Termination.CHECKMATE,
    "Black mates": chess.Termination.CHECKMATE,
    "Draw by stalemate": chess.Termination.STALEMATE,
    "Draw by insufficient mating material": chess.Termination.INSUFFICIENT_MATERIAL,
    "Draw by fifty moves rule": chess.Termination.FIFTY_MOVES,
    "Draw by 3-fold repetition": chess.Termination.THREEFOLD_REPETITION,
}


def arbiter(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ARBITER, *args], capture_output=True, text=True, timeout=timeout)


def program(name: str, install: str) -> str:
    """The path of the Debian program ``name`` (on PATH or in /usr/games); skips without it,
    except under CI (``CI`` set), where the test fails: ``.ci/run`` installs it."""
    path = shutil.which(name) or shutil.which(name, path="/usr/games")
    if path is None:
        if os.environ.get("CI"):
            pytest.fail(f"{name} is not installed, and CI must run these tests (.ci/run installs it)")
        pytest.skip(f"no {name} (apt-get install {install})")
    return path


@pytest.fixture(scope="module")
def stockfish() -> str:
    return program("stockfish", "stockfish")


@pytest.fixture(scope="module")
def pgn_extract() -> str:
    return program("pgn-extract", "pgn-extract")


def engine(path: str, name: str, *settings: str) -> list[str]:
    """``--engine`` words: the program at ``path`` called ``name``, with cutechess settings."""
    return ["--engine", f"cmd={path}", f"name={name}", *settings]


def scripted(name: str, *moves: str) -> list[str]:
    """``--engine`` words of the scripted engine (tests/engines/scripted_chess.py) playing ``moves``."""
    return ["--engine", " ".join([f"cmd={sys.executable}", str(SCRIPTED), *moves]), f"name={name}"]


def chess_world_games(pgn: Path, pgn_extract: str) -> list[chess.pgn.Game]:
    """The games of ``pgn`` as python-chess reads them, each checked against our reader's (the
    same moves in the same mode, from the same position, to the same result: a game's own
    ending is the one python-chess finds there) and the file passed by pgn-extract without a
    word of complaint."""
    checked = subprocess.run([pgn_extract, "-s", "-r", str(pgn)], capture_output=True, text=True, timeout=60)
    assert checked.returncode == 0 and (checked.stdout + checked.stderr).strip() == "", checked.stdout + checked.stderr
    ours = [game.to_record() for game in read_pgn_file(str(pgn))]
    text = io.StringIO(pgn.read_text())
    games = []
    while (game := chess.pgn.read_game(text)) is not None:
        games.append(game)
    assert len(games) == len(ours)
    for game, record in zip(games, ours):
        assert game.errors == [], game.errors
        board = game.board()
        assert board.chess960 == (record.variant == "chess960")
        assert (None if game.headers.get("SetUp") != "1" else game.headers["FEN"]) == record.fen
        played = []
        for move in game.mainline_moves():
            played.append(board.uci(move))
            board.push(move)
        assert played == [move.text for move in record.moves]
        assert game.headers["Result"] == record.result and int(game.headers["PlyCount"]) == len(played)
        outcome = board.outcome(claim_draw=True)
        if record.reason in ENDINGS:
            assert outcome is not None and outcome.termination is ENDINGS[record.reason], (record.reason, outcome)
            assert outcome.result() == record.result
        elif record.termination.tag == "normal":
            raise AssertionError(f"a normal ending that is not the game's own: {record.reason}")
    return games
