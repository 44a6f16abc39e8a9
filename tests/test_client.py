"""The engine client: its conversations against an in-memory engine, and against a real engine
process (tests/engines/echo_engine.py) for process groups, crashes, timeouts and kills."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol import (
    EngineClient,
    EngineCrashed,
    EngineError,
    EngineStartError,
    EngineTimeout,
    HandshakeError,
    Info,
    Limit,
    MemoryTransport,
    OptionSpec,
    Position,
    ProtocolError,
    format_command,
    kill_all,
)
from protocol.linereader import LineReader
from protocol.liveprocesses import live_groups
from protocol.processtransport import ProcessTransport
from protocol.transport import MAX_LINE, EndOfOutput

pytestmark = pytest.mark.build  # the compiled client, transport, referee or hub: CI runs these on both builds

ECHO = Path(__file__).parent / "engines" / "echo_engine.py"

HANDSHAKE = [
    "id name Memory Engine",
    "id author the tests",
    "option name Hash type spin default 16 min 1 max 1024",
    "option name Ponder type check default false",
    "option name UCI_Variant type combo default dipole var dipole var dipole-s",
    "option name Clear Hash type button",
    "option name Book File type string default <empty>",
    "uciok",
]


class FakeEngine:
    """A well-behaved in-memory engine; ``go`` answers with ``self.answer`` (None: wait for stop)."""

    def __init__(self) -> None:
        self.answer: list[str] | None = ["info depth 1 score cp 5 nodes 10 pv e1-e3", "bestmove e1-e3"]
        self.searching = False
        self.transport = MemoryTransport(self.handle, pid=4242)

    def handle(self, line: str, transport: MemoryTransport) -> None:
        word = line.split(maxsplit=1)[0]
        if word == "uci":
            transport.reply(*HANDSHAKE)
        elif word == "isready":
            transport.reply("readyok")
        elif word == "go":
            if self.answer is None:
                self.searching = True
            else:
                transport.reply(*self.answer)
        elif word == "stop" and self.searching:
            self.searching = False
            transport.reply("bestmove d8-d6")
        elif word == "quit":
            transport.exit(0)


def started(engine: FakeEngine | None = None, **kwargs: object) -> tuple[EngineClient, FakeEngine]:
    engine = engine or FakeEngine()
    client = EngineClient(["memory"], transport=engine.transport, **kwargs)  # type: ignore[arg-type]
    client.start(timeout=2)
    return client, engine


# -- against the in-memory engine ----------------------------------------------------------------
def test_handshake_collects_id_and_options() -> None:
    client, engine = started()
    assert engine.transport.sent == ["uci", "isready"]
    assert client.id == {"name": "Memory Engine", "author": "the tests"}
    assert client.options["Hash"] == OptionSpec("Hash", "spin", 16, 1, 1024)
    assert set(client.options) == {"Hash", "Ponder", "UCI_Variant", "Clear Hash", "Book File"}
    assert client.alive and client.pid == 4242 and client.returncode is None


def test_log_sees_every_line_with_its_direction() -> None:
    seen: list[tuple[str, str]] = []
    started(log=lambda direction, line: seen.append((direction, line)))
    assert seen[0] == (">", "uci")
    assert ("<", "uciok") in seen and (">", "isready") in seen and seen[-1] == ("<", "readyok")


def test_garbage_and_stray_lines_are_skipped() -> None:
    engine = FakeEngine()
    engine.answer = ["hello world", "info depth x", "readyok", "info depth 2 pv a1-a2", "bestmove a1-a2"]
    client, _ = started(engine)
    result = client.go(Limit(depth=2))
    assert result.bestmove == "a1-a2"
    assert result.infos == [Info(depth=2, pv=("a1-a2",))]


def test_set_option_checks_values_against_the_advertised_options() -> None:
    client, engine = started()
    client.set_option("Hash", 64)
    client.set_option("hash", "32")
    client.set_option("Ponder", True)
    client.set_option("UCI_Variant", "DIPOLE-S")
    client.set_option("Clear Hash", True)
    client.set_option("Book File", "my  book.bin")
    assert engine.transport.sent[2:] == [
        "setoption name Hash value 64",
        "setoption name Hash value 32",
        "setoption name Ponder value true",
        "setoption name UCI_Variant value dipole-s",
        "setoption name Clear Hash",
        "setoption name Book File value my book.bin",
    ]
    for name, value, message in [
        ("Threads", 2, "has no option 'Threads'"),
        ("Hash", 0, "takes 1..1024, not 0"),
        ("Hash", "lots", "takes an integer"),
        ("Hash", True, "takes an integer"),
        ("Ponder", "yes", "takes true or false"),
        ("UCI_Variant", "chess", "takes one of dipole, dipole-s"),
    ]:
        with pytest.raises(EngineError, match=message):
            client.set_option(name, value)
    assert len(engine.transport.sent) == 8


def test_set_options_checks_them_all_before_writing_and_names_one_refused() -> None:
    """A variant's options: each is checked against the declared ones before any is written,
    then each is set and confirmed by ``isready``; an error report between them names it."""
    client, engine = started()
    client.set_options({"hash": 64, "Ponder": True})
    assert engine.transport.sent[2:] == [
        "setoption name Hash value 64",
        "isready",
        "setoption name Ponder value true",
        "isready",
    ]
    for options, message in [
        ({"Hash": 32, "UCI_Chess960": "true"}, "has no option 'UCI_Chess960'"),
        ({"Hash": 32, "Ponder": "maybe"}, "takes true or false"),
    ]:
        with pytest.raises(EngineError, match=message):
            client.set_options(options)
    assert len(engine.transport.sent) == 6

    def refuse_book(line: str, transport: MemoryTransport) -> None:
        if line.startswith("setoption name Book File"):
            transport.reply("info string error setoption Book File: no such file")
        engine.handle(line, transport)

    engine.transport.handler = refuse_book
    with pytest.raises(EngineError, match="refused option 'Book File': setoption Book File: no such file"):
        client.set_options({"Hash": 32, "Book File": "none.bin", "Ponder": False})
    assert engine.transport.sent[6:] == [
        "setoption name Hash value 32",
        "isready",
        "setoption name Book File value none.bin",
        "isready",
    ]


def test_positions_and_new_game_are_sent_canonically() -> None:
    client, engine = started()
    client.set_position(None)
    client.set_position("W:W1d4:B2c5,2e5", ["pass", "c5-c3"])
    client.new_game()
    assert engine.transport.sent[2:] == [
        "position startpos",
        "position fen W:W1d4:B2c5,2e5 moves pass c5-c3",
        "ucinewgame",
        "isready",
    ]
    with pytest.raises(ProtocolError):
        client.set_position(None, ["e1 e3"])


def test_a_games_positions_check_each_move_once() -> None:
    """Ply after ply, a position line extends the last one: the same canonical lines, each
    move checked once (today's cost per ply does not grow with the game), and a bad move, a
    take-back or another start position still caught or rebuilt."""
    client, engine = started()
    moves = [f"m{ply}" for ply in range(300)]
    for ply in range(len(moves) + 1):
        client.set_position(None, moves[:ply])
    sent = engine.transport.sent[2:]
    assert sent[0] == "position startpos"
    assert sent[-1] == "position startpos moves " + " ".join(moves)
    assert sent[5] == "position startpos moves m0 m1 m2 m3 m4"
    # Timed, not counted (a compiled client calls the codec's check directly, out of reach of
    # a patch): a long game's lines, each extended, against the same lines each written whole
    # (every move checked again at every ply, 2,001,000 checks), the fastest of five runs each.
    long_game = [f"m{ply}" for ply in range(2000)]

    def extended() -> None:
        extending, _ = started()
        for ply in range(len(long_game) + 1):
            extending.set_position(None, long_game[:ply])

    def rewritten() -> None:
        for ply in range(len(long_game) + 1):
            format_command(Position(None, tuple(long_game[:ply])))

    # This process's CPU time, not the wall clock (the suite's other workers share the cores),
    # five runs each in turn, so that a busy moment of the machine weighs on both.
    times: dict[Callable[[], None], list[float]] = {extended: [], rewritten: []}
    for _ in range(5):
        for run, taken in times.items():
            began = time.process_time()
            run()
            taken.append(time.process_time() - began)
    assert min(times[extended]) * 4 < min(times[rewritten])  # 6 (compiled) to 11 (pure) times faster
    with pytest.raises(ProtocolError):
        client.set_position(None, moves + ["e1 e3"])
    client.set_position(None, ["m0", "x1"])  # a take-back: built afresh
    client.set_position("W:W1d4:B2c5,2e5", ["m0"])
    client.set_position("W:W1d4:B2c5,2e5", ["m0", "pass"])
    assert engine.transport.sent[-3:] == [
        "position startpos moves m0 x1",
        "position fen W:W1d4:B2c5,2e5 moves m0",
        "position fen W:W1d4:B2c5,2e5 moves m0 pass",
    ]


def test_go_with_its_position_is_one_write_of_two_lines() -> None:
    """A referee's move: the position and the go reach the engine in one write (one wake-up
    of the engine instead of two), each logged as its own line."""
    writes: list[str] = []

    class CountingTransport(MemoryTransport):
        def send(self, line: str, timeout: float | None = None) -> None:
            writes.append(line)
            super().send(line, timeout)

    logged: list[tuple[str, str]] = []
    engine = FakeEngine()
    engine.transport = CountingTransport(engine.handle, pid=4242)
    client, _ = started(engine, log=lambda direction, line: logged.append((direction, line)))
    del writes[:]  # the handshake's
    result = client.go(Limit(depth=1), timeout=2, position=(None, ["c1-c3", "d8-d6"]))
    assert result.bestmove == "e1-e3"
    assert writes == ["position startpos moves c1-c3 d8-d6\ngo depth 1"]
    assert engine.transport.sent[-2:] == ["position startpos moves c1-c3 d8-d6", "go depth 1"]
    assert [line for direction, line in logged if direction == ">"][-2:] == engine.transport.sent[-2:]
    with pytest.raises(ProtocolError):  # nothing written for a position that cannot be
        client.go(Limit(depth=1), timeout=2, position=(None, ["c1-c3", "d8 d6"]))
    assert len(writes) == 1


def test_go_collects_infos_calls_on_info_and_times_the_answer() -> None:
    engine = FakeEngine()
    engine.answer = None
    client, _ = started(engine)
    seen: list[Info] = []
    threading.Timer(0.15, lambda: engine.transport.reply("info depth 1 pv e1-e3", "bestmove e1-e3")).start()
    result = client.go(Limit(wtime=1000, btime=1000), timeout=5, on_info=seen.append)
    assert engine.transport.sent[-1] == "go wtime 1000 btime 1000"
    assert result.bestmove == "e1-e3" and seen == result.infos == [Info(depth=1, pv=("e1-e3",))]
    assert 0.05 <= result.elapsed < 2.0  # the answer came 0.15 s after the timer, which starts before the go


def test_bestmove_none_is_none() -> None:
    engine = FakeEngine()
    engine.answer = ["bestmove (none)"]
    client, _ = started(engine)
    assert client.go(Limit(depth=1)).bestmove is None


def test_stop_from_another_thread_ends_an_infinite_search() -> None:
    engine = FakeEngine()
    engine.answer = None
    client, _ = started(engine)
    threading.Timer(0.1, client.stop).start()
    result = client.go(Limit(infinite=True), timeout=5)
    assert result.bestmove == "d8-d6"
    assert engine.transport.sent[-2:] == ["go infinite", "stop"]


class StarvedTransport(MemoryTransport):
    """A host that wakes late: each wait for a line that times out returns 0.5 s after its
    timeout, as when the host's process gets no CPU."""

    def receive(self, timeout: float | None) -> tuple[str | None, float]:
        try:
            return super().receive(timeout)
        except TimeoutError:
            time.sleep(0.5)
            raise


