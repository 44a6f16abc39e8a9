"""``dipole-arbiter`` as a user runs it: match output, PGN files, replay, bad input, signals."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pexpect
import pytest
from test_arbiter_games import FAST, TOY, assert_all_gone

from arbiter.cli.options import Interrupted, run_interruptible
from arbiter.play.engines import EngineSpec
from arbiter.play.referee import GameJob
from arbiter.play.timecontrol import SearchLimits
from arbiter.records.game import START, GameRecord
from arbiter.records.pgn import read_pgn_file

ARBITER = [sys.executable, "-c", "from arbiter.cli import main; main()"]
FINISHED = re.compile(r"^Finished game (\d+) \((\S+) vs (\S+)\): (1-0|0-1|\*) \{(.+)\}$")


def toy(name: str, pid_dir: Path, *flags: str) -> list[str]:
    pid_dir.mkdir(exist_ok=True)
    return [
        "--engine",
        f"cmd={sys.executable} {TOY} --pid-dir {pid_dir} --seed {name} {' '.join(flags)}".strip(),
        f"name={name}",
    ]


def arbiter(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ARBITER, *args], capture_output=True, text=True, timeout=timeout)


def test_match_prints_cutechess_lines_writes_pgn_and_replay_accepts_it(tmp_path: Path) -> None:
    pgn = tmp_path / "games.pgn"
    pids = tmp_path / "pids"
    result = arbiter(
        "match",
        *toy("alpha", pids),
        *toy("beta", pids, "--illegal", "--after", "4"),
        "--games",
        "4",
        "--depth",
        "1",
        "--opening-plies",
        "2",
        "--seed",
        "5",
        "--pgn",
        str(pgn),
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    finished = [FINISHED.match(line) for line in lines if line.startswith("Finished game")]
    assert all(finished) and sorted(int(m.group(1)) for m in finished if m) == [1, 2, 3, 4]
    assert "Finished game 1 (alpha vs beta): 1-0 {Black makes an illegal move: " in result.stdout
    assert "Openings: 2 random plies, seed 5 (repeat with --opening-plies 2 --seed 5)" in lines
    assert lines[-1] == "Finished match"
    assert "Score of alpha vs beta: " in result.stdout and "Elo difference: " in result.stdout
    assert "...      alpha playing White: " in result.stdout
    assert re.search(r"^Terminations: .*illegal move \d", result.stdout, re.M)
    assert "Warning: game 1: beta (Black): illegal move" in result.stderr
    games = read_pgn_file(str(pgn))
    assert [game.tags["Round"] for game in games] == ["1", "2", "3", "4"]
    assert games[0].moves[0].text == games[1].moves[0].text  # a pair shares its opening
    assert games[0].tags["White"] == games[1].tags["Black"] == "alpha"
    replay = arbiter("replay", str(pgn))
    assert replay.returncode == 0
    assert replay.stdout.splitlines() == [f"{pgn}: 4 games replayed, all hold"]
    assert_all_gone(pids, expected_at_least=2)


def test_replay_rejects_a_tampered_game_by_game_and_ply(tmp_path: Path) -> None:
    pgn = tmp_path / "games.pgn"
    arbiter(
        "match", *toy("a", tmp_path / "p"), *toy("b", tmp_path / "p"), "--games", "2", "--depth", "1", "--pgn", str(pgn)
    )
    text = pgn.read_text()
    second = text.index('[Round "2"]')
    moves_at = text.index("\n\n", second) + 2
    head, movetext = text[:moves_at], text[moves_at:]
    pgn.write_text(head + re.sub(r"(\b2\.\s+)\S+", r"\1a1-b2", movetext, count=1))  # White's 2nd move
    result = arbiter("replay", str(pgn))
    assert result.returncode == 1
    assert re.search(
        r"game 2 \(round 2: b vs a, line \d+\), ply 3: White's move 'a1-b2' \(line \d+\) does not hold", result.stdout
    ), result.stdout
    assert result.stdout.splitlines()[-1] == f"{pgn}: 2 games replayed, 1 do not hold"


def test_replay_of_a_malformed_file_is_one_line(tmp_path: Path) -> None:
    pgn = tmp_path / "bad.pgn"
    pgn.write_text('[Event "x"]\n[Result "*"]\n\n1. c1-c3 {oops\n')
    result = arbiter("replay", str(pgn))
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        f"dipole-arbiter: error: {pgn} line 4: comment opened with '{{' is never closed"
    ]


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (("match", "--engine", f"cmd={sys.executable}", "depth=1"), "a match is between two engines; 1 given"),
        (("match", "--engine", "cmd=nosuchengine", "--engine", "cmd=x"), "'nosuchengine' not found on PATH"),
        (
            ("match", "--engine", f"cmd={sys.executable}", "speed=9", "--engine", f"cmd={sys.executable}"),
            "--engine #1: unknown key 'speed'",
        ),
        (
            ("match", "--engine", f"cmd={sys.executable}", "--engine", f"cmd={sys.executable}", "--tc", "fast"),
            "time control 'fast'",
        ),
        (
            ("match", "--engine", f"cmd={sys.executable}", "--engine", f"cmd={sys.executable}"),
            "no limit on the engine's thinking",
        ),
        (("match", "--openings", "x.txt", "--opening-plies", "2"), "not both"),
        (
            (
                "match",
                "--engine",
                f"cmd={sys.executable}",
                "--engine",
                f"cmd={sys.executable}",
                "--depth",
                "1",
                "--seed",
                "3",
            ),
            "--seed applies to generated openings",
        ),
        (("match", "--games", "0"), "0 is not in the range"),
        (("match", "--config", "/nonexistent.json"), "config file /nonexistent.json: No such file"),
        (("match", "--openings", "/nonexistent.txt"), "openings file /nonexistent.txt: No such file"),
        (("replay", "/nonexistent.pgn"), "PGN file /nonexistent.pgn: No such file"),
    ],
)
def test_bad_input_is_one_line_and_status_2(args: tuple[str, ...], fragment: str) -> None:
    result = arbiter(*args)
    assert result.returncode == 2, result
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("dipole-arbiter: error: "), result.stderr
    assert fragment in lines[0]


def test_bad_openings_line_is_named(tmp_path: Path) -> None:
    openings = tmp_path / "o.txt"
    openings.write_text("c1-c3\nc1-c3 d8-d6 zz\n")
    result = arbiter("match", *toy("a", tmp_path), *toy("b", tmp_path), "--depth", "1", "--openings", str(openings))
    assert result.returncode == 2
    assert result.stderr.startswith(f"dipole-arbiter: error: {openings} line 2: 'zz' is not a Dipole move")


def _wait_for_pgn_games(path: Path, count: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().count("[Event ") >= count:
            return
        time.sleep(0.05)
    raise AssertionError(f"{path} never held {count} games")


@pytest.mark.slow
def test_sigterm_mid_match_kills_engines_and_leaves_only_whole_games(tmp_path: Path) -> None:
    pgn = tmp_path / "games.pgn"
    pids = tmp_path / "pids"
    process = subprocess.Popen(
        [
            *ARBITER,
            "match",
            *toy("a", pids, "--think", "15"),
            *toy("b", pids, "--think", "15", "--ignore-quit"),
            "--games",
            "40",
            "--concurrency",
            "2",
            "--depth",
            "1",
            "--pgn",
            str(pgn),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    _wait_for_pgn_games(pgn, 2)
    process.send_signal(signal.SIGTERM)
    stdout, stderr = process.communicate(timeout=30)
    assert process.returncode == 128 + signal.SIGTERM, stderr
    assert "Interrupted by SIGTERM: " in stdout
    games = read_pgn_file(str(pgn))  # parses: no half game
    finished = [line for line in stdout.splitlines() if line.startswith("Finished game")]
    assert 2 <= len(games) == len(finished) < 40
    assert arbiter("replay", str(pgn)).returncode == 0
    assert stderr == ""
    assert_all_gone(pids, expected_at_least=4)


@pytest.mark.parametrize("swallow", [Exception, BaseException], ids=["Exception", "BaseException"])
def test_a_signal_landing_in_code_that_catches_errors_still_interrupts_the_run(swallow: type[BaseException]) -> None:
    # The main thread may be inside a library call that catches errors broadly (a Dask client
    # call asking the scheduler for its workers) when Ctrl-C comes: the run is interrupted all
    # the same, and the code after the signal does not decide how it ended.
    stopped: list[str] = []
    handler = signal.getsignal(signal.SIGINT)  # not always Python's default: an xdist worker ignores SIGINT

    def run() -> str:
        try:
            signal.raise_signal(signal.SIGINT)
            time.sleep(0.5)
        except swallow:
            pass
        return "finished"

    outcome = run_interruptible(run, lambda: stopped.append("engines killed"))
    assert isinstance(outcome, Interrupted) and outcome.signum == signal.SIGINT
    assert stopped == ["engines killed"]
    assert signal.getsignal(signal.SIGINT) == handler  # the handlers are put back


def test_ctrl_c_on_a_terminal_shows_the_bar_and_stops_cleanly(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    child = pexpect.spawn(
        ARBITER[0],
        [
            *ARBITER[1:],
            "match",
            *toy("a", pids, "--think", "20"),
            *toy("b", pids, "--think", "20"),
            "--games",
            "30",
            "--depth",
            "1",
        ],
        encoding="utf-8",
        timeout=60,
        dimensions=(24, 200),
    )
    child.expect(r"Finished game 1 \(a vs b\)")
    child.expect(r"\[#*\.*\] \d+/30 games  a \d+ - \d+ b  ETA \d+:\d\d:\d\d")
    child.sendintr()
    child.expect("Interrupted by SIGINT")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 128 + signal.SIGINT
    assert_all_gone(pids, expected_at_least=2)


def test_plain_output_has_progress_lines(tmp_path: Path) -> None:
    result = arbiter("match", *toy("a", tmp_path), *toy("b", tmp_path), "--games", "2", "--depth", "1")
    assert re.search(r"^Progress: 2/2 games, elapsed \d+:\d\d:\d\d, ETA \d+:\d\d:\d\d$", result.stdout, re.M)
    assert "\r" not in result.stdout and "\x1b" not in result.stdout


# -- the project's own engine -------------------------------------------------------------

OWN_ENGINE = f"cmd={sys.executable} -m dipole_engine"


@pytest.mark.build  # the project's engine plays: CI runs this on both builds
@pytest.mark.slow
def test_real_engines_fixed_depth_same_games_at_concurrency_1_and_2_and_replay_accepts(tmp_path: Path) -> None:
    runs = {}
    for concurrency in (1, 2):
        pgn = tmp_path / f"c{concurrency}.pgn"
        result = arbiter(
            "match",
            "--engine",
            OWN_ENGINE,
            "name=deep",
            "depth=3",
            "--engine",
            OWN_ENGINE,
            "name=shallow",
            "depth=2",
            "--games",
            "6",
            "--opening-plies",
            "3",
            "--seed",
            "11",
            "--concurrency",
            str(concurrency),
            "--pgn",
            str(pgn),
        )
        assert result.returncode == 0, result.stderr
        assert arbiter("replay", str(pgn)).returncode == 0
        games = sorted(read_pgn_file(str(pgn)), key=lambda game: int(game.tags["Round"]))
        runs[concurrency] = [(game.tags["White"], game.result, [move.text for move in game.moves]) for game in games]
        assert all(game.tags["Termination"] == "normal" for game in games)
        engine_moves = [move for game in games for move in game.moves if move.comments[0] not in ("book", "forced")]
        assert all(re.fullmatch(r"[+-](\d+\.\d\d|M\d+)/\d+ \d+\.\d{3}s", move.comments[0]) for move in engine_moves)
    assert runs[1] == runs[2]


def test_demo_runs_the_own_engine_at_two_depths() -> None:
    result = arbiter("match", "--games", "2")
    assert result.returncode == 0, result.stderr
    assert "Match: dipole-d4 vs dipole-d2, variant dipole, 2 games" in result.stdout
    assert re.search(
        r"^Openings: 4 random plies, seed \d+ \(repeat with --opening-plies 4 --seed \d+\)$", result.stdout, re.M
    )
    assert result.stdout.count("Finished game") == 2 and result.stdout.endswith("Finished match\n")


@pytest.mark.slow
def test_python_dash_m_arbiter_is_the_dipole_arbiter_command(tmp_path: Path) -> None:
    module = [sys.executable, "-m", "arbiter"]
    script = str(Path(sys.executable).with_name("dipole-arbiter"))
    help_text = subprocess.run([*module, "--help"], capture_output=True, text=True, timeout=60)
    assert help_text.returncode == 0, help_text.stderr
    assert help_text.stdout == subprocess.run([script, "--help"], capture_output=True, text=True, timeout=60).stdout
    assert "Usage: dipole-arbiter [OPTIONS] COMMAND" in help_text.stdout
    bad = subprocess.run([*module, "match", "--games", "x"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and bad.stderr.startswith("dipole-arbiter: ")
    pgn, pids = tmp_path / "games.pgn", tmp_path / "pids"
    result = subprocess.run(
        [
            *module,
            "match",
            *toy("alpha", pids),
            *toy("beta", pids),
            "--games",
            "2",
            "--depth",
            "1",
            "--opening-plies",
            "2",
            "--seed",
            "3",
            "--pgn",
            str(pgn),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == "Finished match"
    assert [game.tags["Round"] for game in read_pgn_file(str(pgn))] == ["1", "2"]
    replay = subprocess.run([*module, "replay", str(pgn)], capture_output=True, text=True, timeout=60)
    assert replay.stdout.splitlines() == [f"{pgn}: 2 games replayed, all hold"]
    assert_all_gone(pids, expected_at_least=2)


def test_the_command_imports_the_html_templates_only_to_write_html() -> None:
    """Jinja2 is a tenth of a second of every start: the command and its events load without
    it (a match writes no HTML); the first page rendered imports it (tests/test_report.py)."""
    probe = (
        "import sys, arbiter.cli, arbiter.events.tournament, arbiter.report.event_report; "
        "print('jinja2' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["False"]


def _parent(pid: int) -> int:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat[stat.rindex(")") + 2 :].split()[1])


def _caught_signals(pid: int) -> set[int]:
    """The signals ``pid`` has a handler for (``SigCgt`` of /proc/PID/status)."""
    status = Path(f"/proc/{pid}/status").read_text()
    mask = int(next(line.split()[1] for line in status.splitlines() if line.startswith("SigCgt:")), 16)
    return {number for number in range(1, 65) if mask >> (number - 1) & 1}


@pytest.mark.parametrize("concurrency", [2, 4], ids=["a game a process", "games on a process's hub"])
def test_games_at_once_are_played_in_processes_that_die_with_the_arbiter(tmp_path: Path, concurrency: int) -> None:
    """At concurrency 2 or more on a machine of two cores or more, the games are played in game
    processes forked by the arbiter itself (it has no other thread then: no fork server), each
    engine's guard a child of a game process, not of the arbiter; the game processes keep none
    of the arbiter's signal handlers (a SIGTERM at one would run the arbiter's interruption of
    the event in the copy); a SIGKILL of the arbiter takes the game processes and every engine
    with it, whether a process plays one game at a time or several on its hub."""
    from arbiter.pools.processes import process_shares

    pids = tmp_path / "pids"
    process = subprocess.Popen(
        [
            *ARBITER,
            "match",
            *toy("a", pids, "--think", "200"),
            *toy("b", pids, "--think", "200"),
            "--games",
            "40",
            "--concurrency",
            str(concurrency),
            "--depth",
            "1",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    engines_at_once = 2 * concurrency
    try:
        deadline = time.monotonic() + 60
        while (len(list(pids.glob("*"))) if pids.exists() else 0) < engines_at_once and time.monotonic() < deadline:
            time.sleep(0.05)
        engines = [int(path.name) for path in pids.iterdir()]
        assert len(engines) == engines_at_once
        hosts = {_parent(_parent(engine)) for engine in engines}  # engine -> its guard -> who started it
        expected = len(process_shares(concurrency))
        assert len(hosts) == expected and (expected == 1 or process.pid not in hosts), (hosts, process.pid)
        if expected > 1:
            assert {_parent(host) for host in hosts} == {process.pid}
            assert {signal.SIGINT, signal.SIGTERM, signal.SIGHUP} <= _caught_signals(process.pid)
            assert all(
                _caught_signals(host) & {signal.SIGINT, signal.SIGTERM, signal.SIGHUP} == set() for host in hosts
            )
    finally:
        process.kill()
        process.communicate(timeout=30)
    assert_all_gone(pids, expected_at_least=engines_at_once)
    deadline = time.monotonic() + 5
    while any(map(_running, hosts)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [pid for pid in hosts if _running(pid)] == []


@pytest.mark.parametrize("cores", [2, 1], ids=["a game a process", "two games on one process's hub"])
def test_a_stop_starts_no_game_in_the_game_processes_though_each_holds_its_next_job(cores: int) -> None:
    """A game process asks for its next job as it starts a game (the job is in hand when the
    game ends); a stop asked for when the first game ends still lets no game start after it:
    the job a process held is abandoned unreported, and every game reported started is recorded.
    The same whether each process plays one game at a time (on its thread, the arbiter's words
    read by another) or two at once (greenlets of its hub)."""
    from arbiter.pools.processes import ProcessPool

    limits = SearchLimits(depth=1)
    first, second = (EngineSpec(name, (sys.executable, TOY, "--seed", "1"), limits) for name in ("a", "b"))
    jobs = [GameJob(number, first, second, START, "dipole") for number in range(1, 21)]
    pool = ProcessPool("dipole", FAST, concurrency=2, cores=cores)
    assert pool.shares == ([1, 1] if cores == 2 else [2])
    started: list[tuple[int, str | None]] = []  # each game reported started, and the stop then
    finished: list[int] = []

    def on_finish(record: GameRecord) -> None:
        assert record.result != "*", record.reason
        finished.append(record.number)
        pool.request_stop("the first game is in")

    pool.run(jobs, lambda job: started.append((job.number, pool.stop_reason)), on_finish)
    assert [reason for _, reason in started] == [None] * len(started)
    assert sorted(number for number, _ in started) == sorted(finished)
    assert 1 <= len(finished) <= 2  # the game that brought the stop, and the other process's
    assert pool.stop_reason == "the first game is in"


def test_the_games_start_once_every_game_process_is_up(tmp_path: Path) -> None:
    """The first jobs wait until every game process has asked for one: the process that is up
    first does not also take the job after its own (it asks for it as its game starts) while
    the other is still importing, which would slow that game's moves; so two games in two
    processes are one in each (the engine logs name the worker that played)."""
    from arbiter.pools.local import EngineLogs
    from arbiter.pools.processes import ProcessPool

    limits = SearchLimits(depth=1)
    first, second = (EngineSpec(name, (sys.executable, TOY, "--seed", "1"), limits) for name in ("a", "b"))
    jobs = [GameJob(number, first, second, START, "dipole") for number in (1, 2)]
    pool = ProcessPool("dipole", FAST, concurrency=2, cores=2, logs=EngineLogs(str(tmp_path)))
    finished: list[GameRecord] = []
    pool.run(jobs, lambda job: None, finished.append)
    assert sorted(record.number for record in finished) == [1, 2]
    workers = {line.split()[1] for line in (tmp_path / "a.log").read_text().splitlines()}
    assert workers == {"w1", "w2"}


def _running(pid: int) -> bool:
    """Whether ``pid`` is a process that has not exited (a zombie has)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2 :].split()[0] != "Z"


