"""The real ``dipole-engine`` process speaking protocol/SPEC.md, driven with pexpect over pipes
(as GUIs run engines): handshakes, options, variants, positions, every kind of ``go`` limit,
commands during a search, bad input, end of input, and a verbatim replay of every example
session in SPEC.md."""

from __future__ import annotations

import io
import random
import re
import shutil
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pexpect
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pexpect.popen_spawn import PopenSpawn

from dipole_engine.engine import Engine
from dipole_engine.rules import divide, new_board
from dipole_engine.tt import entries_for
from dipole_engine.uci import engine_loop
from protocol import BestMove, Info, OptionSpec, ProtocolError, parse_response

SPEC = Path(__file__).parent.parent / "protocol" / "SPEC.md"
ENGINE = shutil.which("dipole-engine")
COMMAND = [ENGINE] if ENGINE else [sys.executable, "-m", "dipole_engine"]

pytestmark = [
    pytest.mark.build,  # the engine itself: CI runs these on both builds
    pytest.mark.filterwarnings("ignore:setDaemon:DeprecationWarning"),  # inside pexpect
]


class EngineProcess:
    """``dipole-engine`` on pipes, read line by line."""

    def __init__(self) -> None:
        self.child = PopenSpawn(COMMAND, encoding="utf-8", timeout=20)
        self.lines: list[str] = []  # every line read, for failure messages

    def send(self, line: str) -> None:
        self.child.sendline(line)

    def read(self, timeout: float = 20) -> str:
        """The next output line; fails on a timeout or the end of output."""
        index = self.child.expect(["\n", pexpect.EOF, pexpect.TIMEOUT], timeout=timeout)
        if index != 0:
            raise AssertionError(
                f"no line within {timeout} s ({'end of output' if index == 1 else 'timeout'});"
                f" read so far: {self.lines[-10:]}"
            )
        line = self.child.before.rstrip("\r")
        self.lines.append(line)
        return line

    def lines_for(self, seconds: float) -> list[str]:
        """Every line the engine writes in the next ``seconds``."""
        got = []
        deadline = time.monotonic() + seconds
        while (remaining := deadline - time.monotonic()) > 0:
            if self.child.expect(["\n", pexpect.EOF, pexpect.TIMEOUT], timeout=remaining) != 0:
                break
            got.append(self.child.before.rstrip("\r"))
            self.lines.append(got[-1])
        return got

    def until(self, prefix: str, timeout: float = 20) -> list[str]:
        """Read lines up to and including the first that starts with ``prefix``."""
        got = []
        while True:
            got.append(self.read(timeout))
            if got[-1].startswith(prefix):
                return got

    def ready(self) -> None:
        """``isready``; the next line must be ``readyok`` (so nothing else was pending)."""
        self.send("isready")
        assert self.read() == "readyok"

    def search(self, go: str, timeout: float = 20) -> tuple[list[Info], str | None]:
        """Send ``go ...``; the infos and the bestmove (None for ``(none)``)."""
        self.send(go)
        lines = self.until("bestmove", timeout)
        infos = [parse_response(line) for line in lines[:-1]]
        best = parse_response(lines[-1])
        assert all(isinstance(info, Info) and info.error is None for info in infos), lines
        assert isinstance(best, BestMove)
        return infos, best.move  # type: ignore[return-value]

    def exit_status(self, timeout: float = 10) -> int | None:
        deadline = time.monotonic() + timeout
        while self.child.proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        return self.child.proc.poll()

    def kill(self) -> None:
        if self.child.proc.poll() is None:
            self.child.kill(signal.SIGKILL)
            self.child.proc.wait()


@pytest.fixture
def engine() -> Iterator[EngineProcess]:
    process = EngineProcess()
    process.send("uci")
    process.until("uciok")
    yield process
    process.kill()


def error_after(engine: EngineProcess, command: str) -> str:
    """Send a bad ``command``; its one error reason (checked to be the only answer)."""
    engine.send(command)
    line = engine.read()
    info = parse_response(line)
    assert isinstance(info, Info) and info.error is not None, line
    engine.ready()
    return info.error


