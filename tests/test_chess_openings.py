"""Chess openings from EPD and PGN books (``--openings FILE format=epd|pgn order= plies=``, as
fastchess's ``-openings``): what each line or game gives, the books' bad lines refused naming the
file and the line, and real Stockfish games from each book, every opening played with colours
reversed and recorded with its FEN (read back by python-chess and pgn-extract)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from chess_support import FINISHED, arbiter, chess_world_games, engine, pgn_extract, stockfish

from arbiter.errors import ArbiterError
from arbiter.openings.choice import OpeningsChoice
from arbiter.openings.positions import book_format, load_openings
from arbiter.records.game import Opening

__all__ = ["pgn_extract", "stockfish"]  # (fixtures)

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
AFTER_E4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -"
SICILIAN = "rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq -"
EPD_BOOK = f"""# a comment, then EPD lines: operations, the FEN's counters, an opcode giving them
{AFTER_E4} id "king's pawn";
{SICILIAN} 1 2
r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - c0 "two; knights"; hmvc 2; fmvn 3;

{START} w KQkq - bm e4;
"""
PGN_BOOK = f"""[Event "book"]
[Result "*"]

1. e4 e5 2. Nf3 {{the main line}} Nc6 (2... d6 3. d4) 3. Bb5 $1 a6 *

[Event "queen's pawn, from a FEN"]
[SetUp "1"]
[FEN "{START} w KQkq - 0 1"]

1. d4 d5 2. c4 e6 1/2-1/2

[Event "a FEN with Black to move"]
[FEN "{AFTER_E4} 0 1"]

