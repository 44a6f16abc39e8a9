"""The workbench's engines page in a real Chromium: add an engine by its command, see its
handshake's options as controls of their types, set a spin and a combo, keep it in the file
``dipole-arbiter --config`` reads, duplicate it with other options and a depth cap, check it
with ``check-engine``, remove the duplicate, edit the file by hand.

``WORKBENCH_SCREENSHOTS=docs`` also saves docs/workbench-engines.png.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from gui_support import TOY_ENGINE, gui_server
from playwright.sync_api import Browser, expect

from arbiter.play.engines import load_config, resolve_engines

SCREENSHOTS = os.environ.get("WORKBENCH_SCREENSHOTS")
COMMAND = f"{sys.executable} {TOY_ENGINE} --more-options"


@pytest.mark.slow
def test_add_set_duplicate_check_and_remove_an_engine(browser: Browser, tmp_path: Path) -> None:
    engines_file = tmp_path / "engines.json"
    with gui_server("--manage", "--events", str(tmp_path)) as server:
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.goto(server.url)
        expect(page.locator("#no-engines")).to_be_visible()
        page.fill("#cmd", COMMAND)
        page.click("#connect")
        expect(page.locator("#engine-id")).to_have_text("Toy, by the arbiter tests: 6 options")
        hash_box = page.locator('.option[data-name="Hash"] input')
        assert (hash_box.get_attribute("type"), hash_box.get_attribute("min"), hash_box.get_attribute("max")) == (
            "number",
            "1",
            "64",
        )
        style = page.locator('.option[data-name="Style"] select')
        assert style.locator("option").all_inner_texts() == ["solid", "wild", "careful"]
        assert page.locator('.option[data-name="Ponder"] input').get_attribute("type") == "checkbox"
        assert page.locator('.option[data-name="Book File"] input').get_attribute("type") == "text"
        assert page.locator('.option[data-name="Clear Hash"]').is_visible()
        assert page.locator('.option[data-name="UCI_Variant"]').count() == 0  # the arbiter sets it
        page.fill("#name", "toy")
        hash_box.fill("8")
        style.select_option("wild")
        page.click("#save")
        expect(page.locator('#engine-list tr[data-name="toy"]')).to_be_visible()
        saved = json.loads(engines_file.read_text())["engines"]
        assert saved == [{"name": "toy", "cmd": COMMAND, "options": {"Hash": "8", "Style": "wild"}}]

        page.click('#engine-list tr[data-name="toy"] button.duplicate')
        expect(page.locator("#engine-settings")).to_be_visible()
        assert page.input_value("#name") == "toy-2"
        assert page.input_value('.option[data-name="Hash"] input') == "8"  # the copy starts as the original
        page.select_option('.option[data-name="Style"] select', "careful")
        page.fill("#depth", "3")
        page.click("#save")
        expect(page.locator('#engine-list tr[data-name="toy-2"]')).to_be_visible()
        # The arbiter reads the file as the page wrote it: one list for the command line and the GUI.
        specs = resolve_engines([["conf=toy", "st=1"], ["conf=toy-2"]], config=load_config(str(engines_file)))
        assert [(s.name, dict(s.options), s.limits.depth) for s in specs] == [
            ("toy", {"Hash": "8", "Style": "wild"}, None),
            ("toy-2", {"Hash": "8", "Style": "careful"}, 3),
        ]
        if SCREENSHOTS:
            page.click('#engine-list tr[data-name="toy"] button.edit')
            expect(page.locator('.option[data-name="Style"] select')).to_have_value("wild")
            page.screenshot(path=str(Path(SCREENSHOTS) / "workbench-engines.png"))
            page.click("#cancel")

        page.click('#engine-list tr[data-name="toy"] button.edit')
        expect(page.locator('.option[data-name="Style"] select')).to_have_value("wild")
        page.fill('.option[data-name="Hash"] input', "16")
        page.check('.option[data-name="Ponder"] input')
        page.click("#save")
        expect(page.locator('#engine-list tr[data-name="toy"]')).to_contain_text("option.Hash=16")
        assert json.loads(engines_file.read_text())["engines"][0]["options"] == {
            "Hash": "16",
            "Style": "wild",
            "Ponder": "true",
        }

        page.fill("#check-timeout", "2")
        page.click('#engine-list tr[data-name="toy"] button.check')
        page.wait_for_function("() => document.body.dataset.check === 'done'", timeout=240_000)
        output = page.inner_text("#check-output")
        assert output.startswith(f"Checking toy: {sys.executable} {TOY_ENGINE} --more-options"), output
        assert "ok    handshake: uci ... uciok" in output and " checks: " in output, output
        expect(page.locator("#check-title")).to_have_text("check-engine toy: failed")  # the toy skips much

        page.click('#engine-list tr[data-name="toy-2"] button.remove')
        expect(page.locator('#engine-list tr[data-name="toy-2"]')).to_have_count(0)
        assert [e["name"] for e in json.loads(engines_file.read_text())["engines"]] == ["toy"]
        # A hand edit of the file shows on the page; one the arbiter refuses shows its line.
        engines_file.write_text(json.dumps({"engines": [{"name": "own", "cmd": "python3 -m dipole_engine"}]}))
        page.reload()
        expect(page.locator('#engine-list tr[data-name="own"]')).to_be_visible()
        engines_file.write_text(json.dumps({"engines": [{"name": "bad", "colour": "red"}]}))
        page.reload()
        expect(page.locator("#message")).to_contain_text("unknown key 'colour'")
        page.close()
