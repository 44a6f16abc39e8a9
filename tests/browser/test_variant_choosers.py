"""The variant choosers in a real Chromium: the board page's and the workbench's new-event form's
offer every installed game's variants (``gameplug.all_variants()``), the example Connect Four
and chess among them, in the registry's order."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from gui_support import gui_server
from playwright.sync_api import Browser, expect

if TYPE_CHECKING:  # (the fixture's type: tests/conftest.py, not the browser's conftest)
    from conftest import InstalledExample


INSTALLED = "import gameplug, json; print(json.dumps([variant.name for variant in gameplug.all_variants()]))"


def test_both_variant_choosers_offer_every_installed_variant(
    browser: Browser, tmp_path: Path, installed_example: InstalledExample
) -> None:
    env = installed_example.env  # (the example game installed as a package of its own)
    listed = subprocess.run([sys.executable, "-c", INSTALLED], capture_output=True, text=True, timeout=60, env=env)
    installed = json.loads(listed.stdout)
    assert {"dipole", "impasse", "chess", "connect-four"} <= set(installed)
    with gui_server("--manage", "--events", str(tmp_path), env=env) as server:
        page = browser.new_page()
        page.goto(server.url + "#new-event")
        expect(page.locator("#ev-variant option")).to_have_count(len(installed))
        assert page.eval_on_selector_all("#ev-variant option", "all => all.map(o => o.value)") == installed
        page.goto(server.base.replace("/workbench", "/"))
        expect(page.locator("#variant option")).to_have_count(len(installed))
        assert page.eval_on_selector_all("#variant option", "all => all.map(o => o.value)") == installed
        labels = page.eval_on_selector_all("#variant option", "all => all.map(o => o.textContent)")
        assert "connect-four (7\u00d76)" in labels and "chess (8\u00d78)" in labels  # (a multiplication sign)
        page.close()
