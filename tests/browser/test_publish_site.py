"""A published site (``dipole-arbiter publish``) opened from disk in a real Chromium: the rating
list agrees with ``dipole-arbiter ratings``; a game page replays its game to the end, by the
keyboard, and ends on the record's final position; a hostile engine name shows as text.

``PUBLISH_SCREENSHOTS=docs pytest tests/browser/test_publish_site.py`` also saves the README's
screenshots (``publish-game.png``, ``publish-ratings.png``: desktop beside a 390 px phone).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from arbiter.events.store import EventStore
from arbiter.records.game import GameRecord
from dipole_engine.rules import new_board

SCREENSHOTS = os.environ.get("PUBLISH_SCREENSHOTS")
HOSTILE = "alpha" if SCREENSHOTS else "<img src=x onerror=alert(1)>&amp;\"'"
ARBITER = [sys.executable, "-m", "arbiter"]
STANDING = re.compile(r"^\s*(\d+) (.+?)\s+(-?\d+\.\d)\s+(\d+\.\d)\s+\[.*?\]\s+(\d+(?:\.\d)?)\s+(\d+)\s")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, list[str]]]:
    """Two real events (the project's engine, one at a time per move, one with a clock), and
    the site published from both; the site's directory and the inputs."""
    directory = tmp_path_factory.mktemp("publish")
    own = f"cmd={sys.executable} -m dipole_engine"
    inputs = []
    for index, depths in enumerate((("2", "1", "1"), ("1", "2", "1"))):
        db = directory / f"event{index}.db"
        engines = [
            arg
            for name, depth in zip((HOSTILE, "beta", "gamma"), depths)
            for arg in ("--engine", own, f"name={name}", f"depth={depth}", "tc=60+0.5")
        ]
        run = subprocess.run(
            [
                *ARBITER,
                "tournament",
                *engines,
                "--games",
                "2",
                "--opening-plies",
                "2",
                "--seed",
                str(7 + index),
                "--concurrency",
                "2",
                "--db",
                str(db),
                "--event",
                f"Event {index + 1}",
            ],
            cwd=directory,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert run.returncode == 0, run.stderr
        inputs.append(str(db))
    run = subprocess.run(
        [*ARBITER, "publish", *inputs, "--output", str(directory / "site")], capture_output=True, text=True, timeout=600
    )
    assert run.returncode == 0, run.stderr
    yield directory / "site", inputs


def open_page(browser: Browser, path: Path, width: int = 1200) -> tuple[Page, list[str]]:
    """The page from disk (file://), and the errors and dialogs it raises."""
    page = browser.new_page(viewport={"width": width, "height": 900})
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
    page.on("dialog", lambda dialog: (problems.append(f"dialog {dialog.message}"), dialog.dismiss()))
    page.goto(path.as_uri())
    return page, problems


@pytest.mark.slow
def test_rating_list_agrees_with_ratings(browser: Browser, site: tuple[Path, list[str]]) -> None:
    root, inputs = site
    run = subprocess.run([*ARBITER, "ratings", *inputs], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    expected = [match.groups() for line in run.stdout.splitlines() if (match := STANDING.match(line))]
    assert len(expected) == 3
    page, problems = open_page(browser, root / "index.html")
    rows = page.locator("table.standings tr.engine")
    cells = [[rows.nth(i).locator("td").nth(k).inner_text() for k in (0, 1, 2, 3, 5, 6)] for i in range(rows.count())]
    shown = [(rank, name, rating, error, float(points), games) for rank, name, rating, error, points, games in cells]
    assert shown == [
        (rank, name, rating, error, float(points), games) for rank, name, rating, error, points, games in expected
    ]
    assert page.locator("#events td.name a").count() == 2
    assert not problems
    page.close()


def final_stacks(record: GameRecord, plies: int) -> set[tuple[str, str, str]]:
    """The stacks after ``plies`` plies of ``record``, by the rules."""
    board = new_board(record.variant, record.fen)
    for move in record.moves[:plies]:
        board.push_text(move.text)
    name, cells = board.geometry.name, board.cells
    return {
        (name(sq), "white" if cells[sq] > 0 else "black", str(abs(cells[sq])))
        for sq in board.geometry.dark_squares
        if cells[sq]
    }


def drawn_stacks(page: Page) -> set[tuple[str, str, str]]:
    return {
        (
            g.get_attribute("data-square") or "",
            g.get_attribute("data-colour") or "",
            g.get_attribute("data-count") or "",
        )
        for g in page.locator("#board g.piece").all()
    }


@pytest.mark.slow
def test_game_page_replays_by_keyboard(browser: Browser, site: tuple[Path, list[str]]) -> None:
    root, inputs = site
    store = EventStore.open(inputs[0], write=False)
    try:
        records = list(store.records())
        record = max(records, key=lambda game: game.plies)
    finally:
        store.close()
    pages = [page for page in (root / "games").glob(f"*-{record.number}.html") if page.name.startswith("event0")]
    assert len(pages) == 1
    page, problems = open_page(browser, pages[0])
    board = page.locator("#board")
    assert board.get_attribute("data-ply") == "0"
    assert drawn_stacks(page) == final_stacks(record, 0)
    for ply in range(1, record.plies + 1):
        page.keyboard.press("ArrowRight")
        assert board.get_attribute("data-ply") == str(ply)
        if ply == record.plies // 2:
            assert drawn_stacks(page) == final_stacks(record, ply)
    assert drawn_stacks(page) == final_stacks(record, record.plies)  # the record's final position
    assert f"Ply {record.plies} of {record.plies}" in page.locator("#status").inner_text()
    assert page.locator("tr.current").get_attribute("data-ply") == str(record.plies)
    page.keyboard.press("ArrowRight")  # past the end: stays there
    assert board.get_attribute("data-ply") == str(record.plies)
    page.keyboard.press("ArrowLeft")
    assert board.get_attribute("data-ply") == str(record.plies - 1)
    assert drawn_stacks(page) == final_stacks(record, record.plies - 1)
    page.keyboard.press("Home")
    assert board.get_attribute("data-ply") == "0"
    page.keyboard.press("End")
    assert board.get_attribute("data-ply") == str(record.plies)
    page.locator("button.move[data-ply='3']").click()
    assert board.get_attribute("data-ply") == "3" and drawn_stacks(page) == final_stacks(record, 3)
    assert page.locator("#graph polyline.eval").count() == 1  # the engines' evaluations
    assert page.locator("table.moves td").filter(has_text=re.compile(r"^\d+\.\d{3}s$")).count() > 0  # clocks
    assert not problems
    if SCREENSHOTS:  # a game with a game before and after it, so both links show
        shown = max((game for game in records if 1 < game.number < len(records)), key=lambda game: game.plies)
        (path,) = [p for p in (root / "games").glob(f"*-{shown.number}.html") if p.name.startswith("event0")]
        page.close()
        page, _ = open_page(browser, path)
        for _ in range(min(12, shown.plies)):
            page.keyboard.press("ArrowRight")
        page.screenshot(path=str(Path(SCREENSHOTS) / "publish-game.png"))
        phone, _ = open_page(browser, path, 390)
        for _ in range(min(12, shown.plies)):
            phone.keyboard.press("ArrowRight")
        phone.screenshot(path=str(Path(SCREENSHOTS) / "publish-game-phone.png"))
        home, _ = open_page(browser, root / "index.html")
        home.screenshot(path=str(Path(SCREENSHOTS) / "publish-ratings.png"))
        phone_home, _ = open_page(browser, root / "index.html", 390)
        phone_home.screenshot(path=str(Path(SCREENSHOTS) / "publish-ratings-phone.png"))
    page.close()


def test_hostile_name_shows_as_text(browser: Browser, site: tuple[Path, list[str]]) -> None:
    root, _ = site
    page, problems = open_page(browser, root / "index.html")
    cells = page.locator("table.standings td.name a")
    assert HOSTILE in [cells.nth(i).inner_text() for i in range(cells.count())]
    assert page.locator("img").count() == 0
    page.locator("table.standings td.name a", has_text=HOSTILE).click()  # to the engine's page
    assert page.locator("h1").inner_text() == HOSTILE
    page.locator("table.performance a").first.click()  # to its first event
    page.locator("a", has_text="games of this event").click()
    page.locator("table.games a", has_text=HOSTILE).first.locator("xpath=ancestor::tr").locator("a").first.click()
    assert HOSTILE in page.locator("h1").inner_text()
    quoted = HOSTILE.replace("\\", "\\\\").replace('"', '\\"')  # as a PGN tag quotes it
    assert f'[White "{quoted}"]' in page.locator("pre.pgn").inner_text()  # the PGN's tags: text too
    expect(page.locator("#board g.piece").first).to_be_attached()  # the page's script has drawn the board
    assert page.locator("img").count() == 0
    assert not problems
    page.close()
