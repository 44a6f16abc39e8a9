"""A drawn game in the GUI, through its WebSocket without a browser: a PGN game drawn by
adjudication opens with its result and reason, as a won one does."""

from __future__ import annotations

import json
import time
from typing import Any

from gui_support import gui_server
from websockets.sync.client import ClientConnection, connect

DRAWN = """[Event "?"]
[White "a"]
[Black "b"]
[Result "1/2-1/2"]
[Variant "dipole"]
[Termination "adjudication"]

1. c1-a3 {+0.00/3 0.100s} d8-a5 {+0.00/3 0.100s} 2. a3-b4 {+0.00/3 0.100s}
d8-off:9 {+0.00/3 0.100s} 3. c1-off:9 {+0.00/3 0.100s} a5-off:1
{+0.00/3 0.100s} {Draw by adjudication (adjudication: maxmoves 3)} 1/2-1/2
"""


def until(socket: ClientConnection, kind: str, timeout: float = 30.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        message = json.loads(socket.recv(timeout=max(0.01, deadline - time.monotonic())))
        if message["type"] == kind:
            return message


def test_a_drawn_pgn_game_opens_with_its_result() -> None:
    with gui_server() as server, connect(server.base.replace("http:", "ws:") + "ws") as socket:
        until(socket, "state")
        socket.send(json.dumps({"type": "pgn-open", "text": DRAWN, "name": "drawn.pgn"}))
        games = until(socket, "pgn-games")["games"]
        assert [game["result"] for game in games] == ["1/2-1/2"]
        state = until(socket, "state")
        while len(state["moves"]) < 6:
            state = until(socket, "state")
        assert state["result"] == {
            "result": "1/2-1/2",
            "reason": "Draw by adjudication (adjudication: maxmoves 3)",
            "termination": "adjudication",
        }
