"""Chess and Chess960 events with the real Stockfish, as a user runs them: ``dipole-arbiter match``
on a fast clock and on node limits, a round-robin ``tournament`` of three Stockfish settings
killed with SIGKILL and finished by ``resume`` with nothing lost, and ``publish`` of its site.
Every record is the chess world's: SAN moves, cutechess-cli's comments, ``FEN``/``SetUp`` for
book starts, the ``Variant`` python-chess and pgn-extract read (chess_support checks each)."""

from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path

import pytest
from chess_support import ARBITER, FINISHED, arbiter, chess_world_games, engine, pgn_extract, stockfish
from test_arbiter_games import alive
from test_tournament_cli import games_table, wait_for_games

from arbiter.events.store import EventStore
from arbiter.records.pgn import read_pgn_file

__all__ = ["pgn_extract", "stockfish"]  # (fixtures)

COMMENT = re.compile(r"\{([+-](?:M\d+|\d+\.\d\d)/\d+ )?\d+\.\d{3}s\}")  # cutechess-cli's: {+0.32/12 0.073s}
CHESS960_CASTLES = (  # Chess960 start 100, a line of five plies whose last is O-O (the king stays on g1)
    '[FEN "qbbnrnkr/pppppppp/8/8/8/8/PPPPPPPP/QBBNRNKR w KQkq - 0 1"]\n\n1. h3 b5 2. Ng3 Qc6 3. O-O *\n'
)


