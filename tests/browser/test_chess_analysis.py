"""The analysis board on chess with the real Stockfish: its lines (MultiPV) written in SAN as
the move list writes moves, an arrow on the board for each line's first move, the evaluation
bar and the score from White's view, mates included, and a line's move played by a click.

Stockfish analyses without end (one thread, 16 MB of hash); a mate in one is found at once, and
the scores of the other positions are those of a queen up or of an opening, so that their signs
are never in doubt.  ``CHESS_SCREENSHOTS=DIR`` keeps the screenshot of the analysis board
(``chess-analysis.png``: the documentation's picture).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from chess_support import stockfish
from gui_support import click_move, gui_server, open_page
from playwright.sync_api import Browser, Page, expect

import gameplug
from gameplug import State

__all__ = ["stockfish"]  # (a fixture)

TIMEOUT = 120_000
WHITE_MATES = "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"  # Ra8#
BLACK_MATES = "r5k1/5ppp/8/8/8/8/5PPP/6K1 b - - 0 1"  # ...Ra1#
BLACK_QUEEN_UP = "3qk3/8/8/8/8/8/8/4K3 w - - 0 1"  # White to move, a queen down
OPENING = ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6"]  # the Ruy Lopez
NO_FIGURE = "\N{EN DASH}"  # what the engine panel shows for a figure the engine did not give
UCI = re.compile(r"^[a-h][1-8][a-h][1-8][qrbn]?$")


def shots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("CHESS_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def set_up(page: Page, fen: str) -> State:
    """Set up ``fen`` (a free game: the analysis stops with the game it ran on) and analyse it."""
    state = gameplug.variant("chess").read_position(fen)
    page.select_option("#variant", "chess")
    page.fill("#fen", fen)
    page.click("#setup")
    expect(page.locator("body")).to_have_attribute("data-plies", "0")
    expect(page.locator("#fen")).to_have_value(state.position_text())
    expect(page.locator("#analyse")).to_be_visible()
    page.click("#analyse")
    return state


def lines_shown(page: Page) -> list[tuple[list[str], str | None, str | None]]:
    """Each line's moves with the ends of its arrow, read at one moment (the page draws both
    from one message, and the analysis goes on meanwhile)."""
    found = page.evaluate(
        """() => [...document.querySelectorAll('#lines .pv-line')].map((line) => {
            const arrow = document.querySelector(`#board .arrows .arrow.rank-${line.dataset.multipv}`);
            return [[...line.querySelectorAll('.line-move')].map((move) => move.textContent),
                    arrow && arrow.dataset.from, arrow && arrow.dataset.to];
        })"""
    )
    return [(list(moves), start, end) for moves, start, end in found]


def check_san_line(state: State, moves: list[str]) -> None:
    """Every move of a line shown is legal in turn and written as the game's notation (SAN)."""
    after = state.copy()
    assert moves
    for text in moves:
        assert not UCI.match(text), f"{text} is UCI, not SAN"
        move = after.read_notation(text)
        assert after.notation(move) == text
        after.play(move)


def arrow_ends(page: Page, rank: int) -> tuple[str | None, str | None]:
    arrow = page.locator(f"#board .arrows .arrow.rank-{rank}")
    expect(arrow).to_have_count(1, timeout=TIMEOUT)
    return arrow.get_attribute("data-from"), arrow.get_attribute("data-to")


def first_move_ends(state: State, san: str) -> tuple[str | None, str | None]:
    """Where the game draws the move ``san``: its origin and its target square."""
    choice = state.describe_move(state.read_notation(san))
    assert choice.target is not None
    return choice.origin, choice.target.square


