"""``--pgn FILE nodes=true``: each engine move's nodes in its PGN comment, as fastchess writes
them (``{+0.32/12 0.073s, n=10432}``), read back; event databases keep the nodes, and one made
before they did still reads and resumes."""

from __future__ import annotations

import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from arbiter.events.store import EventStore
from arbiter.records.pgn import read_pgn_file

ARBITER = [sys.executable, "-m", "arbiter"]
OWN = f"cmd={sys.executable} -m dipole_engine"
WITH_NODES = re.compile(r"\{[+-][0-9.M]+/\d+ \d+\.\d{3}s, n=\d+\}")


def arbiter(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ARBITER, *args], capture_output=True, text=True, timeout=300)


def test_a_match_writes_each_moves_nodes_when_asked_and_reads_them_back(tmp_path: Path) -> None:
    asked, plain = tmp_path / "nodes.pgn", tmp_path / "plain.pgn"
    for pgn, words in ((asked, ["nodes=true"]), (plain, [])):
        run = arbiter(
            "match",
            *("--engine", OWN, "name=a", "depth=2", "--engine", OWN, "name=b", "depth=1"),
            *("--games", "2", "--opening-plies", "2", "--seed", "3", "--pgn", str(pgn), *words),
        )
        assert run.returncode == 0, run.stderr
    text = asked.read_text()
    engine_comments = re.findall(r"\{[+-][^}]*\}", text)
    assert engine_comments and all(WITH_NODES.fullmatch(comment) for comment in engine_comments), engine_comments[:3]
    assert "n=" not in plain.read_text()
    records = [game.to_record() for game in read_pgn_file(str(asked))]
    engine_moves = [move for record in records for move in record.moves if move.score_cp is not None]
    assert engine_moves and all(move.nodes is not None and move.nodes > 0 for move in engine_moves)
    # the same games, the same moves: only the comments differ
    assert [[m.text for m in r.moves] for r in records] == [
        [m.text for m in game.to_record().moves] for game in read_pgn_file(str(plain))
    ]


def test_a_bad_word_after_the_pgn_file_is_one_line(tmp_path: Path) -> None:
    run = arbiter("match", "--engine", OWN, "--engine", OWN, "--pgn", str(tmp_path / "g.pgn"), "nodes=maybe")
    assert run.returncode == 2 and len(run.stderr.strip().splitlines()) == 1, run.stderr
    assert "'nodes=maybe': expected nodes=true or nodes=false" in run.stderr


@pytest.mark.slow
def test_an_event_keeps_the_nodes_and_an_older_database_gains_the_column(tmp_path: Path) -> None:
    db, pgn = tmp_path / "event.db", tmp_path / "event.pgn"
    run = arbiter(
        "tournament",
        *("--engine", OWN, "name=a", "depth=2", "--engine", OWN, "name=b", "depth=1"),
        *("--games", "2", "--opening-plies", "2", "--seed", "3", "--db", str(db), "--pgn", str(pgn), "nodes=true"),
    )
    assert run.returncode == 0, run.stderr
    assert WITH_NODES.search(pgn.read_text())
    store = EventStore.open(str(db), write=False)
    try:
        stored = [move.nodes for record in store.records() for move in record.moves if move.score_cp is not None]
        assert store.config.pgn_nodes
    finally:
        store.close()
    assert stored and all(nodes is not None for nodes in stored)
    # A database of before the nodes: the column is gone; readers read none, a writer adds it back.
    with sqlite3.connect(db) as connection:
        connection.execute("ALTER TABLE moves DROP COLUMN nodes")
    connection.close()
    exported = arbiter("export", str(db), "--pgn", "-")
    assert exported.returncode == 0 and exported.stdout.count("[Event ") == 2, exported.stderr
    store = EventStore.open(str(db), write=True)
    store.close()
    with sqlite3.connect(db) as connection:
        columns = {row[1] for row in connection.execute("PRAGMA table_info(moves)")}
    connection.close()
    assert "nodes" in columns