def descendants(pid: int) -> set[int]:
    """The processes below ``pid`` (its children, theirs, ...)."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parents[int(stat.parent.name)] = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):  # gone meanwhile
            continue
    found, below = set(), {pid}
    while below:
        below = {child for child, parent in parents.items() if parent in below} - found
        found |= below
    return found


@pytest.mark.slow
def test_a_match_on_a_fast_clock_writes_the_records_the_chess_world_reads(
    tmp_path: Path, stockfish: str, pgn_extract: str
) -> None:
    pgn = tmp_path / "match.pgn"
    result = arbiter(
        "match",
        *engine(stockfish, "sf-a"),
        *engine(stockfish, "sf-b"),
        *["--each", "tc=1+0.01", "option.Hash=16", "--variant", "chess", "--games", "2", "--maxmoves", "30"],
        *["--pgn", str(pgn)],
    )
    assert result.returncode == 0, result.stderr
    assert "Match: sf-a vs sf-b, variant chess, 2 games (1 colour-reversed pair)" in result.stdout
    assert [match[0] for match in FINISHED.findall(result.stdout)] == ["1", "2"]
    games = chess_world_games(pgn, pgn_extract)
    assert all(game.headers["TimeControl"] == "1+0.01" and game.headers["Variant"] == "chess" for game in games)
    assert "FEN" not in games[0].headers  # the start position
    text = pgn.read_text()
    assert re.search(r"^1\. [a-hNBRQK][a-h1-8x+#=QRBNO-]* \{[+-]\d+\.\d\d/\d+ 0\.\d{3}s\}", text, re.MULTILINE)
    comments = re.findall(r"\{[^}]*\}", text)
    reasons = {f"{{{game.reason()}}}" for game in read_pgn_file(str(pgn))}
    assert all(COMMENT.fullmatch(comment) for comment in comments if comment not in reasons), comments
    assert arbiter("replay", str(pgn)).returncode == 0


@pytest.mark.slow
def test_a_chess960_match_on_node_limits_castles_as_chess960_in_its_records(
    tmp_path: Path, stockfish: str, pgn_extract: str
) -> None:
    book, pgn = tmp_path / "castles.pgn", tmp_path / "games.pgn"
    book.write_text(CHESS960_CASTLES)
    result = arbiter(
        "match",
        *engine(stockfish, "sf-a", "nodes=2000"),
        *engine(stockfish, "sf-b", "nodes=4000"),
        *["--each", "option.Hash=16", "--variant", "chess960", "--games", "2", "--maxmoves", "40"],
        *["--openings", str(book), "--pgn", str(pgn)],
    )
    assert result.returncode == 0, result.stderr
    games = chess_world_games(pgn, pgn_extract)  # (the same moves as ours: castling g1h1 in Chess960)
    for game in games:
        assert game.headers["Variant"] == "chess960" and game.board().chess960
        assert game.headers["FEN"] == "qbbnrnkr/pppppppp/8/8/8/8/PPPPPPPP/QBBNRNKR w KQkq - 0 1"
        assert [node.san() for node in game.mainline()][:5] == ["h3", "b5", "Ng3", "Qc6", "O-O"]
    assert "3. O-O {book}" in pgn.read_text()
    # pgn-extract takes a game for Chess960 when its Variant has "960" in it (cutechess-cli's
    # "fischerandom" has not: pgn-extract then writes this castling g1g1): it writes it g1h1
    uci = subprocess.run([pgn_extract, "-s", "-Wuci", str(pgn)], capture_output=True, text=True, timeout=60)
    assert uci.stderr == "" and uci.stdout.count("h2h3 b7b5 f1g3 a8c6 g1h1 ") == 2
    assert arbiter("replay", str(pgn)).returncode == 0


@pytest.mark.slow
def test_a_chess960_round_robin_from_an_epd_book_of_start_positions(
    tmp_path: Path, stockfish: str, pgn_extract: str
) -> None:
    starts = {0: "bbqnnrkr", 330: "nrqkbbrn", 959: "rkrnnqbb"}  # Scharnagl's numbers, White's back rank
    book, pgn = tmp_path / "starts.epd", tmp_path / "rr.pgn"
    book.write_text(
        "".join(
            f'{row.lower()}/{"p" * 8}/8/8/8/8/{"P" * 8}/{row.upper()} w KQkq - id "start {number}";\n'
            for number, row in starts.items()
        )
    )
    result = arbiter(
        "tournament",
        *engine(stockfish, "depth-1", "depth=1"),
        *engine(stockfish, "depth-4", "depth=4"),
        *engine(stockfish, "nodes-3k", "nodes=3000"),
        *["--each", "option.Hash=16", "--variant", "chess960", "--games", "2", "--maxmoves", "40"],
        *["--openings", str(book), "order=random", "--seed", "11", "--pgn", str(pgn), "--db", str(tmp_path / "rr.db")],
    )
    assert result.returncode == 0, result.stderr
    assert "3 engines, 1 round of 2 games per pairing, 6 games, variant chess960" in result.stdout
    assert [int(match[0]) for match in FINISHED.findall(result.stdout)] == list(range(1, 7))
    games = chess_world_games(pgn, pgn_extract)
    assert {game.headers["FEN"].split("/")[0] for game in games} <= set(starts.values())
    assert all(game.headers["Variant"] == "chess960" and game.board().chess960 for game in games)
    for first, second in zip(games[::2], games[1::2]):  # each pairing's two games: one start, both colours
        assert first.headers["FEN"] == second.headers["FEN"]
        assert (first.headers["White"], first.headers["Black"]) == (second.headers["Black"], second.headers["White"])


@pytest.mark.slow
def test_a_killed_round_robin_of_three_stockfish_settings_resumes_and_publishes(
    tmp_path: Path, stockfish: str, pgn_extract: str
) -> None:
    db, pgn, site = tmp_path / "rr.db", tmp_path / "rr.pgn", tmp_path / "site"
    command = [
        *ARBITER,
        "tournament",
        *engine(stockfish, "depth-2", "depth=2"),
        *engine(stockfish, "depth-5", "depth=5"),
        *engine(stockfish, "nodes-5k", "nodes=5000"),
        *["--each", "option.Hash=16", "--variant", "chess", "--rounds", "2", "--games", "2", "--maxmoves", "40"],
        *["--opening-plies", "2", "--seed", "7", "--db", str(db), "--pgn", str(pgn)],
    ]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_for_games(db, 2)
    engines = descendants(process.pid)
    assert engines
    process.kill()  # SIGKILL: no clean-up runs in the arbiter
    process.wait(timeout=10)
    deadline = time.monotonic() + 5
    while any(map(alive, engines)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [pid for pid in engines if alive(pid)] == []  # Stockfish dies with the arbiter
    before = games_table(db)
    assert 2 <= len(before) < 12
    result = arbiter("resume", str(db))
    assert result.returncode == 0, result.stderr
    assert f"Resuming: {len(before)} of 12 games already finished" in result.stdout
    resumed = {int(match[0]) for match in FINISHED.findall(result.stdout)}
    assert resumed == set(range(1, 13)) - {row[0] for row in before}
    after = games_table(db)
    assert [row[0] for row in after] == list(range(1, 13))
    assert {row[0]: row for row in after}.items() >= {row[0]: row for row in before}.items()
    store = EventStore.open(str(db), write=False)
    records = store.records()
    store.close()
    games = chess_world_games(pgn, pgn_extract)
    assert sorted(int(game.headers["Round"]) for game in games) == list(range(1, 13))  # each once, whole
    by_round = {int(game.headers["Round"]): game for game in games}
    for record in records:
        game = by_round[record.number]
        board = game.board()
        played = []
        for move in game.mainline_moves():
            played.append(board.uci(move))
            board.push(move)
        assert played == [move.text for move in record.moves] and game.headers["Result"] == record.result
    published = arbiter("publish", "--output", str(site), str(db))
    assert published.returncode == 0, published.stderr
    assert len(list((site / "games").glob("*.html"))) >= 12
    assert len(chess_world_games(site / "games.pgn", pgn_extract)) == 12
    assert "depth-5" in (site / "index.html").read_text()
