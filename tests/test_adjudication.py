"""Resign adjudication (``--resign movecount=N score=CP [twosided=true]``): the rule on its own,
and in real matches between engine processes whose PGN records are replayed through the rules."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from test_arbiter_cli import FINISHED, arbiter, toy

import gameplug
from arbiter.errors import ArbiterError
from arbiter.play.adjudication import ResignRule, ResignWatch
from arbiter.records.game import MoveRecord, MoveSource
from arbiter.records.pgn import read_pgn_file
from gameplug import Side

WHITE, BLACK = Side.FIRST, Side.SECOND
NAMES = gameplug.game("dipole").side_name


def scored(cp: int | None = None, mate: int | None = None) -> MoveRecord:
    return MoveRecord("x", MoveSource.ENGINE, score_cp=cp, score_mate=mate, depth=1, time=0.0)


def test_the_rule_parses_cutechess_words_and_rejects_bad_ones() -> None:
    assert ResignRule.parse("movecount=3 score=400") == ResignRule(3, 400, False)
    assert ResignRule.parse("score=90 movecount=1 twosided=true") == ResignRule(1, 90, True)
    assert ResignRule.parse("movecount=3 score=400 twosided=true").text() == "movecount=3 score=400 twosided=true"
    for bad, message in (
        ("movecount=3", "score missing"),
        ("movecount=0 score=5", "at least 1"),
        ("movecount=3 score=-5", "at least 0"),
        ("movecount=3 score=5 twosided=maybe", "true or false"),
        ("moves=3 score=5", "expected movecount=N"),
    ):
        with pytest.raises(ArbiterError, match=message):
            ResignRule.parse(bad)


def test_one_sided_counts_own_consecutive_moves_only() -> None:
    watch = ResignWatch(ResignRule(3, 400), NAMES)
    assert watch.observe(WHITE, scored(-400)) is None
    assert watch.observe(BLACK, scored(0)) is None
    assert watch.observe(WHITE, scored(-500)) is None
    assert watch.observe(WHITE, MoveRecord("pass", MoveSource.FORCED)) is None  # neither extends nor breaks
    assert watch.observe(BLACK, scored(-900)) is None
    verdict = watch.observe(WHITE, scored(mate=-2))
    assert verdict is not None and verdict[0] == WHITE
    assert verdict[1] == "White resigns (adjudication: resign movecount=3 score=400; White -4.00 -5.00 -M2)"
    broken = ResignWatch(ResignRule(2, 400), NAMES)
    assert broken.observe(BLACK, scored(-500)) is None
    assert broken.observe(BLACK, scored()) is None  # a move without a score breaks the run
    assert broken.observe(BLACK, scored(-500)) is None
    assert broken.observe(BLACK, scored(-399)) is None
    assert broken.observe(BLACK, scored(mate=3)) is None


def test_two_sided_needs_the_winner_to_agree_whichever_run_completes_last() -> None:
    watch = ResignWatch(ResignRule(2, 300, twosided=True), NAMES)
    assert watch.observe(WHITE, scored(-300)) is None
    assert watch.observe(BLACK, scored(100)) is None
    assert watch.observe(WHITE, scored(-300)) is None  # White's run is complete; Black does not agree yet
    assert watch.observe(BLACK, scored(300)) is None
    assert watch.observe(WHITE, scored(-350)) is None
    verdict = watch.observe(BLACK, scored(mate=4))  # Black's agreeing run completes: White loses
    assert verdict == (
        WHITE,
        "White resigns (adjudication: resign movecount=2 score=300 twosided=true; White -3.00 -3.50; Black +3.00 +M4)",
    )


def resign_match(tmp_path: Path, a_score: int, b_score: int, rule: list[str], games: int = 2) -> tuple[str, Path]:
    pgn, pids = tmp_path / "games.pgn", tmp_path / "pids"
    result = arbiter(
        "match",
        *toy("a", pids, "--score", str(a_score)),
        *toy("b", pids, "--score", str(b_score)),
        "--depth",
        "1",
        "--games",
        str(games),
        "--pgn",
        str(pgn),
        "--resign",
        *rule,
    )
    assert result.returncode == 0, result.stderr
    assert arbiter("replay", str(pgn)).returncode == 0
    return result.stdout, pgn


def test_one_sided_resign_in_a_real_match(tmp_path: Path) -> None:
    out, pgn = resign_match(tmp_path, -500, 0, ["movecount=3", "score=400"])
    finished = [FINISHED.match(line) for line in out.splitlines() if line.startswith("Finished game")]
    assert [(m.group(1), m.group(4)) for m in finished] == [("1", "0-1"), ("2", "1-0")]  # a loses both
    assert "Terminations: adjudication 2" in out
    for game in read_pgn_file(str(pgn)):
        a_white = game.tags["White"] == "a"
        assert game.tags["Termination"] == "adjudication"
        # a resigns on its own 3rd move: ply 5 as White, ply 6 as Black
        assert len(game.moves) == (5 if a_white else 6)
        side = "White" if a_white else "Black"
        assert game.reason() == f"{side} resigns (adjudication: resign movecount=3 score=400; {side} -5.00 -5.00 -5.00)"
    # replay checks the adjudication against the recorded scores: a record that does not follow is caught
    text = pgn.read_text()
    tampered = tmp_path / "tampered.pgn"
    tampered.write_text(text.replace("-5.00/1", "-3.99/1", 1))
    result = arbiter("replay", str(tampered))
    assert result.returncode == 1
    assert (
        "game 1 (round 1: a vs b, line 1): adjudication: the recorded scores never reach resign movecount=3 "
        "score=400" in result.stdout
    )
    tampered.write_text(text.replace("movecount=3", "movecount=2", 1))
    assert (
        "by the recorded scores, resign movecount=2 score=400 adjudicates the game against White at ply 3, "
        "not against White at ply 5"
    ) in arbiter("replay", str(tampered)).stdout


@pytest.mark.slow
def test_two_sided_resign_waits_for_the_winner_to_agree(tmp_path: Path) -> None:
    out, pgn = resign_match(tmp_path, -500, 600, ["movecount=2", "score=400", "twosided=true"])
    assert "Terminations: adjudication 2" in out
    reasons = [game.reason() for game in read_pgn_file(str(pgn))]
    rule = "adjudication: resign movecount=2 score=400 twosided=true"
    assert reasons == [
        f"White resigns ({rule}; White -5.00 -5.00; Black +6.00 +6.00)",
        f"Black resigns ({rule}; Black -5.00 -5.00; White +6.00 +6.00)",
    ]
    (tmp_path / "games.pgn").unlink()
    out, pgn = resign_match(tmp_path, -500, 0, ["movecount=2", "score=400", "twosided=true"], games=1)
    assert "adjudication" not in out  # the opponent never agreed: the game was played out
    (game,) = read_pgn_file(str(pgn))
    assert game.tags["Termination"] == "normal" and len(game.moves) > 4


@pytest.mark.parametrize("words", [["movecount=3"], ["movecount=x", "score=3"], ["score=3", "twosided=perhaps"]])
def test_a_bad_resign_option_is_one_line(words: list[str]) -> None:
    result = arbiter("match", "--resign", *words, "--games", "1")
    assert result.returncode == 2
    assert re.fullmatch(r"dipole-arbiter: error: .*--resign.*\n", result.stderr), result.stderr


def test_resign_on_the_project_engine_s_own_scores(tmp_path: Path) -> None:
    """Real searches, real scores: depth 3 against depth 1, both engines' scores must agree."""
    own = f"cmd={sys.executable} -m dipole_engine"
    pgn = tmp_path / "own.pgn"
    result = arbiter(
        "match",
        "--engine",
        own,
        "name=d3",
        "depth=3",
        "--engine",
        own,
        "name=d1",
        "depth=1",
        "--games",
        "4",
        "--opening-plies",
        "4",
        "--seed",
        "1",
        "--pgn",
        str(pgn),
        "--resign",
        "movecount=2",
        "score=300",
        "twosided=true",
    )
    assert result.returncode == 0, result.stderr
    games = read_pgn_file(str(pgn))
    adjudicated = [game for game in games if game.tags["Termination"] == "adjudication"]
    assert adjudicated and f"adjudication {len(adjudicated)}" in result.stdout
    for game in adjudicated:
        loser = "White" if game.result == "0-1" else "Black"
        winner = "Black" if loser == "White" else "White"
        scores = re.fullmatch(
            rf"{loser} resigns \(adjudication: resign movecount=2 score=300 twosided=true; "
            rf"{loser} (\S+) (\S+); {winner} (\S+) (\S+)\)",
            game.reason(),
        )
        assert scores is not None, game.reason()
        low, high = [float(s.replace("M", "999")) for s in scores.groups()[:2]], scores.groups()[2:]
        assert all(value <= -3.0 for value in low) and all(
            s.startswith("+") and float(s.replace("M", "999")) >= 3.0 for s in high
        )
        # those are the scores in the comments of the loser's last two moves (White moves on even plies)
        loser_moves = [move for ply, move in enumerate(game.moves) if (ply % 2 == 0) == (loser == "White")]
        assert [move.comments[0].split("/")[0] for move in loser_moves[-2:]] == list(scores.groups()[:2])
    assert arbiter("replay", str(pgn)).stdout == f"{pgn}: 4 games replayed, all hold\n"