def test_a_host_bound_search_is_stopped_and_given_its_grace_from_the_stop_however_late() -> None:
    engine = FakeEngine()
    engine.answer = None
    engine.transport = StarvedTransport(engine.handle, pid=4242)
    client, _ = started(engine)
    begin = time.monotonic()
    result = client.go(Limit(infinite=True), timeout=0.3, stop_after=0.1)
    assert result.bestmove == "d8-d6"  # stop written 0.6 s after go: past go + 0.1 + 0.3, yet in time
    assert engine.transport.sent[-2:] == ["go infinite", "stop"]
    assert time.monotonic() - begin >= 0.55
    engine.transport.handler = None  # an engine that ignores stop is out of time all the same
    with pytest.raises(EngineTimeout):
        client.go(Limit(infinite=True), timeout=0.3, stop_after=0.1)


def test_go_timeout_leaves_the_search_to_be_stopped_by_the_next_go() -> None:
    engine = FakeEngine()
    engine.answer = None
    client, _ = started(engine)
    started_at = time.monotonic()
    with pytest.raises(EngineTimeout, match="no 'bestmove' within the deadline"):
        client.go(Limit(infinite=True), timeout=0.1)
    assert time.monotonic() - started_at < 1.0
    assert client.alive
    engine.answer = ["bestmove a1-a2"]
    result = client.go(Limit(depth=1), timeout=2)  # stops the old search, skips its bestmove
    assert result.bestmove == "a1-a2"
    assert engine.transport.sent[-3:] == ["go infinite", "stop", "go depth 1"]


