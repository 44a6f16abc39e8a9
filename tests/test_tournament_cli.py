"""``dipole-arbiter tournament``, ``resume``, ``export``, ``ratings`` and ``--sprt`` as a user runs them:
real engine processes, the event database, SIGKILL and resume, reports, and bad input."""

from __future__ import annotations

import re
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

import pytest
from test_arbiter_cli import ARBITER, FINISHED, arbiter, toy
from test_arbiter_games import TOY, alive, assert_all_gone

from arbiter.events.store import EventConfig, EventStore
from arbiter.events.tournament import make_schedule
from arbiter.play.engines import EngineSpec
from arbiter.play.referee import RefereeSettings
from arbiter.play.timecontrol import SearchLimits
from arbiter.records.game import BLACK_WINS, START, WHITE_WINS, GameRecord, Termination
from arbiter.records.pgn import format_game, read_pgn_file

OWN_ENGINE = f"cmd={sys.executable} -m dipole_engine"


def own(name: str, *settings: str) -> list[str]:
    return ["--engine", OWN_ENGINE, f"name={name}", *settings]


def games_table(db: Path) -> list[tuple[int, str, str, str, int]]:
    connection = sqlite3.connect(db)
    try:
        return connection.execute("SELECT number, white, black, result, plies FROM games ORDER BY number").fetchall()
    finally:
        connection.close()


