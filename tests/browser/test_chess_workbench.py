"""The workbench runs a chess event with the real Stockfish, all from the browser: Stockfish added
on the engines page by its command (its handshake's options shown), kept at three depth caps,
a chess round-robin of the three started from the new-event form (its variant chooser lists
chess and Chess960) and finished, its PGN downloaded (chess in SAN, as python-chess reads it),
and its ratings on the ratings page as ``dipole-arbiter ratings`` gives them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import chess.pgn
import pytest
from chess_support import stockfish
from gui_support import gui_server
from playwright.sync_api import Browser, Page, expect
from watch_support import arbiter

__all__ = ["stockfish"]  # (a fixture)

TIMEOUT = 240_000  # ms: the shared 2-core machine is slow
DEPTHS = {"sf-d1": "1", "sf-d3": "3", "sf-d5": "5"}


def keep_engine(page: Page, name: str, depth: str) -> None:
    page.fill("#name", name)
    page.fill("#depth", depth)
    page.click("#save")
    expect(page.locator(f'#engine-list tr[data-name="{name}"]')).to_be_visible()


@pytest.mark.slow
def test_a_stockfish_chess_round_robin_from_the_workbench(browser: Browser, stockfish: str, tmp_path: Path) -> None:
    with gui_server("--manage", "--events", str(tmp_path)) as server:
        page = browser.new_page(viewport={"width": 1400, "height": 900}, accept_downloads=True)
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(server.url)

        # Stockfish, by its command: its options as controls; kept at three depth caps.
        page.fill("#cmd", stockfish)
        page.click("#connect")
        expect(page.locator("#engine-id")).to_contain_text("Stockfish")
        expect(page.locator('.option[data-name="Hash"] input')).to_have_attribute("type", "number")
        page.fill('.option[data-name="Hash"] input', "8")  # (16 is its default: not kept)
        names = list(DEPTHS)
        keep_engine(page, names[0], DEPTHS[names[0]])
        for name in names[1:]:
            page.click(f'#engine-list tr[data-name="{names[0]}"] button.duplicate')
            expect(page.locator("#engine-settings")).to_be_visible()
            keep_engine(page, name, DEPTHS[name])
        saved = json.loads((tmp_path / "engines.json").read_text())["engines"]
        assert [(e["name"], e["cmd"], e.get("depth"), e.get("options")) for e in saved] == [
            (name, stockfish, depth, {"Hash": "8"}) for name, depth in DEPTHS.items()
        ]

        # The new event: chess among the variants, a round-robin of the three.
        page.goto(server.url + "#new-event")
        variants = page.locator("#ev-variant option").evaluate_all("(options) => options.map((o) => o.value)")
        assert {"chess", "chess960"} <= set(variants), variants
        page.fill("#ev-name", "chess-cup")
        for name in names:
            page.check(f'#ev-engines input[value="{name}"]')
        page.select_option("#ev-variant", "chess")
        page.select_option("#ev-format", "round-robin")
        page.fill("#ev-games", "2")
        page.fill("#ev-tc", "60+1")
        page.fill("#ev-concurrency", "2")
        page.click("#ev-start")
        event = page.locator('#event-list tr[data-name="chess-cup.db"]')
        expect(event).to_have_attribute("data-state", "running", timeout=TIMEOUT)
        expect(event).to_have_attribute("data-state", "finished", timeout=TIMEOUT)
        expect(event.locator(".progress")).to_contain_text("6 / 6")
        log = (tmp_path / "chess-cup.db.log").read_text()
        assert "variant chess," in log and "Finished tournament" in log, log

        # Its games, downloaded from the list: six chess games in SAN that python-chess reads.
        with page.expect_download() as download:
            event.locator("a.pgn").click()
        pgn = tmp_path / "downloaded.pgn"
        download.value.save_as(pgn)
        games = []
        with pgn.open() as text:
            while (game := chess.pgn.read_game(text)) is not None:
                games.append(game)
        assert len(games) == 6 and all(game.headers["Variant"] == "chess" and not game.errors for game in games)
        assert re.search(r"\n1\. [NBRQK]?[a-h]?[1-8]?x?[a-h][1-8] ", pgn.read_text())  # SAN

        # The ratings page: the three engines, as `dipole-arbiter ratings` rates them.
        command = arbiter("ratings", str(tmp_path / "chess-cup.db"))
        assert command.returncode == 0, command.stderr
        cli_rows = re.findall(r"^\s+\d+ (\S+)\s+(-?\d+\.\d)\s+(\d+\.\d)\s+\[", command.stdout, re.MULTILINE)
        page.goto(server.url + "#ratings")
        page.wait_for_function("() => document.body.dataset.ratings === 'shown'", timeout=TIMEOUT)
        expect(page.locator("#ratings-games")).to_have_text("6 finished games")
        bars = [
            tuple(line.get_attribute(f"data-{key}") for key in ("engine", "rating", "error"))
            for line in page.locator(".chart-row").all()
        ]
        assert bars == cli_rows and {row[0] for row in bars} == set(names)
        page.click(f'.chart-row[data-engine="{names[2]}"]')
        expect(page.locator("#record-title")).to_have_text(f"{names[2]}: 4 games")
        assert not errors
        page.close()
