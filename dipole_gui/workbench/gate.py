"""The workbench's gate: management requests are served only when the server was started for
them (``dipole-gui --manage``), with the management token, and, when they change something,
from the server's own page.

Managing engines and events means the page makes the server run commands (an engine's command
line, the arbiter), so a person with the management token can run any command as the server's
user.  ``--manage`` makes up that token at every start (even on loopback; never the access
token of ``--token``, which rides a cookie) and prints it in the workbench's URL.  Where it
travels:

- in the URL's query, once: the page takes it out of the address bar and of the tab's history
  at once (``history.replaceState``) and keeps it in its origin's ``localStorage``, which pages
  of other ports or sites cannot read;
- in an ``Authorization: Bearer`` header on each of the page's requests (:func:`managed` takes
  it nowhere else, never from a cookie);
- never in a cookie: a browser sends a host's cookies to every port of the host, so any other
  server there (another user's, on a shared machine) would read it; and with no credential the
  browser adds by itself, no other site can make the browser send a management request for it.

Every answer says ``Referrer-Policy: no-referrer``.  A request that changes something (any
method but GET and HEAD) must also carry an ``Origin`` naming this server's host.
"""

from __future__ import annotations

import functools
import hmac
from collections.abc import Awaitable, Callable
from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from ..config import GuiConfig

Endpoint = Callable[[Request], Awaitable[Response]]
OFF = "403: management is off: start dipole-gui with --manage to manage engines and events"
NO_TOKEN = "403: management needs the management token: open the URL dipole-gui --manage printed"
FOREIGN = "403: a change must come from this server's own page (its Origin)"
SAFE_METHODS = ("GET", "HEAD")


def refusal(request: Request) -> str | None:
    """Why ``request`` may not manage anything, or None when it may."""
    if getattr(request.app.state, "workbench", None) is None:
        return OFF
    if not is_management_token(request, _bearer(request)):
        return NO_TOKEN
    if request.method not in SAFE_METHODS:
        origin = request.headers.get("origin")
        if origin is None or urlsplit(origin).netloc != request.headers.get("host", ""):
            return FOREIGN
    return None


def is_management_token(request: Request, presented: str) -> bool:
    """Whether ``presented`` is the server's management token."""
    config: GuiConfig = request.app.state.config
    return config.manage_token is not None and hmac.compare_digest(presented.encode(), config.manage_token.encode())


def _bearer(request: Request) -> str:
    """The token of the request's ``Authorization: Bearer`` header."""
    authorization = request.headers.get("authorization", "")
    return authorization[7:].strip() if authorization.lower().startswith("bearer ") else ""


def managed(endpoint: Endpoint) -> Endpoint:
    """``endpoint``, served only past :func:`refusal`."""

    @functools.wraps(endpoint)
    async def guarded(request: Request) -> Response:
        reason = refusal(request)
        if reason is not None:
            return PlainTextResponse(reason, 403)
        return await endpoint(request)

    return guarded