class LateHostTransport(MemoryTransport):
    """A host that, once ``late`` is set, wakes 0.2 s after it starts to wait for each line."""

    late = False

    def receive(self, timeout: float | None) -> tuple[str | None, float]:
        if self.late:
            time.sleep(0.2)
        return super().receive(timeout)


def test_a_bestmove_read_after_its_deadline_is_the_stale_answer_not_one_still_owed() -> None:
    """The engine answers after the deadline, and the late host reads the answer only then:
    the go is out of time, and the answer it read is the one the next go would otherwise wait
    for in vain (every later game of the engine lost on time at its first move)."""
    engine = FakeEngine()
    engine.answer = None
    transport = LateHostTransport(engine.handle, pid=4242)
    engine.transport = transport
    client, _ = started(engine)
    transport.late = True

    def answer() -> None:
        engine.searching = False
        transport.reply("bestmove e1-e3")

    threading.Timer(0.15, answer).start()
    with pytest.raises(EngineTimeout, match="no 'bestmove' within the deadline"):
        client.go(Limit(infinite=True), timeout=0.1)
    engine.answer = ["bestmove a1-a2"]
    begin = time.monotonic()
    assert client.go(Limit(depth=1), timeout=2).bestmove == "a1-a2"
    assert time.monotonic() - begin < 1.5
    assert engine.transport.sent[-3:] == ["go infinite", "stop", "go depth 1"]


