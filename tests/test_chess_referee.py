"""Chess refereed by ``dipole-arbiter match``: each of the game's own endings reaches the record in
cutechess-cli's words, an engine that answers with an illegal move, with SAN, or castles the
other mode's way loses by the referee's words, and draw, resign and maxmoves adjudication end
chess games.  Real processes: the arbiter, the scripted engine (tests/engines/scripted_chess.py)
and Stockfish; each record is read back by python-chess and pgn-extract (chess_support)."""

from __future__ import annotations

from pathlib import Path

import pytest
from chess_support import FINISHED, arbiter, chess_world_games, engine, pgn_extract, scripted, stockfish

__all__ = ["pgn_extract", "stockfish"]  # (fixtures)

BARE_KINGS = "6k1/8/8/p7/P7/8/8/6K1 w - - {} 1"  # blocked pawns: only the kings move


def one_game(tmp_path: Path, opening: str, white: list[str], black: list[str], *flags: str) -> tuple[str, Path]:
    """The finished line of a one-game match from ``opening`` (a line of an openings file), and
    its PGN file (a new one for each game)."""
    number = len(list(tmp_path.glob("*.pgn"))) + 1
    book, pgn = tmp_path / f"one-{number}.txt", tmp_path / f"games-{number}.pgn"
    book.write_text(opening + "\n")
    result = arbiter("match", *white, *black, "--games", "1", "--openings", str(book), "--pgn", str(pgn), *flags)
    assert result.returncode == 0, result.stderr
    return next(FINISHED.finditer(result.stdout)).group(0), pgn


@pytest.mark.parametrize(
    ("variant", "opening", "white", "black", "finished"),
    [
        ("chess", "f2f3", ["g2g4"], ["e7e5", "d8h4"], "0-1 {Black mates}"),
        ("chess960", "7k/8/5K2/6Q1/8/8/8/8 w - - 0 1", ["g5g7"], [], "1-0 {White mates}"),
        ("chess", "7k/8/5K2/6Q1/8/8/8/8 w - - 0 1", ["g5g6"], [], "1/2-1/2 {Draw by stalemate}"),
        ("chess", "8/8/8/4k3/8/8/3qK3/8 w - - 0 1", ["e2d2"], [], "1/2-1/2 {Draw by insufficient mating material}"),
        ("chess", BARE_KINGS.format(99), ["g1f1"], [], "1/2-1/2 {Draw by fifty moves rule}"),
        (
            "chess960",
            BARE_KINGS.format(0),
            ["g1f1", "f1g1", "g1f1", "f1g1"],
            ["g8f8", "f8g8", "g8f8", "f8g8"],
            "1/2-1/2 {Draw by 3-fold repetition}",
        ),
    ],
)
def test_the_games_own_endings_reach_the_record_in_cutechess_words(
    tmp_path: Path, pgn_extract: str, variant: str, opening: str, white: list[str], black: list[str], finished: str
) -> None:
    line, pgn = one_game(
        tmp_path, opening, scripted("w", *white), scripted("b", *black), "--variant", variant, "--depth", "1"
    )
    assert line == f"Finished game 1 (w vs b): {finished}"
    (game,) = chess_world_games(pgn, pgn_extract)
    assert game.headers["Termination"] == "normal"
    assert game.end().comment.endswith(finished.split("{")[1].rstrip("}"))  # (python-chess joins comments)


CASTLING = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1"


@pytest.mark.parametrize(
    ("variant", "opening", "answer", "why"),
    [
        ("chess", "e2e4 e7e5", "e7e5", "'e7e5' is not a legal move here"),  # Black's move, not White's
        ("chess", "e2e4 e7e5", "g1e3", "'g1e3' is not a legal move here"),  # a knight's move it cannot make
        ("chess", "e2e4 e7e5", "Nf3", "'Nf3' is not a UCI move (such as e2e4 or e7e8q)"),  # SAN
        ("chess", "e2e4 e7e5", "e2e4", "'e2e4' is not a legal move here"),  # a move already played
        ("chess", CASTLING, "e1h1", "'e1h1' is not a legal move here"),  # Chess960's castling in chess
        ("chess960", CASTLING, "e1g1", "'e1g1' is not a legal move here"),  # chess's castling in Chess960
        ("chess", CASTLING, "O-O", "'O-O' is not a UCI move (such as e2e4 or e7e8q)"),
    ],
)
def test_an_engine_that_answers_what_is_no_legal_uci_move_here_loses(
    tmp_path: Path, pgn_extract: str, variant: str, opening: str, answer: str, why: str
) -> None:
    book, pgn = tmp_path / "one.txt", tmp_path / "games.pgn"
    book.write_text(opening + "\n")
    result = arbiter(
        "match",
        *scripted("liar", answer),
        *scripted("honest"),
        *["--variant", variant, "--depth", "1", "--games", "2", "--openings", str(book), "--pgn", str(pgn)],
    )
    assert result.returncode == 0, result.stderr
    # White is to move once the book moves are played: the liar answers first as White, and
    # second as Black (with the same words, after the honest engine's first move)
    assert [match.group(0) for match in FINISHED.finditer(result.stdout)] == [
        f"Finished game 1 (liar vs honest): 0-1 {{White makes an illegal move: {answer}}}",
        f"Finished game 2 (honest vs liar): 1-0 {{Black makes an illegal move: {answer}}}",
    ]
    assert f"liar (White): illegal move '{answer}': {why}" in result.stderr
    games = chess_world_games(pgn, pgn_extract)
    assert [game.headers["Termination"] for game in games] == ["illegal move", "illegal move"]


@pytest.mark.slow
def test_draw_resign_and_maxmoves_adjudicate_stockfishs_chess_games(
    tmp_path: Path, stockfish: str, pgn_extract: str
) -> None:
    white = engine(stockfish, "sf-a", "option.Hash=16")
    black = [*engine(stockfish, "sf-b", "option.Hash=16"), "--variant", "chess"]
    # Eight pawns each, nothing else: Stockfish scores it level, and the draw rule ends it at move 3.
    line, pgn = one_game(
        tmp_path, "4k3/pppppppp/8/8/8/8/PPPPPPPP/4K3 w - - 0 1", white, black, "--depth", "6",
        "--draw", "movenumber=3", "movecount=2", "score=30",
    )  # fmt: skip
    assert line.startswith("Finished game 1 (sf-a vs sf-b): 1/2-1/2 {Draw by adjudication (adjudication: draw ")
    (game,) = chess_world_games(pgn, pgn_extract)
    assert game.headers["Termination"] == "adjudication" and 4 <= int(game.headers["PlyCount"]) <= 8
    # Black is a queen down: Stockfish as Black scores it lost, and resigns after two moves.
    line, pgn = one_game(
        tmp_path, "rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", white, black,
        "--depth", "6", "--resign", "movecount=2", "score=500",
    )  # fmt: skip
    assert line.startswith("Finished game 1 (sf-a vs sf-b): 1-0 {Black resigns (adjudication: resign ")
    (game,) = chess_world_games(pgn, pgn_extract)
    assert game.headers["Termination"] == "adjudication"
    line, pgn = one_game(tmp_path, "e2e4", white, black, "--nodes", "2000", "--maxmoves", "6")
    assert line == "Finished game 1 (sf-a vs sf-b): 1/2-1/2 {Draw by adjudication (adjudication: maxmoves 6)}"
    (game,) = chess_world_games(pgn, pgn_extract)
    assert int(game.headers["PlyCount"]) == 12
    assert arbiter("replay", str(pgn)).returncode == 0
