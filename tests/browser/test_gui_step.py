"""Stepping through a game shows each ply's board at once, without waiting for the server
(issue 22): the server sends the board of every ply once (``plies``), and the page draws a step
from those.

The page's messages to the server are held back (Playwright routes its WebSocket) while the
arrow keys step back: the server never hears of the steps, so any board drawn meanwhile is the
page's own.  Each drawn position is checked against the rules' position at that ply.
"""

from __future__ import annotations

import re
from typing import Any

from gui_support import click_move, gui_server
from playwright.sync_api import Browser, Page, WebSocketRoute

from dipole_engine.rules import new_board

PLIES = 4
DRAWN = """() => [...document.querySelectorAll("#board g.piece")]
    .map((g) => `${g.dataset.square}:${g.dataset.colour}:${g.dataset.count}`).sort()"""


def expected(board: Any) -> list[str]:
    """The stacks of the rules' ``board``, as the page marks its pieces."""
    name, cells = board.geometry.name, board.cells
    return sorted(
        f"{name(sq)}:{'white' if cells[sq] > 0 else 'black'}:{abs(cells[sq])}"
        for sq in board.geometry.dark_squares
        if cells[sq]
    )


def drawn(page: Page) -> list[str]:
    return list(page.evaluate(DRAWN))


def test_arrow_keys_show_each_earlier_ply_before_the_server_answers(browser: Browser) -> None:
    held: list[str | bytes] = []
    holding = {"on": False}

    def route(socket: WebSocketRoute) -> None:
        server = socket.connect_to_server()

        def from_page(message: str | bytes) -> None:
            if holding["on"]:
                held.append(message)
            else:
                server.send(message)

        socket.on_message(from_page)  # the server's messages pass on by themselves

    with gui_server() as server:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.route_web_socket(re.compile(r"/ws"), route)
        page.goto(server.url)
        page.wait_for_function("() => document.body.dataset.awaiting === 'human'")
        board = new_board("dipole")  # a game without engines: both sides are clicked
        positions = [expected(board)]
        for _ in range(PLIES):
            move = next(m for m in board.legal_moves() if m.kind.name != "EXIT")
            click_move(page, "dipole", board.fen(), str(move))
            board.push(move)
            positions.append(expected(board))
        page.wait_for_function(f"() => document.body.dataset.view === '{PLIES}'")
        assert drawn(page) == positions[PLIES]

        holding["on"] = True
        for ply in range(PLIES - 1, -1, -1):
            page.keyboard.press("ArrowLeft")
            page.wait_for_function(
                f"(want) => JSON.stringify(({DRAWN})()) === JSON.stringify(want)", arg=positions[ply]
            )
            assert page.get_attribute("body", "data-view") == str(PLIES)  # the server has not answered
        assert len(held) == PLIES and all('"view"' in str(message) for message in held)

        holding["on"] = False
        page.keyboard.press("ArrowRight")  # the server hears of this step and answers with its state
        page.wait_for_function("() => document.body.dataset.view === '1'")
        assert drawn(page) == positions[1]
        assert not errors
        page.close()
