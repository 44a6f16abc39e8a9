"""A click on the board survives a redraw under the mouse.

Every ``state`` or ``thinking`` message redraws the board (a new SVG).  One that lands between
the press on a stack and its release used to lose the click (the press's element was gone, so
the browser sent the click to the board's container): the stack was not selected and its
targets never showed, which made ``click_move`` time out now and then in CI.  Here the racing
message is made deterministic: a second socket attached to the game makes the server push a
state to the page while the mouse button is down.
"""

from __future__ import annotations

from gui_support import gui_server
from playwright.sync_api import Browser, expect

from dipole_engine.rules import new_board

REDRAW = """(game) => new Promise((resolve) => {
    const old = document.querySelector("#board svg");
    const observer = new MutationObserver(() => {
        if (document.querySelector("#board svg") !== old) { observer.disconnect(); resolve(true); }
    });
    observer.observe(document.getElementById("board"), { childList: true });
    // attaching a page to the game pushes a state to every page of it
    new WebSocket(`ws://${location.host}/ws?game=${encodeURIComponent(game)}`);
})"""


def test_a_state_arriving_between_press_and_release_keeps_the_click(browser: Browser) -> None:
    with gui_server() as server:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(server.url)
        page.wait_for_function("() => document.body.dataset.awaiting === 'human'")
        game = page.evaluate("() => new URLSearchParams(location.search).get('game')")
        move = new_board("dipole", page.input_value("#fen")).legal_moves()[0]
        origin = str(move).split("-")[0]  # c1: its exits light up
        box = page.locator(f'g.piece[data-square="{origin}"]').bounding_box()
        assert box is not None
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.mouse.down()
        assert page.evaluate(REDRAW, game)  # the board was drawn anew under the pressed button
        page.mouse.up()
        expect(page.locator(f'#board rect.sq.selected[data-square="{origin}"]')).to_have_count(1, timeout=10_000)
        expect(page.locator(".target-hit").first).to_be_attached(timeout=10_000)
        assert not errors
        page.close()
