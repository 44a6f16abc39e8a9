"""The Texel tuner (dipole_tuner): labelled quiet positions from real games, the scale fit, the
descent finding weights that were used to make the labels, and the command, its bad input
included."""

from __future__ import annotations

import dataclasses
import lzma
import math
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from arbiter.records.game import WHITE_WINS, Termination
from arbiter.records.pgn import read_pgn_file
from dipole_engine.evaluate import hooks_for
from dipole_engine.evaluate_dipole import DIPOLE_WEIGHTS, DipoleWeights
from dipole_engine.evaluate_impasse import ENDGAME_CHECKERS, IMPASSE_ENDGAME_WEIGHTS, IMPASSE_WEIGHTS
from dipole_engine.rules import Board, new_board
from dipole_tuner.cli import shown
from dipole_tuner.positions import LabelledPosition, harvest, white_score
from dipole_tuner.texel import fit_k, mean_error, scores, tune, weight_error

pytestmark = pytest.mark.build  # the engine's evaluation: CI runs these on both builds

ARBITER = [sys.executable, "-c", "from arbiter.cli import main; main()"]
TUNER = [sys.executable, "-m", "dipole_tuner"]
OWN_ENGINE = f"cmd={sys.executable} -m dipole_engine"


def random_positions(variant: str, count: int, seed: int) -> list[Board[Any]]:
    """Quiet positions of random games (of 6 plies or more), one every few plies."""
    rng = random.Random(seed)
    found: list[Board[Any]] = []
    while len(found) < count:
        board = new_board(variant)
        for ply in range(200):
            moves = board.legal_moves()
            if not moves or board.is_game_over():
                break
            if ply >= 6 and ply % 5 == 0 and not hooks_for(board).tactical_moves():
                found.append(board.copy())
            board.push(rng.choice(moves))
    return found[:count]


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Eight games of the engine against itself (depth 1 against depth 2) in Dipole."""
    pgn = tmp_path_factory.mktemp("tuner") / "games.pgn"
    engines = ["--engine", OWN_ENGINE, "name=d1", "depth=1", "--engine", OWN_ENGINE, "name=d2", "depth=2"]
    done = subprocess.run(
        [*ARBITER, "match", *engines, "--games", "8", "--opening-plies", "2", "--seed", "5", "--pgn", str(pgn)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return pgn


def test_positions_are_quiet_labelled_and_after_the_opening(games: Path) -> None:
    records = [game.to_record() for game in read_pgn_file(str(games))]
    found = harvest(records, "dipole", skip_plies=4)
    assert found.games_used == 8 and found.not_decided_on_the_board == 0 and found.other_game == 0
    assert len(found.positions) > 8
    plies_before = {position.board.fen() for position in found.positions}
    for record in records:
        board = new_board(record.variant, record.fen)
        label = 1.0 if record.result == WHITE_WINS else 0.0
        for ply, move in enumerate(record.moves):
            fen = board.fen()
            if fen in plies_before:
                assert ply >= 2 + 4, (record.number, ply)  # two book plies, then four skipped
                assert not board.is_game_over() and not hooks_for(board).tactical_moves()
                assert any(p.white_result == label for p in found.positions if p.board.fen() == fen)
            board.push_text(move.text)
    assert harvest(records, "impasse").positions == []  # another game's records: none
    assert harvest(records, "impasse").other_game == 8


def test_games_not_decided_on_the_board_are_left_out(games: Path) -> None:
    record = read_pgn_file(str(games))[0].to_record()
    forfeit = dataclasses.replace(record, termination=Termination.TIME_FORFEIT)
    crashed = dataclasses.replace(record, termination=Termination.CRASH)
    found = harvest([forfeit, crashed], "dipole")
    assert found.positions == [] and found.not_decided_on_the_board == 2


def test_the_scale_fit_finds_the_scale_the_labels_were_made_with() -> None:
    boards = random_positions("dipole", 300, seed=3)
    white_scores = [white_score(board, hooks_for(board).evaluate()) for board in boards]
    k = 0.7
    positions = [
        LabelledPosition(board, 1 / (1 + 10 ** (-k * score / 400))) for board, score in zip(boards, white_scores)
    ]
    assert fit_k(positions, white_scores) == pytest.approx(k, abs=0.01)
    assert mean_error(positions, white_scores, k) == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize(
    ("variant", "truth"),
    [
        ("dipole", DipoleWeights(advance=16, tempo=4, threat_first=2, threat_second=3)),
        pytest.param("impasse", dataclasses.replace(IMPASSE_WEIGHTS, row=14, clear=25), marks=pytest.mark.slow),
    ],
)
def test_the_descent_finds_the_weights_the_labels_were_made_with(variant: str, truth: Any) -> None:
    """Labels that are the expected results of another set of weights: the descent, started
    from the engine's, must get the error near zero and land on (or right by) those weights."""
    boards = random_positions(variant, 400, seed=7)
    k = 1.0
    positions = [LabelledPosition(board, 0.0) for board in boards]
    labels = [1 / (1 + math.exp(-k / 400 * math.log(10) * score)) for score in scores(positions, truth)]
    positions = [LabelledPosition(board, label) for board, label in zip(boards, labels)]
    start = DIPOLE_WEIGHTS if variant == "dipole" else IMPASSE_WEIGHTS
    start_error = weight_error(positions, start, k)
    seen: list[float] = []
    best, error = tune(positions, start, k, lambda weights, error: seen.append(error))
    assert start_error > 1e-4
    assert error < start_error / 20
    assert seen == sorted(seen, reverse=True) and seen[-1] == error  # every report an improvement
    moved = [f.name for f in dataclasses.fields(truth) if getattr(truth, f.name) != getattr(start, f.name)]
    for name in moved:  # each weight that differed went the right way
        assert abs(getattr(best, name) - getattr(truth, name)) < abs(getattr(start, name) - getattr(truth, name))


