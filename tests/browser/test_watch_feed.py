"""The watch page's server side (``dipole_gui.watch.EventFeed``) on real event databases: before the
event, after it, and with damaged or foreign files beside it; read-only throughout."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest
from gui_support import gui_server
from watch_support import ARBITER, arbiter, toy
from websockets.sync.client import connect

from arbiter.errors import ArbiterError
from arbiter.events.store import EventStore
from arbiter.live.livefiles import live_path, read_live
from dipole_gui.watch import EventFeed, Watching, check_watch_path


def messages(feed: EventFeed) -> dict[str, dict]:  # type: ignore[type-arg]
    found = {message["type"]: message for message in feed.poll()}
    feed.latest.update(found)
    return found


def test_feed_before_during_and_after_an_event_never_writes(tmp_path: Path) -> None:
    db = tmp_path / "small.db"
    feed = EventFeed(str(db))
    first = messages(feed)
    assert first["status"]["state"] == "waiting" and "does not exist yet" in first["status"]["text"]
    result = arbiter(
        "tournament",
        *toy("a", tmp_path / "pids"),
        *toy("b", tmp_path / "pids"),
        *toy("c", tmp_path / "pids"),
        "--depth",
        "1",
        "--games",
        "2",
        "--db",
        str(db),
    )
    assert result.returncode == 0, result.stderr
    digest = hashlib.sha256(db.read_bytes()).hexdigest()
    shown = messages(feed)
    assert shown["status"]["state"] == "complete"
    event = shown["event"]
    assert event["done"] == event["total"] == 6 and len(event["games"]) == 6
    assert sum(count for _, count in event["terminations"]) == 6
    store = EventStore.open(str(db), write=False)
    records = store.records()
    store.close()
    # The finished games as the page lists them (read without their moves) agree with the whole records.
    assert [(g["number"], g["white"], g["black"], g["result"], g["reason"], g["plies"]) for g in event["games"]] == [
        (r.number, r.white, r.black, r.result, r.reason, r.plies) for r in records
    ]
    assert all(g["finished"][:4].isdigit() for g in event["games"])  # when each was recorded (ISO time)
    rows = {row["name"]: f"{row['rating']:.1f}" for row in event["ratings"]["rows"]}
    cli = arbiter("ratings", str(db)).stdout
    for name, rating in rows.items():
        assert any(line.split()[1:3] == [name, rating] for line in cli.splitlines() if line.strip()[:1].isdigit())
    assert shown["live"]["games"] == []  # the event is over: nothing in progress
    replay = feed.replay(1)
    assert replay["type"] == "replay" and len(replay["boards"]) == len(replay["moves"]) + 1
    assert replay["pgn"].startswith('[Event "dipole-arbiter tournament"]')
    assert [move["text"] for move in replay["moves"]] == [move.text for move in records[0].moves]
    assert feed.replay(99)["type"] == "error"
    assert messages(feed) == {}  # nothing changed, nothing sent

    # A damaged live file (or one of another shape) never breaks the feed.
    live = Path(live_path(str(db)))
    for text in (
        "{",
        json.dumps({"format": "dipole-arbiter-live", "games": 7, "state": "running"}),
        json.dumps({"format": "dipole-arbiter-live", "games": [{"number": "x"}, 5]}),
    ):
        live.write_text(text)
        feed.poll()
    feed._close_db()
    assert hashlib.sha256(db.read_bytes()).hexdigest() == digest  # read-only


def test_feed_says_what_is_wrong_with_a_file_that_is_no_event(tmp_path: Path) -> None:
    other = tmp_path / "other.db"
    connection = sqlite3.connect(other)
    connection.execute("CREATE TABLE t (x)")
    connection.close()
    status = messages(EventFeed(str(other)))["status"]
    assert status["state"] == "waiting" and "is being created" in status["text"]  # it is brand new
    feed = EventFeed(str(other))
    os.utime(other, (0, 0))  # an old file: certainly not one being created
    status = messages(feed)["status"]
    assert status == {
        "type": "status",
        "state": "error",
        "path": str(other),
        "text": f"{other} is not a dipole-arbiter event database (an SQLite database of some other program)",
    }


def test_only_event_databases_of_the_directory_and_the_watched_one_are_offered(tmp_path: Path) -> None:
    (tmp_path / "notes.db").write_text("not sqlite")
    (tmp_path / "x.txt").write_text("")
    sqlite3.connect(tmp_path / "real.db").execute("CREATE TABLE t (x)").connection.close()
    watching = Watching(str(tmp_path / "later.db"), str(tmp_path))
    assert watching.events() == {"later.db": str(tmp_path / "later.db"), "real.db": str(tmp_path / "real.db")}
    assert watching.feed("../etc/passwd") is None and watching.feed("notes.db") is None
    assert watching.feed("real.db") is watching.feed("real.db")  # one feed per event, for every viewer


def test_twenty_viewers_of_one_event_each_get_it_and_their_requests_answered(tmp_path: Path) -> None:
    db = tmp_path / "many.db"
    result = arbiter(
        "tournament",
        *toy("a", tmp_path / "pids"),
        *toy("b", tmp_path / "pids"),
        "--depth",
        "1",
        "--games",
        "2",
        "--db",
        str(db),
    )
    assert result.returncode == 0, result.stderr
    with gui_server("--watch", str(db)) as server:
        socket_url = server.base.replace("http://", "ws://").removesuffix("/watch") + "/ws/watch?event=many.db"
        with contextlib.ExitStack() as stack:
            viewers = [stack.enter_context(connect(socket_url, open_timeout=30)) for _ in range(20)]
            for viewer in viewers:
                seen: dict[str, dict] = {}  # type: ignore[type-arg]
                while not {"status", "event", "live"} <= seen.keys():
                    message = json.loads(viewer.recv(timeout=30))
                    seen[message["type"]] = message
                assert seen["status"]["state"] == "complete" and seen["event"]["done"] == 2
            viewers[0].send(json.dumps({"type": "replay", "number": 2}))
            while (message := json.loads(viewers[0].recv(timeout=30)))["type"] != "replay":
                pass
            assert message["number"] == 2 and message["boards"][0]["squares"]
            viewers[1].send("not json")
            assert json.loads(viewers[1].recv(timeout=30)) == {"type": "error", "text": "unreadable request"}


@pytest.mark.slow
def test_a_match_is_watched_from_its_live_file(tmp_path: Path) -> None:
    live = tmp_path / "m.json"
    feed = EventFeed(str(live))
    assert messages(feed)["status"]["state"] == "waiting"
    match = subprocess.Popen(
        [
            *ARBITER,
            "match",
            *toy("a", tmp_path / "pids", "--think", "20"),
            *toy("b", tmp_path / "pids", "--think", "20"),
            "--depth",
            "1",
            "--games",
            "6",
            "--live",
            str(live),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        seen: dict[str, dict] = {}  # type: ignore[type-arg]
        while time.monotonic() < deadline and not (seen.get("live") or {}).get("games"):
            seen.update(messages(feed))
            time.sleep(0.1)
        assert seen["status"]["state"] == "running"
        game = seen["live"]["games"][0]
        assert game["white"] in ("a", "b") and game["board"]["squares"]
        assert seen["event"]["total"] == 6
    finally:
        match.wait(timeout=120)
    assert messages(feed)["status"] == {
        "type": "status",
        "state": "complete",
        "path": str(live),
        "text": "The match is over: 6 of 6 games played",
    }
    assert check_watch_path(str(live)) is None
    (tmp_path / "bad.json").write_text("{}")
    with pytest.raises(ArbiterError, match="not a live file of dipole-arbiter"):
        check_watch_path(str(tmp_path / "bad.json"))


def beside(db: Path) -> tuple[list[str], bytes, int]:
    """What is in the database's directory, its bytes and its modification time."""
    return sorted(os.listdir(db.parent)), db.read_bytes(), db.stat().st_mtime_ns


