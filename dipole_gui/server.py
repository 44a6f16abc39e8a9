"""The GUI's web server: a Starlette app with a few small routes and one WebSocket per page.

:func:`create_app` builds the app from a :class:`GuiConfig` and a list of routes; other
modules add their own pages by passing more routes (:func:`base_routes` are the GUI's)::

    app = create_app(config, [*base_routes(), Route("/watch", watch_page)])

Each WebSocket is a page attached to a game (:class:`~dipole_gui.session.Session`, its engines) that
belongs to the server: several pages may show one game, and a game lives on for a while after
its last page went away (:mod:`dipole_gui.games`); when the server stops every game is dropped.  With an access token (required when listening beyond loopback) every HTTP
request and every WebSocket must carry it: ``?token=`` on the first page load (the answer then
sets a cookie the page's later requests and sockets carry), the cookie, or an
``Authorization: Bearer`` header.  The cookie's name holds the server's port (a browser keeps
one cookie jar for every port of a host), so GUIs on two ports of one host keep their own.
The workbench's management token (``--manage``) is accepted wherever the access token is, but
never put in a cookie: a browser sends a host's cookies to every port of it, where any other
server of the host reads them (:mod:`dipole_gui.workbench.gate` says where it travels).
Without a token only requests naming a loopback address or ``localhost`` are served
(:func:`dipole_gui.addresses.loopback_host`).  WebSockets must also come from a page of this server
(their ``Origin`` names this host), so no other site open in the browser can drive the GUI.
"""

from __future__ import annotations

import contextlib
import hmac
import json
from collections.abc import AsyncIterator, Sequence
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse
from starlette.routing import BaseRoute, Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketDisconnect

from arbiter.board import STATIC as BOARD_STATIC

from .addresses import loopback_host
from .config import DEFAULT_KEEP, GuiConfig, engine_list, variant_list
from .games import Games

STATIC_DIR = Path(__file__).parent / "static"
BOARD_DIR = BOARD_STATIC  # board.js and board.css: one home, shared with published sites
TOKEN_COOKIE = "dipole_gui_token"  # then "_" and the server's port
SECURITY_HEADERS = [
    # Scripts and styles only from this server; no inline script can run even if text slipped in.
    (
        b"content-security-policy",
        (
            b"default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
            b"connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
        ),
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
]


async def board_file(request: Request) -> FileResponse:
    """``/static/board.js`` or ``board.css``, from the board drawing's home in arbiter."""
    return FileResponse(BOARD_DIR / request.url.path.rsplit("/", 1)[1])


async def index_page(request: Request) -> FileResponse:
    return FileResponse(STATIC_DIR / "index.html", media_type="text/html")


async def engines_endpoint(request: Request) -> JSONResponse:
    config: GuiConfig = request.app.state.config
    # ``manage``: the server serves the workbench (``--manage``), which the play page links to.
    manage = getattr(request.app.state, "workbench", None) is not None
    return JSONResponse({"engines": engine_list(config), "variants": variant_list(), "manage": manage})


async def game_socket(websocket: WebSocket) -> None:
    """A page's view of a game (``?game=ID``: the one it shows; else a new one): JSON messages
    both ways until the page goes away, when the game lives on (:mod:`dipole_gui.games`)."""
    games: Games = websocket.app.state.games
    await websocket.accept()

    async def send(message: dict[str, Any]) -> None:
        await websocket.send_text(json.dumps(message))

    client = websocket.client.host if websocket.client is not None else ""
    session, page = games.attach(websocket.query_params.get("game"), send, client)
    try:
        while True:
            text = await websocket.receive_text()
            await session.handle_text(text, page)
    except WebSocketDisconnect:
        pass
    finally:
        games.detach(session, page)


def base_routes() -> list[BaseRoute]:
    """The GUI's own routes: the page, its static files, the engine list, the game socket."""
    return [
        Route("/", index_page),
        Route("/api/engines", engines_endpoint),
        WebSocketRoute("/ws", game_socket),
        # the board's drawing lives with arbiter (arbiter/board/static), so that ``dipole-arbiter
        # publish`` ships the same file; the page asks for it beside its own files
        Route("/static/board.js", board_file),
        Route("/static/board.css", board_file),
        Mount("/static", app=StaticFiles(directory=STATIC_DIR), name="static"),
    ]


class AccessGuard:
    """ASGI middleware: the token (when there is one) on every request and socket, the origin
    check on sockets, and security headers on every answer."""

    def __init__(self, app: ASGIApp, token: str | None, manage_token: str | None = None) -> None:
        self.app = app
        self.token = token
        self.manage_token = manage_token

    @staticmethod
    def cookie_name(scope: Scope) -> str:
        """The token cookie of the server that took this request (its port)."""
        server = scope.get("server")
        return f"{TOKEN_COOKIE}_{server[1] if server and server[1] is not None else 'socket'}"

    def _valid(self, presented: str | None) -> bool:
        if self.token is None:
            return True
        return presented is not None and any(
            hmac.compare_digest(presented.encode(), token.encode())
            for token in (self.token, self.manage_token)
            if token is not None
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        if self.token is None and not _loopback_host(scope):
            # Without a token only loopback names reach the GUI: a page of another site whose
            # name was made to point at 127.0.0.1 (DNS rebinding) is refused.
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 4403, "reason": "forbidden"})
            else:
                await PlainTextResponse(
                    "403: without an access token this GUI answers only to loopback "
                    "addresses (127.0.0.1, [::1]) and localhost",
                    403,
                )(scope, receive, send)
            return
        presented, in_query = presented_token(scope)
        if scope["type"] == "websocket":
            if not self._valid(presented) or not _same_origin(scope):
                await send({"type": "websocket.close", "code": 4403, "reason": "forbidden"})
                return
            await self.app(scope, receive, send)
            return
        if not self._valid(presented):
            response = PlainTextResponse(
                "403: this GUI needs its access token: open the URL dipole-gui printed at start-up", 403
            )
            await response(scope, receive, send)
            return
        set_cookie = self.token is not None and in_query  # the access token's cookie, whichever came

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", [])) + SECURITY_HEADERS
                if set_cookie:
                    headers.append(
                        (
                            b"set-cookie",
                            f"{self.cookie_name(scope)}={self.token}; Path=/; HttpOnly; SameSite=Strict".encode(),
                        )
                    )
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


