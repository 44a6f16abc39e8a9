"""The ``dipole-engine perft`` command as a user runs it."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytestmark = pytest.mark.build  # the rules or the engine themselves: CI runs these on both builds

ENGINE = [sys.executable, "-m", "dipole_engine"]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ENGINE, *args], capture_output=True, text=True, timeout=60)


def test_perft_prints_node_count() -> None:
    result = run("perft", "3")
    assert result.returncode == 0
    assert result.stdout.splitlines() == ["Nodes searched: 5749"]


def test_divide_lists_each_root_move() -> None:
    result = run("perft", "2", "--variant", "dipole-s", "--divide")
    assert result.returncode == 0
    lines = result.stdout.splitlines()
    assert lines[-1] == "Nodes searched: 340"
    pairs = [line.split() for line in lines[:-1]]
    assert len(pairs) == 19
    assert sum(int(count) for _, count in pairs) == 340
    assert ["e1-e3", pairs[[p[0] for p in pairs].index("e1-e3")][1]] in pairs


def test_fen_option_and_game_over_position() -> None:
    result = run("perft", "2", "--fen", "W:W1b8:B1a1", "--divide")
    assert result.returncode == 0
    assert result.stdout.splitlines() == ["b8-off:1 0", "Nodes searched: 0"]


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (("perft",), "Missing argument 'DEPTH'"),
        (("perft", "x"), "'x' is not a valid integer"),
        (("perft", "--", "-1"), "-1 is not in the range"),
        (("perft", "1", "--variant", "chess"), "'chess' is not one of"),
        (("perft", "1", "--fen", "W:W12c2:B12d8"), "c2 is a light square"),
        (("perft", "1", "--bogus"), "No such option '--bogus'"),
        (("nosuch",), "No such command 'nosuch'"),
    ],
)
def test_bad_arguments_give_one_line_and_nonzero_exit(args: tuple[str, ...], fragment: str) -> None:
    result = run(*args)
    assert result.returncode != 0
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("dipole-engine: error: ")
    assert fragment in lines[0]
