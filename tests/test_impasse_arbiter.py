"""Impasse in the arbiter: a match of the project's engine against itself, its records, replay
(and a tampered record), generated openings, and who plays a lone legal move."""

from __future__ import annotations

import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from arbiter.openings.positions import generate_openings
from arbiter.records.pgn import read_pgn_file
from dipole_engine.rules import new_board

pytestmark = pytest.mark.build  # the rules or the engine themselves: CI runs these on both builds

ARBITER = [sys.executable, "-c", "from arbiter.cli import main; main()"]
OWN_ENGINE = f"cmd={sys.executable} -m dipole_engine"


def arbiter(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ARBITER, *args], capture_output=True, text=True, timeout=timeout, check=False)


@pytest.fixture(scope="module")
def impasse_match(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str], Path]:
    """Four games of the engine against itself in ``impasse`` at depths 2 and 1, recorded."""
    pgn = tmp_path_factory.mktemp("impasse") / "games.pgn"
    result = arbiter(
        "match",
        "--variant",
        "impasse",
        "--engine",
        OWN_ENGINE,
        "name=d2",
        "depth=2",
        "--engine",
        OWN_ENGINE,
        "name=d1",
        "depth=1",
        "--games",
        "4",
        "--opening-plies",
        "4",
        "--seed",
        "3",
        "--pgn",
        str(pgn),
    )
    return result, pgn


@pytest.mark.slow
def test_impasse_match_runs_records_and_replays(impasse_match: tuple[subprocess.CompletedProcess[str], Path]) -> None:
    result, pgn = impasse_match
    assert result.returncode == 0, result.stderr
    assert "Match: d2 vs d1, variant impasse, 4 games" in result.stdout
    assert result.stdout.count("Finished game") == 4 and result.stdout.endswith("Finished match\n")
    games = read_pgn_file(str(pgn))
    assert len(games) == 4
    for game in games:
        assert game.tags["Variant"] == "impasse" and game.tags["Termination"] == "normal"
        assert game.reason().endswith("has no checkers left, and wins")
        texts = [move.text for move in game.moves]
        assert any("=" in text for text in texts)  # crowns are recorded with their square
        assert "forced" not in [move.comments[0] for move in game.moves]  # Impasse has no pass
        board = new_board("impasse")
        for text in texts:
            board.push_text(text)
        winner = board.winner()
        assert winner is not None and board.checkers(winner) == 0
        assert game.result == ("1-0" if winner > 0 else "0-1")
    replay = arbiter("replay", str(pgn))
    assert replay.returncode == 0 and replay.stdout.splitlines() == [f"{pgn}: 4 games replayed, all hold"]


def test_tampered_impasse_crown_is_rejected_by_game_and_ply(
    impasse_match: tuple[subprocess.CompletedProcess[str], Path], tmp_path: Path
) -> None:
    _, pgn = impasse_match
    game = read_pgn_file(str(pgn))[1]
    ply, crowned = next((ply, move) for ply, move in enumerate(game.moves, 1) if "=" in move.text)
    board = new_board("impasse")
    for move in game.moves[: ply - 1]:
        board.push_text(move.text)
    stem = crowned.text.split("=")[0]
    choices = {str(move) for move in board.legal_moves()}
    wrong = next(
        f"{stem}={board.geometry.name(square)}"
        for square in board.geometry.dark_squares
        if f"{stem}={board.geometry.name(square)}" not in choices
    )
    lines = pgn.read_text().splitlines(keepends=True)
    line = lines[crowned.line - 1]
    lines[crowned.line - 1] = re.sub(rf"(?<!\S){re.escape(crowned.text)}(?!\S)", wrong, line, count=1)
    tampered = tmp_path / "tampered.pgn"
    tampered.write_text("".join(lines))
    result = arbiter("replay", str(tampered))
    assert result.returncode == 1
    mover = "White" if ply % 2 else "Black"
    assert re.search(
        rf"game 2 \(round 2: d1 vs d2, line \d+\), ply {ply}: {mover}'s move '{re.escape(wrong)}' "
        rf"\(line {crowned.line}\) does not hold: .*cannot crown here",
        result.stdout,
    ), result.stdout
    assert result.stdout.splitlines()[-1] == f"{tampered}: 4 games replayed, 1 do not hold"


def test_a_lone_legal_impasse_move_is_asked_of_the_engine(tmp_path: Path) -> None:
    # White's single on a1 is walled in: its removal, which wins, is White's only move.
    openings = tmp_path / "openings.txt"
    openings.write_text("W:W1a1:B2b2,1h8\n")
    pgn = tmp_path / "games.pgn"
    result = arbiter(
        "match",
        "--variant",
        "impasse",
        "--engine",
        OWN_ENGINE,
        "name=a",
        "depth=1",
        "--engine",
        OWN_ENGINE,
        "name=b",
        "depth=1",
        "--games",
        "2",
        "--openings",
        str(openings),
        "--pgn",
        str(pgn),
    )
    assert result.returncode == 0, result.stderr
    for game in read_pgn_file(str(pgn)):
        assert [move.text for move in game.moves] == ["xa1"] and game.result == "1-0"
        assert re.fullmatch(r"\+M1/1 \d+\.\d{3}s", game.moves[0].comments[0])  # the engine's move, timed
        assert game.tags["FEN"] == "W:W1a1:B2b2,1h8"


@pytest.mark.parametrize("variant", ["impasse", "impasse-singles", "dipole"])
def test_generated_openings_take_no_checker_off(variant: str) -> None:
    openings = generate_openings(variant, 10, 12, seed=4)
    assert openings == generate_openings(variant, 10, 12, seed=4)
    finals = set()
    for opening in openings:
        board = opening.state(variant).board  # type: ignore[attr-defined]  (a RulesState)
        assert len(opening.moves) == 10 and not board.is_game_over()
        full = board.variant.checkers_per_side
        assert board.checkers(1) == board.checkers(-1) == full
        finals.add(board.key)
    assert len(finals) == 12


@pytest.mark.parametrize("variant", ["dipole", "dipole-10s", "impasse", "impasse-singles"])
def test_takes_checkers_off_is_what_the_move_does(variant: str) -> None:
    rng = random.Random(variant)
    for _ in range(3):
        board = new_board(variant)
        while board.legal_moves():
            for move in board.legal_moves():
                before = board.checkers(1) + board.checkers(-1)
                board.push(move)
                after = board.checkers(1) + board.checkers(-1)
                board.pop()
                assert board.takes_checkers_off(move) == (after < before), (board.fen(), str(move))
            board.push(rng.choice(board.legal_moves()))
