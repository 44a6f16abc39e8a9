"""The messages between a page and its game: what a page may send, and the writer that sends to it.

Messages from the page (JSON objects with a ``type``; :mod:`.requests` handles each)::

    {"type": "new", "variant": "dipole", "fen": null, "white": "human" | <engine id>,
     "black": ..., "tc": {"kind": "clock", "base": 300, "increment": 3}
                       | {"kind": "movetime", "seconds": 1} | {"kind": "depth", "depth": 4}}
    {"type": "move", "move": "c1-c3"}        {"type": "view", "ply": 12}
    {"type": "takeback"}  {"type": "resign"}  {"type": "setup", "variant": "dipole", "fen": "..."}
    {"type": "analyse", "engine": <engine id>}   {"type": "analyse-stop"}
    {"type": "multipv", "lines": 3}   {"type": "line", "moves": ["c1-c3", "d8-b6"]}  (played out from the view)
    {"type": "pgn-open", "text": "..."}  {"type": "pgn-pick", "index": 0}  {"type": "pgn-save"}

Messages to the page: ``hello`` (the game's id, engines, variants and the size limits; to the
page just attached), ``plies`` (``{"game", "from", "boards"}``: the board of each ply from
``from`` on; all of them to a page attached and for a new game, then the new plies' before each
state; never replaced by a later one), ``state`` (:mod:`.pagestate`), ``thinking``, ``pgn-games``,
``pgn`` (the text to save), ``error`` and ``notice`` (one line each; an error in a page's own
request goes to that page only).

What a page may send is bounded: a message of at most :data:`MAX_MESSAGE` bytes (the server
reads no longer one: ``ws_max_size``), at most :data:`MAX_CONTAINERS` arrays and objects nested
at most :data:`MAX_DEPTH` deep (checked before the JSON is parsed, without recursion), a PGN file
of at most :data:`MAX_PGN` characters.  A message longer than :data:`INLINE_MESSAGE` is decoded
on a worker thread, so other pages are not held up.

Each attached :class:`Page` has an :class:`~dipole_gui.outbox.Outbox` and a task that sends what
waits in it, in order: a ``state`` or ``thinking`` message still waiting is replaced by a newer
one of its kind, so a page that reads slowly gets the latest news.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.websockets import WebSocketDisconnect

from .outbox import Outbox

Send = Callable[[dict[str, Any]], Awaitable[None]]

MAX_MESSAGE = 4_000_000  # bytes in one message from the page (a PGN file included)
MAX_PGN = 2_000_000  # characters of a PGN file opened on the page
MAX_DEPTH = 16  # nesting of arrays and objects in a message (the page's need 2)
MAX_CONTAINERS = 100  # arrays and objects in a message (the page's need 2)
INLINE_MESSAGE = 65_536  # characters: a longer message is decoded on a worker thread


class Page:
    """One attached page: the messages waiting for its WebSocket and the task that sends them."""

    def __init__(self, send: Send) -> None:
        self.outbox = Outbox(_coalescing_key)
        self.writer = asyncio.create_task(self._write(send))

    async def _write(self, send: Send) -> None:
        while batch := await self.outbox.take():
            for message in batch:
                try:
                    await send(message)
                except (WebSocketDisconnect, RuntimeError, OSError):  # the page went away; its reader detaches it
                    return

    def close(self) -> None:
        self.outbox.close()
        self.writer.cancel()


async def read_message(text: str) -> dict[str, Any] | str:
    """A message from the page, decoded (on a worker thread when long), or the one line saying
    what is wrong with it."""
    if len(text) > MAX_MESSAGE:  # dipole-gui refuses longer ones before reading them (ws_max_size)
        return f"message too long ({len(text)} characters; at most {MAX_MESSAGE})"
    if len(text) <= INLINE_MESSAGE:
        return decode_message(text)
    return await asyncio.to_thread(decode_message, text)


# Three passes, each linear: escapes out (so no quote is escaped), then strings, then all but brackets.
_ESCAPE = re.compile(r"\\.", re.DOTALL)
_STRING = re.compile(r'"[^"]*"')
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


def decode_message(text: str) -> dict[str, Any] | str:
    """A message from the page as a dict with a ``type``, or the one line saying what is wrong.

    The structure is measured before parsing (the parser recurses, so a deep enough message
    would end in RecursionError): the brackets outside strings, few in any message of the page,
    then their nesting, in a loop over at most ``2 * MAX_CONTAINERS`` of them."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", _ESCAPE.sub("", text)))
    if len(brackets) > 2 * MAX_CONTAINERS:
        return f"message has too many arrays and objects (more than {MAX_CONTAINERS})"
    if len(brackets) > MAX_DEPTH:  # else it cannot be deeper
        depth = 0
        for bracket in brackets:
            depth += 1 if bracket in "[{" else -1
            if depth > MAX_DEPTH:
                return f"message nested too deeply (more than {MAX_DEPTH} levels of arrays and objects)"
    try:
        message = json.loads(text)
    except ValueError:
        return "message is not JSON"
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        return "message has no type"
    return message


def _coalescing_key(message: dict[str, Any]) -> str | None:
    """Messages with the same key supersede each other: the state, each source's thinking."""
    kind = message.get("type")
    if kind == "state":
        return "state"
    if kind == "thinking":
        return f"thinking {message.get('source')}"
    return None