# -- handshakes and options --------------------------------------------------------------------------
def test_uci_handshake_lists_id_options_and_uciok() -> None:
    process = EngineProcess()
    try:
        process.send("uci")
        lines = process.until("uciok", timeout=20)
        responses = [parse_response(line) for line in lines]
        assert lines[0].startswith("id name Dipole Engine ") and lines[1].startswith("id author ")
        options = {r.name: r for r in responses if isinstance(r, OptionSpec)}
        assert options["Hash"] == OptionSpec("Hash", "spin", 16, 1, 1024)
        assert options["MoveOverhead"] == OptionSpec("MoveOverhead", "spin", 50, 0, 5000)
        variant = options["UCI_Variant"]
        assert variant.type == "combo" and variant.default == "dipole"
        assert {"dipole", "dipole-s", "dipole-10", "dipole-10s", "impasse", "impasse-singles"} <= set(variant.vars)
        process.ready()
        process.send("quit")
        assert process.exit_status() == 0
    finally:
        process.kill()


def test_ugi_handshake_and_queries() -> None:
    process = EngineProcess()
    try:
        process.send("ugi")
        assert process.until("ugi")[-1] == "ugiok"
        process.send("uginewgame")
        for query, answer in [("gameover", "false"), ("p1turn", "true"), ("result", "none")]:
            process.send(f"query {query}")
            assert process.read() == f"response {answer}"
        process.send("position fen W:W1b8:B1a1 moves b8-off:1")
        for query, answer in [("gameover", "true"), ("p1turn", "false"), ("result", "p2win")]:
            process.send(f"query {query}")
            assert process.read() == f"response {answer}"
        process.send("position fen W:W2d4:B1d6 moves d4xd6")
        process.send("query result")
        assert process.read() == "response p1win"
        process.send("position fen W:W2d4:B1d6")
        infos, best = process.search("go p1time 5000 p2time 5000 p1inc 100 p2inc 100")
        assert best == "d4xd6" and infos[-1].score_mate == 1
    finally:
        process.kill()


def test_options_are_set_and_bad_values_refused(engine: EngineProcess) -> None:
    for line in [
        "setoption name Hash value 1",
        "setoption name hash value 128",
        "setoption name MoveOverhead value 0",
        "setoption name MOVEOVERHEAD value 5000",
    ]:
        engine.send(line)
    engine.ready()  # no answer to good options
    assert "must be at most 1024, found 2048" in error_after(engine, "setoption name Hash value 2048")
    assert "must be at least 0" in error_after(engine, "setoption name MoveOverhead value -1")
    assert "expected an integer, found '1.5'" in error_after(engine, "setoption name Hash value 1.5")
    assert "needs a value" in error_after(engine, "setoption name Hash")
    assert "unknown option 'Threads'" in error_after(engine, "setoption name Threads value 4")
    assert "UCI_Variant must be one of" in error_after(engine, "setoption name UCI_Variant value chess")
    _, best = engine.search("go depth 2")
    assert best is not None


def test_variant_switch_resets_to_its_start(engine: EngineProcess) -> None:
    def perft(depth: int) -> int:
        engine.send(f"go perft {depth}")
        return int(engine.until("Nodes searched:")[-1].split()[-1])

    engine.send("position startpos moves c1-c3")
    engine.send("setoption name UCI_Variant value dipole-10s")
    assert perft(1) == 29  # the variant's start, not the old position
    engine.send("position startpos")
    assert perft(2) == 810
    engine.send("setoption name UCI_Variant value DIPOLE-S")
    assert perft(2) == 340
    engine.send("setoption name UCI_Variant value dipole")
    assert perft(2) == 359
    _, best = engine.search("go depth 2")
    assert best in {str(move) for move in new_board("dipole").legal_moves()}


