"""The arbiter against engines built to attack it (tests/engines/hostile_engine.py): output
floods, endless lines, answers out of turn, processes that try to escape, control characters,
a log disk that is full.  Each must end the game correctly scored, on time, with the host's
memory bounded and no process, thread or file descriptor left behind.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from test_arbiter_games import alive

from arbiter.events.match import schedule
from arbiter.play.engines import EngineSpec
from arbiter.play.referee import GameJob, RefereeSettings
from arbiter.play.replay import check_game
from arbiter.play.timecontrol import SearchLimits
from arbiter.pools.local import EngineLogs, GamePool
from arbiter.pools.processes import ProcessPool
from arbiter.records.game import START, GameRecord, Termination
from arbiter.records.pgn import PgnGame, format_game, read_pgn
from protocol import EngineClient, EngineStalled, Limit, UnreadableMove
from protocol.client import MAX_INFOS, HandshakeError, ProtocolViolation
from protocol.guardstart import GUARDED, fork_guards
from protocol.processtransport import ProcessTransport

ENGINES = Path(__file__).parent / "engines"
sys.path.insert(0, str(Path(__file__).parent.parent / "benchmarks"))
from flood_bench import neighbour_times, percentile  # noqa: E402  (the benchmark, run small)

pytestmark = pytest.mark.build  # the compiled client, transport, referee or hub: CI runs these on both builds

HOSTILE = str(ENGINES / "hostile_engine.py")
TOY = str(ENGINES / "toy_engine.py")
ROOT = str(Path(__file__).parent.parent)
FAST = RefereeSettings(handshake_timeout=3.0, stall_timeout=5.0, stop_grace=1.0, quit_grace=0.3)
TIMED = SearchLimits(movetime=0.3, margin=0.3)
MB = 1 << 20


def hostile(name: str, *flags: str, limits: SearchLimits = TIMED) -> EngineSpec:
    return EngineSpec(name, (sys.executable, HOSTILE, "--seed", name, *flags), limits)


def toy(name: str, limits: SearchLimits = TIMED, *flags: str) -> EngineSpec:
    return EngineSpec(name, (sys.executable, TOY, "--seed", name, *flags), limits)


def play(
    first: EngineSpec,
    second: EngineSpec,
    games: int = 2,
    logs: EngineLogs | None = None,
    notes: list[str] | None = None,
) -> list[GameRecord]:
    pool = GamePool(
        "dipole",
        FAST,
        concurrency=1,
        recover=True,
        logs=logs,
        notify=(notes.append if notes is not None else lambda line: None),
    )
    records: list[GameRecord] = []
    pool.run(schedule(first, second, games, [START], "dipole"), lambda job: None, records.append)
    return sorted(records, key=lambda record: record.number)


def assert_bad_side_lost(records: list[GameRecord], termination: Termination, bad: str = "bad") -> None:
    for record in records:
        assert record.termination is termination, record
        assert record.result == ("0-1" if record.white == bad else "1-0"), record
        (game,) = read_pgn(format_game(record))
        assert check_game(game) is None


def wait_all_gone(pids: list[int], seconds: float = 10.0) -> list[int]:
    deadline = time.monotonic() + seconds
    while any(map(alive, pids)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return [pid for pid in pids if alive(pid)]


# -- floods --------------------------------------------------------------------------------


def test_an_info_flood_cannot_push_the_deadline_back() -> None:
    begin = time.monotonic()
    records = play(hostile("bad", "--flood-info"), toy("good"))
    # each game: 0.6 s to the deadline, 1 s of grace after stop, then the kill
    assert time.monotonic() - begin < 20
    assert_bad_side_lost(records, Termination.STALL)


def test_an_endless_line_is_a_protocol_violation() -> None:
    begin = time.monotonic()
    # Seconds for the move: the 1 MB line must be written before the move's time is up, even
    # when the engine waits for a core (a CI run saw it stall at 0.3 s).
    records = play(hostile("bad", "--endless-line", limits=SearchLimits(movetime=3.0, margin=1.0)), toy("good"))
    assert time.monotonic() - begin < 20
    assert_bad_side_lost(records, Termination.PROTOCOL_VIOLATION)
    assert all(record.reason.endswith("violates the protocol") for record in records)


def test_a_handshake_flood_fails_at_the_handshake_deadline() -> None:
    begin = time.monotonic()
    records = play(hostile("bad", "--flood-handshake"), toy("good"))
    assert time.monotonic() - begin < 25
    for record in records:
        assert record.termination in (Termination.HANDSHAKE, Termination.PROTOCOL_VIOLATION)
        assert record.result == ("0-1" if record.white == "bad" else "1-0")


def test_a_garbage_flood_cannot_push_the_handshake_deadline_back() -> None:
    engine = EngineClient([sys.executable, HOSTILE, "--flood-garbage"])
    begin = time.monotonic()
    with pytest.raises(HandshakeError, match="no 'uciok' within the deadline"):
        engine.start(timeout=1.0)
    assert time.monotonic() - begin < 8 and not engine.alive


@pytest.mark.slow
def test_many_info_lines_are_read_but_only_the_last_are_kept() -> None:
    with EngineClient([sys.executable, HOSTILE, "--flood-then-move"]) as engine:
        engine.set_position(None)
        result = engine.go(Limit(depth=1), timeout=60)
    assert result.bestmove is not None and len(result.infos) == MAX_INFOS
    assert result.scored is not None and result.scored.score_cp == 5 and result.depth == 1


def test_a_stderr_flood_costs_nothing() -> None:
    records = play(hostile("bad", "--flood-stderr", limits=SearchLimits(depth=1)), toy("good", SearchLimits(depth=1)))
    assert all(record.termination is Termination.NORMAL for record in records)


@pytest.mark.slow
def test_a_flood_costs_the_engines_of_the_other_games_no_clock_time() -> None:
    """The games of two engines answering at once, two at a time, beside a game whose engine
    floods ``info`` lines (benchmarks/flood_bench.py, small): the moves their clocks were
    charged stay as short as beside a quiet game.  The 95th percentile, not the worst move,
    so that a stall of the shared machine cannot fail it: before the readers paced a flood,
    one move in ten or more waited an interpreter switch interval (5 ms) or longer.

    The flooder runs at the lowest priority: what is measured is the arbiter's own cost of a
    flood (reading and pacing it), not the flooder's share of the cores, which a busy test
    machine (other tests in parallel) would otherwise take from the neighbours' engines; on an
    idle core it floods at full speed all the same.

    Up to three measurements, and one within the bound passes: other tests running in
    parallel load the quiet and the flooded rounds unevenly, by chance, while an unpaced flood
    costs every measurement alike (its 95th percentile was five to ten times the quiet one)."""
    found: list[str] = []
    for _ in range(3):
        times: dict[bool, list[float]] = {False: [], True: []}
        for flood in (False, True, False, True):  # alternating: the machine's speed drifts
            times[flood] += neighbour_times("--flood-info" if flood else None, games=8, neighbours=2, niceness=19)[0]
        quiet, flooded = (1000 * percentile(times[flood], 0.95) for flood in (False, True))
        found.append(f"95th percentile {flooded:.2f} ms beside a flood, {quiet:.2f} ms without")
        if flooded < 2 * quiet + 2:
            return
    pytest.fail("; ".join(found))


# -- answers out of turn -------------------------------------------------------------------


@pytest.mark.parametrize("flag", ["--double-bestmove", "--early-bestmove"])
def test_a_bestmove_out_of_turn_is_a_protocol_violation(flag: str) -> None:
    # the opponent thinks 0.1 s, so the extra bestmove surely arrives before the next go
    records = play(hostile("bad", flag, "--after", "2"), toy("good", TIMED, "--think", "100"))
    assert_bad_side_lost(records, Termination.PROTOCOL_VIOLATION)
    for record in records:
        assert all(move.time is None or move.time >= 0 for move in record.moves)


def test_a_second_bestmove_is_never_the_answer_to_the_next_go() -> None:
    with EngineClient([sys.executable, HOSTILE, "--double-bestmove"]) as engine:
        engine.set_position(None)
        first = engine.go(Limit(depth=1), timeout=10)
        assert first.elapsed >= 0
        time.sleep(0.3)  # the second bestmove has arrived by now
        engine.set_position(None, [first.bestmove])
        with pytest.raises(ProtocolViolation, match=r"bestmove .* before its go"):
            engine.go(Limit(depth=1), timeout=10)
        assert not engine.alive


def test_a_bestmove_with_an_extra_token_is_an_illegal_move_at_once() -> None:
    notes: list[str] = []
    slow = SearchLimits(movetime=20.0, margin=1.0)  # what the engine may take: it answers at once
    begin = time.monotonic()
    records = play(hostile("bad", "--extra-token", limits=slow), toy("good", slow), notes=notes)
    assert time.monotonic() - begin < 15  # not 2 x 20 s waiting for a move that was given
    assert_bad_side_lost(records, Termination.ILLEGAL_MOVE)
    for record in records:
        assert record.reason.endswith(" foo") and "makes an illegal move: bestmove " in record.reason, record.reason
    assert len(notes) == 2 and all("answered 'bestmove " in note and " foo'" in note for note in notes), notes


def test_an_unreadable_bestmove_ends_the_search_and_the_engine_stays_usable() -> None:
    with EngineClient([sys.executable, HOSTILE, "--extra-token", "--after", "2"]) as engine:
        engine.set_position(None)
        first = engine.go(Limit(depth=1), timeout=10)
        engine.set_position(None, [first.bestmove or ""])
        begin = time.monotonic()
        with pytest.raises(UnreadableMove, match=r"answered 'bestmove \S+ foo': bestmove: expected") as caught:
            engine.go(Limit(movetime=20_000), timeout=30)
        assert time.monotonic() - begin < 10
        assert caught.value.line.startswith("bestmove ") and caught.value.line.endswith(" foo")
        engine.is_ready(timeout=10)  # no bestmove is owed: the conversation goes on
        assert engine.alive


# -- engines that stop reading their input -------------------------------------------------

needs_linux = pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="--deaf writes to /proc/self/fd/0")
DEAF = [sys.executable, HOSTILE, "--deaf"]


def returns_within(seconds: float, call: Callable[[], object], engine: EngineClient) -> bool:
    """Whether ``call`` returns within ``seconds``; if not, the engine is killed to free it."""
    thread = threading.Thread(target=call, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive() and engine.pid is not None:
        os.kill(engine.pid, signal.SIGKILL)  # the blocked write fails, and the test can end
        thread.join(10)
        return False
    return True


@needs_linux
def test_stop_gives_up_on_an_engine_that_takes_no_input() -> None:
    engine = EngineClient(DEAF, write_timeout=1.0)
    engine.start()
    engine.set_position(None)
    full = threading.Event()
    failures: list[Exception] = []

    def search() -> None:
        try:
            engine.go(Limit(infinite=True), on_info=lambda info: full.set())
        except Exception as error:  # noqa: BLE001  (the test looks at it)
            failures.append(error)

    searching = threading.Thread(target=search, daemon=True)
    searching.start()
    assert full.wait(10)  # the engine's input is full now: "stop" cannot be written
    assert returns_within(6, engine.stop, engine), "stop() blocked on the engine's full input"
    searching.join(10)
    assert not searching.is_alive() and len(failures) == 1
    assert isinstance(failures[0], EngineStalled), failures
    assert "did not take the command 'stop' within 1 s" in str(failures[0])
    assert not engine.alive and wait_all_gone([engine.pid or 0]) == []


@needs_linux
def test_quit_gives_up_on_an_engine_that_takes_no_input() -> None:
    engine = EngineClient(DEAF, write_timeout=30.0)
    engine.start()
    engine.set_position(None)
    assert engine.go(Limit(depth=1), timeout=10).bestmove is not None  # the engine's input is full now
    begin = time.monotonic()
    assert returns_within(10, lambda: engine.quit(grace=0.5), engine), "quit() blocked on the engine's full input"
    assert time.monotonic() - begin < 5  # quit's grace bounds the write, not the 30 s write timeout
    assert not engine.alive and wait_all_gone([engine.pid or 0]) == []


def run_arbiter(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], list[PgnGame]]:
    """The arbiter in a process of its own, with a hard timeout (a hang fails the test); its
    output and the records of its PGN."""
    pgn = tmp_path / "games.pgn"
    done = subprocess.run(
        [sys.executable, "-c", ARBITER_SCRIPT, ROOT, *args, "--pgn", str(pgn)],
        capture_output=True,
        text=True,
        timeout=150,
    )
    return done, read_pgn(pgn.read_text())


def deaf_and_toys(pids: Path, *goods: str) -> list[str]:
    pids.mkdir()
    engines = ["--engine", f"cmd={sys.executable} {HOSTILE} --deaf --after 2 --pid-dir {pids}", "name=bad"]
    for name in goods:
        engines += ["--engine", f"cmd={sys.executable} {TOY} --seed {name} --pid-dir {pids}", f"name={name}"]
    return engines


@needs_linux
@pytest.mark.slow
def test_an_engine_that_stops_taking_its_input_stalls_and_the_match_goes_on(tmp_path: Path) -> None:
    done, games = run_arbiter(
        tmp_path,
        "match",
        "--games",
        "4",
        "--st",
        "0.3",
        "--timemargin",  # the good engine answers at once, but may wait for a core on a loaded machine
        "5000",
        "--recover",
        "--handshake-timeout",
        "2",
        *deaf_and_toys(tmp_path / "pids", "good"),
    )
    assert done.returncode == 0 and done.stdout.endswith("Finished match\n"), done.stdout + done.stderr
    assert len(games) == 4
    for game in games:
        assert game.tags["Termination"] == "stalled connection", game
        assert game.result == ("0-1" if game.tags["White"] == "bad" else "1-0")
    assert done.stderr.count("did not take the command 'position' within 2 s") == 4, done.stderr
    assert wait_all_gone([int(path.name) for path in (tmp_path / "pids").iterdir()]) == []


@needs_linux
def test_an_engine_that_stops_taking_its_input_leaves_the_rest_of_a_tournament_alone(tmp_path: Path) -> None:
    done, games = run_arbiter(
        tmp_path,
        "tournament",
        "--games",
        "2",
        "--concurrency",
        "2",
        "--depth",
        "1",
        "--handshake-timeout",
        "2",
        "--db",
        str(tmp_path / "event.db"),
        *deaf_and_toys(tmp_path / "pids", "one", "two"),
    )
    assert done.returncode == 0 and done.stdout.endswith("Finished tournament\n"), done.stdout + done.stderr
    assert len(games) == 6
    for game in games:
        players = {game.tags["White"], game.tags["Black"]}
        if "bad" in players:
            assert game.tags["Termination"] == "stalled connection", game
            assert game.result == ("0-1" if game.tags["White"] == "bad" else "1-0")
        else:
            assert game.tags["Termination"] == "normal" and game.result in ("1-0", "0-1"), game
    assert wait_all_gone([int(path.name) for path in (tmp_path / "pids").iterdir()]) == []


@needs_linux
def test_a_game_waiting_on_a_deaf_engine_holds_up_no_other_game_of_its_process() -> None:
    """Two games in one game process (one core's share: two greenlets of its hub). The first
    one's engine stops taking its input, so the referee's next line to it waits for room (two
    seconds, the handshake timeout, then the engine is killed): that wait parks the game's
    greenlet and the other game goes on, its engines' moves charged only their own time."""
    settings = RefereeSettings(handshake_timeout=2.0, stall_timeout=5.0, stop_grace=1.0, quit_grace=0.3)
    limits = SearchLimits(movetime=0.3, margin=5.0)
    bad = EngineSpec("bad", (sys.executable, HOSTILE, "--deaf", "--after", "2"), limits)
    one = EngineSpec("a", (sys.executable, TOY, "--seed", "a"), limits)
    two, three = (EngineSpec(name, (sys.executable, TOY, "--seed", name, "--think", "20"), limits) for name in "bc")
    jobs = [GameJob(1, bad, one, START, "dipole"), GameJob(2, two, three, START, "dipole")]
    pool = ProcessPool("dipole", settings, concurrency=2, recover=True, cores=1)
    records: list[GameRecord] = []
    started = time.monotonic()
    pool.run(jobs, lambda job: None, records.append)
    assert time.monotonic() - started < 30
    by_number = {record.number: record for record in records}
    assert by_number[1].termination is Termination.STALL, by_number[1]
    quiet = by_number[2]
    assert quiet.termination is Termination.NORMAL, quiet
    slowest = max(move.time for move in quiet.moves if move.time is not None)
    assert slowest < 1.0, f"a move of the other game was charged {slowest:.3f} s"


# -- bytes that are not text ---------------------------------------------------------------


def test_control_characters_in_a_move_never_reach_the_record_raw() -> None:
    notes: list[str] = []
    records = play(
        hostile("bad", "--control-move", limits=SearchLimits(depth=1)), toy("good", SearchLimits(depth=1)), notes=notes
    )
    assert_bad_side_lost(records, Termination.ILLEGAL_MOVE)
    for text in [*(format_game(record) for record in records), *(r.finished_line() for r in records), *notes]:
        assert not any((ord(char) < 32 and char != "\n") or char == "\x7f" for char in text), repr(text)
    assert any("\\x1b" in record.reason for record in records)


# -- the log disk is full ------------------------------------------------------------------


def test_a_full_log_disk_is_reported_once_and_costs_nothing(tmp_path: Path) -> None:
    for name in ("one", "two"):
        (tmp_path / f"{name}.log").symlink_to("/dev/full")
    notes: list[str] = []
    logs = EngineLogs(str(tmp_path), warn=notes.append)
    records = play(toy("one", SearchLimits(depth=1)), toy("two", SearchLimits(depth=1)), 4, logs=logs)
    logs.close()
    assert len(records) == 4 and all(record.termination is Termination.NORMAL for record in records)
    assert len(notes) == 2 and all("cannot write" in note for note in notes), notes


# -- processes that escape; threads and descriptors ----------------------------------------

needs_guard = pytest.mark.skipif(not GUARDED, reason="the process-tree guard is Linux-only")


@pytest.fixture(params=["interpreter", "forked"])
def guard_start(request: pytest.FixtureRequest) -> Iterator[str]:
    """Each guard test twice: the guard started as an interpreter of its own (the default), and
    forked from the host (:func:`protocol.guardstart.fork_guards`, as the game processes do)."""
    fork_guards(request.param == "forked")
    try:
        yield request.param
    finally:
        fork_guards(False)


@needs_guard
def test_helpers_in_new_sessions_die_with_the_engine(tmp_path: Path, guard_start: str) -> None:
    engine = EngineClient([sys.executable, HOSTILE, "--escape", str(tmp_path)])
    engine.start()
    deadline = time.monotonic() + 10
    while len(list(tmp_path.iterdir())) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    helpers = [int(path.name) for path in tmp_path.iterdir()]
    assert len(helpers) == 2 and all(map(alive, helpers))
    assert all(os.getpgid(pid) != engine.pid for pid in helpers)  # they left its process group
    engine.quit()
    assert wait_all_gone(helpers) == []


ARBITER_SCRIPT = """
import sys
sys.path.insert(0, sys.argv[1])
from arbiter.cli import main
sys.argv = ["dipole-arbiter", *sys.argv[2:]]
main()
"""


@needs_guard
def test_nothing_survives_the_arbiter_killed_with_sigkill(tmp_path: Path) -> None:
    helpers, pids = tmp_path / "helpers", tmp_path / "pids"
    helpers.mkdir()
    pids.mkdir()
    wrapper = f"{sys.executable} {TOY} --pid-dir {pids} --think 200; echo the wrapper lives on"
    arbiter = subprocess.Popen(
        [
            sys.executable,
            "-c",
            ARBITER_SCRIPT,
            ROOT,
            "match",
            "--games",
            "50",
            "--depth",
            "1",
            "--engine",
            f"cmd={sys.executable} {HOSTILE} --escape {helpers} --pid-dir {pids}",
            "name=escaper",
            "--engine",
            "cmd=sh -c " + repr(wrapper).replace("'", '"'),
            "name=wrapped",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 30
    while (len(list(helpers.iterdir())) < 2 or len(list(pids.iterdir())) < 2) and time.monotonic() < deadline:
        time.sleep(0.05)
    everything = [int(path.name) for directory in (helpers, pids) for path in directory.iterdir()]
    assert len(everything) == 4 and all(map(alive, everything))
    arbiter.kill()
    arbiter.wait()
    assert wait_all_gone(everything) == []


@needs_guard
def test_a_burst_of_signals_at_the_guard_still_ends_every_escaped_process(tmp_path: Path, guard_start: str) -> None:
    # The first SIGTERM ends the guard's wait and starts its sweep; the ones that follow at
    # once must neither kill the guard before the sweep nor cut it short.
    for trial in range(10):
        helpers = tmp_path / str(trial)
        helpers.mkdir()
        transport = ProcessTransport([sys.executable, HOSTILE, "--escape", str(helpers)])
        transport.start(lambda direction, line: None)
        deadline = time.monotonic() + 30
        while len(list(helpers.iterdir())) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        escaped = [int(path.name) for path in helpers.iterdir()]
        assert len(escaped) == 2 and all(map(alive, escaped))
        guard = transport._process.pid  # type: ignore[union-attr]  # the test's one reach inside
        for _ in range(200):
            try:
                os.kill(guard, signal.SIGTERM)
            except ProcessLookupError:
                break
        assert wait_all_gone(escaped) == [], f"trial {trial}"
        transport.close()


ENGINE_SEES = """
import json, os, signal, sys
print(json.dumps({
    "fds": sorted(int(fd) for fd in os.listdir("/proc/self/fd")),
    "cwd": os.getcwd(),
    "variable": os.environ.get("GUARDED_ENGINE_VARIABLE"),
    "session_leader": os.getsid(0) == os.getpid(),
}), flush=True)
sys.exit(int(sys.stdin.readline()))
"""


@needs_guard
def test_the_engine_and_its_guard_hold_nothing_of_the_host_either_way(tmp_path: Path, guard_start: str) -> None:
    # The forked guard is a copy of its host: it must hold none of the host's descriptors
    # (another engine's input kept open would hide the end of that input from its engine)
    # and run none of the host's signal handlers, as a guard of its own interpreter does not.
    handled = tmp_path / "handled"
    signal.signal(signal.SIGUSR1, lambda number, frame: handled.write_text("the host's handler ran"))
    try:
        transports = [
            ProcessTransport(
                [sys.executable, "-c", ENGINE_SEES], str(tmp_path), {"GUARDED_ENGINE_VARIABLE": str(number)}
            )
            for number in (1, 2)
        ]
        for transport in transports:
            transport.start(None)
        for number, transport in enumerate(transports, 1):
            assert json.loads(transport.receive(10.0)[0] or "{}") == {
                "fds": [0, 1, 2, 3],  # (3: the listing's own)
                "cwd": str(tmp_path),
                "variable": str(number),
                "session_leader": True,
            }
            guard = transport._process.pid  # type: ignore[union-attr]  # the test's one reach inside
            assert sorted(int(fd) for fd in os.listdir(f"/proc/{guard}/fd")) == [0, 1, 2]
        first, second = transports
        first.send("3")
        assert first.wait(10.0) == 3  # the guard exits as the engine did
        os.kill(second._process.pid, signal.SIGUSR1)  # type: ignore[union-attr]
        assert second.wait(10.0) == -signal.SIGUSR1  # the default action, not the host's handler
        assert not handled.exists()
        for transport in transports:
            transport.close()
    finally:
        signal.signal(signal.SIGUSR1, signal.SIG_DFL)


@needs_guard
def test_an_engine_or_a_folder_that_is_not_there_is_the_same_error_either_way(tmp_path: Path, guard_start: str) -> None:
    for command, cwd in (
        ([str(tmp_path / "no-engine")], None),
        ([sys.executable, "-c", "pass"], str(tmp_path / "no-dir")),
    ):
        with pytest.raises(FileNotFoundError) as raised:
            ProcessTransport(command, cwd).start(None)
        assert raised.value.errno == 2, (command, cwd)


def test_a_long_event_with_a_crashing_engine_leaks_no_thread_or_descriptor() -> None:
    crasher = EngineSpec("bad", (sys.executable, TOY, "--crash", "--after", "2"), SearchLimits(depth=1))
    play(crasher, toy("good", SearchLimits(depth=1)), 2)  # warm up (imports, first threads)
    threads, fds = threading.active_count(), len(os.listdir("/proc/self/fd"))
    records = play(crasher, toy("good", SearchLimits(depth=1)), 12)
    assert sum(record.termination is Termination.CRASH for record in records) >= 6
    time.sleep(0.5)
    assert threading.active_count() <= threads + 1
    assert len(os.listdir("/proc/self/fd")) <= fds + 2


# -- memory --------------------------------------------------------------------------------


def test_the_peak_measured_is_the_arbiters_own_not_that_of_the_process_that_started_it() -> None:
    # Linux carries a parent's peak RSS into a child's ru_maxrss across vfork + exec: pytest,
    # which peaks at 250 MB when hypothesis builds its unicode table (a clean clone, no
    # .hypothesis/unicode_data yet), made every arbiter of the memory tests "peak" at 250 MB.
    parent = (
        "import subprocess, sys\n"
        "ballast = bytearray(200 << 20)\n"
        "ballast[::4096] = bytes(len(ballast) // 4096)\n"  # touch every page: resident
        "del ballast\n"
        "sys.exit(subprocess.run(sys.argv[1:]).returncode)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", parent, sys.executable, str(ENGINES / "peak_arbiter.py"), ROOT, "match", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    peak_kb = int(done.stderr.split("PEAK")[-1])
    assert done.returncode == 0 and 0 < peak_kb < 100 * 1024, f"peak RSS {peak_kb} kB"


@pytest.mark.parametrize("flag", ["--endless-line", "--flood-info", "--flood-then-move", "--long-infos"])
def test_the_arbiters_memory_stays_bounded_whatever_an_engine_writes(flag: str) -> None:
    begin = time.monotonic()
    done = subprocess.run(
        [
            sys.executable,
            str(ENGINES / "peak_arbiter.py"),
            ROOT,
            "match",
            "--games",
            "2",
            "--st",
            "1",
            "--recover",
            "--engine",
            f"cmd={sys.executable} {HOSTILE} {flag}",
            "name=bad",
            "--engine",
            f"cmd={sys.executable} {TOY}",
            "name=good",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    peak_kb = int(done.stderr.split("PEAK")[-1])
    assert peak_kb < 100 * 1024, f"peak RSS {peak_kb} kB"
    assert "Finished match" in done.stdout and time.monotonic() - begin < 60
