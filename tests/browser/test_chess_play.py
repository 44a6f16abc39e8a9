"""Chess against the real Stockfish in the GUI, as a user plays it: ``dipole-gui --engine
cmd=/usr/games/stockfish``, moves entered by clicking the piece and its square, Stockfish's
answers on the board, in the move list and its line in SAN, a resignation, mates on both sides
with the arbiter's words in the banner; a Chess960 game against it from the variant's start,
and castling king-takes-rook entered by clicking the king and then its rook.

Stockfish plays at depth 4 (the page's time control), so each of its moves takes milliseconds.
"""

from __future__ import annotations

import re

import pytest
from chess_support import stockfish
from gui_support import click_move, gui_server, open_page, start_game
from playwright.sync_api import Browser, Page, expect

import gameplug

__all__ = ["stockfish"]  # (a fixture)

TIMEOUT = 120_000
UCI = re.compile(r"^[a-h][1-8][a-h][1-8][qrbn]?$")
SF = "0"  # the engine list's entry of the one engine given
HUMAN_MATES = "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"  # Ra8#
ENGINE_MATES = "r5k1/5ppp/8/8/8/8/5PPP/6K1 b - - 0 1"  # ...Ra1#
CASTLING_960 = "1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w GBgb - 0 1"  # O-O: the king onto its rook's g1


def wait_for_human(page: Page) -> bool:
    """Wait until the human is to move (True) or the game is over (False)."""
    page.wait_for_function("() => ['human', 'nobody'].includes(document.body.dataset.awaiting)", timeout=TIMEOUT)
    return page.get_attribute("body", "data-awaiting") == "human"


def set_up(page: Page, variant: str, fen: str) -> None:
    """Set up ``fen`` (the page was showing a game with moves) and wait for the server's board."""
    page.select_option("#variant", variant)
    page.fill("#fen", fen)
    page.click("#setup")
    expect(page.locator("body")).to_have_attribute("data-plies", "0")
    expect(page.locator("#fen")).to_have_value(gameplug.variant(variant).read_position(fen).position_text())


@pytest.mark.slow
def test_a_chess_game_against_stockfish_clicked_resigned_and_mates(browser: Browser, stockfish: str) -> None:
    chess = gameplug.variant("chess")
    with gui_server("--engine", f"cmd={stockfish}", "name=sf", "option.Hash=16") as server:
        page, errors = open_page(browser, server.url)
        expect(page.locator("#white option")).to_have_text(["Human", "sf"])
        start_game(page, variant="chess", white="human", black=SF, tc="depth", depth="4")
        expect(page.locator("#board g.piece image")).to_have_count(32)
        # Three moves of White's by clicks; Stockfish answers each, and the list shows it in SAN.
        for plies, wanted in ((1, "e2e4"), (3, "g1f3"), (5, "f1c4")):
            assert wait_for_human(page)
            state = chess.read_position(page.input_value("#fen"))
            legal = [state.move_text(choice) for choice in state.legal_moves()]
            move = wanted if wanted in legal else legal[0]  # (should Stockfish's answers block it)
            assert click_move(page, "chess", state.position_text(), move) is None
            page.wait_for_function(f"() => Number(document.body.dataset.plies) >= {plies + 1}", timeout=TIMEOUT)
        assert wait_for_human(page)
        # Replayed by the rules: every move listed is the game's notation of a legal move.
        replay = chess.start()
        for text in page.locator("#moves .move:not(.empty)").all_text_contents():
            move = replay.read_notation(text)
            assert replay.notation(move) == text
            replay.play(move)
        assert replay.position_text() == page.input_value("#fen")
        assert page.locator("#player-top .name").text_content() == "sf"
        # The engine's search line of its last move shows in the thinking panel, in SAN.
        expect(page.locator("#thinking-who")).to_have_text("· sf")
        line = (page.text_content("#t-pv") or "").split()
        assert line and not any(UCI.match(move) for move in line), line
        # Resigned: two clicks, and the banner says who won.
        page.click("#resign")
        page.click("#resign")
        expect(page.locator("body")).to_have_attribute("data-result", "0-1")
        expect(page.locator("#banner")).to_contain_text("0-1")
        expect(page.locator("#banner")).to_contain_text("sf wins")

        # The human mates in one.
        set_up(page, "chess", HUMAN_MATES)
        start_game(page, variant="chess", white="human", black=SF, tc="depth", depth="4", start="current")
        assert wait_for_human(page)
        assert click_move(page, "chess", HUMAN_MATES, "a1a8") is None
        expect(page.locator("body")).to_have_attribute("data-result", "1-0")
        expect(page.locator("#banner")).to_have_text("1-0 · White mates · Human wins")
        expect(page.locator('#moves .move[data-ply="1"]')).to_have_text("Ra8#")

        # Stockfish mates in one.
        set_up(page, "chess", ENGINE_MATES)
        start_game(page, variant="chess", white="human", black=SF, tc="depth", depth="4", start="current")
        expect(page.locator("body")).to_have_attribute("data-result", "0-1", timeout=TIMEOUT)
        expect(page.locator("#banner")).to_have_text("0-1 · Black mates · sf wins")
        expect(page.locator('#moves .move[data-ply="1"]')).to_have_text("Ra1#")
        expect(page.locator('#board g.piece[data-square="a1"][data-kind="rook"]')).to_have_count(1)
        assert not errors
        page.close()


@pytest.mark.slow
def test_chess960_against_stockfish_and_castling_king_takes_rook(browser: Browser, stockfish: str) -> None:
    chess960 = gameplug.variant("chess960")
    with gui_server("--engine", f"cmd={stockfish}", "name=sf", "option.Hash=16") as server:
        page, errors = open_page(browser, server.url)
        start_game(page, variant="chess960", white="human", black=SF, tc="depth", depth="4")
        start = chess960.start().position_text()
        expect(page.locator("#fen")).to_have_value(start)
        expect(page.locator("#board g.piece")).to_have_count(32)
        assert wait_for_human(page)
        assert click_move(page, "chess960", start, "d2d4") is None
        page.wait_for_function("() => Number(document.body.dataset.plies) >= 2", timeout=TIMEOUT)
        answered = chess960.read_position(start)
        answered.play(answered.read_move("d2d4"))
        reply = page.locator('#moves .move[data-ply="2"]').text_content() or ""
        answered.play(answered.read_notation(reply))  # Stockfish's answer, legal in Chess960
        expect(page.locator("#fen")).to_have_value(answered.position_text())

        # Castling king-takes-rook: the king, then the rook's square (the rook is the target).
        set_up(page, "chess960", CASTLING_960)
        page.click('#board g.piece[data-square="e1"]')
        expect(page.locator('.target-hit[data-target="g1"][data-kind="castle"]')).to_have_count(1)
        expect(page.locator('.target-hit[data-target="b1"][data-kind="castle"]')).to_have_count(1)
        page.keyboard.press("Escape")  # (click_move selects the king itself)
        assert click_move(page, "chess960", CASTLING_960, "e1g1") is None
        expect(page.locator('#moves .move[data-ply="1"]')).to_have_text("O-O")
        expect(page.locator('#board g.piece[data-square="g1"][data-kind="king"]')).to_have_count(1)
        expect(page.locator('#board g.piece[data-square="f1"][data-kind="rook"]')).to_have_count(1)
        expect(page.locator('#board g.piece[data-square="e1"]')).to_have_count(0)
        assert not errors
        page.close()
