"""The workbench's gate: management is off without ``--manage``; with it every management
request needs the access token even on loopback, and every change must come from the server's
own page (its Origin).  And an event started through it is no child that dies with the server."""

from __future__ import annotations

import json
import signal
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from gui_support import TOY_ENGINE, alive, descendants, gui_server, wait_gone


def request(
    url: str, *, body: dict[str, object] | None = None, headers: dict[str, str] | None = None
) -> tuple[int, str]:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(
        url,
        data=data,
        headers={"Content-Type": "application/json", **(headers or {})},
        method="POST" if body is not None else "GET",
    )
    try:
        with urllib.request.urlopen(req, timeout=30) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def test_management_is_off_without_the_option(tmp_path: Path) -> None:
    with gui_server("--events", str(tmp_path)) as server:
        assert "token" not in server.url
        for path in ("workbench", "api/workbench/engines"):
            status, text = request(server.base + path)
            assert status == 403 and "start dipole-gui with --manage" in text, (path, status, text)
        status, text = request(
            server.base + "api/workbench/engines/remove",
            body={"name": "x"},
            headers={"Origin": server.base.rstrip("/")},
        )
        assert status == 403 and "--manage" in text
        status, _ = request(server.base)  # the rest of the GUI is as before: no token on loopback
        assert status == 200
    assert not (tmp_path / "engines.json").exists()


def test_management_needs_the_token_on_loopback_and_the_pages_origin(tmp_path: Path) -> None:
    engines = tmp_path / "engines.json"
    engines.write_text(json.dumps({"engines": [{"name": "a", "cmd": "python3 -m dipole_engine"}]}))
    with gui_server("--manage", "--events", str(tmp_path)) as server:
        parts = urlsplit(server.url)
        assert parts.hostname == "127.0.0.1" and parts.path == "/workbench"
        token = parse_qs(parts.query)["token"][0]
        origin = f"http://{parts.netloc}"
        bearer = {"Authorization": f"Bearer {token}"}
        for path in ("workbench", "api/workbench/engines"):
            status, _ = request(server.base.replace("/workbench", "/") + path)
            assert status == 403, path
            status, _ = request(
                server.base.replace("/workbench", "/") + path, headers={"Authorization": "Bearer wrong-token"}
            )
            assert status == 403, path
        root = f"{origin}/"
        status, text = request(root + "api/workbench/engines", headers=bearer)
        assert status == 200 and json.loads(text)["engines"][0]["name"] == "a"
        remove = root + "api/workbench/engines/remove"
        for headers in (
            bearer,
            {**bearer, "Origin": "http://evil.example"},
            {**bearer, "Origin": f"http://localhost:{parts.port}"},
        ):
            status, text = request(remove, body={"name": "a"}, headers=headers)
            assert status == 403 and "own page" in text, (headers, status, text)
        assert '"a"' in engines.read_text()  # nothing was changed by the refused requests
        status, _ = request(remove, body={"name": "a"}, headers={"Origin": origin})  # no token
        assert status == 403
        status, text = request(remove, body={"name": "a"}, headers={**bearer, "Origin": origin})
        assert status == 200 and json.loads(text)["engines"] == []
        assert json.loads(engines.read_text())["engines"] == []


@pytest.mark.slow
def test_an_event_started_from_the_page_outlives_the_server(tmp_path: Path) -> None:
    """The arbiter runs in its own session: the GUI server stopped, it goes on; a new server
    lists it running and stops it cleanly (SIGINT), leaving an event to resume."""
    import sys
    import time

    from gui_support import TOY_ENGINE, GuiServer, alive

    from arbiter.events.running import event_runner, event_running

    engines = [{"name": name, "cmd": f"{sys.executable} {TOY_ENGINE} --think 50 --seed {name}"} for name in ("a", "b")]
    (tmp_path / "engines.json").write_text(json.dumps({"engines": engines}))
    form = {"name": "long", "engines": ["a", "b"], "games": "40", "st": "1", "openings": "plies", "openings_value": "2"}
    db = tmp_path / "long.db"
    first = GuiServer("--manage", "--events", str(tmp_path))
    try:
        parts = urlsplit(first.url)
        headers = {"Authorization": f"Bearer {parse_qs(parts.query)['token'][0]}", "Origin": f"http://{parts.netloc}"}
        status, text = request(f"http://{parts.netloc}/api/workbench/events/start", body=form, headers=headers)
        assert status == 200 and json.loads(text) == {"name": "long.db"}, text
        pid = event_runner(str(db))
        assert pid is not None
    finally:
        first.stop()
    time.sleep(1)
    assert alive(pid) and event_running(str(db))  # the server is gone, the event goes on
    second = GuiServer("--manage", "--events", str(tmp_path))
    try:
        parts = urlsplit(second.url)
        root = f"http://{parts.netloc}/api/workbench/"
        headers = {"Authorization": f"Bearer {parse_qs(parts.query)['token'][0]}", "Origin": f"http://{parts.netloc}"}
        status, text = request(root + "events", headers=headers)
        assert [(e["name"], e["state"]) for e in json.loads(text)["events"]] == [("long.db", "running")]
        status, text = request(root + "events/stop", body={"name": "long.db"}, headers=headers)
        assert status == 200, text
        deadline = time.monotonic() + 60
        while alive(pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not alive(pid)
        status, text = request(root + "events", headers=headers)
        assert [(e["name"], e["state"]) for e in json.loads(text)["events"]] == [("long.db", "interrupted")]
    finally:
        second.stop()
    assert "Interrupted by SIGINT" in (tmp_path / "long.db.log").read_text()


@pytest.mark.parametrize("kill", [signal.SIGKILL, signal.SIGTERM])
def test_a_check_and_its_engine_end_with_the_server(tmp_path: Path, kill: signal.Signals) -> None:
    """``check-engine`` run for the page is the server's child: the server killed (even with
    SIGKILL) during a check, neither the check nor its engine is left running."""
    pids = tmp_path / "pids"
    pids.mkdir()
    command = f"{sys.executable} {TOY_ENGINE} --think 500 --pid-dir {pids}"  # 60 positions: half a minute
    (tmp_path / "engines.json").write_text(json.dumps({"engines": [{"name": "slow", "cmd": command}]}))
    with gui_server("--manage", "--events", str(tmp_path)) as server:
        parts = urlsplit(server.url)
        headers = {
            "Authorization": f"Bearer {parse_qs(parts.query)['token'][0]}",
            "Origin": f"http://{parts.netloc}",
        }

        def start_check() -> None:
            try:
                request(
                    f"http://{parts.netloc}/api/workbench/engines/check",
                    body={"name": "slow", "timeout": "10"},
                    headers=headers,
                )
            except OSError:  # the server is killed under the request: the test's point
                pass

        check = threading.Thread(target=start_check, daemon=True)
        check.start()
        deadline = time.monotonic() + 120
        while not any(pids.iterdir()) and time.monotonic() < deadline:
            time.sleep(0.05)
        engines = {int(path.name) for path in pids.iterdir()}
        below = descendants(server.proc.pid)
        assert engines and below, "the check did not start its engine"
        assert any(b"check-engine" in Path(f"/proc/{pid}/cmdline").read_bytes() for pid in below if alive(pid))
        server.proc.send_signal(kill)
        left = wait_gone(below | engines, timeout=30)
        assert not left, [Path(f"/proc/{pid}/cmdline").read_bytes() for pid in left if alive(pid)]
        assert server.proc.wait(30) is not None
