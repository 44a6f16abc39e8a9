"""Draws in the records: a ``1/2-1/2`` game written to PGN and read back, and a PGN file with
draws given to the real ``dipole-arbiter ratings`` and ``dipole-arbiter publish`` commands,
which count each draw half a point and show W-L-D."""

from __future__ import annotations

import html
import json
import random
import re
import subprocess
import sys
from pathlib import Path

import gameplug
from arbiter.records.game import DRAW, WHITE_WINS, GameRecord, MoveRecord, Termination
from arbiter.records.pgn import format_game, read_pgn_file

# a beats b 1-0 as White; the three other games are drawn: a scores 2.5 of 4
GAMES = [("a", "b", DRAW), ("b", "a", DRAW), ("a", "b", WHITE_WINS), ("b", "a", DRAW)]


def random_line(rng: random.Random, plies: int = 6) -> tuple[MoveRecord, ...]:
    """Legal Dipole moves from the start, the game still going after them."""
    while True:
        state = gameplug.variant("dipole").start()
        moves = []
        while len(moves) < plies and not state.outcome().over:
            move = rng.choice(list(state.legal_moves()))
            moves.append(MoveRecord(state.notation(move), score_cp=0, depth=3, time=0.1))
            state.play(move)
        if not state.outcome().over:
            return tuple(moves)


def write_games(path: Path) -> list[GameRecord]:
    rng = random.Random(1)
    records = [
        GameRecord(
            number,
            white,
            black,
            "dipole",
            None,
            random_line(rng),
            result,
            Termination.ADJUDICATION,
            "Draw by adjudication" if result == DRAW else "Black resigns",
        )
        for number, (white, black, result) in enumerate(GAMES, 1)
    ]
    path.write_text("".join(format_game(record) for record in records))
    return records


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arbiter", *args], capture_output=True, text=True, timeout=120, check=False
    )


def page_text(path: Path) -> str:
    text = re.sub(r"<script.*?</script>|<style.*?</style>", "", path.read_text(), flags=re.S)
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", text)))


def test_a_draw_is_written_and_read_back(tmp_path: Path) -> None:
    path = tmp_path / "draws.pgn"
    records = write_games(path)
    text = path.read_text()
    assert '[Result "1/2-1/2"]' in text and "{Draw by adjudication} 1/2-1/2" in text
    back = [game.to_record() for game in read_pgn_file(str(path))]
    assert [game.result for game in back] == [DRAW, DRAW, WHITE_WINS, DRAW]
    assert [game.termination for game in back] == [Termination.ADJUDICATION] * 4
    assert back[0].reason == "Draw by adjudication" and back[0].winner() is None
    assert [move.text for move in back[1].moves] == [move.text for move in records[1].moves]


def test_ratings_counts_draws_from_a_pgn_file(tmp_path: Path) -> None:
    path = tmp_path / "draws.pgn"
    write_games(path)
    result = run("ratings", str(path), "--report", str(tmp_path / "report.html"))
    assert result.returncode == 0, result.stderr
    standing = next(line.split() for line in result.stdout.splitlines() if line.startswith("   1 a "))
    assert standing[7:9] == ["2.5", "4"]  # points, games
    assert "White scored 2.5 of 4 (62.5%)" in result.stdout
    assert re.search(r"1 a\s+-\s+1-0-1/0-0-2", result.stdout)  # a's W-L-D as White / as Black
    assert "Terminations: adjudication 4" in result.stdout
    report = page_text(tmp_path / "report.html")
    assert "wins-losses-draws as White / as Black" in report and "1-0-1/0-0-2" in report


def test_publish_shows_draws(tmp_path: Path) -> None:
    path = tmp_path / "draws.pgn"
    write_games(path)
    site = tmp_path / "site"
    result = run("publish", str(path), "--output", str(site))
    assert result.returncode == 0, result.stderr
    engine = page_text(next((site / "engines").glob("a-*[0-9a-f].html")))
    assert "As White (W-L-D) As Black (W-L-D) Games Points b 1-0-1 0-0-2 4 2.5" in engine
    assert "Per event Event Games Points Rating in the event Rank draws 4 2.5" in engine
    assert "Total 4 2.5 62.5" in engine
    games = json.loads((site / "results.json").read_text())["games"]
    assert [game["result"] for game in games] == [DRAW, DRAW, WHITE_WINS, DRAW]
    assert (site / "games.pgn").read_text().count('[Result "1/2-1/2"]') == 3
    assert "1/2-1/2" in page_text(next((site / "games").glob("draws-*-1.html")))
