"""The watch page in a real Chromium: a tournament run in a subprocess, watched from before it
starts, through a SIGKILL of its arbiter and ``dipole-arbiter resume``, to its end.

``WATCH_SCREENSHOT=docs/watch.png pytest tests/browser/test_watch_browser.py`` also saves the
README's screenshot of the running tournament.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from gui_support import TOY_ENGINE, gui_server
from playwright.sync_api import Browser, Page, expect
from watch_support import ARBITER

ENGINE = f"cmd={sys.executable} {TOY_ENGINE}"
SCREENSHOT = os.environ.get("WATCH_SCREENSHOT")
# An engine name that would be markup if put in as HTML (a plain one for the README's picture).
HOSTILE = "gamma" if SCREENSHOT else "<img_src=x_onerror=alert(1)>"
TIMEOUT = 120_000  # ms: the shared 2-core machine is slow, and an event takes a while


def tournament(db: Path, *extra: str) -> list[str]:
    # Engines that take their time over every move without using the CPU (toy engines that
    # sleep): the event, about 35 s, must still be running when the test kills it (after the
    # page has shown live moves, a second viewer and a finished game: slow on a busy machine),
    # and engines that searched all that time would slow the rest of the suite.
    engines = [
        arg
        for name, think in (("alpha", 130), ("beta", 100), (HOSTILE, 70))
        for arg in ("--engine", f"{ENGINE} --seed {think} --think {think} --pv 3", f"name={name}", "tc=120+1")
    ]
    return [
        *ARBITER,
        "tournament",
        *engines,
        "--games",
        "2",
        "--rounds",
        "2",
        "--concurrency",
        "2",
        "--opening-plies",
        "2",
        "--seed",
        "11",
        "--db",
        str(db),
        *extra,
    ]


def live_plies(page: Page) -> dict[int, int]:
    """Game number -> plies shown, for every live board on the page."""
    return {
        int(card.get_attribute("data-number")): int(card.get_attribute("data-plies"))  # type: ignore[arg-type]
        for card in page.locator(".live-game").all()
    }


def cli_standings(db: Path) -> dict[str, tuple[str, str]]:
    """Engine -> (rating, error) as ``dipole-arbiter ratings`` prints them."""
    result = subprocess.run([*ARBITER, "ratings", str(db)], capture_output=True, text=True, timeout=60, check=True)
    rows = re.findall(r"^\s+\d+ (\S+)\s+(-?\d+\.\d)\s+(\d+\.\d)\s+\[", result.stdout, re.MULTILINE)
    return {name: (rating, error) for name, rating, error in rows}


def page_standings(page: Page) -> dict[str, tuple[str, str]]:
    return {
        row.get_attribute("data-engine"): (
            row.locator(".rating").inner_text(),  # type: ignore[misc]
            row.locator(".error").inner_text(),
        )
        for row in page.locator("#standings tr[data-engine]").all()
    }


@pytest.mark.slow
def test_watch_a_tournament_through_a_kill_and_a_resume(browser: Browser, tmp_path: Path) -> None:
    db = tmp_path / "cup.db"
    arbiters: list[subprocess.Popen[bytes]] = []
    with gui_server("--watch", str(db)) as server:
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        try:
            page = context.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            assert server.url.endswith("/watch")
            page.goto(server.url)
            status = page.locator("#status")
            expect(status).to_have_attribute("data-state", "waiting", timeout=TIMEOUT)  # before the event
            expect(status).to_contain_text("does not exist yet")

            arbiters.append(subprocess.Popen(tournament(db), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            expect(status).to_have_attribute("data-state", "running", timeout=TIMEOUT)
            # A move of a game in progress appears on its board.
            expect(page.locator(".live-game").first).to_be_visible(timeout=TIMEOUT)
            page.wait_for_function(
                "() => [...document.querySelectorAll('.live-game')].some(card => Number(card.dataset.plies) > 2)",
                timeout=TIMEOUT,
            )
            before = live_plies(page)
            page.wait_for_function(
                "(before) => [...document.querySelectorAll('.live-game')].some(card =>"
                " Number(card.dataset.plies) > (before[card.dataset.number] ?? 2))",  # or a later game (2 book plies)
                arg={str(number): plies for number, plies in before.items()},
                timeout=TIMEOUT,
            )
            expect(page.locator(".live-game .line .score").first).to_have_text(re.compile(r"^-?[+#-]"), timeout=TIMEOUT)
            expect(page.locator(".live-game .clock").first).to_have_text(re.compile(r"^\d+:\d\d$"))

            # A second viewer sees the same event.
            other = context.new_page()
            other.goto(server.url)
            expect(other.locator("#status")).to_have_attribute("data-state", "running", timeout=TIMEOUT)

            # A finished game appears; then SIGKILL, while most of the event is still to play.
            expect(page.locator("#games tr.game").first).to_be_visible(timeout=TIMEOUT)
            if SCREENSHOT:
                page.wait_for_function(
                    "() => [...document.querySelectorAll('.live-game')]"
                    ".filter(card => Number(card.dataset.plies) >= 12).length >= 2",
                    timeout=TIMEOUT,
                )
                page.screenshot(path=SCREENSHOT, full_page=True)
            page.screenshot(path=str(tmp_path / "running.png"), full_page=True)
            arbiters[0].kill()
            arbiters[0].wait(timeout=30)

            # The finished games are in the standings and the crosstable.
            first = page.locator("#games tr.game").last  # the list is newest first
            white = first.locator("td.name").first.inner_text()
            expect(page.locator(f'#standings tr[data-engine="{white}"] .games')).not_to_have_text("0")
            expect(page.locator(f'#crosstable tr[data-engine="{white}"] td.cell').first).to_be_visible()
            cells = page.locator(f'#crosstable tr[data-engine="{white}"] td.cell').all_inner_texts()
            assert any(re.fullmatch(r"\d+-\d+/\d+-\d+", cell) for cell in cells), cells
            expect(page.locator("#progress-text")).to_contain_text("of 12 games")

            # The page says the event is not running, and how to go on.
            expect(status).to_have_attribute("data-state", "stopped", timeout=TIMEOUT)
            expect(status).to_contain_text("not running")
            expect(status).to_contain_text(f"dipole-arbiter resume {db}")
            expect(page.locator(".live-game")).to_have_count(0)
            expect(page.locator("#no-live")).to_contain_text("not running")
            page.screenshot(path=str(tmp_path / "stopped.png"), full_page=True)
            expect(other.locator("#status")).to_have_attribute("data-state", "stopped", timeout=TIMEOUT)
            other.goto(server.url + "?event=..%2Fetc%2Fpasswd")  # only the server's own events, by name
            expect(other.locator("#status")).to_have_text("No such event on this server", timeout=TIMEOUT)
            done = page.locator("#games tr.game").count()

            # Resume: the page follows the event on to its end.
            arbiters.append(
                subprocess.Popen([*ARBITER, "resume", str(db)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            )
            expect(status).to_have_attribute("data-state", "running", timeout=TIMEOUT)
            expect(page.locator(".live-game").first).to_be_visible(timeout=TIMEOUT)
            expect(status).to_have_attribute("data-state", "complete", timeout=4 * TIMEOUT)
            expect(page.locator("#games tr.game")).to_have_count(12)
            assert done < 12
            expect(page.locator("#progress-text")).to_have_text("12 of 12 games")
            expect(page.locator("#no-live")).to_have_text("The event is complete.")
            assert page_standings(page) == cli_standings(db)  # the numbers of `dipole-arbiter ratings`
            terminations = page.locator("#terminations li").all_inner_texts()
            assert sum(int(text.rsplit(": ", 1)[1]) for text in terminations) == 12

            # A finished game replays: step back and forth through it.
            page.locator("#games tr.game").last.click()
            expect(page.locator("#replay")).to_be_visible()
            expect(page.locator("#replay-title")).to_contain_text("Game 1:")
            expect(page.locator("#replay-moves .move").nth(2)).to_be_attached()  # the moves are drawn
            plies = page.locator("#replay-moves .move").count()
            expect(page.locator("#replay-moves .current")).to_have_attribute("data-ply", str(plies))
            page.click("#r-first")
            expect(page.locator("#replay-moves .current")).to_have_attribute("data-ply", "0")
            page.keyboard.press("ArrowRight")
            expect(page.locator("#replay-moves .current")).to_have_attribute("data-ply", "1")
            expect(page.locator("#replay-board .sq.last")).to_have_count(2)
            page.screenshot(path=str(tmp_path / "replay.png"), full_page=True)
            # Names from engines are text, never markup.
            expect(page.locator(f'#standings tr[data-engine="{HOSTILE}"] td.name')).to_contain_text(HOSTILE)
            assert page.locator("img").count() == 0

            # The GUI's own page leads to the event too.
            other.goto(server.base.removesuffix("watch"))
            other.click("#watch-link")
            other.get_by_role("link", name=db.name).click()
            expect(other.locator("#status")).to_have_attribute("data-state", "complete", timeout=TIMEOUT)
            expect(other.locator("#games tr.game")).to_have_count(12)
            assert errors == []
        finally:
            for process in arbiters:
                if process.poll() is None:
                    process.send_signal(signal.SIGTERM)
                    process.wait(timeout=30)
            context.close()


def test_watch_bad_input(tmp_path: Path) -> None:
    not_db = tmp_path / "notes.db"
    not_db.write_text("hello")
    code = "from dipole_gui.cli import main; main()"
    result = subprocess.run(
        [sys.executable, "-c", code, "--watch", str(not_db)], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 2
    assert result.stderr == (
        f"dipole-gui: error: --watch {not_db}: not an event database (not an SQLite database at all)\n"
    )
