"""The watch page on a running chess event: ``dipole-arbiter tournament --variant chess`` of three
Stockfish settings (2000 to 4000 nodes a move, so a game takes seconds) watched with
``dipole-gui --watch``: live boards with chess pieces whose moves advance, the engines' lines in
SAN, then the finished event, whose games replay in SAN with the pieces on every ply.

``CHESS_SCREENSHOTS=DIR`` keeps the screenshot of the live event (``chess-watch.png``: the
documentation's picture).
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
from pathlib import Path

import pytest
from chess_support import stockfish
from gui_support import gui_server
from playwright.sync_api import Browser, expect
from watch_support import ARBITER

import gameplug

__all__ = ["stockfish"]  # (a fixture)

TIMEOUT = 120_000
UCI = re.compile(r"^[a-h][1-8][a-h][1-8][qrbn]?$")


def shots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("CHESS_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def tournament(stockfish: str, db: Path) -> list[str]:
    engines = [
        word
        for name, nodes in (("sf-2k", 2000), ("sf-3k", 3000), ("sf-4k", 4000))
        for word in ("--engine", f"cmd={stockfish}", f"name={name}", f"nodes={nodes}")
    ]
    return [
        *ARBITER,
        "tournament",
        "--variant",
        "chess",
        *engines,
        *["--each", "option.Hash=16", "tc=60+1"],
        *["--games", "2", "--concurrency", "2", "--db", str(db)],
    ]


@pytest.mark.slow
def test_watch_a_stockfish_chess_tournament_live_and_replay_its_games(
    browser: Browser, stockfish: str, tmp_path: Path
) -> None:
    db = tmp_path / "chess.db"
    arbiter = subprocess.Popen(tournament(stockfish, db), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        with gui_server("--watch", str(db)) as server:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            errors: list[str] = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.goto(server.url)
            status = page.locator("#status")
            expect(status).to_have_attribute("data-state", "running", timeout=TIMEOUT)

            # A live board: chess pieces, drawn from their images, and its moves advance.
            card = page.locator(".live-game").first
            expect(card).to_be_visible(timeout=TIMEOUT)
            number = card.get_attribute("data-number")
            expect(card.locator('g.piece[data-kind="king"] image')).to_have_count(2)
            expect(card.locator(".board svg .coords text")).to_have_text([*"abcdefgh", *"12345678"])
            plies = int(card.get_attribute("data-plies") or "0")
            page.wait_for_function(
                "([number, plies]) => { const card = document.querySelector(`.live-game[data-number='${number}']`);"
                " return !card || Number(card.dataset.plies) > plies; }",
                arg=[number, plies],
                timeout=TIMEOUT,
            )
            # The engines' lines in SAN, each with its score from White's view.
            page.wait_for_function(
                "() => [...document.querySelectorAll('.live-game .line .pv')].some(pv => pv.textContent.trim())",
                timeout=TIMEOUT,
            )
            lines = [text.split() for text in page.locator(".live-game .line .pv").all_text_contents()]
            assert any(lines) and not any(UCI.match(move) for line in lines for move in line), lines
            expect(page.locator(".live-game .line .score").first).to_have_text(re.compile(r"^-?[+#≤≥-]"))
            # The latest moves under each board, in SAN too.
            recent = [text.split()[1:] for text in page.locator(".live-game .last-moves").all_text_contents()]
            assert any(recent) and not any(UCI.match(move) for moves in recent for move in moves), recent
            page.wait_for_function(
                "() => [...document.querySelectorAll('.live-game')].some(card => Number(card.dataset.plies) >= 16)",
                timeout=TIMEOUT,
            )
            if os.environ.get("CHESS_SCREENSHOTS"):  # the documentation's picture: two games well under way
                page.wait_for_function(
                    "() => { const cards = [...document.querySelectorAll('.live-game')];"
                    " return cards.length >= 2 && cards.every(card => Number(card.dataset.plies) >= 20); }",
                    timeout=TIMEOUT,
                )
            page.screenshot(path=str(shots(tmp_path) / "chess-watch.png"))

            # The event ends; a finished game replays: SAN moves, the pieces on every ply.
            expect(status).to_have_attribute("data-state", "complete", timeout=4 * TIMEOUT)
            assert arbiter.wait(timeout=60) == 0, arbiter.stderr.read() if arbiter.stderr else ""
            expect(page.locator("#games tr.game")).to_have_count(6)
            expect(page.locator("#standings tr[data-engine]")).to_have_count(3)
            page.locator("#games tr.game").last.click()
            expect(page.locator("#replay")).to_be_visible()
            expect(page.locator("#replay-title")).to_contain_text("Game 1:")
            moves = page.locator("#replay-moves .move").all_text_contents()
            expect(page.locator("#replay-moves .move")).to_have_count(len(moves))
            state = gameplug.variant("chess").start()
            for text in moves:
                move = state.read_notation(text)
                assert state.notation(move) == text  # SAN, as the record has it
                state.play(move)
            assert len(page.locator("#replay-board g.piece").all()) == len(state.picture().pieces)
            in_sight = (
                "() => { const list = document.getElementById('replay-moves').getBoundingClientRect();"
                " const move = document.querySelector('#replay-moves .current').getBoundingClientRect();"
                " return move.top >= list.top && move.bottom <= list.bottom; }"
            )
            assert page.evaluate(in_sight)  # the last move of a long game, scrolled to
            page.click("#r-first")
            expect(page.locator("#replay-board g.piece image")).to_have_count(32)
            page.keyboard.press("ArrowRight")
            expect(page.locator("#replay-moves .current")).to_have_attribute("data-ply", "1")
            expect(page.locator("#replay-board .sq.last")).to_have_count(2)
            assert page.evaluate(in_sight)
            assert not errors
            page.close()
    finally:
        if arbiter.poll() is None:
            arbiter.send_signal(signal.SIGTERM)
            arbiter.wait(timeout=30)
