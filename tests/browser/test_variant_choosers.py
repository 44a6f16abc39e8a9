"""The variant choosers in a real Chromium: the board page's and the workbench's new-event form's
offer every installed game's variants (``gameplug.all_variants()``), the example Connect Four
and chess among them, in the registry's order."""

from __future__ import annotations

from pathlib import Path

from gui_support import gui_server
from playwright.sync_api import Browser, expect

import gameplug


def test_both_variant_choosers_offer_every_installed_variant(browser: Browser, tmp_path: Path) -> None:
    installed = [variant.name for variant in gameplug.all_variants()]
    assert {"dipole", "impasse", "chess", "connect-four"} <= set(installed)
    with gui_server("--manage", "--events", str(tmp_path)) as server:
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