@pytest.mark.build  # the project's engine plays: CI runs this on both builds
@pytest.mark.slow
def test_round_robin_of_three_real_engines_is_stored_exported_and_rated(tmp_path: Path) -> None:
    db, pgn, exported, report = (tmp_path / name for name in ("rr.db", "live.pgn", "out.pgn", "rr.html"))
    result = arbiter(
        "tournament",
        *own("deep", "depth=2"),
        *own("shallow", "depth=1"),
        *own("small-hash", "depth=2", "option.Hash=1"),
        "--rounds",
        "2",
        "--games",
        "2",
        "--opening-plies",
        "3",
        "--seed",
        "4",
        "--db",
        str(db),
        "--pgn",
        str(pgn),
        "--report",
        str(report),
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.startswith("Tournament: round-robin, 3 engines, 2 rounds of 2 games per pairing, 12 games")
    assert f"Event database: {db} (continue an interrupted run with: dipole-arbiter resume {db})" in out
    finished = [FINISHED.match(line) for line in out.splitlines() if line.startswith("Finished game")]
    assert all(finished) and sorted(int(m.group(1)) for m in finished if m) == list(range(1, 13))
    assert re.search(r"^Progress: 12/12 games, elapsed \d+:\d\d:\d\d, ETA 0:00:00$", out, re.MULTILINE)
    assert "Bradley-Terry ratings with a White advantage term, 12 games" in out
    assert "White advantage: " in out and "Likelihood of superiority" in out
    assert re.search(r"^Terminations: normal 12$", out, re.MULTILINE)
    assert out.endswith(f"Report: {report}\nFinished tournament\n")
    # the database: the schedule, every game with its moves, colours balanced per pairing
    rows = games_table(db)
    assert [row[0] for row in rows] == list(range(1, 13))
    colours = Counter((white, black) for _, white, black, _, _ in rows)
    assert colours == {
        (a, b): 2 for a in ("deep", "shallow", "small-hash") for b in ("deep", "shallow", "small-hash") if a != b
    }
    connection = sqlite3.connect(db)
    assert connection.execute("SELECT count(*) FROM schedule").fetchone() == (12,)
    assert (
        connection.execute("SELECT sum(plies) FROM games").fetchone()
        == connection.execute("SELECT count(*) FROM moves").fetchone()
    )
    assert connection.execute("SELECT count(*) FROM moves WHERE source = 'engine' AND depth IS NULL").fetchone() == (0,)
    connection.close()
    # export writes exactly what was written live (one worker: the same order), and it replays
    export = arbiter("export", str(db), "--pgn", str(exported))
    assert export.returncode == 0 and export.stdout == f"Exported 12 of 12 scheduled games to {exported}\n"
    assert exported.read_text() == pgn.read_text()
    assert arbiter("replay", str(exported)).stdout == f"{exported}: 12 games replayed, all hold\n"
    # ratings from the database equal ratings from the exported PGN
    from_db, from_pgn = arbiter("ratings", str(db)), arbiter("ratings", str(exported))
    assert from_db.returncode == from_pgn.returncode == 0
    assert from_db.stdout == from_pgn.stdout and from_db.stdout.splitlines()[3] in out
    assert "<svg" in report.read_text()


def test_gauntlet_and_recover_by_default(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    db = tmp_path / "g.db"
    result = arbiter(
        "tournament",
        "--format",
        "gauntlet",
        *toy("hero", pids),
        *toy("b", pids),
        *toy("crashy", pids, "--crash", "--after", "3"),
        *toy("d", pids),
        "--depth",
        "1",
        "--games",
        "4",
        "--db",
        str(db),
    )
    assert result.returncode == 0, result.stderr
    assert "Tournament: gauntlet, 4 engines, 1 round of 4 games per pairing, 12 games" in result.stdout
    rows = games_table(db)
    assert len(rows) == 12 and all("hero" in (white, black) for _, white, black, _, _ in rows)
    assert Counter(white for _, white, _, _, _ in rows)["hero"] == 6
    # crashy crashes on its third search in every process: restarted, and the event went on
    assert re.search(r"^Terminations: .*crash \d+", result.stdout, re.MULTILINE)
    assert "Warning: game " in result.stderr and "crashy" in result.stderr
    assert result.stdout.endswith("Finished tournament\n")
    assert_all_gone(pids, expected_at_least=5)


def test_without_recover_a_crash_stops_the_event_and_resume_says_how_to_go_on(tmp_path: Path) -> None:
    db = tmp_path / "n.db"
    result = arbiter(
        "tournament",
        *toy("a", tmp_path / "p"),
        *toy("b", tmp_path / "p", "--crash", "--after", "2"),
        "--depth",
        "1",
        "--games",
        "6",
        "--no-recover",
        "--db",
        str(db),
    )
    assert result.returncode == 1
    assert re.search(
        rf"^Tournament stopped after 1 of 6 games: engine 'b' can no longer play .*; "
        rf"continue with: dipole-arbiter resume {re.escape(str(db))}$",
        result.stdout,
        re.MULTILINE,
    )


def wait_for_games(db: Path, count: int, timeout: float = 60) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if db.exists():
            try:
                found = len(games_table(db))
            except sqlite3.OperationalError:  # not created yet
                found = 0
            if found >= count:
                return found
        time.sleep(0.05)
    raise AssertionError(f"{db} never held {count} games")


@pytest.mark.slow
def test_sigkill_mid_event_then_resume_plays_exactly_the_schedule(tmp_path: Path) -> None:
    pids, db, pgn = tmp_path / "pids", tmp_path / "k.db", tmp_path / "k.pgn"
    engines = [*toy("a", pids, "--think", "10"), *toy("b", pids, "--think", "10"), *toy("c", pids, "--think", "10")]
    process = subprocess.Popen(
        [
            *ARBITER,
            "tournament",
            *engines,
            "--depth",
            "1",
            "--games",
            "4",
            "--rounds",
            "2",
            "--concurrency",
            "2",
            "--opening-plies",
            "2",
            "--seed",
            "3",
            "--db",
            str(db),
            "--pgn",
            str(pgn),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wait_for_games(db, 4)
    process.kill()  # SIGKILL: no clean-up runs in the arbiter
    process.wait(timeout=10)
    assert_all_gone(pids, expected_at_least=3)  # the engines die with it (parent-death signal)
    before = games_table(db)
    assert 4 <= len(before) < 24
    store = EventStore.open(str(db), write=False)
    done_before = store.records()
    store.close()
    started_pids = set(pids.iterdir())

    result = arbiter("resume", str(db), "--concurrency", "1")
    assert result.returncode == 0, result.stderr
    assert "24 games, variant dipole, concurrency 1" in result.stdout
    assert f"Resuming: {len(before)} of 24 games already finished" in result.stdout
    replayed = {int(m.group(1)) for m in map(FINISHED.match, result.stdout.splitlines()) if m}
    assert replayed == set(range(1, 25)) - {row[0] for row in before}
    after = games_table(db)
    assert [row[0] for row in after] == list(range(1, 25))  # each scheduled game once
    assert {row[0]: row for row in after}.items() >= {row[0]: row for row in before}.items()
    assert "Bradley-Terry ratings with a White advantage term, 24 games" in result.stdout
    assert set(pids.iterdir()) > started_pids
    assert_all_gone(pids)
    store = EventStore.open(str(db), write=False)
    assert [r for r in store.records() if r.number in {g.number for g in done_before}] == done_before
    # the PGN file holds every game once, whole (a game committed just before the kill is
    # appended on resume unless it was already written)
    games = read_pgn_file(str(pgn))
    assert sorted(int(game.tags["Round"]) for game in games) == list(range(1, 25))
    assert pgn.read_text().count(format_game(store.records([24])[0])) == 1
    store.close()
    assert arbiter("replay", str(pgn)).returncode == 0


@pytest.mark.slow
def test_a_match_kept_in_a_database_has_the_matchs_schedule_and_resumes_after_sigkill(tmp_path: Path) -> None:
    pids, db = tmp_path / "pids", tmp_path / "m.db"
    plain = arbiter(
        "match", *toy("a", pids), *toy("b", pids), "--depth", "1", "--games", "6", "--opening-plies", "2", "--seed", "5"
    )
    assert plain.returncode == 0, plain.stderr
    expected = [m.group(1, 2, 3) for m in map(FINISHED.match, plain.stdout.splitlines()) if m]
    command = [*toy("a", pids, "--think", "30"), *toy("b", pids, "--think", "30"), "--depth", "1", "--games", "6"]
    command += ["--opening-plies", "2", "--seed", "5", "--db", str(db)]
    process = subprocess.Popen([*ARBITER, "match", *command], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_for_games(db, 2)
    process.kill()
    process.wait(timeout=10)
    assert 2 <= len(games_table(db)) < 6
    result = arbiter("resume", str(db))
    assert result.returncode == 0, result.stderr
    rows = games_table(db)
    # every game once, in the plain match's order, with its pairs and colours
    assert [(str(number), white, black) for number, white, black, _, _ in rows] == [e[:3] for e in expected]
    assert arbiter("export", str(db), "--pgn", str(tmp_path / "m.pgn")).returncode == 0
    assert arbiter("replay", str(tmp_path / "m.pgn")).returncode == 0
    refused = arbiter("match", *command[:-1], str(tmp_path / "n.db"), "--live", str(tmp_path / "live.json"))
    assert refused.returncode == 2
    assert (
        refused.stderr
        == "dipole-arbiter: error: give --live or --db, not both (an event database keeps its live file beside it)\n"
    )
    assert not (tmp_path / "n.db").exists()


@pytest.mark.slow
def test_a_running_event_cannot_be_resumed_twice_but_can_be_read(tmp_path: Path) -> None:
    db = tmp_path / "busy.db"
    process = subprocess.Popen(
        [
            *ARBITER,
            "tournament",
            *toy("a", tmp_path, "--think", "20"),
            *toy("b", tmp_path, "--think", "20"),
            "--depth",
            "1",
            "--games",
            "40",
            "--db",
            str(db),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for_games(db, 1)
        second = arbiter("resume", str(db))
        assert second.returncode == 2
        assert second.stderr == (
            f"dipole-arbiter: error: event database {db} is in use by another running arbiter (pid {process.pid})\n"
        )
        exported = arbiter("export", str(db), "--pgn", "-")
        assert exported.returncode == 0 and exported.stdout.count("[Event ") >= 1
    finally:
        process.send_signal(signal.SIGTERM)
        stdout, _ = process.communicate(timeout=30)
    assert process.returncode == 128 + signal.SIGTERM
    assert re.search(
        rf"^Interrupted by SIGTERM: \d+ of 40 games finished; the game\(s\) in progress were "
        rf"abandoned; continue with: dipole-arbiter resume {re.escape(str(db))}$",
        stdout,
        re.MULTILINE,
    )


# -- SPRT ------------------------------------------------------------------------------------


def sprt_summary(stdout: str) -> re.Match[str]:
    found = re.search(
        r"^SPRT \((.*)\): (H0 accepted|H1 accepted|no decision) after (\d+) pairs "
        r"\(won (\d+), split (\d+), lost (\d+)\); LLR: (-?\d+\.\d\d) \((-?\d+\.\d\d), (\d+\.\d\d)\)",
        stdout,
        re.MULTILINE,
    )
    assert found, stdout
    return found


def test_sprt_stops_a_match_when_a_clearly_stronger_engine_is_found(tmp_path: Path) -> None:
    pgn = tmp_path / "s.pgn"
    result = arbiter(
        "match",
        *own("strong", "depth=3"),
        *toy("random", tmp_path),
        "--each",
        "depth=1",
        "--sprt",
        "elo0=0 elo1=300 alpha=0.05 beta=0.05",
        "--opening-plies",
        "2",
        "--seed",
        "1",
        "--games",
        "100",
        "--pgn",
        str(pgn),
    )
    assert result.returncode == 0, result.stderr
    assert "SPRT: elo0=0 elo1=300 alpha=0.05 beta=0.05, testing strong; at most 100 games" in result.stdout
    assert re.search(r"^SPRT: LLR: \d+\.\d\d \(-2\.94, 2\.94\) \[0\.00, 300\.00\]$", result.stdout, re.MULTILINE)
    summary = sprt_summary(result.stdout)
    assert summary.group(2) == "H1 accepted" and summary.group(3) == "6" and summary.group(4) == "6"
    assert float(summary.group(7)) >= 2.94
    assert re.search(r"^Match stopped after 12 of 100 games: SPRT H1 accepted$", result.stdout, re.MULTILINE)
    assert result.stdout.endswith("Finished match\n")
    assert len(read_pgn_file(str(pgn))) == 12


@pytest.mark.slow
def test_sprt_accepts_h0_between_equal_engines_in_a_two_engine_tournament(tmp_path: Path) -> None:
    # the same toy engine twice: colour-reversed games mirror each other, every pair splits
    db = tmp_path / "eq.db"
    result = arbiter(
        "tournament",
        *toy("one", tmp_path, "--seed", "x"),
        *toy("two", tmp_path, "--seed", "x"),
        "--depth",
        "1",
        "--games",
        "2",
        "--rounds",
        "50",
        "--opening-plies",
        "3",
        "--seed",
        "2",
        "--sprt",
        "elo0=0 elo1=200 alpha=0.05 beta=0.05",
        "--concurrency",
        "2",
        "--db",
        str(db),
    )
    assert result.returncode == 0, result.stderr
    summary = sprt_summary(result.stdout)
    assert summary.group(2) == "H0 accepted" and summary.group(3) == "5" and summary.group(5) == "5"
    assert "Tournament stopped after " in result.stdout and ": SPRT H0 accepted" in result.stdout
    again = arbiter("resume", str(db))  # a decided event plays nothing more
    assert again.returncode == 0
    assert "Started game" not in again.stdout and sprt_summary(again.stdout).groups() == summary.groups()


@pytest.mark.slow
def test_sprt_with_a_bounded_number_of_pairs_and_the_same_decision_at_any_concurrency(tmp_path: Path) -> None:
    capped = arbiter(
        "match",
        *toy("a", tmp_path),
        *toy("b", tmp_path),
        "--depth",
        "1",
        "--games",
        "6",
        "--sprt",
        "elo0=0 elo1=5 alpha=0.05 beta=0.05",
    )
    assert capped.returncode == 0 and sprt_summary(capped.stdout).group(2, 3) == ("no decision", "3")
    runs = []
    for concurrency in ("1", "2"):
        result = arbiter(
            "match",
            *toy("a", tmp_path),
            *toy("b", tmp_path),
            "--depth",
            "1",
            "--games",
            "60",
            "--opening-plies",
            "3",
            "--seed",
            "9",
            "--concurrency",
            concurrency,
            "--sprt",
            "elo0=0 elo1=100 alpha=0.1 beta=0.1",
        )
        assert result.returncode == 0, result.stderr
        runs.append(sprt_summary(result.stdout).groups())
    assert runs[0] == runs[1] and runs[0][1] == "H1 accepted"


# -- ratings ---------------------------------------------------------------------------------


def write_games(path: Path, results: list[tuple[str, str, str]]) -> None:
    records = [
        GameRecord(number, white, black, "dipole", None, (), result, Termination.NORMAL, "")
        for number, (white, black, result) in enumerate(results, 1)
    ]
    path.write_text("".join(format_game(record) for record in records))


def rating_of(stdout: str, name: str) -> tuple[float, float, str]:
    found = re.search(
        rf"^\s+\d+ {re.escape(name)}\s+(-?\d+\.\d)\s+(\d+\.\d)\s+\[.*?\]\s+\S+\s+\d+\s+\S+\s+\S+\s+\S+"
        rf"\s+\S+\s*(.*)$",
        stdout,
        re.MULTILINE,
    )
    assert found, stdout
    return float(found.group(1)), float(found.group(2)), found.group(3)


def test_ratings_known_answers_from_a_pgn(tmp_path: Path) -> None:
    # A beats B 3-1 with each colour: no White advantage, and the two-engine formula gives
    # 400 log10(3) = 190.8 Elo between them; anchored B=1000, A is 1190.8.
    pgn = tmp_path / "known.pgn"
    write_games(
        pgn,
        [("A", "B", WHITE_WINS)] * 3
        + [("A", "B", BLACK_WINS)]
        + [("B", "A", BLACK_WINS)] * 3
        + [("B", "A", WHITE_WINS)],
    )
    result = arbiter("ratings", str(pgn), "--anchor", "B=1000")
    assert result.returncode == 0, result.stderr
    assert rating_of(result.stdout, "A")[0] == 1190.8 and rating_of(result.stdout, "B")[:2] == (1000.0, 0.0)
    assert "White advantage: +0.0 +/- " in result.stdout
    assert re.search(r"^\s+1 A\s+-\s+3-1/3-1$", result.stdout, re.MULTILINE)  # crosstable: W-L as White / as Black
    assert "Bradley-Terry ratings with a White advantage term, 8 games, B anchored at 1000" in result.stdout
    assert result.stdout.endswith("Terminations: normal 8\n")
    # an engine that won every game gets a finite, flagged rating
    perfect = tmp_path / "perfect.pgn"
    write_games(
        perfect, [("A", "B", WHITE_WINS), ("B", "A", BLACK_WINS)] * 2 + [("B", "C", WHITE_WINS), ("C", "B", WHITE_WINS)]
    )
    flagged = arbiter("ratings", str(perfect))
    assert flagged.returncode == 0
    assert rating_of(flagged.stdout, "A")[2] == "all wins"


class _Structure(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: Counter[str] = Counter()
        self.ids: set[str] = set()
        self.classes: Counter[str] = Counter()
        self.references: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags[tag] += 1
        values = dict(attrs)
        if values.get("id"):
            self.ids.add(str(values["id"]))
        for name in (values.get("class") or "").split():
            self.classes[f"{tag}.{name}"] += 1
        self.references += [str(values[key]) for key in ("src", "href") if values.get(key)]


def rated_report(tmp_path: Path) -> Path:
    pgn, report = tmp_path / "r.pgn", tmp_path / "report.html"
    write_games(
        pgn,
        [
            ("A", "B", WHITE_WINS),
            ("B", "C", BLACK_WINS),
            ("C", "A", WHITE_WINS),
            ("B", "A", WHITE_WINS),
            ("C", "B", BLACK_WINS),
            ("A", "C", BLACK_WINS),
        ]
        * 2,
    )
    result = arbiter("ratings", str(pgn), "--report", str(report))
    assert result.returncode == 0 and result.stdout.endswith(f"Report: {report}\n")
    return report


def test_ratings_report_is_self_contained_html(tmp_path: Path) -> None:
    html = rated_report(tmp_path).read_text()
    assert html.startswith("<!DOCTYPE html>") and html.rstrip().endswith("</html>")
    structure = _Structure()
    structure.feed(html)
    assert {"standings", "white-advantage", "crosstable", "los", "terminations"} <= structure.ids
    assert structure.classes["g.engine"] == 3 and structure.classes["circle.rating"] == 3
    assert structure.classes["line.whisker"] == 3
    assert structure.tags["script"] == 0 and structure.tags["link"] == 0 and structure.references == []
    assert "http" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "")


def test_the_report_renders_in_a_headless_browser(tmp_path: Path, chromium_executable: str) -> None:
    report = rated_report(tmp_path)
    rendered = subprocess.run(
        [chromium_executable, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", report.as_uri()],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    source, dom = _Structure(), _Structure()
    source.feed(report.read_text())
    dom.feed(rendered.stdout)  # what the browser built from the file, offline
    assert dom.classes["g.engine"] == 3 and dom.classes["circle.rating"] == 3
    assert {"standings", "crosstable", "los", "terminations"} <= dom.ids
    assert dom.tags["tr"] == source.tags["tr"] > 10


# -- bad input: one line, status 2 -----------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("match", "--sprt", "elo0=0 elo1=10 alpha=0.05"),
            "Invalid value for '--sprt': missing beta (expected e.g. elo0=0 elo1=10 alpha=0.05 beta=0.05)",
        ),
        (
            ("tournament", "--sprt", "elo0=10 elo1=0 alpha=0.05 beta=0.05"),
            "Invalid value for '--sprt': elo0 must be less than elo1 (got elo0=10 elo1=0)",
        ),
        (
            ("ratings", "x.pgn", "--anchor", "nobody"),
            "Invalid value for '--anchor': anchor 'nobody' is not NAME=RATING",
        ),
        (
            ("tournament", "--anchor", "nobody=1"),
            "--anchor nobody: no engine of that name (the engines: dipole-d3, dipole-d2, dipole-d1)",
        ),
        (
            ("tournament", "--format", "pyramid"),
            "Invalid value for '--format': 'pyramid' is not one of 'round-robin', 'gauntlet', 'knockout', 'swiss'.",
        ),
        (
            ("tournament", "--engine", f"cmd={sys.executable}", "depth=1"),
            "a tournament needs at least two engines; 1 given",
        ),
        (
            ("tournament", "--sprt", "elo0=0 elo1=10 alpha=0.05 beta=0.05"),
            "--sprt tests one engine against another: give exactly two engines, not 3",
        ),
        (("resume", "{tmp}/missing.db"), "event database {tmp}/missing.db: no such file"),
        (
            ("export", "{tmp}/notes.db", "--pgn", "x.pgn"),
            "{tmp}/notes.db is not an event database (not an SQLite database at all)",
        ),
        (
            ("ratings", "{tmp}/other.db"),
            "{tmp}/other.db is not a dipole-arbiter event database (an SQLite database of some other program)",
        ),
    ],
)
def test_bad_input_is_one_line_and_status_2(tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    (tmp_path / "notes.db").write_text("not a database\n")
    other = sqlite3.connect(tmp_path / "other.db")
    other.execute("CREATE TABLE t (x)")
    other.commit()
    other.close()
    result = subprocess.run(
        [*ARBITER, *(arg.format(tmp=tmp_path) for arg in args)],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert result.returncode == 2, result
    assert result.stderr == f"dipole-arbiter: error: {message.format(tmp=tmp_path)}\n"
    assert list(tmp_path.glob("tournament-*.db")) == []


def test_resuming_an_event_whose_engine_is_gone_is_one_line(tmp_path: Path) -> None:
    engines = (
        EngineSpec("here", (sys.executable, TOY), SearchLimits(depth=1)),
        EngineSpec("gone", (str(tmp_path / "moved-away"),), SearchLimits(depth=1)),
    )
    config = EventConfig("round-robin", "dipole", engines, 1, 2, (START,), "start", RefereeSettings())
    EventStore.create(str(tmp_path / "e.db"), config, make_schedule("round-robin", 2, 1, 2)).close()
    result = arbiter("resume", str(tmp_path / "e.db"))
    assert result.returncode == 2
    assert result.stderr == (
        f"dipole-arbiter: error: engine 'gone': engine program '{tmp_path / 'moved-away'}' not found\n"
    )
    assert "Started game" not in result.stdout and (tmp_path / "e.db").exists()  # kept: it can be resumed


def test_an_engine_that_cannot_be_set_up_leaves_no_database(tmp_path: Path) -> None:
    db = tmp_path / "bad.db"
    result = arbiter(
        "tournament",
        *toy(
            "a",
            tmp_path,
        ),
        *toy("b", tmp_path),
        "--each",
        "option.NoSuch=1",
        "--depth",
        "1",
        "--db",
        str(db),
    )
    assert result.returncode == 2 and "has no option 'NoSuch'" in result.stderr
    assert len(result.stderr.splitlines()) == 1
    assert not db.exists()
    assert list(tmp_path.glob("bad.db*")) == []  # nor its live file


def test_parent_death_signal_kills_engines_of_a_killed_host(tmp_path: Path) -> None:
    host = subprocess.Popen(
        [
            sys.executable,
            "-c",
            (
                "import sys, time\n"
                "from protocol.processtransport import ProcessTransport\n"
                "t = ProcessTransport(['sleep', '600']); t.start(lambda d, l: None)\n"
                "print(t.pid, flush=True); time.sleep(600)\n"
            ),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert host.stdout is not None
    engine = int(host.stdout.readline())
    assert alive(engine)
    host.send_signal(signal.SIGKILL)
    host.wait(timeout=10)
    deadline = time.monotonic() + 5
    while alive(engine) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(engine)
