"""The arbiter against hostile input: absurd values, files that never end, output paths that
would destroy data, control characters in names, damaged, foreign and read-only databases,
odd PGN.  Each gets one line and status 2 before anything is written (or, where the input
can be read after all, the right answer), never a traceback, a hang or lost data.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from test_event_outcomes import finished_event

ARBITER = [sys.executable, "-c", "from arbiter.cli import main; main()"]
TOY = str(Path(__file__).parent / "engines" / "toy_engine.py")
TWO = [
    "--engine",
    f"cmd={sys.executable} {TOY}",
    "name=a",
    "--engine",
    f"cmd={sys.executable} {TOY} --seed 2",
    "name=b",
]


def arbiter(*args: str, cwd: Path | None = None, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ARBITER, *args], capture_output=True, text=True, timeout=timeout, cwd=cwd)


def one_line_error(result: subprocess.CompletedProcess[str], fragment: str) -> None:
    assert result.returncode == 2, result
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("dipole-arbiter: error: "), result.stderr
    assert fragment in lines[0], lines[0]


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def event(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished two-game event database, and its PGN beside it (``event.pgn``)."""
    directory = tmp_path_factory.mktemp("event")
    result = arbiter("tournament", *TWO, "--depth", "1", "--db", "event.db", "--pgn", "event.pgn", cwd=directory)
    assert result.returncode == 0, result
    return directory / "event.db"


# -- values that parse but cannot be used --------------------------------------------------

BIG = "1" + "0" * 29


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (("--depth", BIG), "depth '1000"),
        (("--nodes", BIG), "nodes '1000"),
        (("--st", BIG), "st '1000"),
        (("--tc", f"{BIG}+1"), "too large"),
        (("--tc", f"10+{BIG}"), "too large"),
        (("--depth", "1", "--timemargin", BIG), "timemargin"),
        (("--st", "nan"), "st 'nan'"),
        (("--st", "inf"), "st 'inf'"),
        (("--depth", "1", "--handshake-timeout", "nan"), "--handshake-timeout"),
        (("--depth", "1", "--stall-timeout", "inf"), "--stall-timeout"),
        (("--depth", "1", "--handshake-timeout", BIG), "--handshake-timeout"),
        (("--depth", "1", "--concurrency", BIG), "--concurrency"),
        (("--depth", "1", "--games", BIG), "--games"),
        (("--depth", "1", "--opening-plies", BIG), "--opening-plies"),
        (("--depth", "1", "--config", "/dev/zero"), "config file /dev/zero: larger than"),
        (("--depth", "1", "--openings", "/dev/zero"), "openings file /dev/zero: larger than"),
        (("--depth", "1", "--event", "two\nlines"), "contains the control character \\n"),
        (("--depth", "1", "--event", "\x1b[2J"), "contains the control character \\x1b"),
    ],
)
def test_absurd_values_are_refused_up_front(args: tuple[str, ...], fragment: str) -> None:
    one_line_error(arbiter("match", *TWO, *args), fragment)


def test_a_config_nested_too_deeply_is_one_line(tmp_path: Path) -> None:
    config = tmp_path / "deep.json"
    config.write_text("[" * 200_000 + "]" * 200_000)
    one_line_error(arbiter("match", "--config", str(config)), "nested too deeply")


def test_a_tournament_too_large_to_plan_is_refused(tmp_path: Path) -> None:
    one_line_error(
        arbiter("tournament", *TWO, "--depth", "1", "--rounds", "1000", "--games", "1000000", cwd=tmp_path),
        "at most 1,000,000 can be scheduled",
    )
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("engine", "fragment"),
    [
        (["--engine", f"cmd={sys.executable} {TOY}", "name=two\nlines"], "name 'two\\nlines' contains"),
        (["--engine", f"cmd={sys.executable} {TOY}", "name=x", 'option.Hash=1\r\n[Event "x"]'], "option.Hash"),
        (["--engine", f"cmd={sys.executable} {TOY}", "name=x", "option.A\tB=1"], "option 'A\\tB'"),
    ],
)
def test_control_characters_in_names_and_options_are_refused(engine: list[str], fragment: str) -> None:
    one_line_error(arbiter("match", *TWO[:3], *engine, "--depth", "1"), fragment)


def test_huge_anchors_are_refused(event: Path) -> None:
    one_line_error(arbiter("ratings", str(event), "--anchor", "a=1e300"), "from -1,000,000 to 1,000,000")


