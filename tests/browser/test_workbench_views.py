"""What people see on the workbench, in a real Chromium: no tab scrolls sideways on a 390 px
phone; the ratings page's standings are a table that agrees cell by cell with ``dipole-arbiter
ratings`` (whose text is one click away), names shown as text; the "Started" line shows on the
events tab only and goes away; a match started from the form is a "match" on the events list and
on the watch page alike."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from gui_support import TOY_ENGINE, gui_server
from playwright.sync_api import Browser, Page, expect
from watch_support import arbiter

MARKUP = "<b>bold</b>&amp;"  # an engine name that would be markup if put in as HTML
NAMES = ("alpha", "beta", MARKUP)
TIMEOUT = 240_000  # ms: the shared 2-core machine is slow
# One line of the command's standings: rank, name, rating, error, interval, points, games, %,
# White %, Black %, the opponents' average, the flag.
STANDING = re.compile(
    r"^ +(\d+) (\S+) +(-?\d+\.\d) +(\d+\.\d) +\[ *(-?\d+\.\d), *(-?\d+\.\d)\] +(\d+\.\d) +(\d+)"
    r" +(\d+\.\d) +(\S+) +(\S+) +(-?\d+\.\d)(?: +(\S.*))?$",
    re.MULTILINE,
)


@pytest.fixture(scope="module")
def events_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An events directory with its engines file and two finished events (a tournament of three
    engines, one named in markup, and a match kept by ``match --db``)."""
    directory = tmp_path_factory.mktemp("events")
    engines = [
        {"name": name, "cmd": f"{sys.executable} {TOY_ENGINE} --seed {index}"} for index, name in enumerate(NAMES)
    ]
    (directory / "engines.json").write_text(json.dumps({"engines": engines}))
    for command, names, db in (("tournament", NAMES, "cup.db"), ("match", NAMES[:2], "duel.db")):
        words = [word for name in names for word in ("--engine", f"conf={name}")]
        settings = ["--st", "1", "--games", "4", "--opening-plies", "2", "--seed", "3"]
        made = arbiter(
            command, "--config", str(directory / "engines.json"), *words, *settings, "--db", str(directory / db)
        )
        assert made.returncode == 0, made.stderr
    return directory


def page_width(page: Page) -> int:
    return int(page.evaluate("document.documentElement.scrollWidth"))


@pytest.mark.slow
def test_no_tab_scrolls_sideways_on_a_phone(browser: Browser, events_dir: Path) -> None:
    with gui_server("--manage", "--events", str(events_dir)) as server:
        page = browser.new_page(viewport={"width": 390, "height": 800})
        page.goto(server.url)
        expect(page.locator("#engine-list tbody tr")).to_have_count(3)
        assert page_width(page) <= 390
        for tab, shown in (("new-event", "#ev-start"), ("events", '#event-list tr[data-name="duel.db"]')):
            page.goto(f"{server.base}#{tab}")
            expect(page.locator(shown)).to_be_visible()
            assert page_width(page) <= 390, tab
        page.goto(f"{server.base}#ratings")
        expect(page.locator("#ratings-table tbody tr")).to_have_count(3)
        assert page_width(page) <= 390
        # the standings fit as they are: nothing of them hidden in a box scrolled sideways
        assert page.evaluate(
            "(() => { const box = document.querySelector('#ratings-table').parentElement;"
            " return box.scrollWidth <= box.clientWidth; })()"
        )
        page.click('#ratings-table tr[data-engine="beta"]')
        expect(page.locator("#record-title")).to_have_text(re.compile(r"^beta: \d+ games$"))
        page.click("#ratings-command summary")
        expect(page.locator("#ratings-text")).to_be_visible()
        assert page_width(page) <= 390  # the command's text scrolls in its own box
        page.close()


