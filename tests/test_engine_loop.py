"""protocol.loop: the engine side of the protocol for Python engine authors, and the example
engine built on it, which plays a refereed match."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from arbiter.compliance import CheckSettings, check_engine
from dipole_engine.rules import Board, divide, new_board
from protocol import Limit, OptionSpec
from protocol.loop import EngineLoop, SearchJob
from protocol.timeman import RESERVE_DECAY, plan

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "minimal_engine.py"
ARBITER = [sys.executable, "-c", "from arbiter.cli import main; main()"]


def first_move(job: SearchJob[Board]) -> str | None:
    moves = job.position.legal_moves()
    job.info(depth=1, pv=tuple(str(m) for m in moves[:1]))
    return str(moves[0]) if moves else None


def make_loop(search=first_move, **extra) -> EngineLoop[Board]:  # type: ignore[no-untyped-def]
    return EngineLoop(
        search,
        name="Test",
        author="me",
        variants=["dipole", "impasse"],
        new_position=new_board,
        play=Board.push_text,
        turn=lambda board: board.turn > 0,
        **extra,
    )


def session(lines: list[str], loop: EngineLoop[Board] | None = None) -> list[str]:
    """Run a loop on ``lines`` (end of input after them); everything it wrote."""
    out = io.StringIO()
    code = (loop or make_loop()).run(io.BytesIO("".join(line + "\n" for line in lines).encode()), out)
    assert code == 0
    return out.getvalue().splitlines()


def test_handshake_lists_ids_the_variant_option_move_overhead_and_own_options() -> None:
    loop = make_loop(options=[OptionSpec("Level", "spin", 3, 1, 9), OptionSpec("Book", "check", False)])
    assert session(["uci"], loop) == [
        "id name Test",
        "id author me",
        "option name UCI_Variant type combo default dipole var dipole var impasse",
        "option name MoveOverhead type spin default 50 min 0 max 5000",
        "option name Level type spin default 3 min 1 max 9",
        "option name Book type check default false",
        "uciok",
    ]
    assert session(["ugi"], loop)[-1] == "ugiok"


def test_options_are_checked_and_reach_the_search() -> None:
    seen: list[dict[str, object]] = []

    def search(job: SearchJob[Board]) -> str | None:
        seen.append(dict(job.options))
        return first_move(job)

    loop = make_loop(search, options=[OptionSpec("Level", "spin", 3, 1, 9), OptionSpec("Book", "check", False)])
    out = session(
        [
            "setoption name level value 7",
            "setoption name Book value TRUE",
            "setoption name Level value 10",
            "setoption name Book value maybe",
            "setoption name Nope value 1",
            "setoption name UCI_Variant value chess",
            "go depth 1",
        ],
        loop,
    )
    assert out[:4] == [
        "info string error setoption Level: must be at most 9, found 10",
        "info string error setoption Book: expected true or false, found 'maybe'",
        "info string error setoption: unknown option 'Nope'; the options are UCI_Variant, MoveOverhead, Level, Book",
        "info string error setoption: UCI_Variant must be one of dipole, impasse, found 'chess'",
    ]
    assert seen == [{"UCI_Variant": "dipole", "MoveOverhead": 50, "Level": 7, "Book": True}]


def test_positions_variants_and_a_bad_move_keep_the_moves_before_it() -> None:
    out = session(
        [
            "position startpos moves c1-c3 d8-d6 zz e1-e3",
            "go depth 1",
            "setoption name UCI_Variant value impasse",
            "position startpos",
            "go depth 1",
            "position fen W:W1a1:B2b2 moves xa1",
            "go depth 1",
        ]
    )
    assert out[0].startswith("info string error position: move 3 of 4, 'zz' is not a Dipole move: ")
    assert out[0].endswith("kept the position after move 2")
    bestmoves = [line for line in out if line.startswith("bestmove")]
    board = new_board("dipole")
    board.push_text("c1-c3")
    board.push_text("d8-d6")
    assert bestmoves[0] == f"bestmove {board.legal_moves()[0]}"
    assert bestmoves[1] == f"bestmove {new_board('impasse').legal_moves()[0]}"
    assert bestmoves[2] == "bestmove (none)"


class Running:
    """A loop on its own thread, fed through a pipe; ``out`` is what it has written so far."""

    def __init__(self, loop: EngineLoop[Board]) -> None:
        read, write = os.pipe()
        self.out = io.StringIO()
        self._stdin = os.fdopen(write, "wb", buffering=0)
        self._thread = threading.Thread(target=loop.run, args=(os.fdopen(read, "rb"), self.out))
        self._thread.start()

    def send(self, *lines: str) -> None:
        self._stdin.write("".join(line + "\n" for line in lines).encode())

    def lines(self) -> list[str]:
        return self.out.getvalue().splitlines()

    def wait_for(self, prefix: str, count: int = 1, timeout: float = 10) -> None:
        deadline = time.monotonic() + timeout
        while sum(line.startswith(prefix) for line in self.lines()) < count:
            assert time.monotonic() < deadline, self.lines()
            time.sleep(0.01)

    def close(self) -> None:
        self._stdin.close()
        self._thread.join(10)
        assert not self._thread.is_alive()


def test_infinite_waits_for_stop_and_isready_is_answered_meanwhile() -> None:
    engine = Running(make_loop())
    engine.send("go infinite")
    engine.wait_for("info depth 1")
    engine.send("isready", "go depth 1")
    engine.wait_for("info string error")
    time.sleep(0.2)
    assert not [line for line in engine.lines() if line.startswith("bestmove")]
    engine.send("stop", "isready")
    engine.wait_for("readyok", 2)
    engine.close()
    assert engine.lines()[1:] == [
        "readyok",
        "info string error go: a search is already running; send stop first",
        f"bestmove {new_board().legal_moves()[0]}",
        "readyok",
    ]


def test_the_engine_is_idle_when_its_bestmove_is_read() -> None:
    engine = Running(make_loop())
    for count in range(1, 201):
        engine.send("go depth 1")
        engine.wait_for("bestmove", count)
    engine.close()
    assert not [line for line in engine.lines() if "error" in line]


def test_a_search_that_raises_is_reported_and_still_answers_once() -> None:
    def broken(job: SearchJob[Board]) -> str | None:
        raise RuntimeError("oops")

    engine = Running(make_loop(broken))
    engine.send("go depth 1")
    engine.wait_for("bestmove")
    engine.close()
    assert engine.lines() == ["info string error internal error in the search: RuntimeError: oops", "bestmove (none)"]


def test_go_nodes_and_movetime_bound_a_search_that_asks_stopped() -> None:
    counts: list[int] = []

    def spin(job: SearchJob[Board]) -> str | None:
        while not job.stopped():
            pass
        counts.append(job.nodes)
        return first_move(job)

    engine = Running(make_loop(spin))
    engine.send("go nodes 1000")
    engine.wait_for("bestmove")
    engine.send("setoption name MoveOverhead value 0", "go movetime 300")
    started = time.monotonic()
    engine.wait_for("bestmove", 2)
    took = time.monotonic() - started
    engine.close()
    assert counts[0] == 1000
    assert 0.25 < took < 3


def test_the_example_is_at_most_60_lines() -> None:
    assert len(EXAMPLE.read_text().splitlines()) <= 60


def test_the_example_engine_plays_a_refereed_match() -> None:
    done = subprocess.run(
        [
            *ARBITER,
            "match",
            "--engine",
            f"cmd={sys.executable} {EXAMPLE}",
            "name=example",
            "depth=2",
            "--engine",
            f"cmd={sys.executable} -m dipole_engine",
            "name=reference",
            "depth=1",
            "--games",
            "2",
            "--variant",
            "impasse",
        ],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    finished = [line for line in done.stdout.splitlines() if line.startswith("Finished game")]
    assert len(finished) == 2
    assert all("has no checkers left" in line for line in finished), finished
    assert "Finished match" in done.stdout


def test_the_readme_engine_passes_check_engine(tmp_path: Path) -> None:
    text = (ROOT / "README.md").read_text()
    start = text.index("```python\nfrom dipole_engine.rules import Board, all_variants")
    code = text[start + len("```python\n") : text.index("```", start + 10)]
    script = tmp_path / "tiny.py"
    script.write_text(code)
    results = check_engine(
        CheckSettings(
            (sys.executable, str(script)), cwd=str(ROOT), variants=("dipole", "impasse"), positions=8, timeout=5
        )
    )
    assert [r.line() for r in results if r.status == "FAIL"] == []


def test_queries_are_answered_by_the_engines_answer_function_or_refused() -> None:
    def answer(board: Board, item: str) -> str | None:
        return board.fen() if item == "fen" else None

    out = session(["position startpos moves c1-c3", "query fen", "query moves"], make_loop(answer=answer))
    assert out == ["response B:W10c1,2c3:B12d8", "info string error query moves is not supported by this engine"]
    assert session(["query fen"]) == ["info string error query fen is not supported by this engine"]


def test_perft_new_game_and_option_hooks_reach_the_engine_and_options_keep_their_place() -> None:
    calls: list[object] = []

    def on_option(name: str, value: object) -> None:
        if value == 9:
            raise ValueError("Level 9 needs more memory")
        calls.append((name, value))

    loop = make_loop(
        perft=lambda board, depth: divide(board.copy(), depth),
        new_game=lambda: calls.append("new"),
        on_option=on_option,
        options=[
            OptionSpec("Level", "spin", 3, 1, 9),
            OptionSpec("UCI_Variant", "combo"),
            OptionSpec("MoveOverhead", "spin", 100, 0, 1000),
        ],
    )
    out = session(
        [
            "uci",
            "position startpos moves c1-c3",
            "go perft 2",
            "go perft 0",
            "setoption name level value 5",
            "setoption name Level value 9",
            "setoption name moveoverhead value 0",
            "ucinewgame",
            "go perft 1",
        ],
        loop,
    )
    board = new_board()
    board.push_text("c1-c3")
    assert out[2:5] == [
        "option name Level type spin default 3 min 1 max 9",
        "option name UCI_Variant type combo default dipole var dipole var impasse",
        "option name MoveOverhead type spin default 100 min 0 max 1000",
    ]
    perft_2 = [f"{move} {count}" for move, count in divide(board, 2)]
    assert out[6:] == [
        *perft_2,
        f"Nodes searched: {sum(count for _, count in divide(board, 2))}",
        "Nodes searched: 1",
        "info string error Level 9 needs more memory",
        *(f"{move} 1" for move in new_board().legal_moves()),
        "Nodes searched: 20",
    ]
    assert calls == [("Level", 5), ("MoveOverhead", 0), "new"]
    assert loop.values["Level"] == 5 and loop.values["MoveOverhead"] == 0


def test_a_search_polling_its_own_flag_is_stopped_through_on_stop() -> None:
    def own_flag(job: SearchJob[Board]) -> str | None:
        stop = threading.Event()
        job.on_stop(stop.set)
        stop.wait()  # never asks job.stopped()
        late = threading.Event()
        job.on_stop(late.set)  # registered after the stop: called at once
        assert late.is_set()
        return first_move(job)

    engine = Running(make_loop(own_flag))
    engine.send("go wtime 100000 btime 100000")
    time.sleep(0.3)
    assert not [line for line in engine.lines() if line.startswith("bestmove")]
    engine.send("stop", "isready")
    engine.wait_for("readyok")
    engine.close()
    assert engine.lines()[-2:] == [f"bestmove {new_board().legal_moves()[0]}", "readyok"]


def test_a_bug_in_a_hook_is_reported_and_the_loop_serves_on() -> None:
    def answer(board: Board, item: str) -> str | None:
        return {"p1turn": "true"}[item]

    out = session(["query fen", "query p1turn", "isready"], make_loop(answer=answer))
    assert out == ["info string error internal error on 'query fen': KeyError: 'fen'", "response true", "readyok"]


def test_a_closed_output_ends_the_session() -> None:
    class Gone(io.StringIO):
        def write(self, text: str) -> int:
            raise BrokenPipeError("the host has gone")

    stdin = io.BytesIO(b"isready\n" * 1000)
    assert make_loop().run(stdin, Gone()) == 0
    assert stdin.tell() < len(b"isready\n") * 10  # it stopped reading at the first failed write


def test_the_time_budget_is_the_engines_time_plan() -> None:
    def job(limit: Limit, overhead: int = 0) -> SearchJob[Board]:
        return SearchJob(new_board(), limit, "dipole", {"MoveOverhead": overhead}, time.monotonic())

    for limit in [
        Limit(wtime=10_000, movestogo=1),
        Limit(wtime=60_000, winc=1000),
        Limit(movetime=500),
        Limit(wtime=100_000, movestogo=90),
        Limit(wtime=20),
        Limit(depth=3),
        Limit(infinite=True, wtime=5),
    ]:
        for overhead in (0, 30):
            expected = plan(limit, True, overhead)
            assert job(limit, overhead).time_plan() == expected
            budget = job(limit, overhead).time_budget()
            assert budget == (None if expected.soft_ms is None else expected.soft_ms / 1000)
    assert job(Limit(wtime=10_000, movestogo=1)).time_budget() == 6.0  # the last move before the control


def test_the_clock_plan_keeps_a_reserve_that_grows_when_moves_overrun() -> None:
    jobs: list[SearchJob[Board]] = []

    def record(job: SearchJob[Board]) -> str | None:
        jobs.append(job)
        return first_move(job)

    engine = Running(make_loop(record))
    board = new_board()
    moves: list[str] = []
    answer_ms: list[float] = []  # each go to its bestmove as seen here: the engine took no longer

    def play(clock: int) -> None:
        """Our move with ``clock`` ms left (10 ms a move), answered at once; then the opponent's."""
        position = " ".join(["position startpos", *(["moves", *moves] if moves else [])])
        started = time.monotonic()
        engine.send(position, f"go wtime {clock} btime 1000 winc 10 binc 10")
        engine.wait_for("bestmove", len(moves) // 2 + 1)
        answer_ms.append((time.monotonic() - started) * 1000)
        ours = engine.lines()[-1].split()[1]
        board.push_text(ours)
        reply = str(board.legal_moves()[0])
        board.push_text(reply)
        moves.extend([ours, reply])

    play(1000)
    play(710)  # the host charged 300 ms for a move answered at once (a busy machine, say)
    play(720)  # then nothing: the busy spell has passed
    engine.send("ucinewgame", "position startpos", "go wtime 1000 btime 1000 winc 10 binc 10")
    engine.wait_for("bestmove", 4)
    engine.close()
    reserves = [job.reserve_ms for job in jobs]
    assert reserves[0] == 0
    # Twice the overrun: the 300 ms charged less what the engine itself measured, which a busy
    # machine can make as long as the whole round trip seen here.
    assert 2 * (300 - answer_ms[0]) <= reserves[1] <= 600, (reserves, answer_ms)
    assert reserves[2] == reserves[1] * RESERVE_DECAY, reserves  # no overrun: it decays
    assert reserves[3] == reserves[2] * RESERVE_DECAY, reserves  # a new game: the engine's own time
    # The plan keeps the reserve back as well as MoveOverhead.
    assert jobs[1].time_plan() == plan(Limit(wtime=710, winc=10), True, 50, reserves[1])
    hard_ms = jobs[1].time_plan().hard_ms
    assert hard_ms is not None and 0 < hard_ms <= 710 - 50 - reserves[1]


def test_a_position_that_adds_moves_to_the_last_plays_only_the_new_ones() -> None:
    played: list[str] = []

    def play(board: Board, move: str) -> None:
        played.append(move)
        board.push_text(move)

    loop = EngineLoop(first_move, name="Test", new_position=new_board, play=play)
    board = new_board()
    line = []
    for _ in range(6):
        move = str(board.legal_moves()[0])
        board.push_text(move)
        line.append(move)
    out = session(
        [
            f"position startpos moves {' '.join(line[:2])}",
            f"position startpos moves {' '.join(line[:4])}",  # the game goes on: two more moves
            f"position startpos moves {' '.join(line[:4])}",  # the same again: nothing to play
            f"position startpos moves {' '.join(line[:3])}",  # a move taken back: built anew
            f"position startpos moves {' '.join(line)}",
        ],
        loop,
    )
    assert out == []
    assert played == line[:2] + line[2:4] + line[:3] + line[3:]
    assert loop.position.fen() == board.fen()
