"""What every workbench endpoint shares: reading a JSON request, answering one clear line."""

from __future__ import annotations

import json
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse

MAX_REQUEST = 1 << 20  # bytes of one JSON request (an engine with its options is far less)


class BadRequest(Exception):
    """One line for the page: what is wrong with its request."""


async def read_json(request: Request) -> dict[str, Any]:
    """The request's JSON object (at most :data:`MAX_REQUEST` bytes)."""
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > MAX_REQUEST):
        raise BadRequest(f"a request is at most {MAX_REQUEST} bytes")
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_REQUEST:
            raise BadRequest(f"a request is at most {MAX_REQUEST} bytes")
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        raise BadRequest("the request is not JSON") from None
    if not isinstance(data, dict):
        raise BadRequest("the request is not a JSON object")
    return data


def text_field(data: dict[str, Any], key: str, *, required: bool = True) -> str:
    value = data.get(key, "")
    if not isinstance(value, str):
        raise BadRequest(f"{key}: expected text")
    if required and not value.strip():
        raise BadRequest(f"{key}: required")
    return value


def failure(message: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": message}, status)
