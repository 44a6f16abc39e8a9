"""The workbench's ratings page in a real Chromium agrees with ``dipole-arbiter ratings`` over the
same event databases (every one in the events directory), and shows each engine's games and its
score by colour and by opponent.  ``WORKBENCH_SCREENSHOTS=docs`` also saves docs/workbench-ratings.png."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest
from gui_support import TOY_ENGINE, gui_server
from playwright.sync_api import Browser, expect
from watch_support import arbiter

SCREENSHOTS = os.environ.get("WORKBENCH_SCREENSHOTS")


def toy(name: str) -> list[str]:
    return ["--engine", f"cmd={sys.executable} {TOY_ENGINE} --seed {name}", f"name={name}"]


@pytest.mark.slow
def test_ratings_page_agrees_with_the_ratings_command(browser: Browser, tmp_path: Path) -> None:
    for db, names in (("one.db", ("alpha", "beta")), ("two.db", ("beta", "gamma", "alpha"))):
        made = arbiter(
            "tournament",
            *(word for name in names for word in toy(name)),
            "--st",
            "1",
            "--games",
            "2",
            "--opening-plies",
            "2",
            "--seed",
            "5",
            "--db",
            str(tmp_path / db),
        )
        assert made.returncode == 0, made.stderr
    (tmp_path / "notes.db").write_text("not an event")  # not an event database: left out by both
    command = arbiter("ratings", str(tmp_path / "one.db"), str(tmp_path / "two.db"))
    assert command.returncode == 0, command.stderr
    cli_rows = re.findall(r"^\s+\d+ (\S+)\s+(-?\d+\.\d)\s+(\d+\.\d)\s+\[", command.stdout, re.MULTILINE)
    assert len(cli_rows) == 3
    with gui_server("--manage", "--events", str(tmp_path)) as server:
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.goto(server.url + "#ratings")
        page.wait_for_function("() => document.body.dataset.ratings === 'shown'", timeout=60_000)
        shown = page.inner_text("#ratings-text")
        assert command.stdout.startswith(shown.rstrip("\n")), (shown, command.stdout)
        bars = [
            tuple(line.get_attribute(f"data-{key}") for key in ("engine", "rating", "error"))
            for line in page.locator(".chart-row").all()
        ]
        assert bars == cli_rows
        expect(page.locator("#ratings-games")).to_have_text("8 finished games")
        assert page.locator('.chart-row[data-engine="beta"] .chart-bar').bounding_box()["width"] > 0  # type: ignore[index]

        page.click('.chart-row[data-engine="beta"]')
        expect(page.locator("#record-title")).to_have_text("beta: 6 games")
        colours = [row.inner_text().split("\t")[:2] for row in page.locator("#record-colours tbody tr").all()]
        assert colours == [["White", "3"], ["Black", "3"]]
        opponents = {
            row.locator("td").first.inner_text(): row.locator("td").nth(1).inner_text()
            for row in page.locator("#record-opponents tbody tr").all()
        }
        assert opponents == {"alpha": "4", "gamma": "2"}
        games = page.locator("#record-games tbody tr")
        expect(games).to_have_count(6)
        assert all("beta" in row.inner_text() for row in games.all())
        if SCREENSHOTS:
            page.mouse.move(0, 0)  # no row under the pointer: the picture shows the chosen one only
            page.screenshot(path=str(Path(SCREENSHOTS) / "workbench-ratings.png"), full_page=True)
        page.close()
