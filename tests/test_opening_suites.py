"""Balanced opening suites: ``dipole-arbiter openings`` writes one that ``--openings`` reads, the
package ships one per variant (``--openings balanced``, alias ``dipole-balanced``), and ``order=``/``start=`` choose
which line an event begins with and in what order."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from test_arbiter_cli import arbiter, toy

from arbiter.errors import ArbiterError
from arbiter.openings.choice import OpeningsChoice, shipped_suite
from arbiter.openings.positions import load_openings
from arbiter.records.game import Opening
from arbiter.records.pgn import read_pgn_file
from dipole_engine.rules import all_variants
from protocol import EngineClient, Limit

OWN = f"cmd={sys.executable} -m dipole_engine"


def positions(openings: list[Opening], variant: str) -> list[int]:
    return [opening.state(variant).key() for opening in openings]


@pytest.mark.slow
@pytest.mark.build  # the project's engine plays: CI runs this on both builds
def test_a_generated_suite_is_legal_distinct_balanced_and_read_by_the_arbiter(tmp_path: Path) -> None:
    suite = tmp_path / "suite.txt"
    args = (
        "openings",
        "--variant",
        "dipole-s",
        "--count",
        "6",
        "--plies",
        "4",
        "--engine",
        OWN,
        "name=ref",
        "depth=2",
        "--max-score",
        "60",
        "--seed",
        "11",
    )
    result = arbiter(*args, "--output", str(suite))
    assert result.returncode == 0, result.stderr
    assert f"Wrote 6 openings to {suite}" in result.stderr
    text = suite.read_text()
    header = [line for line in text.splitlines() if line.startswith("#")]
    assert len(header) == 2 and "made by: dipole-arbiter openings --variant dipole-s --count 6" in header[1]
    openings = load_openings(str(suite), "dipole-s")  # every line legal, or this raises
    assert len(openings) == 6 and all(len(opening.moves) == 4 for opening in openings)
    keys = positions(openings, "dipole-s")
    assert len(set(keys)) == 6
    assert all(not opening.state("dipole-s").outcome().over for opening in openings)
    # each position really is within 60 centipawns for the reference search
    with EngineClient([sys.executable, "-m", "dipole_engine"]) as engine:
        engine.set_option("UCI_Variant", "dipole-s")
        for opening in openings:
            engine.set_position(None, list(opening.moves))
            answer = engine.go(Limit(depth=2), timeout=60)
            assert abs(answer.infos[-1].score_cp) <= 60
    # the same arguments give the same file; to standard output as well
    again = arbiter(*args)
    assert again.returncode == 0 and again.stdout == text
    # the arbiter plays from it
    pgn = tmp_path / "games.pgn"
    match = arbiter(
        "match",
        *toy("a", tmp_path / "pids"),
        *toy("b", tmp_path / "pids"),
        "--variant",
        "dipole-s",
        "--depth",
        "1",
        "--games",
        "2",
        "--openings",
        str(suite),
        "--pgn",
        str(pgn),
    )
    assert match.returncode == 0, match.stderr
    assert [game.tags["Opening"] for game in read_pgn_file(str(pgn))] == [f"{suite} line 3"] * 2


def test_generation_gives_up_in_one_line_when_too_few_positions_qualify(tmp_path: Path) -> None:
    result = arbiter(
        "openings",
        "--count",
        "3",
        "--plies",
        "1",
        "--engine",
        OWN,
        "depth=1",
        "--max-score",
        "0",
        "--seed",
        "1",
        "--output",
        str(tmp_path / "x.txt"),
    )
    assert result.returncode == 2
    assert re.search(r"dipole-arbiter: error: only \d of 3 openings found within 0 centipawns", result.stderr)
    assert not (tmp_path / "x.txt").exists()
    result = arbiter("openings", "--engine", OWN, "tc=10+1")
    assert result.returncode == 2 and "needs depth=, nodes= or st=, not tc=" in result.stderr
    result = arbiter("openings", "--output", str(tmp_path / "missing" / "x.txt"))
    assert result.returncode == 2 and result.stderr.endswith(f"no directory {tmp_path / 'missing'}\n")
    assert "Openings:" not in result.stderr  # refused before any search


@pytest.mark.parametrize("variant", [variant.name for variant in all_variants()])
def test_the_shipped_balanced_suites_are_present_and_readable(variant: str) -> None:
    path = shipped_suite("balanced", variant)
    assert path.is_file()
    openings = load_openings(str(path), variant)
    assert len(openings) == 100
    assert len(set(positions(openings, variant))) == 100
    assert f"--variant {variant} " in path.read_text().splitlines()[1]


@pytest.mark.parametrize("name", ["balanced", "dipole-balanced"])  # the name, and its first name kept as an alias
@pytest.mark.parametrize("variant", ["dipole-10", "impasse"])
@pytest.mark.slow
def test_balanced_names_the_shipped_suite_of_the_event_variant(tmp_path: Path, name: str, variant: str) -> None:
    pgn = tmp_path / "games.pgn"
    own = f"cmd={sys.executable} -m dipole_engine"  # the toy engine plays Dipole only
    result = arbiter(
        "match",
        "--engine",
        own,
        "name=a",
        "--engine",
        own,
        "name=b",
        "--variant",
        variant,
        "--depth",
        "1",
        "--games",
        "2",
        "--openings",
        name,
        "start=100",
        "--pgn",
        str(pgn),
    )
    assert result.returncode == 0, result.stderr
    path = shipped_suite("balanced", variant)
    assert path.name == f"{variant}.balanced.txt"
    assert f"Openings: 100 from {path}, in file order, from line 100 of that order" in result.stdout
    last = [line for line in path.read_text().splitlines() if not line.startswith("#")][-1]
    game = read_pgn_file(str(pgn))[0]
    assert game.tags["Variant"] == variant
    assert re.fullmatch(rf"{re.escape(str(path))} line \d+", game.tags["Opening"])  # the file and line, not the name
    assert [move.text for move in game.moves[: len(last.split())]] == last.split()


def test_order_and_start_choose_the_lines_exactly() -> None:
    assert OpeningsChoice.parse(["book.txt"]) == OpeningsChoice("book.txt")
    assert OpeningsChoice.parse(["file=b.txt", "order=random", "start=3"]) == OpeningsChoice("b.txt", "random", 3)
    lines = list(range(1, 11))
    assert OpeningsChoice("x", "sequential", 4).arrange(lines, None) == [4, 5, 6, 7, 8, 9, 10, 1, 2, 3]
    shuffled = OpeningsChoice("x", "random", 1).arrange(lines, 7)
    assert sorted(shuffled) == lines and shuffled != lines
    assert OpeningsChoice("x", "random", 6).arrange(lines, 7) == shuffled[5:] + shuffled[:5]  # a split, exactly
    for words, message in (
        (["b", "order=backwards"], "order must be"),
        (["b", "start=0"], "start must be"),
        (["b", "ply=3"], "expected FILE"),
        (["order=random"], "no file given"),
    ):
        with pytest.raises(ArbiterError, match=message):
            OpeningsChoice.parse(words)
    with pytest.raises(ArbiterError, match="start=11 but the suite has 10"):
        OpeningsChoice("x", "sequential", 11).arrange(lines, None)


@pytest.mark.slow
def test_random_order_is_repeated_by_its_seed_and_bad_words_are_one_line(tmp_path: Path) -> None:
    book = tmp_path / "book.txt"
    book.write_text("".join(f"{line}\n" for line in ("c1-c3", "c1-d2", "c1-e3", "c1-b2", "c1-a3", "c1-f4")))

    def openings_used(*words: str) -> tuple[list[str], str]:
        pgn = tmp_path / "o.pgn"
        pgn.unlink(missing_ok=True)
        result = arbiter(
            "match",
            *toy("a", tmp_path / "pids"),
            *toy("b", tmp_path / "pids"),
            "--depth",
            "1",
            "--games",
            "6",
            "--openings",
            str(book),
            *words,
            "--pgn",
            str(pgn),
        )
        assert result.returncode == 0, result.stderr
        note = next(line for line in result.stdout.splitlines() if line.startswith("Openings: "))
        return [game.tags["Opening"] for game in read_pgn_file(str(pgn))][::2], note

    used, note = openings_used("order=random", "--seed", "5")
    assert note == f"Openings: 6 from {book}, in random order, seed 5 (repeat with --seed 5)"
    assert openings_used("order=random", "--seed", "5")[0] == used
    assert openings_used("order=random", "start=2", "--seed", "5")[0][:2] == used[1:]
    _, note = openings_used("order=random")
    assert re.fullmatch(
        rf"Openings: 6 from {re.escape(str(book))}, in random order, seed \d+ \(repeat with "
        rf"--seed \d+\)",
        note,
    )
    assert openings_used("start=5")[0] == [f"{book} line {n}" for n in (5, 6, 1)]
    bad = arbiter("match", "--openings", str(book), "order=sideways", "--games", "1")
    assert (
        bad.returncode == 2
        and bad.stderr == "dipole-arbiter: error: --openings: order must be sequential or random, not 'sideways'\n"
    )