def impasse_line() -> list[str]:
    """Random moves from the ``impasse`` start up to the first point where the line holds both a
    crown (``=``) and an impasse removal (``x``) with the game still going on (first seed that
    gets there)."""
    for seed in range(100):
        rng = random.Random(seed)
        board = new_board("impasse")
        texts: list[str] = []
        while board.legal_moves():
            texts.append(str(board.push_text(str(rng.choice(board.legal_moves())))))
            if any("=" in text for text in texts) and any(text.startswith("x") for text in texts):
                if board.winner() is None:
                    return texts
                break
    raise AssertionError("no random Impasse line with a crown and a removal")


def test_impasse_variants_are_played(engine: EngineProcess) -> None:
    engine.send("setoption name UCI_Variant value impasse")
    engine.send("go perft 3")
    assert engine.until("Nodes searched:")[-1] == "Nodes searched: 9692"
    line = impasse_line()
    board = new_board("impasse")
    for text in line:
        board.push_text(text)
    engine.send("position startpos moves " + " ".join(line))
    engine.send("go perft 1")
    assert engine.until("Nodes searched:")[-1] == f"Nodes searched: {board.count_legal_moves()}"
    infos, best = engine.search("go depth 2")
    assert best in {str(move) for move in board.legal_moves()}
    assert [info.depth for info in infos] == [1, 2]
    for info in infos:  # each principal variation is a legal Impasse line
        pv = board.copy()
        for text in info.pv:
            pv.push_text(text)
    assert "cannot crown here" in error_after(engine, "position fen W:W1a1,1c3,1g7:B1a7 moves g7-h8=e5")
    engine.send("position fen W:W1a1:B2b2")  # White is at an impasse; removing its last checker wins
    infos, best = engine.search("go depth 3")
    assert best == "xa1" and infos[-1].score_mate == 1
    engine.send("setoption name UCI_Variant value impasse-singles")
    engine.send("go perft 2")
    singles = new_board("impasse-singles")
    assert engine.until("Nodes searched:")[-1] == f"Nodes searched: {sum(c for _, c in divide(singles, 2))}"
    _, best = engine.search("go movetime 100")
    assert best in {str(move) for move in singles.legal_moves()}


def test_go_nodes_1_still_answers_a_searched_move(engine: EngineProcess) -> None:
    engine.send("position startpos")
    infos, best = engine.search("go nodes 1")
    assert infos and infos[0].depth == 1 and best == infos[-1].pv[0]
    assert "-off:" not in best  # not throwing its own checkers off the board


@pytest.mark.parametrize("go", ["go movetime 0", "go wtime 20 btime 20"])
def test_no_time_answers_at_once_with_a_sound_move(engine: EngineProcess, go: str) -> None:
    engine.send("position startpos")
    infos, best = engine.search(go)
    assert not infos and best in {str(move) for move in new_board().legal_moves()}
    assert "-off:" not in best  # not throwing its own checkers off the board


# -- positions and moves ---------------------------------------------------------------------------------
def test_forced_pass_is_answered_and_accepted_in_moves(engine: EngineProcess) -> None:
    engine.send("position fen W:W1d4:B2c5,2e5")
    infos, best = engine.search("go depth 1")
    assert best == "pass" and infos and infos[-1].pv[0] == "pass"
    engine.send("position fen W:W1d4:B2c5,2e5 moves pass")
    engine.send("query p1turn")
    assert engine.read() == "response false"
    infos, best = engine.search("go depth 3")
    assert best in ("c5xd4", "e5xd4") and infos[-1].score_mate == 1  # Black takes White's last checker


def test_positions_with_moves_are_played(engine: EngineProcess) -> None:
    board = new_board("dipole")
    moves = []
    for _ in range(6):  # the engine plays both sides
        engine.send("position startpos" + (" moves " + " ".join(moves) if moves else ""))
        _, best = engine.search("go depth 2")
        assert best is not None
        board.push(board.parse_move(best))
        moves.append(best)
    engine.send("position startpos moves " + " ".join(moves))
    engine.send("go perft 1")
    assert engine.until("Nodes searched:")[-1] == f"Nodes searched: {board.count_legal_moves()}"