def test_a_second_go_while_searching_is_refused() -> None:
    engine = FakeEngine()
    engine.answer = None
    client, _ = started(engine)
    errors: list[Exception] = []

    def second() -> None:
        try:
            client.go(Limit(depth=1))
        except EngineError as error:
            errors.append(error)
        client.stop()

    threading.Timer(0.1, second).start()
    assert client.go(Limit(infinite=True), timeout=5).bestmove == "d8-d6"
    assert len(errors) == 1 and "while a search is running" in str(errors[0])


def test_handshake_timeout_and_death_are_handshake_errors() -> None:
    silent = MemoryTransport(lambda line, transport: None)
    client = EngineClient(["silent"], transport=silent)
    with pytest.raises(HandshakeError, match="engine 'silent': no 'uciok' within the deadline"):
        client.start(timeout=0.1)
    assert not client.alive

    dying = MemoryTransport(lambda line, transport: transport.exit(3))
    client = EngineClient(["dying"], transport=dying)
    with pytest.raises(HandshakeError, match="exited with code 3 while the host waited for 'uciok'"):
        client.start(timeout=2)


def test_is_ready_timeout_and_crash() -> None:
    engine = FakeEngine()
    client, _ = started(engine)
    engine.transport.handler = lambda line, transport: None
    with pytest.raises(EngineTimeout, match="no 'readyok'"):
        client.is_ready(timeout=0.1)
    engine.transport.exit(1)
    with pytest.raises(EngineCrashed) as crash:
        client.is_ready(timeout=1)
    assert crash.value.returncode == 1
    assert not client.alive