1... c5 2. Nf3 *
"""


def book(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_an_epd_book_gives_its_positions_with_their_counters(tmp_path: Path) -> None:
    path = book(tmp_path, "book.epd", EPD_BOOK)
    assert book_format(path) == "epd" and book_format("b.PGN.xz") == "pgn" and book_format("b.txt") == "lines"
    assert load_openings(path, "chess") == [
        Opening(f"{AFTER_E4} 0 1", (), f"{path} line 2"),
        Opening(f"{SICILIAN} 1 2", (), f"{path} line 3"),
        Opening("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3", (), f"{path} line 4"),
        Opening(None, (), f"{path} line 6"),  # the start itself: no FEN
    ]
    # format= wins over the suffix; plies= has no moves to cut in an EPD book
    assert load_openings(book(tmp_path, "book.txt", EPD_BOOK), "chess", "epd", 2)[1].fen == f"{SICILIAN} 1 2"
    # Chess960: Shredder-FEN castling read, X-FEN kept
    shredder = book(tmp_path, "960.epd", "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - fmvn 9;\n")
    assert (
        load_openings(shredder, "chess960")[0].fen
        == "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w KQkq - 0 9"
    )


ID_X = 'id "x"; '  # one EPD operation


def test_a_long_epd_line_is_read_or_refused_in_linear_time(tmp_path: Path) -> None:
    def cpu_seconds(count: int) -> float:
        """The CPU time (not the wall time: the machine may be busy) to read a line of
        ``count`` operations."""
        line = f"{START} w KQkq - {ID_X * count}\n"
        began = time.process_time()
        assert load_openings(book(tmp_path, f"long{count}.epd", line), "chess")[0].fen is None
        return time.process_time() - began

    small, large = cpu_seconds(50_000), cpu_seconds(200_000)
    assert large < 8 * small + 0.2, (small, large)  # linear: 4 times as long; a quadratic reading, 16
    with pytest.raises(ArbiterError, match=r"line 2: bad EPD operation 'x'"):
        load_openings(book(tmp_path, "bad.epd", f"{START} w KQkq -\n{START} w KQkq - {ID_X * 1000}x\n"), "chess")


def test_a_pgn_book_gives_each_games_main_line_and_plies_keeps_its_first_moves(tmp_path: Path) -> None:
    path = book(tmp_path, "book.pgn", PGN_BOOK)
    assert load_openings(path, "chess") == [
        Opening(None, ("e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6"), f"{path} line 1"),
        Opening(None, ("d2d4", "d7d5", "c2c4", "e7e6"), f"{path} line 6"),  # the FEN of the start: none
        Opening(f"{AFTER_E4} 0 1", ("c7c5", "g1f3"), f"{path} line 12"),
    ]
    assert [opening.moves for opening in load_openings(path, "chess", plies=3)] == [
        ("e2e4", "e7e5", "g1f3"),
        ("d2d4", "d7d5", "c2c4"),
        ("c7c5", "g1f3"),
    ]
    # in Chess960 the same book reads in that mode: castling is king-takes-rook
    castled = book(tmp_path, "castled.pgn", "1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. O-O *\n")
    assert load_openings(castled, "chess960")[0].moves[-1] == "e1h1"
    assert load_openings(castled, "chess")[0].moves[-1] == "e1g1"


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("b.epd", f"{AFTER_E4}\n{START} w KQkq\n", r"b\.epd line 2: an EPD line starts with a position's four fields"),
        ("b.epd", f"{AFTER_E4}\n{START} w KQkq - id x\n", r"b\.epd line 2: bad EPD operation 'id x' \(an opcode"),
        ("b.epd", f"{AFTER_E4}\n{START} w KQkq - hmvc many;\n", r"b\.epd line 2: EPD hmvc takes a whole number"),
        # illegal: two white kings; the side not to move in check; a pawn on the last rank
        (
            "b.epd",
            f"{AFTER_E4}\n4k3/8/8/8/8/8/8/K3K3 w - -\n",
            r"b\.epd line 2: bad chess FEN .*: not a legal position",
        ),
        ("b.epd", f"{AFTER_E4}\n4k3/8/8/8/8/8/8/r3K3 b - -\n", r"b\.epd line 2: bad chess FEN .*opposite check"),
        ("b.epd", f"{AFTER_E4}\nP3k3/8/8/8/8/8/8/4K3 w - -\n", r"b\.epd line 2: bad chess FEN .*pawns on backrank"),
        # over already: checkmate, stalemate
        (
            "b.epd",
            f"{AFTER_E4}\n7k/6Q1/5K2/8/8/8/8/8 b - -\n",
            r"b\.epd line 2: the game is already over .*White mates",
        ),
        ("b.epd", f"{AFTER_E4}\n7k/8/5KQ1/8/8/8/8/8 b - -\n", r"b\.epd line 2: the game is already over .*stalemate"),
        ("b.epd", "not a position at all\n", r"openings file .*b\.epd: line 1 is no EPD position of chess; is it"),
        ("b.pgn", "1. e4 e5 *\n\n1. e4 e5 2. Nf9 *\n", r"b\.pgn line 3 \(game 2\): 'Nf9' is not a legal move here"),
        ("b.pgn", '[FEN "8/8/8/8 w - - 0 1"]\n\n*\n', r"b\.pgn line 1 \(game 1, its FEN tag\): bad chess FEN"),
        ("b.pgn", "1. f3 e5 2. g4 Qh4# 0-1\n", r"b\.pgn line 1: the game is already over in this opening \(Black"),
        ("b.pgn", "1. e4 e5 {never closed\n", r"b\.pgn line 1: comment opened with '\{' is never closed"),
        ("b.pgn", "% only an escaped line\n", r"openings file .*b\.pgn: no games in it"),
        ("b.txt", "e2e4\ne7e5 e2e4\n", r"b\.txt line 2: 'e7e5' is not a legal move here"),
    ],
)
def test_a_bad_line_of_a_book_is_refused_naming_the_file_and_line(
    tmp_path: Path, name: str, text: str, message: str
) -> None:
    with pytest.raises(ArbiterError, match=message) as refused:
        load_openings(book(tmp_path, name, text), "chess")
    assert "\n" not in str(refused.value)


def test_the_openings_words_take_format_and_plies_as_fastchess_does() -> None:
    parsed = OpeningsChoice.parse(["file=b.bin", "format=epd", "order=random", "plies=8", "start=2"])
    assert parsed == OpeningsChoice("b.bin", "random", 2, "epd", 8)
    assert OpeningsChoice.parse(["b.pgn"]) == OpeningsChoice("b.pgn")
    for words, message in (
        (["b", "format=bin"], "format must be epd, pgn or lines, not 'bin'"),
        (["b", "plies=0"], "plies must be a number of moves from 1, not '0'"),
        (["b", "plies=x"], "plies must be a number of moves from 1"),
        (["b", "depth=3"], r"expected FILE \[format=epd\|pgn\] \[order=random\|sequential\] \[start=K\] \[plies=N\]"),
    ):
        with pytest.raises(ArbiterError, match=message):
            OpeningsChoice.parse(words)


def colour_pairs(output: str) -> list[tuple[str, str]]:
    """(white, black) of each finished game, in game order."""
    found = sorted(FINISHED.findall(output), key=lambda match: int(match[0]))
    return [(white, black) for _, white, black, _, _ in found]


@pytest.mark.slow
def test_stockfish_plays_each_book_opening_with_colours_reversed(
    tmp_path: Path, stockfish: str, pgn_extract: str
) -> None:
    players = [*engine(stockfish, "sf-a"), *engine(stockfish, "sf-b"), "--each", "option.Hash=16", "nodes=3000"]
    players += ["--maxmoves", "40"]  # (a few seconds a game at most)
    epd, pgn = book(tmp_path, "book.epd", EPD_BOOK), tmp_path / "epd-games.pgn"
    result = arbiter("match", *players, "--variant", "chess", "--games", "4", "--openings", epd, "--pgn", str(pgn))
    assert result.returncode == 0, result.stderr
    assert f"\nOpenings: 4 from {epd}, in file order\n" in result.stdout
    assert colour_pairs(result.stdout) == [("sf-a", "sf-b"), ("sf-b", "sf-a")] * 2
    games = chess_world_games(pgn, pgn_extract)
    assert [game.headers.get("FEN") for game in games] == [f"{AFTER_E4} 0 1"] * 2 + [f"{SICILIAN} 1 2"] * 2
    assert all(game.headers["SetUp"] == "1" and game.headers["Variant"] == "chess" for game in games)
    assert [game.headers["Opening"] for game in games] == [f"{epd} line 2"] * 2 + [f"{epd} line 3"] * 2
    # a PGN book, two book moves of each game (marked book), in random order by seed
    source, pgn = book(tmp_path, "book.pgn", PGN_BOOK), tmp_path / "pgn-games.pgn"
    words = ["--openings", source, "order=random", "plies=2", "--seed", "3"]
    result = arbiter("match", *players, "--variant", "chess", "--games", "6", *words, "--pgn", str(pgn))
    assert result.returncode == 0, result.stderr
    assert f"\nOpenings: 3 from {source}, in random order, seed 3 (repeat with --seed 3)\n" in result.stdout
    assert colour_pairs(result.stdout) == [("sf-a", "sf-b"), ("sf-b", "sf-a")] * 3
    games = chess_world_games(pgn, pgn_extract)
    assert sorted({game.headers["Opening"] for game in games}) == [f"{source} line {n}" for n in (1, 12, 6)]
    for first, second in zip(games[::2], games[1::2]):
        assert first.headers["Opening"] == second.headers["Opening"]
        books = [node.comment for node in first.mainline()][:3]
        assert books[:2] == ["book", "book"] and books[2] != "book"
    # a book with a bad line: one line naming it, before any engine starts
    bad = book(tmp_path, "bad.epd", f"{AFTER_E4}\n7k/6Q1/5K2/8/8/8/8/8 b - -\n")
    result = arbiter("match", *players, "--variant", "chess", "--openings", bad)
    assert result.returncode != 0 and result.stdout == ""
    assert result.stderr.strip().splitlines() == [
        f"dipole-arbiter: error: {bad} line 2: the game is already over in this opening (White mates)"
    ]


def test_a_pgn_book_is_read_in_the_events_game_so_dipole_records_are_books_too(tmp_path: Path) -> None:
    records = '[Variant "dipole"]\n\n1. c1-c3 {book} d8-d2 {book} 2. c1+c3 {+5.60/1 0.012s} d8-e7 3. c3-c5 1-0\n'
    path = book(tmp_path, "dipole.pgn", records)
    assert load_openings(path, "dipole", plies=4) == [
        Opening(None, ("c1-c3", "d8-d2", "c1+c3", "d8-e7"), f"{path} line 1")
    ]
    with pytest.raises(ArbiterError, match=r"dipole\.pgn line 3 \(game 1\): 'c1-c3' is not a legal move here in SAN"):
        load_openings(path, "chess")
