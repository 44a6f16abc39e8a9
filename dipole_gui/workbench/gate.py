"""The workbench's gate: management requests are served only when the server was started for
them (``dipole-gui --manage``), with the access token, and, when they change something, from
the server's own page.

Managing engines and events means the page makes the server run commands (an engine's command
line, the arbiter), so a person with the token can run any command as the server's user.  With
``--manage`` the CLI always makes up a token (even on loopback), and the :class:`AccessGuard`
already asks for it on every request; :func:`managed` checks it again here, so that no route of
the workbench ever answers without it, whatever the guard was configured with.  A request that
changes something (any method but GET and HEAD) must carry an ``Origin`` naming this server's
host: a page of another site, even one the token's cookie would be sent from, is refused.
"""

from __future__ import annotations

import functools
import hmac
from collections.abc import Awaitable, Callable
from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from ..config import GuiConfig
from ..server import presented_token

Endpoint = Callable[[Request], Awaitable[Response]]
OFF = "403: management is off: start dipole-gui with --manage to manage engines and events"
NO_TOKEN = "403: management needs the access token (the URL dipole-gui --manage printed)"
FOREIGN = "403: a change must come from this server's own page (its Origin)"
SAFE_METHODS = ("GET", "HEAD")


def refusal(request: Request) -> str | None:
    """Why ``request`` may not manage anything, or None when it may."""
    if getattr(request.app.state, "workbench", None) is None:
        return OFF
    config: GuiConfig = request.app.state.config
    if config.token is None or not hmac.compare_digest(_presented(request).encode(), config.token.encode()):
        return NO_TOKEN
    if request.method not in SAFE_METHODS:
        origin = request.headers.get("origin")
        if origin is None or urlsplit(origin).netloc != request.headers.get("host", ""):
            return FOREIGN
    return None


def _presented(request: Request) -> str:
    """The token the request carries (query, bearer header or the server's cookie)."""
    presented, _ = presented_token(request.scope)
    return presented or ""


def managed(endpoint: Endpoint) -> Endpoint:
    """``endpoint``, served only past :func:`refusal`."""

    @functools.wraps(endpoint)
    async def guarded(request: Request) -> Response:
        reason = refusal(request)
        if reason is not None:
            return PlainTextResponse(reason, 403)
        return await endpoint(request)

    return guarded