def test_the_command_prints_weights_and_bad_input_is_one_line(games: Path, tmp_path: Path) -> None:
    done = subprocess.run(
        [*TUNER, str(games), "--game", "dipole", "--skip-plies", "2"], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert re.fullmatch(r"\d+ quiet positions from 8 games of dipole \(0 not decided on the board, 0 .*\)", lines[0])
    assert re.match(r"k = \d+\.\d{4}; the engine's weights: error 0\.\d{6}  DipoleWeights\(advance=20, ", lines[1])
    assert re.fullmatch(r"DipoleWeights\(advance=\d+, tempo=\d+, threat_first=\d+, threat_second=\d+\)", lines[-1])
    broken = tmp_path / "broken.pgn"
    broken.write_text('[Event "x"]\n[Variant "dipole"]\n\n1. c1-c3 zz-zz 1-0\n', encoding="utf-8")
    empty = tmp_path / "empty.pgn"
    empty.write_text("", encoding="utf-8")
    for args, message in [
        ([str(tmp_path / "missing.pgn"), "--game", "dipole"], "missing.pgn"),
        ([str(broken), "--game", "dipole"], "ply 2"),
        ([str(empty), "--game", "dipole"], "is empty: neither an event database nor a PGN file"),
        ([str(games), "--game", "chess"], "'chess' is not one of"),
    ]:
        bad = subprocess.run([*TUNER, *args], capture_output=True, text=True, timeout=120)
        assert bad.returncode == 2, (args, bad.stdout, bad.stderr)
        assert len(bad.stderr.strip().splitlines()) == 1 and message in bad.stderr, (args, bad.stderr)
        assert "Traceback" not in bad.stderr


def test_the_engine_weights_are_the_ones_the_search_uses() -> None:
    board = random_positions("dipole", 1, seed=11)[0]
    assert hooks_for(board).evaluate() == hooks_for(board, DIPOLE_WEIGHTS).evaluate()
    other = dataclasses.replace(DIPOLE_WEIGHTS, tempo=DIPOLE_WEIGHTS.tempo + 7)
    assert hooks_for(board, other).evaluate() == hooks_for(board).evaluate() + 7
    with pytest.raises(ValueError, match="not weights for the game 'dipole'"):
        hooks_for(board, IMPASSE_WEIGHTS)


@pytest.fixture(scope="module")
def impasse_games(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Six games of Impasse (the engine at depth 1 against depth 2), compressed with xz as the
    shipped collection (dipole_tuner/games) is."""
    folder = tmp_path_factory.mktemp("impasse-tuner")
    pgn = folder / "games.pgn"
    engines = ["--engine", OWN_ENGINE, "name=d1", "depth=1", "--engine", OWN_ENGINE, "name=d2", "depth=2"]
    done = subprocess.run(
        [*ARBITER, "match", "--variant", "impasse", *engines, "--games", "6", "--opening-plies", "2", "--seed", "9"]
        + ["--pgn", str(pgn)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    packed = folder / "games.pgn.xz"
    packed.write_bytes(lzma.compress(pgn.read_bytes()))
    return packed


@pytest.mark.slow
def test_each_phase_is_fitted_on_its_own_positions_from_an_xz_file(impasse_games: Path, tmp_path: Path) -> None:
    records = [game.to_record() for game in read_pgn_file(str(impasse_games))]
    found = harvest(records, "impasse")
    endgame = [p for p in found.positions if sum(abs(height) for height in p.board.cells) <= ENDGAME_CHECKERS]
    assert 0 < len(endgame) < len(found.positions)
    done = subprocess.run(
        [*TUNER, str(impasse_games), "--game", "impasse", "--phase", "end", "--start", "trip=40, steps=20"]
        + ["--hold", "steps,tempo"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"{len(endgame)} quiet positions in the end phase from 6 games of impasse")
    engine = re.escape(f"ImpasseWeights(trip={IMPASSE_ENDGAME_WEIGHTS.trip}, ")
    assert re.match(rf"k = \d+\.\d{{4}}; the engine's weights: error 0\.\d{{6}}  {engine}", lines[1])
    start = dataclasses.replace(IMPASSE_ENDGAME_WEIGHTS, trip=40, steps=20)
    assert re.fullmatch(r"start: error 0\.\d{6}  " + re.escape(shown(start)), lines[2])
    held = f"tempo={IMPASSE_ENDGAME_WEIGHTS.tempo}, steps=20"
    assert re.fullmatch(r"ImpasseWeights\(trip=\d+, row=\d+, .*, " + held + r"\)", lines[-1]), lines[-1]
    cut = tmp_path / "cut.pgn.xz"
    cut.write_bytes(impasse_games.read_bytes()[:200])
    for args, message in [
        (["--game", "dipole", "--phase", "end"], "the dipole evaluation has no weights of its own for the phase 'end'"),
        (["--game", "impasse", "--start", "trip=x"], "--start 'trip=x': 'x' is not a whole number"),
        (["--game", "impasse", "--start", "nope=1"], "--start 'nope=1': expected NAME=VALUE, NAME one of trip, row"),
        (["--game", "impasse", "--start", "blocked=-201"], "--start 'blocked=-201': blocked may not be below -200"),
        (["--game", "impasse", "--phase", "late"], "'late' is not one of 'middle', 'end'"),
        (["--game", "impasse", "--hold", "steps,nope"], "--hold 'nope': not a weight; the weights are trip, row"),
    ]:
        bad = subprocess.run([*TUNER, str(impasse_games), *args], capture_output=True, text=True, timeout=120)
        assert bad.returncode == 2, (args, bad.stdout, bad.stderr)
        assert len(bad.stderr.strip().splitlines()) == 1 and message in bad.stderr, (args, bad.stderr)
    bad = subprocess.run([*TUNER, str(cut), "--game", "impasse"], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "cut.pgn.xz: not whole xz-compressed data" in bad.stderr, bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1