def test_watching_a_finished_event_writes_nothing_beside_it(tmp_path: Path) -> None:
    db = tmp_path / "done.db"
    result = arbiter(
        "tournament",
        *toy("a", tmp_path / "pids"),
        *toy("b", tmp_path / "pids"),
        "--depth",
        "1",
        "--games",
        "2",
        "--db",
        str(db),
    )
    assert result.returncode == 0, result.stderr
    before = beside(db)
    assert not {"done.db-wal", "done.db-shm"} & set(before[0])
    with gui_server("--watch", str(db)) as server:
        url = server.base.replace("http://", "ws://").removesuffix("/watch") + "/ws/watch?event=done.db"
        with connect(url, open_timeout=30) as viewer:
            seen: dict[str, dict] = {}  # type: ignore[type-arg]
            while not {"status", "event", "live"} <= seen.keys():
                message = json.loads(viewer.recv(timeout=30))
                seen[message["type"]] = message
            assert seen["status"]["state"] == "complete" and seen["event"]["done"] == 2
            viewer.send(json.dumps({"type": "replay", "number": 1}))
            while (message := json.loads(viewer.recv(timeout=30)))["type"] != "replay":
                pass
            assert message["moves"]
            time.sleep(1)  # a few more looks at the files
            assert beside(db) == before  # while it is watched
    assert beside(db) == before


@pytest.mark.slow
def test_a_stopped_event_is_read_as_it_is_then_live_when_resumed(tmp_path: Path) -> None:
    db = tmp_path / "cup.db"
    pids = tmp_path / "pids"
    command = [
        *ARBITER,
        "tournament",
        *toy("a", pids, "--think", "30"),
        *toy("b", pids, "--think", "30"),
        "--depth",
        "1",
        "--games",
        "4",
        "--db",
        str(db),
    ]
    first = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not ((read_live(live_path(str(db))) or {}).get("done_this_run") or 0):
            time.sleep(0.05)
    finally:
        first.send_signal(signal.SIGTERM)  # a clean stop: the arbiter closes the database
        first.wait(timeout=60)
    before = beside(db)
    feed = EventFeed(str(db))
    shown = messages(feed)
    assert shown["status"]["state"] == "stopped", shown["status"]
    stopped_at = shown["event"]["done"]
    assert 0 < stopped_at < shown["event"]["total"] == 4
    assert beside(db) == before  # read as it is: no -wal, no -shm, nothing changed
    resumed = subprocess.Popen([*ARBITER, "resume", str(db)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        done = []
        while time.monotonic() < deadline and feed.latest["status"]["state"] != "complete":
            shown = messages(feed)
            if "event" in shown:
                done.append(shown["event"]["done"])
            time.sleep(0.1)
    finally:
        assert resumed.wait(timeout=120) == 0
        feed._close_db()
    assert feed.latest["status"]["state"] == "complete" and feed.latest["event"]["done"] == 4
    assert done[-1] == 4  # the resumed games were seen: an unchanging file's reader would show the old ones
