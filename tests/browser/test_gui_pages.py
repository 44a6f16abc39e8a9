"""Browser tests of the GUI: watching engines, records, positions, analysis, bad input, security,
and the engines' lifetimes.  A real ``dipole-gui`` server, real engines, a real Chromium."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from gui_support import (
    ROOT,
    TOY_ENGINE,
    click_move,
    gui_server,
    open_page,
    start_game,
    wait_gone,
)
from playwright.sync_api import Browser, Page

from dipole_engine.rules import new_board

HOSTILE = '<script>window.__xss = 1</script><img src=x onerror="window.__xss = 2">'
SCREENSHOT_ENV = "GUI_SCREENSHOT"  # GUI_SCREENSHOT=docs/gui.png pytest ... remakes the README's picture


def wait_result(page: Page, timeout: float = 120_000) -> str:
    page.wait_for_function("() => document.body.dataset.result", timeout=timeout)
    return page.text_content("#banner") or ""


def no_markup_ran(page: Page) -> None:
    assert page.evaluate("() => window.__xss") is None
    assert page.locator("img").count() == 0
    assert page.locator("body script").count() == 0


@pytest.mark.slow
def test_engine_vs_engine_watched_to_the_end_and_saved(browser: Browser, tmp_path: Path) -> None:
    with gui_server() as server:
        page, errors = open_page(browser, server.url)
        start_game(page, variant="impasse", white="0", black="1", tc="movetime", movetime="0.05")
        page.wait_for_function("() => Number(document.body.dataset.plies) >= 4")
        assert len(server.descendants()) >= 2  # one engine process per seat
        banner = wait_result(page)
        assert banner.startswith(("1-0", "0-1")) and "no checkers left" in banner
        plies = int(page.get_attribute("body", "data-plies"))
        assert page.locator("#moves .move:not(.empty)").count() == plies
        assert wait_gone(server.descendants()) == set()  # the game is over: its engines are gone
        text = save_and_replay(page, tmp_path / "watched.pgn")
        assert '[Variant "impasse"]' in text and f'[PlyCount "{plies}"]' in text
        assert not errors


def save_and_replay(page: Page, path: Path) -> str:
    """Save the page's game as PGN (a download) and check it with ``dipole-arbiter replay``."""
    with page.expect_download() as download_info:
        page.click("#save-pgn")
    download_info.value.save_as(path)
    replay = subprocess.run(
        [sys.executable, "-c", "from arbiter.cli import main; main()", "replay", str(path)],
        check=False,
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert replay.returncode == 0, replay.stdout + replay.stderr
    assert "1 game replayed, all hold" in replay.stdout
    return path.read_text()


@pytest.mark.slow
def test_game_in_progress_screenshot_clock_thinking_takeback_resign(browser: Browser, tmp_path: Path) -> None:
    with gui_server() as server:
        page, errors = open_page(browser, server.url)
        start_game(page, variant="dipole", white="human", black="2", tc="clock", base_minutes="5", increment="3")
        page.wait_for_function("() => document.body.dataset.awaiting === 'human'")
        page.click('g.piece[data-square="c1"]')
        assert page.locator(".target-hit").count() >= 3  # the stack's legal targets are lit
        page.keyboard.press("Escape")
        assert page.locator(".target-hit").count() == 0
        for wanted in ("c1-c3", "c3-c5", "c1-d2", "c1-b2"):
            fen = page.input_value("#fen")
            legal = [str(move) for move in new_board("dipole", fen).legal_moves()]
            click_move(page, "dipole", fen, wanted if wanted in legal else legal[0])
            # The engine's thinking shows live.
            page.wait_for_function(
                "() => /^\\d/.test(document.getElementById('t-depth').textContent)"
            )  # under its label
            page.wait_for_function("() => document.body.dataset.awaiting === 'human'", timeout=60_000)
        # The human's clock ticks on the page.
        first = page.text_content("#clock-w")
        time.sleep(1.3)
        assert page.text_content("#clock-w") != first
        assert page.text_content("#t-pv")
        screenshot = Path(os.environ.get(SCREENSHOT_ENV) or tmp_path / "gui.png")
        page.screenshot(path=str(screenshot))
        assert screenshot.stat().st_size > 10_000
        # Take back: the human's last move and the engine's answer.
        plies = int(page.get_attribute("body", "data-plies"))
        page.click("#takeback")
        page.wait_for_function(f"() => Number(document.body.dataset.plies) === {plies - 2}")
        # Navigation: keys and clicks on the move list.
        page.keyboard.press("Home")
        page.wait_for_function("() => document.body.dataset.view === '0'")
        page.keyboard.press("ArrowRight")
        page.wait_for_function("() => document.body.dataset.view === '1'")
        page.click('#moves .move[data-ply="2"]')
        page.wait_for_function("() => document.body.dataset.view === '2'")
        page.keyboard.press("End")
        page.wait_for_function(f"() => document.body.dataset.view === '{plies - 2}'")
        # Flip: Black's side comes to the bottom.
        page.keyboard.press("f")
        assert page.get_attribute("#player-bottom", "data-side") == "b"
        page.click("#resign")
        page.click("#resign")  # "Confirm resign?"
        assert wait_result(page).startswith("0-1 · White resigns")
        text = save_and_replay(page, tmp_path / "resigned.pgn")
        assert '[Result "0-1"]' in text and "{White resigns} 0-1" in text
        assert not errors


def hostile_pgn(tmp_path: Path) -> Path:
    """Two games from a real match, the second with hostile tags."""
    records = tmp_path / "match.pgn"
    subprocess.run(
        [
            sys.executable,
            "-c",
            "from arbiter.cli import main; main()",
            "match",
            "--games",
            "2",
            "--depth",
            "1",
            "--engine",
            f"cmd={sys.executable} -m dipole_engine",
            "name=a",
            "--engine",
            f"cmd={sys.executable} -m dipole_engine",
            "name=b",
            "--pgn",
            str(records),
        ],
        check=True,
        capture_output=True,
        cwd=ROOT,
        timeout=300,
    )
    text = records.read_text()
    first, second = text.split("\n\n[Event")
    second = "[Event" + second
    second = second.replace('[White "b"]', '[White "' + HOSTILE.replace('"', '\\"') + '"]')
    path = tmp_path / "hostile.pgn"
    path.write_text(first + "\n\n" + second)
    return path


@pytest.mark.slow
def test_pgn_opened_picked_and_stepped_through_as_text(browser: Browser, tmp_path: Path) -> None:
    path = hostile_pgn(tmp_path)
    with gui_server() as server:
        page, errors = open_page(browser, server.url)
        page.set_input_files("#pgn-file", str(path))
        page.wait_for_function("() => document.querySelectorAll('#pgn-games option').length === 2")
        page.select_option("#pgn-games", "1")
        page.wait_for_function("() => document.getElementById('player-bottom').textContent.includes('<script>')")
        assert HOSTILE in page.text_content("#player-bottom")
        assert HOSTILE in page.locator("#pgn-games option").nth(1).text_content()
        no_markup_ran(page)
        plies = int(page.get_attribute("body", "data-plies"))
        assert plies > 10 and page.get_attribute("body", "data-view") == "0"
        fens = []
        for ply in range(1, 6):
            page.keyboard.press("ArrowRight")
            page.wait_for_function(f"() => document.body.dataset.view === '{ply}'")
            fens.append(page.input_value("#fen"))
        assert len(set(fens)) == 5
        assert page.locator("rect.sq.last").count() >= 1  # the last move is marked
        page.click("#nav-last")
        page.wait_for_function(f"() => document.body.dataset.view === '{plies}'")
        assert page.text_content("#banner").startswith(("1-0", "0-1"))
        # A bad PGN: one clear line, and the game shown stays.
        bad = tmp_path / "bad.pgn"
        bad.write_text('[Event "x"]\n[Variant "dipole"]\n\n1. c1-c3 zz9-q1 1-0\n')
        page.set_input_files("#pgn-file", str(bad))
        page.wait_for_selector("#message.error")
        assert "bad PGN" in page.text_content("#message")
        assert page.get_attribute("body", "data-plies") in (str(plies), "1")
        assert not errors


def test_fen_set_up_forced_pass_shown_and_bad_fen_reported(browser: Browser) -> None:
    with gui_server() as server:
        page, errors = open_page(browser, server.url)
        page.select_option("#variant", "dipole")
        page.fill("#fen", "W:W1d4:B2c5,2e5")  # White can only pass
        page.click("#setup")
        page.wait_for_function("() => document.body.dataset.plies === '1'")
        assert page.locator("#moves .move.forced").text_content() == "pass"
        assert page.get_attribute("body", "data-turn") == "b"
        assert page.locator("g.piece").count() == 3
        page.fill("#fen", "W:W1d4:B2c5,2z9")
        page.click("#setup")
        page.wait_for_selector("#message.error")
        assert "bad FEN" in page.text_content("#message")
        assert page.get_attribute("body", "data-plies") == "1"  # the position shown is kept
        # A 10x10 variant draws its 10x10 board.
        page.select_option("#variant", "dipole-10")
        page.fill("#fen", new_board("dipole-10").fen())
        page.click("#setup")
        page.wait_for_function("() => document.querySelectorAll('rect.sq').length === 100")
        page.click("#copy-fen")
        assert page.input_value("#fen") == new_board("dipole-10").fen()
        # An engine game from a set-up position ("Start: position shown").
        position = new_board("dipole", "B:W3c3,2e1:B4d6,1h8").fen()
        page.select_option("#variant", "dipole")
        page.fill("#fen", position)
        page.click("#setup")
        # The server's answer (the FEN field holds the text typed into it until then): an 8x8
        # board, Black to move.
        page.wait_for_function(
            "() => document.querySelectorAll('rect.sq').length === 64 && document.body.dataset.turn === 'b'"
        )
        start_game(page, variant="dipole", white="human", black="0", tc="depth", depth="2", start="current")
        page.wait_for_function("() => document.body.dataset.plies === '1'")  # the engine, Black, moved
        page.click("#nav-first")
        page.wait_for_function(f"() => document.getElementById('fen').value === '{position}'")
        assert not errors


def test_analysis_starts_updates_and_stops(browser: Browser) -> None:
    with gui_server() as server:
        page, errors = open_page(browser, server.url)
        page.select_option("#analysis-engine", "3")
        page.click("#analyse")
        page.wait_for_function(
            "() => /^([3-9]|\\d\\d)/.test(document.getElementById('t-depth').textContent)", timeout=60_000
        )
        assert page.text_content("#thinking-who") == "· analysis"
        assert page.text_content("#t-pv")
        # A move on the board (a free game: no engine plays): the analysis follows the position.
        page.click('g.piece[data-square="c1"]')
        page.click('.target-hit[data-target="c3"]')
        page.wait_for_function("() => document.body.dataset.plies === '1'")
        after = new_board("dipole", page.input_value("#fen"))
        legal = {str(move) for move in after.legal_moves()}
        page.wait_for_function(
            "legal => legal.includes(document.getElementById('t-pv').textContent.split(' ')[0])",
            arg=sorted(legal),
            timeout=60_000,
        )
        engines = server.descendants()
        assert len(engines) == 1
        page.click("#analyse-stop")
        assert wait_gone(engines) == set()
        assert not errors


@pytest.mark.slow
def test_hostile_engine_name_is_text(browser: Browser) -> None:
    engine = f"cmd={sys.executable} -m dipole_engine"
    with gui_server("--engine", engine, f"name={HOSTILE}", "depth=1") as server:
        page, errors = open_page(browser, server.url)
        assert page.locator("#black option").nth(1).text_content() == HOSTILE
        start_game(page, variant="dipole", white="0", black="0", tc="depth", depth="1")
        page.wait_for_function("() => Number(document.body.dataset.plies) >= 2")
        assert HOSTILE in page.text_content("#player-top")
        no_markup_ran(page)
        assert not errors


@pytest.mark.slow
def test_crashed_engine_reported_and_server_keeps_running(browser: Browser) -> None:
    crash = f"cmd={sys.executable} {TOY_ENGINE} --crash --after 3"
    with gui_server(
        "--engine", crash, "name=crasher", "--engine", f"cmd={sys.executable} {TOY_ENGINE}", "name=steady"
    ) as server:
        page, errors = open_page(browser, server.url)
        start_game(page, variant="dipole", white="0", black="1", tc="movetime", movetime="0.2")
        banner = wait_result(page, 60_000)
        assert banner.startswith("0-1 · White disconnects"), banner
        message = page.text_content("#message")
        assert "crashed" in message and "crasher" in message and "the game so far is kept" in message
        assert page.get_attribute("body", "data-plies") == "4"
        # The server goes on: a new game starts.
        start_game(page, variant="dipole", white="1", black="1", tc="movetime", movetime="0.05")
        page.wait_for_function("() => Number(document.body.dataset.plies) >= 3")
        assert not errors


@pytest.mark.slow
def test_engines_die_with_the_page_and_with_a_killed_server(browser: Browser) -> None:
    with gui_server("--keep-games", "0") as server:  # a game is dropped as soon as its last page goes
        page, _ = open_page(browser, server.url)
        start_game(page, variant="dipole", white="3", black="3", tc="clock", base_minutes="10")
        page.wait_for_function("() => /^\\d/.test(document.getElementById('t-depth').textContent)")
        engines = server.descendants()
        assert len(engines) == 2
        page.close()
        assert wait_gone(engines) == set()
        page, _ = open_page(browser, server.url)
        start_game(page, variant="dipole", white="3", black="3", tc="clock", base_minutes="10")
        page.wait_for_function("() => /^\\d/.test(document.getElementById('t-depth').textContent)")
        engines = server.descendants()
        assert len(engines) == 2
        os.kill(server.proc.pid, signal.SIGKILL)
        server.proc.wait()
        assert wait_gone(engines) == set()
        page.close()
    with gui_server() as server:  # stopped in the middle of a game (SIGTERM, as Ctrl-C)
        page, _ = open_page(browser, server.url)
        start_game(page, variant="impasse", white="3", black="3", tc="clock", base_minutes="10")
        page.wait_for_function("() => /^\\d/.test(document.getElementById('t-depth').textContent)")
        engines = server.descendants()
        assert len(engines) == 2
        started = time.monotonic()
        server.stop()
        assert time.monotonic() - started < 5
        assert wait_gone(engines) == set()
        page.close()


def fetch(url: str, headers: dict[str, str] | None = None) -> tuple[int, str, dict[str, str]]:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, answer.read().decode(), dict(answer.headers)
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode(), dict(error.headers)


def socket_opens(url: str, headers: dict[str, str], port: int | None = None) -> bool:
    """Whether a WebSocket to ``url`` is accepted (and says hello); with ``port``, the socket goes
    to that port of 127.0.0.1, whatever host ``url`` names."""
    import websockets
    from websockets.sync.client import connect

    sock = None if port is None else socket.create_connection(("127.0.0.1", port))
    try:
        with connect(url, additional_headers=headers, open_timeout=10, sock=sock) as opened:
            return json.loads(opened.recv(timeout=10))["type"] == "hello"
    except (websockets.exceptions.InvalidStatus, websockets.exceptions.ConnectionClosed):
        return False


def test_token_checked_on_every_request_and_socket(browser: Browser) -> None:
    with gui_server("--token", "secret-token-123") as server:
        base = server.base
        assert server.url.endswith("?token=secret-token-123")
        for path in ("", "static/app.js", "static/board.js", "api/engines"):
            status, body, _ = fetch(base + path)
            assert status == 403, path
        assert fetch(base + "api/engines?token=wrong")[0] == 403
        status, body, headers = fetch(base + "api/engines", {"Authorization": "Bearer secret-token-123"})
        assert status == 200 and "Dipole engine" in body
        status, _, headers = fetch(server.url)
        assert status == 200 and "HttpOnly" in headers["set-cookie"]
        assert "script-src 'self'" in headers["content-security-policy"]
        ws = base.replace("http:", "ws:") + "ws"
        assert not socket_opens(ws, {})
        assert not socket_opens(ws + "?token=wrong", {})
        assert socket_opens(ws + "?token=secret-token-123", {})
        # A page of another site cannot open the socket, even with the cookie.
        port = base.rsplit(":", 1)[1].strip("/")
        assert socket_opens(ws, {"Cookie": f"dipole_gui_token_{port}=secret-token-123"})
        assert not socket_opens(
            ws, {"Cookie": f"dipole_gui_token_{port}=secret-token-123", "Origin": "http://evil.example"}
        )
        # The browser, given the printed URL, plays on: the cookie carries the token.
        page, errors = open_page(browser, server.url)
        page.wait_for_function("() => document.getElementById('connection').textContent === 'connected'")
        assert not errors


def test_without_a_token_only_loopback_names_are_served() -> None:
    with gui_server() as server:
        port = server.base.rsplit(":", 1)[1].strip("/")
        assert fetch(server.base + "api/engines")[0] == 200
        assert fetch(server.base + "api/engines", {"Host": f"localhost:{port}"})[0] == 200
        status, body, _ = fetch(server.base + "api/engines", {"Host": f"rebound.example:{port}"})
        assert status == 403 and "only to loopback addresses (127.0.0.1, [::1]) and localhost" in body
        ws = server.base.replace("http:", "ws:") + "ws"
        assert socket_opens(ws, {})
        assert not socket_opens(ws, {"Host": f"rebound.example:{port}", "Origin": f"http://rebound.example:{port}"})


def test_non_loopback_host_needs_a_token() -> None:
    from dipole_gui.cli import access_token, is_loopback

    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.5")
    assert access_token("127.0.0.1", None) is None
    made = access_token("0.0.0.0", None)
    assert made is not None and len(made) >= 16
    assert access_token("0.0.0.0", "given-token") == "given-token"


def test_host_names_are_loopback_only_as_literal_addresses_or_localhost() -> None:
    with gui_server() as server:
        port = server.base.rsplit(":", 1)[1].strip("/")
        for host in (f"127.0.0.2:{port}", "127.255.0.9", f"[::1]:{port}", "[::1]", f"LocalHost:{port}"):
            assert fetch(server.base + "api/engines", {"Host": host})[0] == 200, host
        for host in (
            f"127.evil.example:{port}",
            "127.0.0.1.evil.example",
            f"127.1:{port}",
            f"::1:{port}",
            f"[::1].example:{port}",
            f"localhost.example:{port}",
            f"127.0.0.1:{port}x",
        ):
            assert fetch(server.base + "api/engines", {"Host": host})[0] == 403, host
        # A socket to the server, named as a page of each name would name it (Host and Origin).
        assert socket_opens(f"ws://127.0.0.2:{port}/ws", {"Origin": f"http://127.0.0.2:{port}"}, int(port))
        assert not socket_opens(
            f"ws://127.evil.example:{port}/ws", {"Origin": f"http://127.evil.example:{port}"}, int(port)
        )


@pytest.mark.slow
def test_two_guis_on_one_host_keep_their_own_token_cookie(browser: Browser) -> None:
    with gui_server("--token", "first-token-1") as one, gui_server("--token", "second-token-2") as two:
        context = browser.new_context()
        for server in (one, two):  # each opened from the URL it printed: its cookie is set
            page = context.new_page()
            page.goto(server.url)
            page.wait_for_function("() => document.getElementById('connection').textContent === 'connected'")
            page.close()
        ports = {server.base.rsplit(":", 1)[1].strip("/") for server in (one, two)}
        assert {cookie["name"] for cookie in context.cookies()} == {f"dipole_gui_token_{port}" for port in ports}
        for server in (one, two):  # then without the token in the URL: each cookie still carries its own
            page = context.new_page()
            answer = page.goto(server.base)
            assert answer is not None and answer.status == 200
            page.wait_for_function("() => document.getElementById('connection').textContent === 'connected'")
            page.close()
        context.close()


@pytest.mark.slow
def test_a_game_over_the_servers_limit_is_refused_on_the_page(browser: Browser) -> None:
    with gui_server("--max-games", "1", "--keep-games", "0") as server:
        first, _ = open_page(browser, server.url)
        start_game(first, variant="dipole", white="human", black="0", tc="depth", depth="1")
        deadline = time.monotonic() + 30
        while len(engines := server.descendants()) != 1 and time.monotonic() < deadline:  # its engine starts
            time.sleep(0.05)
        second, errors = open_page(browser, server.url)
        start_game(second, variant="dipole", white="human", black="0", tc="depth", depth="1")
        second.wait_for_selector("#message.error")
        assert second.text_content("#message") == (
            "the game was not started: the server runs as many games and analyses with engines as it may at once "
            "(1: dipole-gui --max-games); try again when one has ended"
        )
        assert "Human" in second.text_content("#player-top")  # the game shown has no engine
        assert server.descendants() == engines and len(engines) == 1
        first.close()  # the first page's game ends with it (--keep-games 0), and its place is free
        assert wait_gone(engines) == set()
        start_game(second, variant="dipole", white="human", black="0", tc="depth", depth="1")
        click_move(second, "dipole", second.input_value("#fen"), "c1-c3")
        second.wait_for_function("() => document.body.dataset.plies === '2'")  # the engine answered
        assert not errors
