"""Browser tests of the GUI: whole games won by clicking against the project's engine.

A real ``dipole-gui`` server with its real engines, a real Chromium.  The test's "hand" chooses
its moves with the project's engine searching deeper than the opponent (depth 1, the GUI's
beginner level), then enters each one with mouse clicks on the board: the stack, the lit-up
target (the exit marker beyond the edge for an exit), and the chooser's button when the GUI
asks (how many checkers leave, which single crowns).
"""

from __future__ import annotations

import pytest
from gui_support import click_move, gui_server, start_game
from playwright.sync_api import Browser, Page

from arbiter.play.engines import own_engine_command
from dipole_engine.rules import new_board
from protocol import EngineClient, Limit

BEGINNER = "0"  # the engine list's first entry: the own engine capped at depth 1
BRAIN_DEPTH = 3
MAX_PLIES = 400
COMFORT = 300  # centipawns ahead before the hand plays a move only to see the GUI ask


def choice_move(variant: str, fen: str) -> str | None:
    """A move that makes the GUI ask a question, if one is legal at ``fen``: the shortest exit
    from a stack that can leave in several ways (Dipole), or a crown that has rivals (Impasse)."""
    board = new_board(variant, fen)
    groups: dict[tuple[int, int], list] = {}
    for move in board.legal_moves():
        if move.kind.name == "EXIT" or getattr(move, "crown", -1) >= 0:
            groups.setdefault((move.origin, move.target), []).append(move)
    asking = [moves for moves in groups.values() if len(moves) > 1]
    return str(min(asking[0], key=lambda move: getattr(move, "count", 0))) if asking else None


def play_to_the_end(page: Page, variant: str) -> tuple[list[str], list[str]]:
    """Play White by clicking until the game ends: the moves White clicked, and the questions
    the GUI asked on the way.  Once, when well ahead, the hand plays a move that makes the GUI ask."""
    clicked: list[str] = []
    questions: list[str] = []
    with EngineClient(list(own_engine_command()), name="hand") as brain:
        brain.set_option("UCI_Variant", variant)
        for _ in range(MAX_PLIES):
            page.wait_for_function("() => ['human', 'nobody'].includes(document.body.dataset.awaiting)", timeout=60_000)
            if page.get_attribute("body", "data-awaiting") == "nobody":
                return clicked, questions
            fen = page.input_value("#fen")
            move = None if questions else choice_move(variant, fen)
            if move is not None:  # only when it keeps the game comfortably won
                brain.set_position(fen, [move])
                infos = brain.go(Limit(depth=BRAIN_DEPTH - 1), timeout=60).infos
                scored = [info for info in infos if info.score_cp is not None or info.score_mate is not None]
                reply = scored[-1] if scored else None
                winning = reply is not None and ((reply.score_mate or 0) < 0 or (reply.score_cp or 0) < -COMFORT)
                move = move if winning else None
            if move is None:
                brain.set_position(fen)
                move = brain.go(Limit(depth=BRAIN_DEPTH), timeout=60).bestmove
            assert move is not None
            question = click_move(page, variant, fen, move)
            if question:
                questions.append(question)
            clicked.append(move)
    raise AssertionError(f"no end after {MAX_PLIES} plies")


@pytest.mark.parametrize(
    ("variant", "feature", "chooser_seen"),
    [
        ("dipole", "-off:", "How many checkers leave?"),
        ("impasse", "=", "Which single crowns?"),
    ],
)
@pytest.mark.slow
def test_whole_game_won_by_clicking(browser: Browser, variant: str, feature: str, chooser_seen: str) -> None:
    with gui_server() as server:
        page = browser.new_page(viewport={"width": 1280, "height": 860})
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(server.url)
        page.wait_for_selector("g.piece")
        start_game(page, variant=variant, white="human", black=BEGINNER, tc="clock", base_minutes="30")
        page.wait_for_function("() => document.body.dataset.awaiting === 'human'")
        assert page.locator("#clock-w").is_visible()
        clicked, questions = play_to_the_end(page, variant)
        banner = page.text_content("#banner")
        assert banner.startswith("1-0"), banner
        assert "Human wins" in banner
        assert any(feature in move for move in clicked), clicked
        assert chooser_seen in questions
        assert not errors
        # The move list holds every move in the project's notation.
        shown = page.locator("#moves .move:not(.empty)").all_text_contents()
        for move in clicked:
            assert move in shown
        page.close()