# -- outputs that would destroy data -------------------------------------------------------


@pytest.mark.slow
def test_no_output_may_replace_the_database_or_another_output(event: Path, tmp_path: Path) -> None:
    before = digest(event)
    pgn = event.with_name("event.pgn")
    cases = [
        (("export", str(event), "--pgn", str(event)), "that is the event database"),
        (("export", str(event), "--pgn", f"{event}-wal"), "that is the event database"),
        (("export", str(event), "--pgn", ""), "--pgn: the file name is empty"),
        (("export", str(event), "--pgn", str(tmp_path)), "is a directory"),
        (("ratings", str(event), "--report", str(event)), f"that is the input {event}"),
        (("ratings", str(pgn), "--report", str(pgn)), f"that is the input {pgn}"),
        (("tournament", *TWO, "--depth", "1", "--db", "new.db", "--pgn", "new.db"), "that is the event database"),
        (("tournament", *TWO, "--depth", "1", "--db", "new.db", "--report", "new.db"), "that is the event database"),
        (("tournament", *TWO, "--depth", "1", "--db", "new.db", "--pgn", str(event)), "is an SQLite database"),
        (("tournament", *TWO, "--depth", "1", "--db", "new.db", "--pgn", "x", "--report", "./x"), "the same file"),
        (("tournament", *TWO, "--depth", "1", "--db", "new.db", "--log", "new.db"), "that is the event database"),
        (("tournament", *TWO, "--depth", "1", "--db", "new.db", "--report", ""), "--report: the file name is empty"),
        (("tournament", *TWO, "--depth", "1", "--db", " "), "--db: the file name is empty"),
        (("match", *TWO, "--depth", "1", "--pgn", str(event)), "is an SQLite database"),
        (("match", *TWO, "--depth", "1", "--pgn", "games.pgn", "--log", "games.pgn"), "that is the PGN file"),
    ]
    pgn_before = digest(pgn)
    for args, fragment in cases:
        one_line_error(arbiter(*args, cwd=tmp_path), fragment)
    assert digest(event) == before and digest(pgn) == pgn_before
    assert list(tmp_path.iterdir()) == []  # nothing was written


# -- damaged, foreign and read-only databases ----------------------------------------------


def damage(source: Path, target: Path, how: str) -> None:
    shutil.copy(source, target)
    if how == "corrupt pages":
        data = bytearray(target.read_bytes())
        data[4096:] = b"\x5a" * (len(data) - 4096)
        target.write_bytes(bytes(data))
        return
    statements = {
        "missing table": "DROP TABLE moves",
        "bad settings": "UPDATE event SET settings = '{not json'",
        "missing setting": "UPDATE event SET settings = '{}'",
        "unknown termination": "UPDATE games SET termination = 'EXPLODED'",
        "unknown move source": "UPDATE moves SET source = 'alien'",
        "bad limits": 'UPDATE engines SET limits = \'{"depth": "-3"}\'',
    }
    connection = sqlite3.connect(target)
    connection.execute(statements[how])
    connection.commit()
    connection.close()


@pytest.mark.parametrize(
    "how",
    [
        "corrupt pages",
        "missing table",
        "bad settings",
        "missing setting",
        "unknown termination",
        "unknown move source",
        "bad limits",
    ],
)
@pytest.mark.slow
def test_a_damaged_database_is_one_line_for_every_command(event: Path, tmp_path: Path, how: str) -> None:
    damaged = tmp_path / "damaged.db"
    damage(event, damaged, how)
    commands = [("resume", str(damaged)), ("export", str(damaged), "--pgn", "-"), ("ratings", str(damaged))]
    if how == "unknown move source":
        # Ratings, and resume rebuilding its standings, read results alone, never a move (issue
        # 14): they still work; resume reads the moves of a game it must still append to the PGN.
        assert arbiter(*commands.pop(), cwd=tmp_path).returncode == 0
        resumed = arbiter(*commands.pop(0), cwd=tmp_path)
        assert resumed.returncode == 0 and "Resuming: 2 of 2 games already finished" in resumed.stdout, resumed
        connection = sqlite3.connect(damaged)
        connection.execute("UPDATE games SET pgn_written = 0 WHERE number = 2")
        connection.commit()
        connection.close()
        one_line_error(arbiter("resume", str(damaged), cwd=tmp_path), "damaged")
    for args in commands:
        one_line_error(arbiter(*args, cwd=tmp_path), "damaged")


