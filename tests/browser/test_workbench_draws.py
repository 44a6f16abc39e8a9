"""The workbench's new-event form in a real Chromium: its draw adjudication and max-moves fields
reach the arbiter, whose event then draws its games by them (shown finished in the list)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from gui_support import ROOT, gui_server
from playwright.sync_api import Browser, expect

from arbiter.events.store import EventStore

LEVEL = ROOT / "tests" / "engines" / "level_engine.py"  # reports score cp 0 with every move
TIMEOUT = 240_000  # ms: the shared 2-core machine is slow


def test_draw_fields_of_the_form_draw_the_games(browser: Browser, tmp_path: Path) -> None:
    engines = [{"name": name, "cmd": f"{sys.executable} {LEVEL} --seed {name}"} for name in ("alpha", "beta")]
    (tmp_path / "engines.json").write_text(json.dumps({"engines": engines}))
    with gui_server("--manage", "--events", str(tmp_path)) as server:
        page = browser.new_page()
        page.goto(server.url + "#new-event")
        expect(page.locator('#ev-engines input[value="beta"]')).to_be_visible()
        page.fill("#ev-name", "level")
        for name in ("alpha", "beta"):
            page.check(f'#ev-engines input[value="{name}"]')
        page.select_option("#ev-format", "round-robin")
        page.fill("#ev-games", "2")
        page.fill("#ev-depth", "1")
        page.fill("#ev-draw", "movenumber=3 movecount=2 score=0")
        page.fill("#ev-maxmoves", "40")
        page.click("#ev-start")
        row = page.locator('#event-list tr[data-name="level.db"]')
        expect(row).to_have_attribute("data-state", "finished", timeout=TIMEOUT)
        page.close()
    store = EventStore.open(str(tmp_path / "level.db"), write=False)
    try:
        outcomes = store.outcomes()
    finally:
        store.close()
    assert [(game.result, game.plies) for game in outcomes] == [("1/2-1/2", 6)] * 2
    assert all(game.reason.startswith("Draw by adjudication (adjudication: draw movenumber=3") for game in outcomes)