def test_finished_game_answers_bestmove_none(engine: EngineProcess) -> None:
    engine.send("position fen W:W1b8:B1a1 moves b8-off:1")
    assert engine.search("go depth 3") == ([], None)
    engine.send("position fen W:W2c3:B")
    assert engine.search("go wtime 1000 btime 1000") == ([], None)


def test_go_perft_divides_like_the_rules(engine: EngineProcess) -> None:
    engine.send("position startpos moves c1-c3 d8-d6")
    engine.send("go perft 2")
    lines = engine.until("Nodes searched:")
    board = new_board("dipole", None)
    board.push_text("c1-c3")
    board.push_text("d8-d6")
    expected = [f"{move} {count}" for move, count in divide(board, 2)]
    assert lines == expected + [f"Nodes searched: {sum(count for _, count in divide(board, 2))}"]
    engine.send("go perft 0")
    assert engine.read() == "Nodes searched: 1"


# -- go limits ----------------------------------------------------------------------------------------
def test_go_depth(engine: EngineProcess) -> None:
    engine.send("position startpos")
    infos, best = engine.search("go depth 3")
    assert [info.depth for info in infos] == [1, 2, 3]
    assert best == infos[-1].pv[0]
    for info in infos:
        assert info.nodes and info.nps is not None and info.time is not None and info.hashfull is not None
        assert (info.score_cp is None) != (info.score_mate is None)


def test_go_nodes(engine: EngineProcess) -> None:
    engine.send("position startpos")
    infos, best = engine.search("go nodes 3000")
    assert best is not None
    assert all(info.nodes is not None and info.nodes <= 3000 for info in infos)


@pytest.mark.parametrize("variant", ["dipole", "impasse"])
def test_go_movetime_gets_its_full_time(engine: EngineProcess, variant: str) -> None:
    # movetime N is N ms in full (MoveOverhead is for clocks): every answer comes after at least
    # 0.9 N, which a busy machine can only delay, and one comes by N plus a few ms (the engine
    # stops just before N).  A busy machine (the whole suite on two cores) delays answers by
    # tens of ms, so the search is asked again, up to 25 times, until one answer shows the
    # engine's own timing; an engine that answers at N/2 fails on its first answer.
    engine.send(f"setoption name UCI_Variant value {variant}")
    for movetime in (20, 50, 100):
        took: list[float] = []
        while len(took) < 25 and (not took or min(took) > movetime + 5):
            engine.send("position startpos")
            engine.ready()
            begin = time.monotonic()
            _, best = engine.search(f"go movetime {movetime}")
            took.append((time.monotonic() - begin) * 1000)
            assert best is not None
            shown = (
                f"{variant}, go movetime {movetime}: answered after " + ", ".join(f"{ms:.1f}" for ms in took) + " ms"
            )
            assert took[-1] >= 0.9 * movetime, shown
            assert took[-1] <= movetime + 250, shown
        assert min(took) <= movetime + 5, shown


@pytest.mark.parametrize(
    "go,limit",
    [
        ("go wtime 1000 btime 1000", 1.0),
        ("go wtime 3000 btime 100 winc 100 binc 100 movestogo 5", 3.0),
        ("go wtime 20 btime 20", 0.3),  # below the move overhead: move at once
        ("go p1time 1000 p2time 800 p1inc 10 p2inc 10", 1.0),
    ],
)
def test_go_with_clocks_answers_before_the_flag(engine: EngineProcess, go: str, limit: float) -> None:
    engine.send("position startpos")
    engine.ready()
    begin = time.monotonic()
    _, best = engine.search(go)
    elapsed = time.monotonic() - begin
    assert best is not None
    assert elapsed < limit + 0.5, f"{go!r} answered after {elapsed * 1000:.0f} ms"


