"""A published site of a Stockfish chess event, opened from disk in a real Chromium: the rating
list names the engines; a game page shows its moves in SAN, draws the pieces from their images,
replays the game to the end by the keyboard and ends on the record's final position, with the
engines' evaluations as a graph.

``CHESS_SCREENSHOTS=DIR`` keeps the game page's screenshot (``published-chess.png``).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from chess_support import arbiter, engine, stockfish
from playwright.sync_api import Browser, Page

import gameplug
from arbiter.events.store import EventStore
from arbiter.records.game import GameRecord

__all__ = ["stockfish"]  # (a fixture)


def open_page(browser: Browser, path: Path) -> tuple[Page, list[str]]:
    """The page from disk (file://), and the errors it raises."""
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
    page.goto(path.as_uri())
    return page, problems


def pieces_after(record: GameRecord, plies: int) -> set[tuple[str, str, str]]:
    """(square, kind, colour) of every piece after ``plies`` plies of ``record``, by the rules."""
    variant = gameplug.variant(record.variant)
    state = variant.start() if record.fen is None else variant.read_position(record.fen)
    for move in record.moves[:plies]:
        state.play(state.read_notation(move.text))
    return {(piece.square, piece.kind, piece.colour) for piece in state.picture().pieces}


def pieces_drawn(page: Page) -> set[tuple[str, str, str]]:
    return {
        (g.get_attribute("data-square") or "", g.get_attribute("data-kind") or "", g.get_attribute("data-colour") or "")
        for g in page.locator("#board g.piece").all()
    }


@pytest.mark.slow
def test_a_published_stockfish_chess_game_replays_in_san(browser: Browser, stockfish: str, tmp_path: Path) -> None:
    db, site = tmp_path / "chess.db", tmp_path / "site"
    run = arbiter(
        "tournament",
        "--variant",
        "chess",
        *engine(stockfish, "sf-2k", "nodes=2000"),
        *engine(stockfish, "sf-4k", "nodes=4000"),
        *["--each", "option.Hash=16", "tc=60+1", "--games", "2", "--db", str(db)],
    )
    assert run.returncode == 0, run.stderr
    published = arbiter("publish", str(db), "--output", str(site))
    assert published.returncode == 0, published.stderr
    store = EventStore.open(str(db), write=False)
    try:
        record = max(store.records(), key=lambda game: game.plies)
    finally:
        store.close()

    home, problems = open_page(browser, site / "index.html")
    names = home.locator("table.standings td.name a").all_inner_texts()
    assert sorted(names) == ["sf-2k", "sf-4k"]
    home.close()

    (path,) = list((site / "games").glob(f"*-{record.number}.html"))
    page, problems = open_page(browser, path)
    board = page.locator("#board")
    assert board.get_attribute("data-ply") == "0"
    assert page.locator("#board g.piece image").count() == 32
    assert pieces_drawn(page) == pieces_after(record, 0)
    # The moves in SAN, the record's own text.
    state = gameplug.variant("chess").start()
    for text in page.locator("button.move").all_inner_texts():
        move = state.read_notation(text)
        assert state.notation(move) == text
        state.play(move)
    assert page.locator("button.move").count() == record.plies
    for ply in range(1, record.plies + 1):
        page.keyboard.press("ArrowRight")
        if ply == record.plies // 2:
            assert board.get_attribute("data-ply") == str(ply)
            assert pieces_drawn(page) == pieces_after(record, ply)
    assert board.get_attribute("data-ply") == str(record.plies)
    assert pieces_drawn(page) == pieces_after(record, record.plies)  # the record's final position
    assert page.locator("#graph polyline.eval").count() == 1  # the engines' evaluations
    assert not problems
    if os.environ.get("CHESS_SCREENSHOTS"):
        page.keyboard.press("Home")
        for _ in range(24):
            page.keyboard.press("ArrowRight")
        page.screenshot(path=str(Path(os.environ["CHESS_SCREENSHOTS"]) / "published-chess.png"))
    page.close()