def test_crash_during_search_reports_the_exit_status() -> None:
    engine = FakeEngine()
    engine.answer = None
    client, _ = started(engine)
    threading.Timer(0.05, lambda: engine.transport.exit(-11)).start()
    with pytest.raises(EngineCrashed, match="was killed by signal 11 while the host waited for 'bestmove'") as crash:
        client.go(Limit(depth=3), timeout=5)
    assert crash.value.returncode == -11
    with pytest.raises(EngineError, match="is not running any more"):
        client.go(Limit(depth=3))


def test_quit_returns_the_exit_status_and_context_manager_quits() -> None:
    client, engine = started()
    assert client.quit() == 0
    assert engine.transport.sent[-1] == "quit" and not client.alive
    assert client.quit() == 0  # idempotent
    engine = FakeEngine()
    with EngineClient(["memory"], transport=engine.transport) as client:
        assert client.alive
    assert engine.transport.sent[-1] == "quit"
    assert EngineClient(["never"], transport=FakeEngine().transport).quit() is None


def test_commands_before_start_are_errors() -> None:
    client = EngineClient(["x"], transport=FakeEngine().transport)
    with pytest.raises(EngineError, match="engine 'x': is not running \\(call start\\(\\) first\\)"):
        client.is_ready()


def test_client_overhead_per_move_is_small() -> None:
    client, _ = started()
    client.go(Limit(depth=1))
    moves = 2000
    begin = time.perf_counter()
    for _ in range(moves):
        client.set_position(None, ["c1-c3", "d8-d6"])
        client.go(Limit(wtime=1000, btime=1000))
    per_move = (time.perf_counter() - begin) / moves
    # Well under a millisecond on an idle machine; the bound leaves room for a busy one (the
    # suite runs in parallel) and still fails a client that polls or sleeps per move.
    assert per_move < 0.004, f"{per_move * 1e6:.0f} us per move"


# -- against a real process ------------------------------------------------------------------
def echo(*flags: str, **kwargs: object) -> EngineClient:
    return EngineClient([sys.executable, str(ECHO), *flags], name="echo", **kwargs)  # type: ignore[arg-type]


