"""Browser tests of the GUI's smaller promises (issue 22): the form shows the game in force,
resigning asks once, stepping through a game keeps up with the keys, an opened PGN keeps its
tags when saved, moves can be dragged, and the watch page fits a phone (390 px).  A real
``dipole-gui`` server, real engines and event databases, a real Chromium."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from gui_support import click_move, gui_server, start_game
from playwright.sync_api import Browser, Page
from watch_support import arbiter, toy

from dipole_engine.rules import new_board

SHOTS = os.environ.get("GUI_SMALL_SHOTS")  # a folder: the tests leave their screenshots there
PHONE = {"width": 390, "height": 844}


def open_page(browser: Browser, url: str, viewport: dict[str, int] | None = None) -> tuple[Page, list[str]]:
    page = browser.new_page(viewport=viewport or {"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(url)
    return page, errors


def shot(page: Page, name: str) -> None:
    if SHOTS:
        page.screenshot(path=str(Path(SHOTS) / name), full_page=True)


def selected_text(page: Page, select: str) -> str:
    return page.eval_on_selector(select, "s => s.options[s.selectedIndex].textContent")


@pytest.mark.slow
def test_the_form_on_first_load_shows_the_game_in_force(browser: Browser) -> None:
    with gui_server() as server:
        page, errors = open_page(browser, server.url)
        page.wait_for_selector("g.piece")
        # Each seat the form shows is the one playing: the player boxes name who plays.
        page.wait_for_function("() => document.getElementById('player-top').textContent")
        assert selected_text(page, "#black") == page.text_content("#player-top .name")
        assert selected_text(page, "#white") == page.text_content("#player-bottom .name")
        # Whatever Black's seat says, a first move gets the answer it promises.
        click_move(page, "dipole", page.input_value("#fen"), "c1-c3")
        time.sleep(1.5)  # an engine at depth 1 would have answered by now
        if page.input_value("#black") == "human":
            assert page.get_attribute("body", "data-plies") == "1"
            assert page.get_attribute("body", "data-awaiting") == "human"
        else:
            page.wait_for_function("() => document.body.dataset.plies === '2'")
        # A game started with other settings shows them, and keeps showing them.
        start_game(page, variant="dipole", white="human", black="0", tc="movetime", movetime="0.3")
        assert page.input_value("#black") == "0" and page.input_value("#tc-kind") == "movetime"
        assert page.input_value("#tc-movetime") == "0.3"
        assert not errors
        page.close()


def test_resign_asks_once_before_it_resigns(browser: Browser) -> None:
    with gui_server() as server:
        page, errors = open_page(browser, server.url)
        start_game(page, variant="dipole", white="human", black="0", tc="clock", base_minutes="5")
        page.wait_for_function("() => document.body.dataset.awaiting === 'human'")
        page.click("#resign")
        assert page.text_content("#resign") == "Confirm resign?"
        time.sleep(1.0)  # a resignation would have ended the game by now
        assert page.get_attribute("body", "data-result") == ""
        page.click("#resign")
        page.wait_for_function("() => document.body.dataset.result === '0-1'")
        assert "White resigns" in (page.text_content("#banner") or "")
        assert page.text_content("#resign") == "Resign"
        assert not errors
        page.close()


def test_fast_arrow_keys_reach_the_ply_pressed(browser: Browser, tmp_path: Path) -> None:
    board = new_board("dipole")
    moves = []
    for _ in range(30):
        move = next(m for m in board.legal_moves() if "off" not in str(m))
        board.push(move)
        moves.append(str(move))
    pgn = '[Event "e"]\n[White "a"]\n[Black "b"]\n[Result "*"]\n\n' + " ".join(moves) + " *\n"
    path = tmp_path / "thirty.pgn"
    path.write_text(pgn)
    with gui_server() as server:
        page, errors = open_page(browser, server.url)
        page.wait_for_selector("g.piece")
        page.set_input_files("#pgn-file", str(path))
        page.wait_for_function("() => document.body.dataset.plies === '30'")
        page.focus("body")
        for _ in range(20):  # far faster than the server answers each
            page.keyboard.press("ArrowRight")
        page.wait_for_function("() => document.body.dataset.view === '20'", timeout=20_000)
        assert page.get_attribute("#moves .current", "data-ply") == "20"
        for _ in range(7):
            page.keyboard.press("ArrowLeft")
        page.wait_for_function("() => document.body.dataset.view === '13'", timeout=20_000)
        assert page.get_attribute("#moves .current", "data-ply") == "13"
        assert page.input_value("#fen") == new_board_after("dipole", moves[:13])
        assert not errors
        page.close()


def new_board_after(variant: str, moves: list[str]) -> str:
    board = new_board(variant)
    for move in moves:
        board.push(board.parse_move(move))
    return board.fen()


def test_a_saved_pgn_keeps_the_tags_of_the_file_opened(browser: Browser, tmp_path: Path) -> None:
    tags = {"Event": "Spring Cup", "Site": "Zurich", "Date": "2025.04.01", "Round": "7", "Opening": "the long diagonal"}
    head = "".join(f'[{name} "{value}"]\n' for name, value in tags.items())
    path = tmp_path / "cup.pgn"
    path.write_text(head + '[White "ann"]\n[Black "bob"]\n[Result "*"]\n\n1. c1-c3 *\n')
    with gui_server() as server:
        page, errors = open_page(browser, server.url)
        page.wait_for_selector("g.piece")
        page.set_input_files("#pgn-file", str(path))
        page.wait_for_function("() => document.body.dataset.plies === '1'")
        with page.expect_download() as download:
            page.click("#save-pgn")
        saved = tmp_path / "saved.pgn"
        download.value.save_as(saved)
        text = saved.read_text()
        for name, value in tags.items():
            assert f'[{name} "{value}"]' in text, text
        assert '[White "ann"]' in text and "c1-c3" in text
        assert not errors
        page.close()


def drag(page: Page, origin: str, target: str) -> None:
    """A real mouse drag from the stack on ``origin`` to the square ``target``."""
    start = page.locator(f'g.piece[data-square="{origin}"]').bounding_box()
    end = page.locator(f'rect.sq[data-square="{target}"]').bounding_box()
    assert start is not None and end is not None
    page.mouse.move(start["x"] + start["width"] / 2, start["y"] + start["height"] / 2)
    page.mouse.down()
    page.mouse.move(end["x"] + end["width"] / 2, end["y"] + end["height"] / 2, steps=8)
    page.mouse.up()


def test_a_move_made_by_dragging(browser: Browser) -> None:
    with gui_server() as server:
        page, errors = open_page(browser, server.url)
        start_game(page, variant="dipole", white="human", black="human", tc="depth")
        page.wait_for_function("() => document.body.dataset.awaiting === 'human'")
        drag(page, "c1", "c3")
        page.wait_for_function("() => document.body.dataset.plies === '1'")
        assert page.text_content('#moves .move[data-ply="1"]') == "c1-c3"
        # A drop on no target plays nothing; the stack stays picked up, as after a click.
        drag(page, "d8", "e1")
        time.sleep(0.5)
        assert page.get_attribute("body", "data-plies") == "1"
        assert page.locator(".target-hit").count() > 0
        assert not errors
        page.close()


def no_overflow(page: Page) -> None:
    widths = page.evaluate(
        "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth,"
        " document.body.scrollWidth, document.body.clientWidth]"
    )
    assert widths[0] <= widths[1] and widths[2] <= widths[3], widths


def apart(page: Page, first: str, second: str) -> None:
    a, b = page.locator(first).bounding_box(), page.locator(second).bounding_box()
    assert a is not None and b is not None
    overlap_x = a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"]
    overlap_y = a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"]
    assert not (overlap_x and overlap_y), (first, a, second, b)


@pytest.mark.slow
def test_the_watch_page_fits_a_phone_and_its_picker_says_when_there_is_nothing(
    browser: Browser, tmp_path: Path
) -> None:
    db = tmp_path / "small.db"
    pids = tmp_path / "pids"
    names = ("a_rather_long_engine_name", "another_long_engine_name", "c")
    result = arbiter(
        "tournament",
        *(word for name in names for word in toy(name, pids)),
        "--depth",
        "1",
        "--games",
        "2",
        "--event",
        "Spring_Cup_of_the_Dipole_Society",
        "--db",
        str(db),
    )
    assert result.returncode == 0, result.stderr
    with gui_server("--watch", str(db)) as server:
        page, errors = open_page(browser, server.url, PHONE)
        page.wait_for_selector("#standings tr[data-engine]")
        page.wait_for_selector("#games tr.game")
        shot(page, "watch-390.png")
        no_overflow(page)
        # The standings are whole on the screen, not cut off inside their card.
        fits = page.evaluate(
            "() => { const table = document.getElementById('standings');"
            " return [table.scrollWidth, table.parentElement.clientWidth]; }"
        )
        assert fits[0] <= fits[1], fits
        apart(page, "#event-name", ".top-bar .links")
        apart(page, ".top-bar h1", ".top-bar .links")
        assert not errors
        page.close()
    with gui_server() as server:  # started in the project folder, which holds no event database
        page, errors = open_page(browser, server.base + "watch?pick=1", PHONE)
        page.wait_for_selector("#picker:not([hidden])")
        page.wait_for_function("() => document.getElementById('status').textContent.startsWith('No event')")
        assert page.locator("#no-events").is_visible()
        assert "connecting" not in (page.text_content(".top-bar") or "").lower()
        no_overflow(page)
        assert not errors
        page.close()
        page, errors = open_page(browser, server.url, PHONE)  # and the play page, on the same phone
        page.wait_for_selector("g.piece")
        shot(page, "play-390.png")
        no_overflow(page)
        apart(page, ".top-bar h1", ".top-bar .top-links")
        assert not errors
        page.close()