def test_the_ratings_table_agrees_with_the_ratings_command(browser: Browser, events_dir: Path) -> None:
    command = arbiter("ratings", str(events_dir / "cup.db"), str(events_dir / "duel.db"))
    assert command.returncode == 0, command.stderr
    expected = [
        [
            rank,
            name,
            f"{rating} ± {error}",
            f"[{low}, {high}]",
            games,
            f"{points} ({percent}%)",
            *("\u2013" if side == "-" else f"{side}%" for side in (white, black)),
            opponents,
            f"[{flag}]" if flag else "",
        ]
        for rank, name, rating, error, low, high, points, games, percent, white, black, opponents, flag in (
            STANDING.findall(command.stdout.split("\n\n")[1])
        )
    ]
    assert sorted(row[1] for row in expected) == sorted(NAMES)
    with gui_server("--manage", "--events", str(events_dir)) as server:
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.goto(server.url + "#ratings")
        expect(page.locator("#ratings-table tbody tr")).to_have_count(3)
        shown = page.evaluate(
            """[...document.querySelectorAll('#ratings-table tbody tr')].map((row) => {
                const text = (selector) => row.querySelector(selector)?.textContent ?? '';
                return [text('td:first-child'), text('td.name button'), text('td.rating'), text('.interval'),
                    text('td.games'), text('td.score'), text('td.white'), text('td.black'), text('td.opponents'),
                    text('td.name .flag').trim()];
            })"""
        )
        assert shown == expected
        assert page.locator("#ratings-table b").count() == 0  # the name in markup is text
        # the command's text: one click away, the whole of it
        expect(page.locator("#ratings-text")).to_be_hidden()
        page.click("#ratings-command summary")
        expect(page.locator("#ratings-text")).to_be_visible()
        assert command.stdout.startswith(page.inner_text("#ratings-text").rstrip("\n"))
        notes = page.locator("#ratings-notes li").all_inner_texts()
        assert notes and all(line in command.stdout for line in notes), notes
        page.close()


def start_match(page: Page, name: str) -> None:
    page.goto(page.url.split("#")[0] + "#new-event")
    page.fill("#ev-name", name)
    for engine in NAMES[:2]:
        page.check(f'#ev-engines input[value="{engine}"]')
    page.select_option("#ev-format", "match")
    page.fill("#ev-games", "2")
    page.fill("#ev-st", "1")
    page.click("#ev-start")


@pytest.mark.slow
def test_started_shows_on_the_events_tab_then_goes_and_a_match_is_a_match(
    browser: Browser, tmp_path: Path, events_dir: Path
) -> None:
    (tmp_path / "engines.json").write_text((events_dir / "engines.json").read_text())
    with gui_server("--manage", "--events", str(tmp_path)) as server:
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.goto(server.url)
        expect(page.locator("#engine-list tbody tr")).to_have_count(3)
        message = page.locator("#message")

        start_match(page, "duel")
        expect(message).to_have_text("Started duel.db", timeout=TIMEOUT)
        expect(page.locator("#tab-events")).to_be_visible()
        for tab in ("engines", "ratings", "new-event", "events"):  # shown where it belongs only, and once
            page.goto(f"{server.base}#{tab}")
            expect(page.locator(f"#tab-{tab}")).to_be_visible()
            expect(message).to_be_hidden()

        start_match(page, "rematch")
        expect(message).to_have_text("Started rematch.db", timeout=TIMEOUT)
        expect(message).to_be_hidden(timeout=15_000)  # by itself, the events tab still shown
        expect(page.locator("#tab-events")).to_be_visible()

        duel = page.locator('#event-list tr[data-name="duel.db"]')
        expect(duel.locator(".note").first).to_have_text("match, dipole: alpha, beta")
        duel.locator("a.watch").click()
        settings = page.locator("#settings")
        expect(settings.locator("dt").first).to_have_text("Format")
        expect(settings.locator("dd").first).to_have_text("match, 2 engines")
        assert "round-robin" not in page.inner_text("body") and "pairing" not in page.inner_text("body")
        page.close()
