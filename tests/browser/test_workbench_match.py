"""The workbench's remaining pieces in a real Chromium: a two-engine match started from the
new-event form (``dipole-arbiter match --db``, with the arbiter's timeouts, time margin and
recovery set on the page; three engines refused in the arbiter's words) listed, stopped,
resumed and finished like any event; option values refused on save against the engine's
handshake; the play page's link to the workbench, there with ``--manage`` only.

``WORKBENCH_SCREENSHOTS=docs`` also saves docs/workbench-new-event.png.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from gui_support import TOY_ENGINE, alive, gui_server
from playwright.sync_api import Browser, Page, expect

from arbiter.events.running import event_runner
from arbiter.events.store import EventStore

SCREENSHOTS = os.environ.get("WORKBENCH_SCREENSHOTS")
TIMEOUT = 240_000  # ms: the shared 2-core machine is slow


def row(page: Page, name: str) -> object:
    return page.locator(f'#event-list tr[data-name="{name}"]')


@pytest.mark.slow
def test_a_match_from_the_form_is_listed_stopped_resumed_and_finished(browser: Browser, tmp_path: Path) -> None:
    engines = [
        {"name": name, "cmd": f"{sys.executable} {TOY_ENGINE} --think 150 --seed {name}"}
        for name in ("alpha", "beta", "gamma")
    ]
    (tmp_path / "engines.json").write_text(json.dumps({"engines": engines}))
    db = tmp_path / "duel.db"
    with gui_server("--manage", "--events", str(tmp_path)) as server:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(server.url + "#new-event")
        expect(page.locator('#ev-engines input[value="gamma"]')).to_be_visible()
        page.fill("#ev-name", "duel")
        for name in ("alpha", "beta", "gamma"):
            page.check(f'#ev-engines input[value="{name}"]')
        page.select_option("#ev-format", "match")
        expect(page.locator("#ev-rounds")).to_be_disabled()
        page.fill("#ev-games", "4")
        page.fill("#ev-st", "1")
        page.fill("#ev-timemargin", "400")
        page.fill("#ev-handshake-timeout", "25")
        page.fill("#ev-stall-timeout", "35")
        page.select_option("#ev-recover", "stop")
        page.select_option("#ev-openings", "plies")
        page.fill("#ev-openings-value", "2")
        page.fill("#ev-seed", "5")
        page.fill("#ev-sprt", "elo0=0 elo1=5 alpha=0.05 beta=0.05")
        page.click("#ev-start")
        expect(page.locator("#message")).to_have_text("a match is between two engines; 3 given", timeout=TIMEOUT)
        assert not db.exists()
        if SCREENSHOTS:
            page.screenshot(path=str(Path(SCREENSHOTS) / "workbench-new-event.png"), full_page=True)
        page.uncheck('#ev-engines input[value="gamma"]')
        page.click("#ev-start")
        expect(row(page, "duel.db")).to_have_attribute("data-state", "running", timeout=TIMEOUT)
        expect(row(page, "duel.db").locator(".note")).to_have_text("match, dipole: alpha, beta")
        pid = event_runner(str(db))
        assert pid is not None
        command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\x00")
        assert command[2:4] == [b"arbiter", b"match"], command
        store = EventStore.open(str(db), write=False)
        try:
            config = store.config
        finally:
            store.close()
        assert (config.referee.handshake_timeout, config.referee.stall_timeout, config.recover) == (25.0, 35.0, False)
        assert [spec.limits.margin for spec in config.engines] == [0.4, 0.4]
        assert config.sprt is not None and len(config.engines) == 2

        page.wait_for_function(
            "() => Number(document.querySelector('#event-list tr[data-name=\"duel.db\"]').dataset.done) >= 1",
            timeout=TIMEOUT,
        )
        row(page, "duel.db").locator("button.stop").click()
        expect(row(page, "duel.db")).to_have_attribute("data-state", "interrupted", timeout=TIMEOUT)
        deadline = time.monotonic() + 30
        while alive(pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not alive(pid)
        row(page, "duel.db").locator("button.resume").click()
        expect(row(page, "duel.db")).to_have_attribute("data-state", "finished", timeout=TIMEOUT)
        expect(row(page, "duel.db").locator(".progress")).to_contain_text("4 / 4")
        page.close()
    log = (tmp_path / "duel.db.log").read_text()
    assert "Interrupted by SIGINT" in log and "Finished tournament" in log, log


@pytest.mark.slow
def test_option_values_are_judged_on_save(browser: Browser, tmp_path: Path) -> None:
    """A spin outside its bounds (typed on the page), a combo value not among its values and a
    check that is not true/false (sent to the page's API) are each refused with one line naming
    the option and what it takes; the engines file is left as it was."""
    command = f"{sys.executable} {TOY_ENGINE} --more-options"
    engines_file = tmp_path / "engines.json"
    with gui_server("--manage", "--events", str(tmp_path)) as server:
        page = browser.new_page()
        page.goto(server.url)
        page.fill("#cmd", command)
        page.click("#connect")
        expect(page.locator("#engine-settings")).to_be_visible()
        page.fill("#name", "toy")
        page.fill('.option[data-name="Hash"] input', "500")
        page.click("#save")
        expect(page.locator("#message")).to_have_text("engine 'toy': option 'Hash' (spin) takes 1..64, not 500")
        assert not engines_file.exists()
        refusals = page.evaluate(
            """async (cmd) => {
                const answers = [];
                for (const options of [{ Style: "reckless" }, { Ponder: "maybe" }]) {
                    const answer = await fetch("/api/workbench/engines/save", {
                        method: "POST",
                        headers: {  // the page's token, as the page sends it: no cookie carries it
                            "Content-Type": "application/json",
                            Authorization: `Bearer ${localStorage.getItem("dipole-workbench-token")}`,
                        },
                        body: JSON.stringify({ engine: { name: "toy", cmd, options }, original: null }),
                    });
                    answers.push((await answer.json()).error);
                }
                return answers;
            }""",
            command,
        )
        assert refusals == [
            "engine 'toy': option 'Style' (combo) takes one of solid, wild, careful, not 'reckless'",
            "engine 'toy': option 'Ponder' (check) takes true or false, not 'maybe'",
        ]
        assert not engines_file.exists()
        page.fill('.option[data-name="Hash"] input', "64")
        page.click("#save")
        expect(page.locator('#engine-list tr[data-name="toy"]')).to_be_visible()
        assert json.loads(engines_file.read_text())["engines"][0]["options"] == {"Hash": "64"}
        page.close()


def test_the_play_page_links_to_the_workbench_only_when_managing(browser: Browser, tmp_path: Path) -> None:
    with gui_server("--manage", "--events", str(tmp_path)) as server:
        parts = urlsplit(server.url)
        page = browser.new_page()
        page.goto(f"{parts.scheme}://{parts.netloc}/?{parts.query}")
        link = page.locator("#workbench-link")
        expect(link).to_be_visible()
        link.click()
        expect(page.locator("#tab-engines")).to_be_visible()
        page.close()
    with gui_server() as server:
        page = browser.new_page()
        page.goto(server.url)
        expect(page.locator("#connection")).not_to_have_text("connecting…")
        page.wait_for_load_state("networkidle")
        assert page.locator("#workbench-link").is_hidden()
        page.close()