@pytest.mark.parametrize("go", ["go infinite", "go", "go depth 1 infinite"])
def test_infinite_waits_for_stop_and_isready_is_answered_meanwhile(engine: EngineProcess, go: str) -> None:
    engine.send("position startpos")
    engine.send(go)
    time.sleep(0.3)
    begin = time.monotonic()
    engine.send("isready")
    while (line := engine.read()) != "readyok":
        assert line.startswith("info ") and not line.startswith("info string"), line
    assert time.monotonic() - begin < 0.5
    assert not any(line.startswith("bestmove") for line in engine.lines_for(0.3))
    engine.send("stop")
    best = engine.until("bestmove")[-1]
    assert best != "bestmove (none)"
    engine.ready()  # exactly one bestmove


def test_stop_when_idle_does_nothing(engine: EngineProcess) -> None:
    engine.send("stop")
    engine.ready()


def test_every_go_gets_exactly_one_bestmove(engine: EngineProcess) -> None:
    engine.send("position startpos")
    for _ in range(20):
        engine.send("go depth 1")
        engine.until("bestmove")
    engine.ready()


# -- bad input ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "command,reason",
    [
        ("hello world", "unknown command 'hello'"),
        ("Go depth 1", "unknown command 'Go'"),
        ("go depth -3", "go depth: must be at least 1"),
        ("go depth", "'depth' needs a value"),
        ("go sideways 3", "unknown parameter 'sideways'"),
        ("position", "position: expected"),
        ("position fen W:W12c1", "position: FEN 'W:W12c1': expected 3 fields"),
        ("position fen W:W12c2:B12d8", "c2 is a light square"),
        ("position startpos moves c1-c3 d8-d6 c3xd6", "move 3 of 3, 'c3xd6'"),
        ("position startpos moves pass", "'pass': White has a legal move, so may not pass"),
        ("position startpos moves c1-c9", "c9 is not a square of the 8x8 board"),
        ("setoption name Hash value big", "setoption Hash: expected an integer"),
        ("quit now", "'quit' takes no arguments"),
        ("query everything", "query: expected"),
        ("\x00\x01\x02", "unknown command"),
        ("posítion startpos", "unknown command"),
    ],
)
def test_bad_input_gets_one_error_line_then_searches_work(engine: EngineProcess, command: str, reason: str) -> None:
    engine.send("position fen W:W2d4:B1d6")
    assert reason in error_after(engine, command)
    engine.send("position fen W:W2d4:B1d6")
    _, best = engine.search("go depth 2")
    assert best == "d4xd6"


def test_illegal_move_keeps_the_position_before_it(engine: EngineProcess) -> None:
    engine.send("position startpos moves c1-c3 d8-d6")
    engine.send("go perft 1")
    after_two = engine.until("Nodes searched:")
    reason = error_after(engine, "position startpos moves c1-c3 d8-d6 e1-e3 d6-d4")
    assert reason == ("position: move 3 of 4, 'e1-e3': White has no stack on e1; kept the position after move 2")
    engine.send("go perft 1")
    assert engine.until("Nodes searched:") == after_two
    assert "kept the position before it" in error_after(engine, "position startpos moves e1-e3")
    engine.send("go perft 1")
    assert engine.until("Nodes searched:")[-1] == "Nodes searched: 20"  # the start position


def test_bad_fen_keeps_the_previous_position(engine: EngineProcess) -> None:
    engine.send("position fen W:W1d4:B2c5,2e5")
    assert "FEN" in error_after(engine, "position fen W:W1d4:B2c5,2e5,9z9")
    assert engine.search("go depth 1")[1] == "pass"


def test_go_while_searching_is_refused_and_the_search_goes_on(engine: EngineProcess) -> None:
    engine.send("position startpos")
    engine.send("go infinite")
    engine.send("go depth 1")
    engine.send("go perft 1")
    errors = []
    while len(errors) < 2:
        line = engine.read()
        if line.startswith("info string"):
            errors.append(line)
    assert errors == [
        "info string error go: a search is already running; send stop first",
        "info string error go perft: a search is running; send stop first",
    ]
    assert not any(line.startswith("bestmove") for line in engine.lines_for(0.2))
    engine.send("stop")
    engine.until("bestmove")
    engine.ready()


