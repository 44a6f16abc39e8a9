"""The analysis board as Lichess and the chess GUIs have it: an evaluation bar and the engine's
best move as an arrow that follow the analysis, several lines at once (MultiPV) played out by a
click, the analysis's score beside each move and a graph that jumps to the move clicked; and the
watch page's live boards with coordinates and the engines' whole lines.

The toy engine's ``--multipv`` mode declares ``MultiPV`` and answers with that many distinct
legal lines, the best scored ``60 * (plies % 5) - 120`` cp from the mover's view, the k-th 30 cp
lower.  ``ANALYSIS_SCREENSHOTS=DIR`` keeps the pages' screenshots (desktop and 390 px wide).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from gui_support import TOY_ENGINE, click_move, gui_server
from playwright.sync_api import Browser, Page, expect
from watch_support import ARBITER, toy

import gameplug
from dipole_engine.rules import new_board

TIMEOUT = 120_000  # ms: the shared machine is slow


def shots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("ANALYSIS_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def arrow_of(fen: str, move: str) -> tuple[str, str, str]:
    """The arrow's ends as the page marks them (data-from, data-to, data-kind): where the game
    draws ``move``."""
    state = gameplug.variant("dipole").read_position(fen)
    choice = state.describe_move(state.read_move(move))
    assert choice.origin is not None and choice.target is not None
    return choice.origin, choice.target.square, choice.target.kind


def white_cp(plies: int, line: int = 1) -> int:
    """The toy engine's score of its ``line``-th line after ``plies`` plies, from White's view."""
    mover = 60 * (plies % 5) - 120 - 30 * (line - 1)
    return mover if plies % 2 == 0 else -mover


def pawns(cp: int) -> str:
    return f"{'+' if cp >= 0 else '-'}{abs(cp) / 100:.2f}"


def expect_analysis_of(page: Page, plies: int) -> None:
    """The bar and the arrow show the analysis of the position after ``plies`` plies."""
    page.wait_for_function(f"() => document.body.dataset.view === '{plies}'", timeout=TIMEOUT)
    expect(page.locator("#eval-bar")).to_have_attribute("data-score", pawns(white_cp(plies)), timeout=TIMEOUT)
    expect(page.locator("#t-score")).to_have_text(pawns(white_cp(plies)), timeout=TIMEOUT)
    best = (
        page.text_content("#t-pv") or page.text_content('#lines .pv-line[data-multipv="1"] .line-move') or ""
    ).split()[0]
    ends = arrow_of(page.input_value("#fen"), best)
    arrow = page.locator("#board .arrows .arrow.rank-1")
    expect(arrow).to_have_count(1, timeout=TIMEOUT)
    assert tuple(arrow.get_attribute(name) for name in ("data-from", "data-to", "data-kind")) == ends


@pytest.mark.slow
def test_analysis_board_bar_arrow_lines_evals_and_graph(browser: Browser, tmp_path: Path) -> None:
    engine = f"cmd={sys.executable} {TOY_ENGINE} --multipv --think 50"
    with gui_server("--engine", engine, "name=toy") as server:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(server.url)
        page.wait_for_selector("g.piece")
        page.select_option("#white", "human")
        page.select_option("#black", "human")
        page.click("#new")
        page.wait_for_function("() => document.body.dataset.awaiting === 'human'")
        expect(page.locator("#eval-bar")).to_be_hidden()
        page.click("#analyse")

        # The bar and the arrow follow the analysis from position to position.
        expect_analysis_of(page, 0)
        assert page.locator("#multipv-row").is_visible()  # the engine declares MultiPV
        bar_at_start = float(page.get_attribute("#eval-bar", "data-white") or "nan")
        for plies in (1, 2):
            fen = page.input_value("#fen")
            click_move(page, "dipole", fen, str(new_board("dipole", fen).legal_moves()[-1]))
            expect_analysis_of(page, plies)
        assert float(page.get_attribute("#eval-bar", "data-white") or "nan") != bar_at_start
        # The labels of the engine's figures.
        assert [page.text_content(f"#thinking .stat:nth-child({i}) .label") for i in range(1, 6)] == [
            "score",
            "depth",
            "nodes",
            "speed",
            "time",
        ]

        # Three lines asked for: three distinct lines, each with its score and depth, each with an arrow.
        page.select_option("#multipv", "3")
        lines = page.locator("#lines .pv-line")
        expect(lines).to_have_count(3, timeout=TIMEOUT)
        for number in (1, 2, 3):
            line = page.locator(f'#lines .pv-line[data-multipv="{number}"]')
            expect(line.locator('[data-figure="score"] .value')).to_have_text(
                pawns(white_cp(2, number)), timeout=TIMEOUT
            )
            expect(line.locator('[data-figure="depth"]')).to_have_text("depth 3/4")
        firsts = [lines.nth(i).locator(".line-move").first.text_content() for i in range(3)]
        assert len(set(firsts)) == 3
        expect(page.locator("#board .arrows .arrow")).to_have_count(3)
        page.select_option("#multipv", "2")
        expect(lines).to_have_count(2, timeout=TIMEOUT)
        page.select_option("#multipv", "3")
        expect(lines).to_have_count(3, timeout=TIMEOUT)

        # The analysis's score of each position analysed stands beside its move.
        for plies in (1, 2):
            expect(page.locator(f'#moves .move-eval[data-ply="{plies}"]')).to_have_text(pawns(white_cp(plies)))

        # A click on the second line plays it out: the server's board is the line's position.
        second = page.locator('#lines .pv-line[data-multipv="2"]')
        moves = second.locator(".line-move").all_text_contents()
        board = new_board("dipole", page.input_value("#fen"))
        for text in moves:
            board.push(board.parse_move(text))
        second.locator(".figures").click()
        page.wait_for_function(f"() => document.body.dataset.plies === '{2 + len(moves)}'", timeout=TIMEOUT)
        expect(page.locator("#fen")).to_have_value(board.fen(), timeout=TIMEOUT)
        assert page.locator("#moves .move:not(.empty)").all_text_contents()[2:] == moves
        expect_analysis_of(page, 2 + len(moves))

        # A click on a move of a line plays the line up to that move.
        first = page.locator('#lines .pv-line[data-multipv="1"] .line-move')
        expect(first).to_have_count(3, timeout=TIMEOUT)
        start = 2 + len(moves)
        taken = first.nth(0).text_content() or ""
        first.nth(0).click()
        page.wait_for_function(f"() => document.body.dataset.plies === '{start + 1}'", timeout=TIMEOUT)
        assert page.locator("#moves .move:not(.empty)").all_text_contents()[-1] == taken

        # The graph: one point for each ply analysed; a click on a ply's column goes there.
        page.locator('#graph .graph-hit[data-ply="1"]').click()
        page.wait_for_function("() => document.body.dataset.view === '1'", timeout=TIMEOUT)
        expect(page.locator("#moves .move.current")).to_have_attribute("data-ply", "1")
        expect_analysis_of(page, 1)
        assert page.locator("#graph .point").count() >= 4
        assert set(page.locator("#graph .axis-label").all_text_contents()) == {"move", "pawns, White's view"}
        assert not errors

        # The screenshots: the lines, the arrows, the bar and the graph, desktop and 390 px.
        page.locator("#nav-last").click()
        page.wait_for_function(f"() => document.body.dataset.view === '{start + 1}'", timeout=TIMEOUT)
        expect(lines).to_have_count(3, timeout=TIMEOUT)
        page.screenshot(path=str(shots(tmp_path) / "analysis.png"))
        page.set_viewport_size({"width": 390, "height": 844})
        expect(lines).to_have_count(3, timeout=TIMEOUT)
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
        page.screenshot(path=str(shots(tmp_path) / "analysis-390.png"), full_page=True)
        assert not errors
        page.close()


@pytest.mark.slow
def test_watch_page_live_boards_have_coordinates_and_whole_lines(browser: Browser, tmp_path: Path) -> None:
    live = tmp_path / "match.json"
    plies = 24  # a line far longer than a card is wide
    match = subprocess.Popen(
        [
            *ARBITER,
            "match",
            *toy("a", tmp_path / "pids", "--pv", str(plies), "--think", "300"),
            *toy("b", tmp_path / "pids", "--pv", str(plies), "--think", "300"),
            "--depth",
            "1",
            "--games",
            "2",
            "--concurrency",
            "2",
            "--live",
            str(live),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        with gui_server("--watch", str(live)) as server:
            for width, height, name in ((1280, 800, "watch.png"), (390, 844, "watch-390.png")):
                page = browser.new_page(viewport={"width": width, "height": height})
                errors: list[str] = []
                page.on("pageerror", lambda error, errors=errors: errors.append(str(error)))
                page.goto(server.url)
                card = page.locator(".live-game").first
                expect(card).to_be_visible(timeout=TIMEOUT)
                # Files and ranks along the board, as on the play page.
                coords = card.locator(".board svg .coords text").all_text_contents()
                assert coords == [*"abcdefgh", *"12345678"]
                line = card.locator('.line[data-side="white"]')
                expect(line.locator(".score")).to_have_text(re.compile(r"^[+-]\d\.\d\d$"), timeout=TIMEOUT)
                # The whole line, wrapped inside the card: every move of it shown, nothing cut off.
                page.wait_for_function(
                    "(plies) => [...document.querySelectorAll('.live-game .line')].some("
                    "line => line.textContent.split(/\\s+/).filter(w => /\\d[-+]|off/.test(w)).length"
                    " >= plies)",
                    arg=plies,
                    timeout=TIMEOUT,
                )
                clipped = page.evaluate(
                    "() => [...document.querySelectorAll('.live-game .line')].filter("
                    "line => line.scrollWidth > line.clientWidth + 1).length"
                )
                assert clipped == 0
                assert "depth" in (line.text_content() or "") and "nodes" in (line.text_content() or "")
                assert page.evaluate("() => document.documentElement.scrollWidth") <= width
                page.screenshot(path=str(shots(tmp_path) / name), full_page=width < 1000)
                assert not errors
                page.close()
    finally:
        match.terminate()
        match.wait(timeout=60)