def presented_token(scope: Scope) -> tuple[str | None, bool]:
    """The token a request carries (query, bearer header or this port's cookie), and whether it
    came in the query string."""
    headers = {key.decode("latin-1").lower(): value.decode("latin-1") for key, value in scope["headers"]}
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
    if "token" in query:
        return query["token"][0], True
    authorization = headers.get("authorization", "")
    if authorization.lower().startswith("bearer "):
        return authorization[7:].strip(), False
    cookie = SimpleCookie()
    with contextlib.suppress(Exception):
        cookie.load(headers.get("cookie", ""))
    name = AccessGuard.cookie_name(scope)
    if name in cookie:
        return cookie[name].value, False
    return None, False


def _loopback_host(scope: Scope) -> bool:
    """Whether the request's Host header names this machine's loopback (any port)."""
    return loopback_host(dict(scope["headers"]).get(b"host", b"").decode("latin-1"))


def _same_origin(scope: Scope) -> bool:
    """A socket opened by a page of this server (or by a client that sends no Origin)."""
    headers: dict[str, str] = {
        key.decode("latin-1").lower(): value.decode("latin-1") for key, value in scope["headers"]
    }
    origin = headers.get("origin")
    if origin is None:
        return True
    return urlsplit(origin).netloc == headers.get("host", "")


def create_app(
    config: GuiConfig, routes: Sequence[BaseRoute] | None = None, keep_games: float = DEFAULT_KEEP
) -> Starlette:
    """The GUI's Starlette app: ``routes`` (default :func:`base_routes`) behind the access guard.

    ``app.state.config`` (reachable from every request as ``request.app.state.config``) is
    ``config``, and ``app.state.games`` the games (:class:`~dipole_gui.games.Games`: one dropped
    ``keep_games`` seconds after its last page went away).  Stopping the app drops every game.
    """
    games = Games(config, keep_games)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        games.close()

    app = Starlette(
        routes=list(base_routes() if routes is None else routes),
        lifespan=lifespan,
        middleware=[Middleware(AccessGuard, token=config.token, manage_token=config.manage_token)],
    )
    app.state.config = config
    app.state.games = games
    return app