def _live_processes() -> list[tuple[int, int]]:
    """(pid, process group) of every live, not zombie, process."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
            except (FileNotFoundError, ProcessLookupError):
                continue
            if fields[0] != "Z":
                found.append((int(entry), int(fields[2])))
    return found


def pid_alive(pid: int) -> bool:
    return any(found == pid for found, _ in _live_processes())


def group_alive(pgid: int, wait: float = 2.0) -> bool:
    """True if a live process of group ``pgid`` remains after ``wait`` seconds (a killed
    process needs a moment to die)."""
    deadline = time.monotonic() + wait
    while any(group == pgid for _, group in _live_processes()):
        if time.monotonic() > deadline:
            return True
        time.sleep(0.01)
    return False


def child_pid(lines: list[tuple[str, str]]) -> int:
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        for direction, line in list(lines):
            if direction == "!" and line.startswith("child "):
                return int(line.split()[1])
        time.sleep(0.01)
    raise AssertionError("the echo engine did not report its child")


def test_real_engine_conversation_and_clean_quit() -> None:
    lines: list[tuple[str, str]] = []
    client = echo("--child", log=lambda direction, line: lines.append((direction, line)))
    client.start()
    pgid = client.pid
    assert pgid is not None and os.getpgid(pgid) == pgid != os.getpgrp()  # its own process group
    child = child_pid(lines)
    assert client.id["name"] == "Echo Engine"
    result = client.go(Limit(movetime=100), timeout=5)
    assert result.bestmove == "move1" and result.infos[0].depth == 1
    assert 0.09 <= result.elapsed < 3
    assert client.quit() == 0
    assert not group_alive(pgid) and not pid_alive(child)
    assert pgid not in live_groups


def test_quit_kills_an_engine_that_ignores_it() -> None:
    client = echo("--ignore-quit")
    client.start()
    pgid = client.pid
    assert pgid is not None
    begin = time.monotonic()
    assert client.quit(grace=0.2) == -signal.SIGKILL
    assert time.monotonic() - begin < 3
    assert not group_alive(pgid)


def test_kill_removes_the_whole_group() -> None:
    lines: list[tuple[str, str]] = []
    client = echo("--child", log=lambda direction, line: lines.append((direction, line)))
    client.start()
    pgid, child = client.pid, child_pid(lines)
    assert pgid is not None
    client.kill()
    assert not client.alive and client.returncode == -signal.SIGKILL
    assert not group_alive(pgid) and not pid_alive(child)


def test_start_errors() -> None:
    with pytest.raises(EngineStartError, match="engine 'nope': cannot start '/no/such/engine'"):
        EngineClient(["/no/such/engine"], name="nope").start()
    with pytest.raises(EngineStartError, match="engine 'x': cannot start"):
        EngineClient([os.devnull], name="x").start()  # not executable
    with pytest.raises(EngineStartError):
        EngineClient([], name="empty").start()


def test_handshake_failures_leave_no_process() -> None:
    client = echo("--no-uciok")
    with pytest.raises(HandshakeError, match="engine 'echo': no 'uciok' within the deadline"):
        client.start(timeout=0.5)
    assert client.pid is not None and not group_alive(client.pid)
    client = echo("--die-on-uci", "4")
    with pytest.raises(HandshakeError, match=r"\(pid \d+\) exited with code 4 while the host waited for 'uciok'"):
        client.start(timeout=5)


def test_crash_during_go_names_the_exit_code_and_last_stderr_line() -> None:
    client = echo("--die-on-go", "3")
    client.start()
    with pytest.raises(EngineCrashed) as crash:
        client.go(Limit(depth=1), timeout=5)
    assert crash.value.returncode == 3
    assert "exited with code 3" in str(crash.value) and "dying as asked" in str(crash.value)
    assert "\n" not in str(crash.value)


def test_closed_output_is_a_crash_and_the_engine_is_killed() -> None:
    client = echo("--close-on-go")
    client.start()
    pgid = client.pid
    assert pgid is not None
    with pytest.raises(EngineCrashed, match="closed its output while the host waited for 'bestmove'"):
        client.go(Limit(depth=1), timeout=5)
    assert not group_alive(pgid)


def test_timeout_leaves_the_engine_running_until_quit() -> None:
    client = echo("--hang-on-go")
    client.start()
    with pytest.raises(EngineTimeout, match="engine 'echo': no 'bestmove' within the deadline"):
        client.go(Limit(depth=1), timeout=0.2)
    assert client.alive
    client.is_ready()  # still answering
    assert client.quit() == 0


def test_garbage_output_of_a_real_engine_is_skipped() -> None:
    with echo("--garbage") as client:
        assert client.go(Limit(depth=1), timeout=5).bestmove == "move1"
        client.new_game()


def test_stderr_lines_are_logged() -> None:
    lines: list[tuple[str, str]] = []
    with echo("--child", log=lambda direction, line: lines.append((direction, line))):
        child_pid(lines)
    assert any(direction == "!" for direction, _ in lines)


@pytest.mark.parametrize("extra", [100, 5000])
def test_a_stderr_line_just_over_the_limit_is_cut_and_reading_goes_on(extra: int) -> None:
    """A stderr line a little longer than MAX_LINE that ends within one read (``extra`` 100)
    or after the reads that cut it (5000): cut, logged, and the lines after it are read, so
    the engine, which writes them before it exits, is never left blocked on its stderr."""
    script = (
        "import sys; sys.stderr.write('x' * (int(sys.argv[1]) + int(sys.argv[2])) + '\\nlast line\\n');"
        "sys.stderr.flush()"
    )
    logged: list[str] = []
    transport = ProcessTransport([sys.executable, "-c", script, str(MAX_LINE), str(extra)])
    transport.start(lambda direction, line: logged.append(direction + line[:20]))
    try:
        assert transport.receive(30)[0] is EndOfOutput
        assert transport.wait(30) == 0
        deadline = time.monotonic() + 30
        while transport.last_stderr() != "last line" and time.monotonic() < deadline:
            time.sleep(0.05)
        assert transport.last_stderr() == "last line"
        assert logged == ["!" + "x" * 20, "!last line"]
    finally:
        transport.close()


def test_kill_all_kills_engines_left_running() -> None:
    script = (
        "import sys; sys.path.insert(0, sys.argv[1]);"
        "from protocol import EngineClient;"
        "c = EngineClient([sys.executable, sys.argv[2], '--ignore-quit']); c.start();"
        "print(c.pid, flush=True)"  # then exit without quitting: atexit's kill_all must act
    )
    root = str(Path(__file__).parent.parent)
    out = subprocess.run(
        [sys.executable, "-c", script, root, str(ECHO)], capture_output=True, text=True, timeout=30, check=True
    )
    pgid = int(out.stdout.split()[0])
    assert not group_alive(pgid, wait=5)


def test_kill_all_in_process() -> None:
    client = echo()
    client.start()
    pgid = client.pid
    assert pgid is not None
    kill_all()
    assert not group_alive(pgid)
    with pytest.raises(EngineCrashed):
        client.is_ready(timeout=5)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from(["go", "bestmove a1-b2", "info depth 3", "é", "", "\r", "\n", "\r\n"]), max_size=40),
    st.lists(st.integers(min_value=1, max_value=12), min_size=1, max_size=8),
)
def test_reader_lines_do_not_depend_on_how_the_output_is_cut(pieces: list[str], cuts: list[int]) -> None:
    """However an engine's output arrives (whole lines at a read, the usual case, or lines cut
    anywhere, even inside a character), the reader gives the same lines, without their ends."""
    data = "".join(pieces).encode()
    expected = data.decode().split("\n")
    if expected[-1] == "":  # (the text after the last line feed, when there is none)
        expected.pop()
    expected = [line.rstrip("\r") for line in expected]
    read, write = os.pipe()
    reader = LineReader(read, None, lambda line: True)
    lines: list[str] = []
    try:
        at, index = 0, 0
        while at < len(data):
            size = cuts[index % len(cuts)]
            index += 1
            os.write(write, data[at : at + size])
            at += size
            reader.collect()
        os.close(write)
        write = -1
        while (line := reader.next(1.0)[0]) is not EndOfOutput:
            lines.append(line)
    finally:
        os.close(read)
        if write >= 0:
            os.close(write)
    assert lines == expected