def test_a_command_imports_only_what_it_uses() -> None:
    """The package's facade and the command load each module when it is first used: a game
    process (which imports ``arbiter.__main__``) and ``replay`` never import the event
    database, the match, the reports or the publisher, and every public name still resolves."""
    script = (
        "import sys, arbiter, arbiter.__main__\n"
        "before = sorted(name for name in sys.modules if name.startswith('arbiter.'))\n"
        "missing = [name for name in arbiter.__all__ if name not in dir(arbiter) or getattr(arbiter, name) is None]\n"
        "print(before, missing, arbiter.Match.__module__, arbiter.format_game.__module__)\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("]")[0] == "['arbiter.__main__'"
    assert "[] arbiter.events.match arbiter.records.pgn" in result.stdout
    script = (
        "import sys\n"
        "from arbiter.cli import main\n"
        "try:\n    main()\n"
        "finally:\n    print(' '.join(sorted(sys.modules)), file=sys.stderr)\n"
    )
    traced = subprocess.run(
        [sys.executable, "-c", script, "replay", "--help"], capture_output=True, text=True, timeout=60
    )
    assert traced.returncode == 0 and "Replay every game" in traced.stdout
    loaded = set(traced.stderr.split())
    assert "arbiter.cli.replay" in loaded
    assert not loaded & {
        "arbiter.events.store",
        "arbiter.events.match",
        "arbiter.report.render",
        "arbiter.publish.site",
    }
    with pytest.raises(AttributeError, match="no attribute 'Nothing'"):
        import arbiter

        _ = arbiter.Nothing  # type: ignore[attr-defined]
