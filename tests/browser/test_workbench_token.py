"""Where the management token travels, in a real Chromium: opened from the URL ``--manage``
printed, the workbench takes the token out of the address bar and the tab's history, keeps it in
no cookie, and sends it with its own requests only; a server on another port of the host, visited
by the same browser afterwards, receives nothing of it (a browser sends a host's cookies to all
of its ports)."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from gui_support import gui_server
from playwright.sync_api import Browser, expect


@contextlib.contextmanager
def listener() -> Iterator[tuple[int, list[str]]]:
    """A plain HTTP server on another loopback port: its port, and every request it received
    (request line and headers) as text."""
    received: list[str] = []

    class Recorder(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            received.append(f"{self.requestline}\n{self.headers}")
            body = b"<!doctype html><title>another server</title><p>another server"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1], received
    finally:
        server.shutdown()
        server.server_close()


def test_the_token_reaches_no_other_port_and_leaves_the_address_bar(browser: Browser, tmp_path: Path) -> None:
    with listener() as (port, received), gui_server("--manage", "--events", str(tmp_path)) as server:
        token = parse_qs(urlsplit(server.url).query)["token"][0]
        context = browser.new_context()
        page = context.new_page()
        page.goto(server.url + "#events")
        expect(page.locator("#events-dir")).to_have_text(str(tmp_path))  # its requests carried the token
        assert page.url == server.base + "#events"  # out of the address bar
        assert not any(token in cookie["value"] for cookie in context.cookies())

        page.goto(f"http://127.0.0.1:{port}/")
        expect(page.locator("p")).to_have_text("another server")
        page.goto(f"http://127.0.0.1:{port}/next")  # a second request, after any cookie was set
        assert len(received) == 2
        assert not any(token in request for request in received), received
        assert not any(line.lower().startswith("cookie:") for request in received for line in request.splitlines())

        history = []  # the tab's history, back from the last page: none of its entries holds the token
        while page.evaluate("history.length") > len(history) + 1:
            page.go_back()
            history.append(page.url)
            if page.url.startswith(server.base):
                expect(page.locator("#events-dir")).to_have_text(str(tmp_path))  # the page still manages
        assert history == [f"http://127.0.0.1:{port}/", server.base + "#events", "about:blank"]
        context.close()


def test_a_page_without_the_token_manages_nothing(browser: Browser, tmp_path: Path) -> None:
    """A browser that never opened the printed URL gets the page (403) and every request of it
    refused with the line that says which URL to open; a wrong token in the URL the same."""
    with gui_server("--manage", "--events", str(tmp_path)) as server:
        for url in (server.base, server.base + "?token=wrong-token"):
            page = browser.new_page()
            answer = page.goto(url + "#events")
            assert answer is not None and answer.status == 403
            expect(page.locator("#message")).to_have_text(
                "403: management needs the management token: open the URL dipole-gui --manage printed"
            )
            expect(page.locator("#events-dir")).to_have_text("")
            page.close()


def test_beyond_loopback_the_access_cookie_never_holds_the_management_token(browser: Browser, tmp_path: Path) -> None:
    """Listening on every address, the server asks for its access token on every request (a
    cookie the browser sends to every port of the host): the workbench's URL is let in with
    the management token, but the cookie it sets holds the access token, never that one."""
    with (
        listener() as (port, received),
        gui_server("--manage", "--host", "0.0.0.0", "--events", str(tmp_path)) as server,
    ):
        token = parse_qs(urlsplit(server.url).query)["token"][0]
        context = browser.new_context()
        page = context.new_page()
        page.goto(server.url + "#events")
        expect(page.locator("#events-dir")).to_have_text(str(tmp_path))
        cookies = context.cookies()
        assert cookies and not any(token in cookie["value"] for cookie in cookies)
        page.goto(f"http://127.0.0.1:{port}/")
        assert received and not any(token in request for request in received), received
        context.close()
