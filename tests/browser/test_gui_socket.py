"""The GUI's WebSocket without a browser: what a page may ask, and the answers to bad requests.

The page chooses engines by number among those the server was started with; no message can
name a command, a path or an option, and anything malformed gets one error line while the
session goes on.
"""

from __future__ import annotations

import contextlib
import json
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from socket import create_connection
from typing import Any

import pytest
from gui_support import ROOT, GuiServer, big_pgn, gui_server
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from arbiter.records.pgn import read_pgn
from dipole_gui.pagemessages import MAX_CONTAINERS, MAX_DEPTH, MAX_MESSAGE, MAX_PGN


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


@pytest.mark.parametrize(
    ("message", "error"),
    [
        ("not json", "message is not JSON"),
        ("[1, 2]", "message has no type"),
        ('{"type": "launch", "cmd": "/bin/sh"}', "unknown message type 'launch'"),
        (
            '{"type": "new", "variant": "dipole", "white": 7, "black": "human", "tc": {"kind": "depth", "depth": 2}}',
            "new game: white: no such engine (choose one of the list)",
        ),
        (
            '{"type": "new", "variant": "dipole", "white": "/bin/sh -c id", "black": "human", "tc": {"kind": "depth", "depth": 2}}',
            "new game: white: no such engine (choose one of the list)",
        ),
        (
            '{"type": "new", "variant": "shogi", "white": "human", "black": "human", "tc": {"kind": "depth", "depth": 2}}',
            "new game: unknown variant 'shogi'",
        ),
        (
            '{"type": "new", "variant": "dipole", "white": "human", "black": "human", "tc": {"kind": "clock", "base": -5}}',
            "time control: clock minutes must be between 1 and 36000",
        ),
        ('{"type": "analyse", "engine": "python3 evil.py"}', "analysis: choose an engine from the list"),
        ('{"type": "move", "move": "c1-c9"}', "illegal move: 'c1-c9': c9 is not a square of the 8x8 board"),
        ('{"type": "move", "move": "c1-a1"}', "illegal move: 'c1-a1'"),
        ('{"type": "view", "ply": "x"}', "view: expected a ply number"),
        ('{"type": "pgn-pick", "index": 3}', "open PGN: no such game in the file"),
        ('{"type": "pgn-open", "text": "[Event \\"x\\"\\n"}', "bad PGN"),
        ('{"type": "takeback"}', "no move to take back"),
    ],
)
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
        socket.send(
            json.dumps(
                {
                    "type": "new",
                    "variant": "impasse",
                    "white": "human",
                    "black": 0,
                    "tc": {"kind": "clock", "base": 1, "increment": 0},
                }
            )
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            state = until(socket, "state")
            if state["result"]:
                break
        assert state["result"] == {"result": "0-1", "reason": "White loses on time", "termination": "time forfeit"}
        assert state["clocks"]["w"] <= 0


def test_engine_that_cannot_start_is_reported_and_the_game_stays() -> None:
    quitter = f"cmd={sys.executable} -c 'import sys; sys.exit(3)'"
    with (
        gui_server("--engine", quitter, "name=quitter") as server,
        connect(server.base.replace("http:", "ws:") + "ws") as socket,
    ):
        until(socket, "state")
        socket.send(
            json.dumps(
                {"type": "new", "variant": "dipole", "white": "human", "black": 0, "tc": {"kind": "depth", "depth": 2}}
            )
        )
        error = until(socket, "error")["message"]
        assert error.startswith("the engine could not start: engine 'quitter'") and "exited with code 3" in error
        state = until(socket, "state")
        assert state["players"]["b"] == {"name": "Human", "engine": None}
        socket.send(json.dumps({"type": "move", "move": "c1-c3"}))
        assert len(until(socket, "state")["moves"]) == 1


def test_deep_and_long_messages_are_refused_before_they_are_parsed_or_read() -> None:
    with gui_server() as server:
        url = server.base.replace("http:", "ws:") + "ws"
        with connect(url) as socket:
            until(socket, "state")
            socket.send("[" * 200_000 + "]" * 200_000)
            assert (
                until(socket, "error")["message"]
                == f"message has too many arrays and objects (more than {MAX_CONTAINERS})"
            )
            deep = f"message nested too deeply (more than {MAX_DEPTH} levels of arrays and objects)"
            nested = json.loads("[" * MAX_DEPTH + "]" * MAX_DEPTH)  # one level too many in the message
            socket.send(json.dumps({"type": "view", "ply": nested}))
            assert until(socket, "error")["message"] == deep
            # Brackets inside strings are text, not nesting.
            socket.send(json.dumps({"type": "view", "ply": 0, "note": "[{" * 1000}))
            until(socket, "state")
            socket.send(json.dumps({"type": "move", "move": "c1-c3"}))
            assert len(until(socket, "state")["moves"]) == 1
        with connect(url) as socket:
            until(socket, "state")
            socket.send("x" * (MAX_MESSAGE + 1))
            with pytest.raises(ConnectionClosed) as closed:
                while True:
                    socket.recv(timeout=30)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009  # message too big
        # A PGN file within the message's size but over the PGN limit: one line.
        with connect(url) as socket:
            until(socket, "state")
            socket.send(json.dumps({"type": "pgn-open", "name": "huge.pgn", "text": " " * (MAX_PGN + 1)}))
            assert (
                until(socket, "error")["message"]
                == f"open PGN: huge.pgn is too large ({MAX_PGN + 1:,} characters; at most {MAX_PGN:,})"
            )
    assert server.proc.stderr is not None
    log = server.proc.stderr.read()
    assert "Traceback" not in log and "RecursionError" not in log, log


def test_a_big_pgn_is_parsed_off_the_event_loop() -> None:
    text = big_pgn(1_800_000)
    with gui_server() as server:
        url = server.base.replace("http:", "ws:") + "ws"
        with connect(url, max_size=None) as opener, connect(url) as other:
            until(opener, "state")
            until(other, "state")
            started = time.monotonic()
            opener.send(json.dumps({"type": "pgn-open", "name": "big.pgn", "text": text}))
            waits = []
            while True:  # another page steps through its game while the file is read
                sent = time.monotonic()
                other.send(json.dumps({"type": "view", "ply": 0}))
                until(other, "state")
                waits.append(time.monotonic() - sent)
                with contextlib.suppress(TimeoutError):
                    if json.loads(opener.recv(timeout=0))["type"] == "pgn-games":
                        break
            parsed = time.monotonic() - started
            assert len(until(opener, "state")["moves"]) > 10
        # On the loop, the other page waited as long as the parse; off it, a small part of it.
        assert parsed > 0.2 and len(waits) >= 3
        assert max(waits) < parsed / 2, (max(waits), parsed)


def connect_from(url: str, source: str) -> ClientConnection:
    """A socket to the server from the loopback address ``source`` (another client)."""
    port = int(url.split(":")[2].split("/", maxsplit=1)[0])
    return connect(url, sock=create_connection(("127.0.0.1", port), source_address=(source, 0)))


NEW_GAME = json.dumps(
    {"type": "new", "variant": "dipole", "white": "human", "black": 0, "tc": {"kind": "depth", "depth": 1}}
)


def start_against_engine(page: ClientConnection) -> str | None:
    """Start a game against engine 0 and play a move: None once the engine has answered it,
    or the error line that refused the game."""
    page.send(NEW_GAME)
    page.send(json.dumps({"type": "move", "move": "c1-c3"}))
    while True:
        message = json.loads(page.recv(timeout=60))
        if message["type"] == "error":
            return str(message["message"])
        if message["type"] == "state" and len(message["moves"]) >= 2:
            return None


def engines_settle(server: GuiServer, count: int) -> None:
    deadline = time.monotonic() + 20
    while len(server.descendants()) != count and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(server.descendants()) == count


def test_games_and_analyses_at_once_are_bounded_per_client_and_per_server() -> None:
    with (
        gui_server("--max-games", "3", "--max-games-per-client", "2", "--keep-games", "0") as server,
        contextlib.ExitStack() as stack,
    ):
        url = server.base.replace("http:", "ws:") + "ws"
        a1, a2, a3 = (stack.enter_context(connect_from(url, "127.0.0.1")) for _ in range(3))
        b1, b2 = (stack.enter_context(connect_from(url, "127.0.0.2")) for _ in range(2))
        for page in (a1, a2, a3, b1, b2):
            until(page, "state")
        assert start_against_engine(a1) is None and start_against_engine(a2) is None
        per_client = (
            "the game was not started: your pages run as many games and analyses with engines as one "
            "client may at once (2: dipole-gui --max-games-per-client); end one or close a page"
        )
        assert start_against_engine(a3) == per_client
        a3.send(json.dumps({"type": "view", "ply": 0}))
        while (state := until(a3, "state"))["view"] != 0:
            pass
        assert state["players"]["b"] == {"name": "Human", "engine": None}  # the board stays, without engines
        a3.send(json.dumps({"type": "analyse", "engine": 0}))
        assert until(a3, "error")["message"] == per_client.replace("the game", "the analysis")
        assert start_against_engine(a1) is None  # a page's new game takes its old game's place
        assert start_against_engine(b1) is None  # another client
        assert start_against_engine(b2) == (
            "the game was not started: the server runs as many games and analyses with engines as it may at once "
            "(3: dipole-gui --max-games); try again when one has ended"
        )
        engines_settle(server, 3)
        a1.close()  # its game is dropped at once (--keep-games 0): its engine dies, its place is free
        engines_settle(server, 2)
        assert start_against_engine(a3) is None
        a3.send(json.dumps({"type": "resign"}))  # the game ends: its engine dies, its place is free
        engines_settle(server, 2)
        a3.send(json.dumps({"type": "analyse", "engine": 0}))
        while not until(a3, "state")["analysing"]:
            pass
        engines_settle(server, 3)


HOSTILE = str(Path(__file__).resolve().parent.parent / "engines" / "hostile_engine.py")


@pytest.mark.parametrize(
    ("flag", "termination", "reason", "within"),
    [
        ("--extra-token", "illegal move", r"White makes an illegal move: bestmove \S+ foo", 10.0),
        pytest.param(  # the write's 10 s, no more
            "--deaf", "stalled connection", "White's connection stalls", 16.0, marks=pytest.mark.slow
        ),
    ],
)
def test_an_unreadable_answer_or_a_deaf_engine_ends_the_game_as_the_arbiter_ends_it(
    flag: str, termination: str, reason: str, within: float
) -> None:
    """The referee's words for an engine whose ``bestmove`` line is off the grammar (an illegal
    move, at once) and for one that stops reading its input (a stall: it is killed)."""
    engine = f"cmd={sys.executable} {HOSTILE} {flag}"
    with (
        gui_server("--engine", engine, "name=rogue") as server,
        connect(server.base.replace("http:", "ws:") + "ws") as socket,
    ):
        until(socket, "state")
        socket.send(
            json.dumps(
                {"type": "new", "variant": "dipole", "white": 0, "black": 0, "tc": {"kind": "movetime", "seconds": 20}}
            )
        )
        started = time.monotonic()
        while not (state := until(socket, "state", timeout=60))["result"]:
            pass
        assert state["result"]["termination"] == termination, state["result"]
        assert re.fullmatch(reason, state["result"]["reason"]), state["result"]
        assert time.monotonic() - started < within


ENGINE_COMMENT = re.compile(r"[+-](?:\d+\.\d\d|M\d+)/\d+ \d+\.\d{3}s")  # an engine's move, as the arbiter writes it


def arbiter(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "from arbiter.cli import main; main()", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
        check=False,
    )


def test_a_resigned_gui_game_is_recorded_as_a_refereed_match_records_its_games(url: str, tmp_path: Path) -> None:
    """A game against an engine, played and resigned through the socket, saves the PGN of a
    ``dipole-arbiter match`` game: the same tags in the same order, the same time control, the
    engine's moves annotated alike, and a resignation of its own that ``replay`` checks."""
    with connect(url) as socket:
        until(socket, "state")
        socket.send(
            json.dumps(
                {
                    "type": "new",
                    "variant": "dipole",
                    "white": "human",
                    "black": 0,
                    "tc": {"kind": "clock", "base": 60, "increment": 1},
                }
            )
        )
        for ply in (0, 2):
            while not ((state := until(socket, "state"))["legal"] and len(state["moves"]) == ply):
                pass
            socket.send(json.dumps({"type": "move", "move": state["legal"][0]["move"]}))
        while len((state := until(socket, "state"))["moves"]) < 4:
            pass
        socket.send(json.dumps({"type": "resign"}))
        while not (state := until(socket, "state"))["result"]:
            pass
        assert state["result"] == {"result": "0-1", "reason": "White resigns", "termination": "resignation"}
        socket.send(json.dumps({"type": "pgn-save"}))
        saved = tmp_path / "gui.pgn"
        saved.write_text(until(socket, "pgn")["text"])
    replay = arbiter("replay", str(saved))
    assert replay.returncode == 0 and "1 game replayed, all hold" in replay.stdout, replay.stdout + replay.stderr
    matched = tmp_path / "match.pgn"
    engine = f"cmd={sys.executable} -m dipole_engine"
    match = arbiter(
        "match",
        "--games",
        "1",
        "--tc",
        "60+1",
        "--depth",
        "1",
        "--engine",
        engine,
        "name=a",
        "--engine",
        engine,
        "name=b",
        "--pgn",
        str(matched),
    )
    assert match.returncode == 0, match.stdout + match.stderr
    (gui,), (refereed,) = read_pgn(saved.read_text()), read_pgn(matched.read_text())
    assert list(gui.tags) == list(refereed.tags)
    assert gui.tags["TimeControl"] == refereed.tags["TimeControl"] == "60+1"
    assert (gui.tags["Termination"], gui.tags["Result"], gui.reason()) == ("resignation", "0-1", "White resigns")
    assert gui.tags["PlyCount"] == "4" and [len(move.comments) for move in gui.moves] == [1, 1, 1, 2]
    for move in gui.moves[1::2] + refereed.moves[:4]:  # the engine's moves in both
        assert ENGINE_COMMENT.fullmatch(move.comments[0]), move.comments
    for move in gui.moves[::2]:  # the human's: the time charged
        assert re.fullmatch(r"\d+\.\d{3}s", move.comments[0]), move.comments


def test_a_take_back_while_the_engine_thinks_stops_it_and_the_same_engine_plays_on() -> None:
    """A take-back abandons the refereed game (the engine, thinking for 30 s, is stopped, its
    answer dropped) and a new referee takes the game from the position before, with the same
    engine process; a resignation then ends it as the arbiter ends one."""
    with gui_server() as server, connect(server.base.replace("http:", "ws:") + "ws") as socket:
        until(socket, "state")
        socket.send(
            json.dumps(
                {
                    "type": "new",
                    "variant": "dipole",
                    "white": "human",
                    "black": 3,
                    "tc": {"kind": "movetime", "seconds": 30},
                }
            )
        )
        for _ in range(2):
            moved = time.monotonic()
            socket.send(json.dumps({"type": "move", "move": "c1-c3"}))
            while not ((state := until(socket, "state"))["thinking"] == "b" and len(state["moves"]) == 1):
                pass
            assert time.monotonic() - moved < 10  # the search taken back has ended: its referee is done
            engines = server.descendants()
            assert len(engines) == 1
            taken = time.monotonic()
            socket.send(json.dumps({"type": "takeback"}))
            while (state := until(socket, "state"))["moves"]:
                pass
            assert state["legal"] and not state["result"] and time.monotonic() - taken < 10
        socket.send(json.dumps({"type": "move", "move": "c1-c3"}))
        while until(socket, "state")["thinking"] != "b":
            pass
        assert server.descendants() == engines  # never restarted
        socket.send(json.dumps({"type": "resign"}))
        while not (state := until(socket, "state"))["result"]:
            pass
        assert state["result"] == {"result": "0-1", "reason": "White resigns", "termination": "resignation"}
        assert [move["text"] for move in state["moves"]] == ["c1-c3"]
