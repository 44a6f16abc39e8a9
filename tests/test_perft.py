"""Perft against the numbers in tests/data/perft.txt (RULINGS.md's numbers among them)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dipole_engine.rules import divide, new_board, perft

pytestmark = pytest.mark.build  # the rules or the engine themselves: CI runs these on both builds

DATA = Path(__file__).parent / "data" / "perft.txt"


def _cases() -> list[tuple[str, str | None, int, int]]:
    cases = []
    for line in DATA.read_text().splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        variant, fen, *depths = (field.strip() for field in line.split(";"))
        for entry in depths:
            depth, count = entry[1:].split()
            cases.append((variant, None if fen == "startpos" else fen, int(depth), int(count)))
    return cases


@pytest.mark.parametrize(("variant", "fen", "depth", "expected"), _cases())
def test_perft_matches_data(variant: str, fen: str | None, depth: int, expected: int) -> None:
    assert perft(new_board(variant, fen), depth) == expected


def test_divide_sums_to_perft_and_leaves_board_unchanged() -> None:
    board = new_board("dipole-s")
    before = (board.fen(), board.key)
    parts = divide(board, 3)
    assert sum(count for _, count in parts) == 5185
    assert [move for move, _ in parts] == board.legal_moves()
    assert (board.fen(), board.key) == before


def test_perft_depth_zero_is_one() -> None:
    assert perft(new_board(), 0) == 1