def test_crlf_and_blank_lines_are_accepted(engine: EngineProcess) -> None:
    engine.send("")
    engine.send("   ")
    engine.send("isready\r")
    assert engine.read() == "readyok"
    engine.send("  position   fen  W:W2d4:B1d6 \r")
    assert engine.search("go depth 1\r")[1] == "d4xd6"


# -- ending -------------------------------------------------------------------------------------------
def test_end_of_input_exits_0(engine: EngineProcess) -> None:
    engine.child.sendeof()
    assert engine.exit_status() == 0


def test_end_of_input_during_a_search_exits_0(engine: EngineProcess) -> None:
    engine.send("position startpos")
    engine.send("go infinite")
    time.sleep(0.2)
    begin = time.monotonic()
    engine.child.sendeof()
    assert engine.exit_status() == 0
    assert time.monotonic() - begin < 3


def test_quit_during_a_search_exits_0(engine: EngineProcess) -> None:
    engine.send("position startpos")
    engine.send("go wtime 100000 btime 100000")
    time.sleep(0.2)
    engine.send("quit")
    assert engine.exit_status(timeout=3) == 0


def test_a_person_at_a_terminal_can_talk_to_it() -> None:
    child = pexpect.spawn(COMMAND[0], COMMAND[1:], encoding="utf-8", timeout=20)
    try:
        child.setecho(False)
        child.sendline("isready")
        child.expect_exact("readyok")
        child.sendline("position fen W:W2d4:B1d6")
        child.sendline("go depth 2")
        child.expect_exact("bestmove d4xd6")
        child.sendeof()
        child.expect(pexpect.EOF)
        child.close()
        assert child.exitstatus == 0
    finally:
        if child.isalive():
            child.terminate(force=True)


def test_hash_and_ucinewgame_reach_the_transposition_table() -> None:
    engine = Engine(hash_mb=1)
    loop = engine_loop(engine)
    loop.output = output = io.StringIO()
    loop.handle("setoption name Hash value 2")
    assert engine._tt.size == entries_for(2)
    loop.handle("go depth 2")
    deadline = time.monotonic() + 20
    while "bestmove" not in output.getvalue():
        assert time.monotonic() < deadline, output.getvalue()
        time.sleep(0.01)
    assert any(entry is not None for entry in engine._tt.table)
    loop.handle("ucinewgame")
    assert not any(entry is not None for entry in engine._tt.table)


# -- random input, in process ------------------------------------------------------------------------------
FUZZ_WORDS = [
    "uci",
    "ugi",
    "isready",
    "setoption",
    "name",
    "value",
    "Hash",
    "MoveOverhead",
    "UCI_Variant",
    "dipole",
    "dipole-s",
    "dipole-10",
    "dipole-10s",
    "impasse",
    "ucinewgame",
    "uginewgame",
    "position",
    "startpos",
    "fen",
    "moves",
    "W:W12c1:B12d8",
    "W:W1d4:B2c5,2e5",
    "W:W2d4:B1d6",
    "B:W3e1,1g5:B2d6,1h8",
    "W:W1b8:B",
    "W:W:B",
    "c1-c3",
    "d8-d6",
    "c1-off:3",
    "pass",
    "e1xc3",
    "go",
    "perft",
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "movetime",
    "depth",
    "nodes",
    "infinite",
    "p1time",
    "p2time",
    "stop",
    "query",
    "gameover",
    "p1turn",
    "result",
    "0",
    "1",
    "2",
    "-1",
    "30",
    "x",
]
FUZZ_LINE = st.one_of(
    st.text(max_size=30),
    st.lists(st.one_of(st.sampled_from(FUZZ_WORDS), st.text(max_size=4)), max_size=8).map(" ".join),
)