@pytest.mark.slow
def test_stockfish_analyses_chess_lines_in_san_arrows_bar_and_mates(
    browser: Browser, stockfish: str, tmp_path: Path
) -> None:
    with gui_server("--engine", f"cmd={stockfish}", "name=Stockfish", "option.Hash=16") as server:
        page, errors = open_page(browser, server.url)

        # A mate in one for White: "#1" on the bar (all White's), the arrow a1-a8, Ra8# in SAN.
        state = set_up(page, WHITE_MATES)
        expect(page.locator("#eval-bar")).to_have_attribute("data-score", "#1", timeout=TIMEOUT)
        expect(page.locator("#eval-bar")).to_have_attribute("data-white", "1.000")
        expect(page.locator("#t-score")).to_have_text("#1")
        assert arrow_ends(page, 1) == ("a1", "a8")
        expect(page.locator("#multipv-row")).to_be_visible()  # Stockfish declares MultiPV

        # Three lines: each in SAN, distinct first moves, an arrow for each where the move goes.
        page.select_option("#multipv", "3")
        expect(page.locator("#lines .pv-line")).to_have_count(3, timeout=TIMEOUT)
        expect(page.locator('#lines .pv-line[data-multipv="1"] .line-move').first).to_have_text("Ra8#")
        expect(page.locator('#lines .pv-line[data-multipv="1"] [data-figure="score"] .value')).to_have_text("#1")
        expect(page.locator("#board .arrows .arrow")).to_have_count(3, timeout=TIMEOUT)
        shown = lines_shown(page)
        assert len(shown) == 3 and len({moves[0] for moves, _, _ in shown}) == 3
        for moves, start, end in shown:
            check_san_line(state, moves)
            assert (start, end) == first_move_ends(state, moves[0])

        # Black mates in one: the score is White's, so "-#1", and the bar is all Black's.
        state = set_up(page, BLACK_MATES)
        expect(page.locator("#eval-bar")).to_have_attribute("data-score", "-#1", timeout=TIMEOUT)
        expect(page.locator("#eval-bar")).to_have_attribute("data-white", "0.000")
        expect(page.locator('#lines .pv-line[data-multipv="1"] .line-move').first).to_have_text("Ra1#")
        assert arrow_ends(page, 1) == ("a8", "a1")

        # White to move a queen down: a score below -5 pawns from White's view, or Black's mate
        # once the search is deep enough to see it; a click on the best line's first move plays
        # it, and the move list writes it as the line did.
        state = set_up(page, BLACK_QUEEN_UP)
        expect(page.locator("#eval-bar")).to_have_attribute(
            "data-score", re.compile(r"^-(\d+\.\d\d|#\d+)$"), timeout=TIMEOUT
        )
        page.wait_for_function(
            "() => { const score = document.getElementById('eval-bar').dataset.score;"
            " return score.startsWith('-#') || parseFloat(score) < -5; }",
            timeout=TIMEOUT,
        )
        assert float(page.get_attribute("#eval-bar", "data-white") or "nan") < 0.2
        first = page.locator('#lines .pv-line[data-multipv="1"] .line-move').first
        expect(first).to_have_text(re.compile(r"^K"), timeout=TIMEOUT)  # only the king can move
        # (the lines are redrawn as the search goes on: the move clicked is read as it is clicked)
        page.evaluate(
            "() => document.getElementById('lines').addEventListener("
            "'click', (event) => { window.clicked = event.target.textContent; }, true)"
        )
        first.click()
        expect(page.locator("body")).to_have_attribute("data-plies", "1")
        expect(page.locator('#moves .move[data-ply="1"]')).to_have_text(page.evaluate("() => window.clicked"))

        # The Ruy Lopez clicked move by move, the analysis following; the lines and arrows of
        # its last position, in the screenshot.
        state = set_up(page, gameplug.variant("chess").start().position_text())
        for plies, move in enumerate(OPENING, 1):
            click_move(page, "chess", state.position_text(), move)
            state.play(state.read_move(move))
            expect(page.locator("body")).to_have_attribute("data-view", str(plies))
            expect(page.locator("#moves .move-eval").nth(plies - 1)).not_to_have_text("", timeout=TIMEOUT)
        expect(page.locator("#lines .pv-line")).to_have_count(3, timeout=TIMEOUT)
        # Past 3 s of search Stockfish also reports the move it searches (info depth 14 currmove
        # d2d4 currmovenumber 5): progress, never a line without its score or moves.
        page.wait_for_function("() => parseFloat(document.getElementById('t-time').textContent) >= 3", timeout=TIMEOUT)
        for _ in range(20):
            texts = page.evaluate(
                "() => [document.getElementById('t-score').textContent, ...[...document.querySelectorAll("
                "'#lines .pv-line')].map((line) => line.querySelector('[data-figure=\"score\"]') ? "
                "line.querySelectorAll('.line-move').length : 0)]"
            )
            assert texts[0] != NO_FIGURE and len(texts) == 4 and all(texts[1:]), texts
            page.wait_for_timeout(100)
        page.wait_for_function(
            "() => document.querySelectorAll('#lines .line-move').length >= 12"
            " && Number(document.getElementById('t-depth').textContent.split('/')[0]) >= 12",
            timeout=TIMEOUT,
        )
        shown = lines_shown(page)
        assert len(shown) == 3
        for moves, start, end in shown:
            check_san_line(state, moves)
            assert (start, end) == first_move_ends(state, moves[0])
        expect(page.locator("#board .arrows .arrow")).to_have_count(3)
        expect(page.locator("#message")).to_be_hidden()  # the set-up's notice, gone after 4 s
        page.screenshot(path=str(shots(tmp_path) / "chess-analysis.png"), full_page=True)  # the graph too
        page.click("#analyse-stop")
        expect(page.locator("#analyse")).to_be_visible()
        assert not errors
        page.close()