def test_a_game_damaged_late_in_the_export_keeps_the_old_pgn_file(tmp_path: Path) -> None:
    db, pgn = tmp_path / "long.db", tmp_path / "long.pgn"
    finished_event(db, 300).close()
    connection = sqlite3.connect(db)
    connection.execute("UPDATE moves SET source = 'alien' WHERE game = 290")
    connection.commit()
    connection.close()
    pgn.write_text("the previous export\n")
    result = arbiter("export", str(db), "--pgn", str(pgn))
    one_line_error(
        result, f"event database {db} is damaged and cannot be read: a move of game 290 has the unknown source 'alien'"
    )
    assert result.stdout == ""
    assert pgn.read_text() == "the previous export\n"  # and no temporary file is left beside it:
    assert [path.name for path in tmp_path.iterdir() if not path.name.startswith("long.db")] == ["long.pgn"]
    # To standard output the games go out as they are read: those before the damaged one.
    streamed = arbiter("export", str(db), "--pgn", "-")
    one_line_error(streamed, "a move of game 290 has the unknown source 'alien'")
    assert streamed.stdout.count("[Event ") == 289 and '[Round "289"]' in streamed.stdout


def test_a_foreign_database_is_one_line(tmp_path: Path) -> None:
    foreign = tmp_path / "foreign.db"
    connection = sqlite3.connect(foreign)
    connection.execute("CREATE TABLE things (x)")
    connection.commit()
    connection.close()
    for args in (("resume", str(foreign)), ("export", str(foreign), "--pgn", "-"), ("ratings", str(foreign))):
        one_line_error(arbiter(*args), "not a dipole-arbiter event database")


def read_only_run(directory: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run the arbiter with ``directory`` read-only: made so by its mode when not root, else
    (root may write anything) by a read-only bind mount in a mount namespace of its own."""
    if os.geteuid() != 0:
        for path in directory.iterdir():
            path.chmod(0o444)
        directory.chmod(0o555)
        try:
            return arbiter(*args)
        finally:
            directory.chmod(0o755)
    script = f'mount --bind "{directory}" "{directory}" && mount -o remount,ro,bind "{directory}" || exit 99; exec "$@"'
    try:
        result = subprocess.run(
            ["unshare", "-m", "sh", "-c", script, "sh", *ARBITER, *args], capture_output=True, text=True, timeout=60
        )
    except FileNotFoundError:
        result = None
    if result is None or result.returncode == 99 or "unshare:" in result.stderr:
        pytest.skip(
            "running as root where no read-only mount can be made (no unshare -m): "
            "run as another user to test a read-only database"
        )
    return result


def test_a_read_only_database_can_be_exported_and_rated_but_not_resumed(event: Path, tmp_path: Path) -> None:
    directory = tmp_path / "ro"
    directory.mkdir()
    copy = directory / "event.db"
    shutil.copy(event, copy)
    exported = read_only_run(directory, "export", str(copy), "--pgn", "-")
    assert exported.returncode == 0, exported
    assert exported.stdout.count("[Event ") == 2
    rated = read_only_run(directory, "ratings", str(copy))
    assert rated.returncode == 0, rated
    assert "Terminations: normal 2" in rated.stdout
    one_line_error(read_only_run(directory, "resume", str(copy)), "is read-only")


# -- PGN from elsewhere --------------------------------------------------------------------


@pytest.mark.slow
def test_pgn_with_a_byte_order_mark_and_odd_rounds_is_read(event: Path, tmp_path: Path) -> None:
    text = event.with_name("event.pgn").read_text()
    odd = text.replace('[Round "1"]', '[Round "\u00b2"]').replace('[Round "2"]', '[Round "' + "9" * 5000 + '"]')
    for name, content in (
        ("bom.pgn", "\ufeff" + text),
        ("odd.pgn", odd),
        ("dotted.pgn", text.replace('[Round "1"]', '[Round "1.2"]')),
    ):
        path = tmp_path / name
        path.write_text(content, encoding="utf-8")
        replayed = arbiter("replay", str(path))
        assert replayed.returncode == 0 and "2 games replayed, all hold" in replayed.stdout, replayed
        rated = arbiter("ratings", str(path))
        assert rated.returncode == 0 and "Terminations: normal 2" in rated.stdout, rated
