"""The workbench's events in a real Chromium: a tournament started from the new-event form (an
invalid one refused with the arbiter's words first) runs as an ordinary arbiter in its own
session; the page closed and opened again finds it running; stopped (SIGINT), resumed, finished;
its PGN downloaded replays with ``dipole-arbiter replay``; an event started by hand in the same
directory is listed too.

``WORKBENCH_SCREENSHOTS=docs`` also saves docs/workbench-events.png (the new-event form's picture
is test_workbench_match.py's).
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from pathlib import Path

import pytest
from gui_support import TOY_ENGINE, alive, gui_server
from playwright.sync_api import Browser, Page, expect
from watch_support import arbiter

from arbiter.events.running import event_runner

SCREENSHOTS = os.environ.get("WORKBENCH_SCREENSHOTS")
TIMEOUT = 240_000  # ms: the shared 2-core machine is slow


def fill_form(page: Page, sprt: str = "") -> None:
    page.fill("#ev-name", "cup")
    for name in ("alpha", "beta", "gamma"):
        page.check(f'#ev-engines input[value="{name}"]')
    page.select_option("#ev-format", "round-robin")
    page.fill("#ev-games", "2")
    page.fill("#ev-rounds", "2")
    page.fill("#ev-st", "1")
    page.fill("#ev-concurrency", "2")
    page.select_option("#ev-openings", "plies")
    page.fill("#ev-openings-value", "2")
    page.fill("#ev-seed", "11")
    page.fill("#ev-sprt", sprt)


def row(page: Page, name: str) -> object:
    return page.locator(f'#event-list tr[data-name="{name}"]')


@pytest.mark.slow
def test_start_reopen_stop_resume_finish_and_export(browser: Browser, tmp_path: Path) -> None:
    engines = [
        {"name": name, "cmd": f"{sys.executable} {TOY_ENGINE} --think {think} --seed {name}"}
        for name, think in (("alpha", 40), ("beta", 30), ("gamma", 20))
    ]
    (tmp_path / "engines.json").write_text(json.dumps({"engines": engines}))  # written by hand
    by_hand = arbiter(
        "tournament",
        "--config",
        str(tmp_path / "engines.json"),
        "--engine",
        "conf=gamma",
        "--engine",
        "conf=beta",
        "--st",
        "1",
        "--games",
        "2",
        "--db",
        str(tmp_path / "hand.db"),
    )
    assert by_hand.returncode == 0, by_hand.stderr
    db = tmp_path / "cup.db"
    with gui_server("--manage", "--events", str(tmp_path)) as server:
        context = browser.new_context(viewport={"width": 1400, "height": 900}, accept_downloads=True)
        page = context.new_page()
        page.goto(server.url + "#new-event")
        expect(page.locator('#ev-engines input[value="gamma"]')).to_be_visible()
        fill_form(page, sprt="elo0=0 elo1=5 alpha=0.05 beta=0.05")
        page.click("#ev-start")
        expect(page.locator("#message")).to_have_text(
            "--sprt tests one engine against another: give exactly two engines, not 3", timeout=TIMEOUT
        )
        assert not db.exists()
        page.fill("#ev-sprt", "")
        page.click("#ev-start")
        expect(row(page, "cup.db")).to_have_attribute("data-state", "running", timeout=TIMEOUT)
        expect(row(page, "hand.db")).to_have_attribute("data-state", "finished")
        pid = event_runner(str(db))
        assert pid is not None and os.getsid(pid) == pid  # its own session: no signal of the GUI's reaches it
        page.close()

        page = context.new_page()  # the page closed and opened again: the event went on
        page.goto(server.base + "#events")
        expect(row(page, "cup.db")).to_have_attribute("data-state", "running")
        page.wait_for_function(
            "() => Number(document.querySelector('#event-list tr[data-name=\"cup.db\"]').dataset.done) >= 1",
            timeout=TIMEOUT,
        )
        if SCREENSHOTS:
            page.screenshot(path=str(Path(SCREENSHOTS) / "workbench-events.png"))
        row(page, "cup.db").locator("button.stop").click()
        expect(row(page, "cup.db")).to_have_attribute("data-state", "interrupted", timeout=TIMEOUT)
        deadline = time.monotonic() + 30
        while alive(pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not alive(pid)
        row(page, "cup.db").locator("button.resume").click()
        expect(row(page, "cup.db")).to_have_attribute("data-state", "running", timeout=TIMEOUT)
        expect(row(page, "cup.db")).to_have_attribute("data-state", "finished", timeout=TIMEOUT)
        expect(row(page, "cup.db").locator(".progress")).to_contain_text("12 / 12")

        with page.expect_download() as download:
            row(page, "cup.db").locator("a.pgn").click()
        pgn = tmp_path / "downloaded.pgn"
        download.value.save_as(pgn)
        replayed = arbiter("replay", str(pgn))
        assert replayed.returncode == 0 and replayed.stdout.strip().endswith("12 games replayed, all hold"), (
            replayed.stdout
        )
        with page.expect_download() as download:
            row(page, "cup.db").locator("a.report").click()
        report = tmp_path / "report.html"
        download.value.save_as(report)
        assert "<html" in report.read_text() and "alpha" in report.read_text()
        assert row(page, "cup.db").locator("a.watch").get_attribute("href") == "/watch?event=cup.db"
        context.close()
    log = (tmp_path / "cup.db.log").read_text()
    assert "Interrupted by SIGINT" in log and "Finished tournament" in log, log


def test_an_event_ended_by_its_sprt_is_finished(browser: Browser, tmp_path: Path) -> None:
    """An SPRT decision ends the event with games left unplayed: the list says finished, with the
    decision, and offers no Resume (``resume`` would play nothing)."""
    engines = [{"name": name, "cmd": f"{sys.executable} {TOY_ENGINE} --seed {name}"} for name in ("alpha", "beta")]
    (tmp_path / "engines.json").write_text(json.dumps({"engines": engines}))
    decided = arbiter(
        "tournament",
        "--config",
        str(tmp_path / "engines.json"),
        "--st",
        "1",
        "--games",
        "20",
        "--sprt",
        "elo0=0 elo1=400 alpha=0.45 beta=0.45",  # bounds of +-0.2: the first counted pair decides
        "--db",
        str(tmp_path / "sprt.db"),
    )
    assert decided.returncode == 0 and "accepted after 1 pairs" in decided.stdout, decided.stdout + decided.stderr
    with gui_server("--manage", "--events", str(tmp_path)) as server:
        page = browser.new_page()
        page.goto(server.url + "#events")
        expect(row(page, "sprt.db")).to_have_attribute("data-state", "finished")
        expect(row(page, "sprt.db").locator(".progress")).to_contain_text("2 / 20")
        expect(row(page, "sprt.db").locator(".decision")).to_have_text(re.compile(r"^SPRT H[01] accepted$"))
        assert row(page, "sprt.db").locator("button.resume").count() == 0
        page.close()