def _cheap(line: str) -> bool:
    """Leave out what is valid but slow: deep perft and big hash tables."""
    words = line.split()
    numbers = [int(word) for word in words if word.isascii() and word.isdigit()]
    return not ("perft" in words and any(n > 2 for n in numbers)) and not (
        "Hash" in words and any(n > 8 for n in numbers)
    )


@settings(max_examples=150, deadline=None)
@given(st.lists(FUZZ_LINE.filter(_cheap), max_size=12))
def test_random_input_never_breaks_the_loop(lines: list[str]) -> None:
    output = io.StringIO()
    loop = engine_loop(Engine(hash_mb=1))
    loop.output = output
    accepted_goes = 0
    for line in [*lines, "stop", "isready"]:
        before = len(output.getvalue())
        assert loop.handle(line) or line.split()[0] == "quit"
        refused = "info string error" in output.getvalue()[before:]  # the search writes none
        if line.split()[:1] == ["go"] and "perft" not in line.split() and not refused:
            accepted_goes += 1
    written = output.getvalue().splitlines()
    for line in written:
        response = parse_response(line)  # every line written is a valid response
        assert not (isinstance(response, Info) and response.error and "internal error" in response.error), line
    assert written[-1] == "readyok"
    assert sum(1 for line in written if line.startswith("bestmove")) == accepted_goes


# -- the example sessions of SPEC.md ---------------------------------------------------------------------
def spec_sessions() -> list[tuple[str, list[tuple[str, list[str]]]]]:
    """Each ```session block of SPEC.md as (heading, [(command, expected lines)])."""
    text = SPEC.read_text()
    sessions = []
    for match in re.finditer(r"^### (.+?)$.*?^```session\n(.*?)^```$", text, re.MULTILINE | re.DOTALL):
        steps: list[tuple[str, list[str]]] = []
        for line in match.group(2).splitlines():
            if line.startswith("> "):
                steps.append((line[2:], []))
            elif line.startswith("< ") and steps:
                steps[-1][1].append(line[2:])
            else:
                raise AssertionError(f"SPEC.md session {match.group(1)!r}: bad line {line!r}")
        sessions.append((match.group(1), steps))
    return sessions


def is_variable(line: str) -> bool:
    """An ``info`` line whose numbers depend on the machine (all but ``info string``)."""
    return line.startswith("info ") and not line.startswith("info string")


SESSIONS = spec_sessions()


def test_spec_has_example_sessions() -> None:
    assert len(SESSIONS) >= 6


@pytest.mark.parametrize("steps", [steps for _, steps in SESSIONS], ids=[name for name, _ in SESSIONS])
def test_spec_example_session_works_verbatim(steps: list[tuple[str, list[str]]]) -> None:
    process = EngineProcess()
    try:
        for command, expected in steps:
            for line in expected:  # every line shown must be a valid response
                try:
                    parse_response(line)
                except ProtocolError as error:
                    raise AssertionError(f"SPEC.md shows an invalid line {line!r}: {error}") from None
            process.send(command)
            if command == "quit":
                assert expected == [] and process.exit_status() == 0
                return
            infos_since_go = 0
            for want in [line for line in expected if not is_variable(line)]:
                while is_variable(got := process.read()):
                    infos_since_go += 1
                if got.startswith("id name "):  # the engine names its build; the examples do not
                    got = re.sub(r" \((mypyc|pure Python)\)$", "", got)
                assert got == want, f"after {command!r}: expected {want!r}, got {got!r}"
                # The info lines shown must come, unless the search had a clock: a starved engine
                # answers within its time even before its first iteration ends, with no info.
                if (
                    want.startswith("bestmove")
                    and any(is_variable(line) for line in expected)
                    and not re.search(r"\b(movetime|wtime|btime)\b", command)
                ):
                    assert infos_since_go > 0, f"after {command!r}: no info line before {got!r}"
        process.ready()  # nothing unexpected is left
        process.child.sendeof()
        assert process.exit_status() == 0
    finally:
        process.kill()
