"""Games belong to the server: a reloaded page shows its game again (clocks run on, the same
engine plays), several pages show one game, and a game nobody looks at is dropped after
``--keep-games`` seconds, its engines with it.  A real ``dipole-gui``, real engines, Chromium."""

from __future__ import annotations

import time

import pytest
from gui_support import alive, click_move, gui_server, start_game, wait_gone
from playwright.sync_api import Browser, Page

from dipole_engine.rules import new_board

BEGINNER = "0"  # the own engine at depth 1: answers at once


def open_game(page: Page, url: str) -> None:
    page.goto(url)
    page.wait_for_selector("g.piece")
    page.wait_for_function("() => document.getElementById('connection').textContent === 'connected'")


def clock_seconds(page: Page, side: str) -> float:
    """The clock shown for ``side`` ("w", "b"), in seconds (shown as m:ss, whole seconds)."""
    minutes, seconds = (page.text_content(f"#clock-{side}") or "").split(":")
    return int(minutes) * 60 + float(seconds)


def any_move(page: Page) -> str:
    """A legal move (not a pass) at the position the page shows."""
    board = new_board("dipole", page.input_value("#fen"))
    return next(str(move) for move in board.legal_moves() if str(move) != "pass")


def moves_shown(page: Page) -> list[str]:
    return page.locator("#moves .move:not(.empty)").all_text_contents()


@pytest.mark.slow
def test_a_reload_in_the_middle_of_a_game_against_an_engine_goes_on_with_its_clocks_and_engine(
    browser: Browser,
) -> None:
    with gui_server() as server:
        page = browser.new_page()
        open_game(page, server.url)
        start_game(page, variant="dipole", white="human", black=BEGINNER, tc="clock", base_minutes="10")
        click_move(page, "dipole", page.input_value("#fen"), "c1-c3")
        page.wait_for_function("() => document.body.dataset.plies === '2'")  # the engine answered
        engines = server.descendants()
        assert len(engines) == 1
        url, moves = page.url, moves_shown(page)
        assert "game=" in url
        before, read_at = clock_seconds(page, "w"), time.monotonic()
        time.sleep(2)
        page.reload()
        page.wait_for_selector("g.piece")
        page.wait_for_function("() => document.body.dataset.plies === '2'")
        after, elapsed = clock_seconds(page, "w"), time.monotonic() - read_at
        assert page.url == url
        assert moves_shown(page) == moves
        assert "Dipole engine" in (page.text_content("#player-top") or "")
        # White's clock ran on through the reload (m:ss shows whole seconds: 1.5 s either way).
        assert before - elapsed - 3 <= after <= before - elapsed + 1.5, (before, elapsed, after)
        assert "running" in (page.get_attribute("#clock-w", "class") or "")
        assert server.descendants() == engines  # the same engine process
        click_move(page, "dipole", page.input_value("#fen"), any_move(page))
        page.wait_for_function("() => document.body.dataset.plies === '4'")  # ... and it plays on
        assert server.descendants() == engines
        page.close()


def test_two_tabs_show_one_game_and_either_plays(browser: Browser) -> None:
    with gui_server() as server:
        context = browser.new_context()
        first, second = context.new_page(), context.new_page()
        open_game(first, server.url)
        start_game(first, variant="dipole", white="human", black=BEGINNER, tc="clock", base_minutes="10")
        open_game(second, first.url)
        assert second.url == first.url
        assert "Dipole engine" in (second.text_content("#player-top") or "")
        click_move(second, "dipole", second.input_value("#fen"), "c1-c3")  # a move in the second tab ...
        first.wait_for_function("() => document.body.dataset.plies === '2'")  # ... and the engine's answer
        second.wait_for_function("() => document.body.dataset.plies === '2'")
        assert moves_shown(first) == moves_shown(second) and len(moves_shown(first)) == 2
        engines = server.descendants()
        assert len(engines) == 1  # one game, one engine, whatever the number of tabs
        click_move(first, "dipole", first.input_value("#fen"), any_move(first))  # and one in the first
        second.wait_for_function("() => document.body.dataset.plies === '4'")
        # A new game from the second tab (two humans) is the first tab's too; the engine is gone.
        start_game(second, variant="impasse", white="human", black="human", tc="depth")
        first.wait_for_function(f"() => document.body.dataset.game === '{second.get_attribute('body', 'data-game')}'")
        first.wait_for_function("() => document.body.dataset.plies === '0'")
        assert "Human" in (first.text_content("#player-top") or "")
        assert wait_gone(engines) == set()
        context.close()


@pytest.mark.slow
def test_an_abandoned_game_lives_on_then_is_dropped_with_its_engines(browser: Browser) -> None:
    with gui_server("--keep-games", "5") as server:
        page = browser.new_page()
        open_game(page, server.url)
        start_game(page, variant="dipole", white="human", black=BEGINNER, tc="clock", base_minutes="10")
        click_move(page, "dipole", page.input_value("#fen"), "c1-c3")
        page.wait_for_function("() => document.body.dataset.plies === '2'")
        engines, url = server.descendants(), page.url
        assert len(engines) == 1
        page.close()
        closed = time.monotonic()
        time.sleep(1)
        assert all(alive(pid) for pid in engines)  # the game lives on without a page
        assert wait_gone(engines, timeout=30) == set()  # ... for --keep-games seconds
        assert time.monotonic() - closed >= 4.5
        page = browser.new_page()
        open_game(page, url)
        page.wait_for_selector("#message:not([hidden])")
        assert (page.text_content("#message") or "").startswith(
            "that game is no longer on the server (a game is dropped 5 s after its last page went away"
        )
        assert page.get_attribute("body", "data-plies") == "0"
        assert page.url != url and "game=" in page.url  # a new game, named in the URL
        page.close()
