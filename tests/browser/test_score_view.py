"""One view of engine output on both pages: the same search line reads the same on the play page
and on the watch page, its score from White's side, and each page says so.

The toy engine reports ``score cp 35`` (its own view) with every move.  Played as Black, that is
-0.35 for White: the play page's thinking and the watch page's line for Black must both read
``-0.35``; as White (on the watch page), ``+0.35``.  ``SCORE_SCREENSHOTS=DIR`` keeps the two
pages' screenshots.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from gui_support import TOY_ENGINE, click_move, gui_server, start_game
from playwright.sync_api import Browser, expect
from watch_support import ARBITER, toy

from dipole_engine.rules import new_board

POV_NOTE = "score from White's view"  # dipole_gui/static/searchline.js
TIMEOUT = 120_000  # ms: the shared machine is slow


def shots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("SCORE_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.mark.slow
def test_play_page_and_watch_page_show_a_score_alike_from_whites_view(browser: Browser, tmp_path: Path) -> None:
    engine = f"cmd={sys.executable} {TOY_ENGINE} --score 35 --think 200"
    with gui_server("--engine", engine, "name=toy") as server:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(server.url)
        page.wait_for_selector("g.piece")
        start_game(page, variant="dipole", white="human", black="0", tc="movetime", movetime="1")
        page.wait_for_function("() => document.body.dataset.awaiting === 'human'")
        move = str(new_board("dipole", page.input_value("#fen")).legal_moves()[0])
        click_move(page, "dipole", page.input_value("#fen"), move)
        expect(page.locator("#t-score")).to_have_text("-0.35", timeout=TIMEOUT)  # Black's +0.35, as White sees it
        expect(page.locator("#t-pov")).to_have_text(POV_NOTE)
        assert page.text_content("#t-depth") == "1"  # under its label "depth"
        page.screenshot(path=str(shots(tmp_path) / "play.png"))
        # The one formatter both pages import, on lines as arbiter/live/searchline.py writes them.
        texts = page.evaluate("""async () => {
            const {scoreText, lineTexts} = await import("/static/searchline.js");
            return [scoreText({cp: 35}), scoreText({cp: -120}), scoreText({cp: 0}), scoreText({mate: 3}),
                    scoreText({mate: -2}), scoreText({cp: 35}, "lower"), scoreText(null),
                    lineTexts({pov: "white", depth: 12, seldepth: 18, score: {cp: -7}, bound: null, nodes: 1234567,
                               nps: 350000, time: 1530, pv: ["c1-c3", "d8-b6"]})];
        }""")
        assert texts == [
            "+0.35",
            "-1.20",
            "+0.00",
            "#3",
            "-#2",
            "≥+0.35",
            "",
            {
                "score": "-0.07",
                "depth": "depth 12/18",
                "nodes": "1.2M nodes",
                "nps": "350k nodes/s",
                "time": "1.5 s",
                "pv": "c1-c3 d8-b6",
            },
        ]
        assert not errors
        page.close()

    live = tmp_path / "match.json"
    match = subprocess.Popen(
        [
            *ARBITER,
            "match",
            *toy("a", tmp_path / "pids", "--score", "35", "--think", "150"),
            *toy("b", tmp_path / "pids", "--score", "35", "--think", "150"),
            "--depth",
            "1",
            "--games",
            "2",
            "--live",
            str(live),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        with gui_server("--watch", str(live)) as server:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.goto(server.url)
            card = page.locator(".live-game").first
            expect(card.locator('.line[data-side="black"] .score')).to_have_text("-0.35", timeout=TIMEOUT)
            expect(card.locator('.line[data-side="white"] .score')).to_have_text("+0.35", timeout=TIMEOUT)
            expect(page.locator("#live-pov")).to_have_text(POV_NOTE)
            assert "depth 1" in (card.locator('.line[data-side="black"]').text_content() or "")
            page.screenshot(path=str(shots(tmp_path) / "watch.png"))
            assert not errors
            page.close()
    finally:
        match.terminate()
        match.wait(timeout=60)
