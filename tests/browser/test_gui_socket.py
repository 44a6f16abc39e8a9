"""The GUI's WebSocket without a browser: what a page may ask, and the answers to bad requests.

The page chooses engines by number among those the server was started with; no message can
name a command, a path or an option, and anything malformed gets one error line while the
session goes on.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest
from gui_support import gui_server
from websockets.sync.client import ClientConnection, connect


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with gui_server() as server:
        yield server.base.replace("http:", "ws:") + "ws"


def until(socket: ClientConnection, kind: str, timeout: float = 30.0) -> dict[str, Any]:
    """The next message of type ``kind`` (others are skipped)."""
    deadline = time.monotonic() + timeout
    while True:
        message = json.loads(socket.recv(timeout=max(0.01, deadline - time.monotonic())))
        if message["type"] == kind:
            return message


def test_hello_lists_engines_by_number_and_name_only(url: str) -> None:
    with connect(url) as socket:
        hello = until(socket, "hello")
        assert [set(engine) for engine in hello["engines"]] == [{"id", "name"}] * 4
        assert "impasse-singles" in [variant["name"] for variant in hello["variants"]]
        state = until(socket, "state")
        assert state["board"]["width"] == 8 and len(state["legal"]) == 20


@pytest.mark.parametrize(("message", "error"), [
    ("not json", "message is not JSON"),
    ("[1, 2]", "message has no type"),
    ('{"type": "launch", "cmd": "/bin/sh"}', "unknown message type 'launch'"),
    ('{"type": "new", "variant": "dipole", "white": 7, "black": "human", "tc": {"kind": "depth", "depth": 2}}',
     "new game: white: no such engine (choose one of the list)"),
    ('{"type": "new", "variant": "dipole", "white": "/bin/sh -c id", "black": "human", "tc": {"kind": "depth", "depth": 2}}',
     "new game: white: no such engine (choose one of the list)"),
    ('{"type": "new", "variant": "chess", "white": "human", "black": "human", "tc": {"kind": "depth", "depth": 2}}',
     "new game: unknown variant 'chess'"),
    ('{"type": "new", "variant": "dipole", "white": "human", "black": "human", "tc": {"kind": "clock", "base": -5}}',
     "time control: clock minutes must be between 1 and 36000"),
    ('{"type": "analyse", "engine": "python3 evil.py"}', "analysis: choose an engine from the list"),
    ('{"type": "move", "move": "c1-c9"}', "illegal move: 'c1-c9': c9 is not a square of the 8x8 board"),
    ('{"type": "move", "move": "c1-a1"}', "illegal move: 'c1-a1'"),
    ('{"type": "view", "ply": "x"}', "view: expected a ply number"),
    ('{"type": "pgn-pick", "index": 3}', "open PGN: no such game in the file"),
    ('{"type": "pgn-open", "text": "[Event \\"x\\"\\n"}', "bad PGN"),
    ('{"type": "takeback"}', "no move to take back"),
])
def test_bad_requests_get_one_line_and_the_session_goes_on(url: str, message: str, error: str) -> None:
    with connect(url) as socket:
        until(socket, "state")
        socket.send(message)
        answer = until(socket, "error")["message"]
        assert answer.startswith(error), answer
        assert "\n" not in answer
        socket.send(json.dumps({"type": "move", "move": "c1-c3"}))
        assert len(until(socket, "state")["moves"]) == 1


def test_human_loses_on_time(url: str) -> None:
    with connect(url) as socket:
        until(socket, "state")
        socket.send(json.dumps({"type": "new", "variant": "impasse", "white": "human", "black": 0,
                                "tc": {"kind": "clock", "base": 1, "increment": 0}}))
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            state = until(socket, "state")
            if state["result"]:
                break
        assert state["result"] == {"result": "0-1", "reason": "White loses on time", "termination": "time forfeit"}
        assert state["clocks"]["w"] <= 0


def test_engine_that_cannot_start_is_reported_and_the_game_stays() -> None:
    quitter = f"cmd={sys.executable} -c 'import sys; sys.exit(3)'"
    with gui_server("--engine", quitter, "name=quitter") as server, \
            connect(server.base.replace("http:", "ws:") + "ws") as socket:
        until(socket, "state")
        socket.send(json.dumps({"type": "new", "variant": "dipole", "white": "human", "black": 0,
                                "tc": {"kind": "depth", "depth": 2}}))
        error = until(socket, "error")["message"]
        assert error.startswith("the engine could not start: engine 'quitter'") and "exited with code 3" in error
        state = until(socket, "state")
        assert state["players"]["b"] == {"name": "Human", "engine": None}
        socket.send(json.dumps({"type": "move", "move": "c1-c3"}))
        assert len(until(socket, "state")["moves"]) == 1
