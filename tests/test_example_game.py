"""A game the host has never seen, installed as its own package: examples/connect_four, found
through its entry point alone, runs every host command without a line of the host changed
(``games``, a round-robin, ``check-engine``, ``replay``, ``ratings``, ``publish``; the browser
game is tests/browser/test_gui_any_game.py)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from example_game import InstalledExample

from arbiter.records.pgn import read_pgn_file

ARBITER = [sys.executable, "-m", "arbiter"]
FINISHED = re.compile(r"^Finished game (\d+) \((\S+) vs (\S+)\): (1-0|0-1|1/2-1/2) \{(.+)\}$", re.M)


def arbiter(example: InstalledExample, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ARBITER, *args], capture_output=True, text=True, timeout=timeout, env=example.env)


def test_the_installed_example_is_listed_and_the_project_does_not_know_it(installed_example: InstalledExample) -> None:
    listing = arbiter(installed_example, "games")
    assert listing.returncode == 0, listing.stderr
    assert "connect-four: Connect Four (Red and Yellow)" in listing.stdout
    assert re.search(r"^  connect-four\s+UCI_Variant connect-four\s+7x6", listing.stdout, re.M)
    # Without the installed package's folder, the host has never heard of the game: one line.
    unknown = subprocess.run(
        [*ARBITER, "match", "--variant", "connect-four", "--engine", "cmd=x", "--engine", "cmd=y"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=installed_example.folder.parent,
    )
    if "connect_four_plug" not in subprocess.run(
        [sys.executable, "-m", "pip", "list", "--format=freeze"], capture_output=True, text=True, timeout=120
    ).stdout.replace("-", "_"):
        assert unknown.returncode == 2 and len(unknown.stderr.strip().splitlines()) == 1, unknown.stderr
        assert "connect-four" in unknown.stderr and "dipole" in unknown.stderr


@pytest.mark.slow
def test_a_round_robin_of_the_example_engine_is_played_replayed_rated_and_published(
    installed_example: InstalledExample, tmp_path: Path
) -> None:
    engine = str(installed_example.engine)
    db, pgn, site = tmp_path / "c4.db", tmp_path / "c4.pgn", tmp_path / "site"
    played = arbiter(
        installed_example,
        "tournament",
        "--variant",
        "connect-four",
        *("--engine", f"cmd={engine}", "name=depth1", "depth=1"),
        *("--engine", f"cmd={engine}", "name=depth2", "depth=2"),
        *("--engine", f"cmd={engine}", "name=depth4", "depth=4"),
        *("--games", "2", "--rounds", "2", "--opening-plies", "2", "--seed", "5"),
        *("--db", str(db), "--pgn", str(pgn)),
    )
    assert played.returncode == 0, played.stderr
    finished = FINISHED.findall(played.stdout)
    assert len(finished) == 12 and {number for number, *_ in finished} == {str(n) for n in range(1, 13)}
    for _, _, _, result, reason in finished:  # the game's own words for its endings
        assert reason in ("Red connects four", "Yellow connects four", "the board is full"), reason
        assert (result == "1/2-1/2") == (reason == "the board is full")
    games = read_pgn_file(str(pgn))
    assert len(games) == 12 and {game.tags["Variant"] for game in games} == {"connect-four"}
    assert all(re.fullmatch(r"[a-g]", move.text) for game in games for move in game.moves)

    replayed = arbiter(installed_example, "replay", str(pgn))
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert "12 games" in replayed.stdout and "all hold" in replayed.stdout

    ratings = arbiter(installed_example, "ratings", str(db))
    assert ratings.returncode == 0, ratings.stderr
    assert {"depth1", "depth2", "depth4"} <= set(re.findall(r"^\s+\d+ (\S+)", ratings.stdout, re.M))

    published = arbiter(installed_example, "publish", str(db), "--output", str(site))
    assert published.returncode == 0, published.stderr
    pages = "".join(path.read_text() for path in site.rglob("*.html"))
    assert "depth4" in pages and "connect-four" in pages


def test_check_engine_passes_the_example_engine(installed_example: InstalledExample) -> None:
    checked = arbiter(
        installed_example, "check-engine", "--engine", f"cmd={installed_example.engine}", "--variant", "connect-four"
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "FAIL" not in checked.stdout


def test_a_replay_of_a_doctored_record_names_the_move(installed_example: InstalledExample, tmp_path: Path) -> None:
    pgn = tmp_path / "bad.pgn"
    pgn.write_text(
        '[Event "?"]\n[White "a"]\n[Black "b"]\n[Result "1-0"]\n[Variant "connect-four"]\n\n'
        "1. d d 2. d d 3. d d 4. d 1-0\n\n"
    )
    replayed = arbiter(installed_example, "replay", str(pgn))
    assert replayed.returncode == 1
    assert "ply 7" in replayed.stdout and "'d'" in replayed.stdout, replayed.stdout
