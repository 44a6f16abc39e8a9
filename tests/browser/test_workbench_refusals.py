"""The new-event form's refusals: every bad field is one line naming the field (never an HTTP
500 or a traceback in the server's log), a refused start leaves no file in the events
directory, a file that is no openings file is not quoted, and the events started from the
workbench play no more games at once than ``--max-event-concurrency`` allows, in all."""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from gui_support import TOY_ENGINE, GuiServer, alive, gui_server, wait_gone
from playwright.sync_api import Browser, expect
from test_workbench_gate import request

from arbiter.events.running import event_runner

SECRET = "root:$6$Vq9hidden:20228:0:99999:7:::"
FORM = {"engines": ["a", "b"], "games": "2", "st": "1", "openings": "plies", "openings_value": "2"}


def write_engines(directory: Path, think: int = 0) -> None:
    engines = [
        {"name": name, "cmd": f"{sys.executable} {TOY_ENGINE} --think {think} --seed {name}"} for name in ("a", "b")
    ]
    (directory / "engines.json").write_text(json.dumps({"engines": engines}))


def start(server: GuiServer, form: dict[str, object]) -> tuple[int, str]:
    """POST the form as the workbench page does: the token in a header, the page's Origin."""
    parts = urlsplit(server.url)
    headers = {"Authorization": f"Bearer {parse_qs(parts.query)['token'][0]}", "Origin": f"http://{parts.netloc}"}
    return request(f"http://{parts.netloc}/api/workbench/events/start", body=form, headers=headers)


def stopped_log(server: GuiServer) -> str:
    server.stop()
    return server.proc.stderr.read() if server.proc.stderr else ""


@pytest.mark.parametrize(
    ("fields", "error"),
    [
        ({"name": "x" * 300}, "event name: at most 200 bytes (it names the event's files)"),
        ({"name": "two\nlines"}, "name: no control characters (a line break, a NUL)"),
        ({"name": "nul", "engines": ["a\x00b", "b"]}, "engines: no control characters (a line break, a NUL)"),
        ({"name": "nul", "seed": "1\x002"}, "seed: no control characters (a line break, a NUL)"),
        ({"name": "big", "engines": ["a" * 200_000, "b"]}, "engines: at most 1000 characters, not 200000"),
        ({"name": "who", "engines": ["a", "nobody"]}, "engines: no engine 'nobody' in the engines file"),
        ({"name": "tc", "tc": "banana", "st": ""}, "--tc: time control 'banana': expected [moves/]seconds"),
        (
            {"name": "many", "concurrency": "512", "games": "1000000"},
            "concurrency 512: the events running here may play 8 games at once in all "
            "(dipole-gui --max-event-concurrency) and play 0 now",
        ),
    ],
)
def test_a_bad_field_is_one_line_and_leaves_nothing(tmp_path: Path, fields: dict[str, object], error: str) -> None:
    write_engines(tmp_path)
    server = GuiServer("--manage", "--events", str(tmp_path))
    try:
        status, text = start(server, {**FORM, **fields})
        assert status == 400 and json.loads(text)["error"].startswith(error), text
        assert sorted(path.name for path in tmp_path.iterdir()) == ["engines.json"]  # no NAME.db, no NAME.db.log
    finally:
        log = stopped_log(server)
    assert "Traceback" not in log, log


def test_an_openings_file_that_is_no_openings_file_is_not_shown(tmp_path: Path) -> None:
    write_engines(tmp_path)
    secret = tmp_path / "shadow"
    secret.write_text(f"{SECRET}\n")
    with gui_server("--manage", "--events", str(tmp_path)) as server:
        status, text = start(server, {**FORM, "name": "peek", "openings": "file", "openings_value": str(secret)})
    assert status == 400 and json.loads(text)["error"] == (
        f"openings file {secret}: line 1 is no opening of dipole (a FEN, a FEN then moves, or moves from "
        "the start); is it an openings file?"
    )
    assert sorted(path.name for path in tmp_path.iterdir()) == ["engines.json", "shadow"]


def test_the_limit_counts_the_games_every_running_event_plays(tmp_path: Path) -> None:
    """With ``--max-event-concurrency 3``, an event playing 2 games at once leaves room for one
    more game: a second event asking for 2 is refused (nothing started), one asking for 1 runs."""
    write_engines(tmp_path, think=50)
    long = {**FORM, "games": "400"}
    server = GuiServer("--manage", "--events", str(tmp_path), "--max-event-concurrency", "3")
    runners: list[int] = []
    try:
        status, text = start(server, {**long, "name": "first", "concurrency": "2"})
        assert status == 200, text
        runners.append(event_runner(str(tmp_path / "first.db")) or -1)
        status, text = start(server, {**long, "name": "second", "concurrency": "2"})
        assert status == 400 and json.loads(text)["error"] == (
            "concurrency 2: the events running here may play 3 games at once in all "
            "(dipole-gui --max-event-concurrency) and play 2 now"
        )
        assert not (tmp_path / "second.db").exists() and not (tmp_path / "second.db.log").exists()
        status, text = start(server, {**long, "name": "third", "concurrency": "1"})
        assert status == 200, text
        runners.append(event_runner(str(tmp_path / "third.db")) or -1)
    finally:
        server.stop()
        for pid in runners:
            if alive(pid):
                os.kill(pid, signal.SIGINT)  # the arbiter's clean stop
    assert -1 not in runners and not wait_gone(set(runners), timeout=60)  # both ran; both stopped


def test_the_page_shows_a_refusal_as_one_line(browser: Browser, tmp_path: Path) -> None:
    write_engines(tmp_path)
    with gui_server("--manage", "--events", str(tmp_path)) as server:
        page = browser.new_page()
        page.goto(server.url + "#new-event")
        expect(page.locator('#ev-engines input[value="b"]')).to_be_visible()
        page.fill("#ev-name", "n" * 300)
        page.check('#ev-engines input[value="a"]')
        page.check('#ev-engines input[value="b"]')
        page.fill("#ev-st", "1")
        page.click("#ev-start")
        expect(page.locator("#message")).to_have_text("event name: at most 200 bytes (it names the event's files)")
        page.close()
    assert sorted(path.name for path in tmp_path.iterdir()) == ["engines.json"]
