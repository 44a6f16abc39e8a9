"""The real ``dipole-engine`` process and the protocol's analysis and pondering features
(SPEC.md 4.6, 4.12, 7): ``MultiPV``, ``go searchmoves``, ``go mate``, ``go ponder`` /
``ponderhit`` / ``stop``, ``bestmove ... ponder``, a move answered at once when the clock has
no time left, and one error line for each of them given out of range or out of order."""

from __future__ import annotations

import time

import pytest
from test_engine_protocol import EngineProcess, engine, error_after  # noqa: F401  (engine: a fixture)

from dipole_engine.rules import new_board
from protocol import BestMove, Info, OptionSpec, parse_response

pytestmark = pytest.mark.build  # the rules or the engine themselves: CI runs these on both builds

MIDGAME = "W:W5c3,2f6,1h6,2h8:B1c5,4b6,5d8"
"""A Dipole middlegame (a bench position) with many legal moves."""
MATE_IN_2 = "W:W3b4,4e3:B1e1,2c5,1a5"
"""White wins in two moves, not in one (tests/test_search.py proves it from the rules)."""


def legal(fen: str) -> set[str]:
    return {str(move) for move in new_board("dipole", fen).legal_moves()}


def infos_and_best(lines: list[str]) -> tuple[list[Info], BestMove]:
    responses = [parse_response(line) for line in lines]
    infos, best = responses[:-1], responses[-1]
    assert all(isinstance(info, Info) and info.error is None for info in infos), lines
    assert isinstance(best, BestMove), lines
    return infos, best  # type: ignore[return-value]


def test_handshake_offers_multipv_and_ponder(engine: EngineProcess) -> None:
    engine.send("uci")
    options = {r.name: r for r in map(parse_response, engine.until("uciok")) if isinstance(r, OptionSpec)}
    assert options["MultiPV"] == OptionSpec("MultiPV", "spin", 1, 1, 16)
    assert options["Ponder"] == OptionSpec("Ponder", "check", False)


def test_multipv_reports_the_best_lines_each_iteration(engine: EngineProcess) -> None:
    engine.send("setoption name MultiPV value 3")
    engine.send(f"position fen {MIDGAME}")
    engine.send("go depth 4")
    infos, best = infos_and_best(engine.until("bestmove"))
    assert [(info.depth, info.multipv) for info in infos] == [(d, k) for d in range(1, 5) for k in (1, 2, 3)]
    for depth in range(1, 5):
        lines = [info for info in infos if info.depth == depth]
        firsts = [info.pv[0] for info in lines]
        assert len(set(firsts)) == 3 and set(firsts) <= legal(MIDGAME)
        scores = [info.score_cp for info in lines]
        assert all(score is not None for score in scores) and scores == sorted(scores, reverse=True)  # type: ignore[type-var]
    assert best.move == infos[-3].pv[0]
    # Line 1 is what the single-line search finds.
    engine.send("setoption name MultiPV value 1")
    engine.send("ucinewgame")
    engine.send(f"position fen {MIDGAME}")
    engine.send("go depth 4")
    single, single_best = infos_and_best(engine.until("bestmove"))
    assert all(info.multipv is None for info in single)
    assert single[-1].score_cp == infos[-3].score_cp and single_best.move == best.move


def test_multipv_above_the_legal_moves_reports_each_move_once(engine: EngineProcess) -> None:
    fen = "W:W2d4,1b8:B1d6"  # White has few moves
    engine.send("setoption name MultiPV value 16")
    engine.send(f"position fen {fen}")
    engine.send("go depth 2")
    infos, _ = infos_and_best(engine.until("bestmove"))
    last = [info for info in infos if info.depth == infos[-1].depth]
    assert sorted(info.pv[0] for info in last) == sorted(legal(fen))


def test_searchmoves_searches_only_those_root_moves(engine: EngineProcess) -> None:
    engine.send("position fen W:W2d4:B1d6")  # d4xd6 wins at once; the search is told not to look
    allowed = sorted(legal("W:W2d4:B1d6") - {"d4xd6"})[:2]
    engine.send(f"go depth 3 searchmoves {' '.join(allowed)}")
    infos, best = infos_and_best(engine.until("bestmove"))
    assert best.move in allowed and infos and all(info.pv[0] in allowed for info in infos)
    engine.send("setoption name MultiPV value 4")
    engine.send(f"go depth 2 searchmoves {' '.join(allowed)}")
    infos, best = infos_and_best(engine.until("bestmove"))
    assert {info.multipv for info in infos} == {1, 2} and best.move in allowed


def test_go_mate_finds_the_mate_and_stops(engine: EngineProcess) -> None:
    engine.send(f"position fen {MATE_IN_2}")
    engine.send("go mate 2")
    infos, best = infos_and_best(engine.until("bestmove", timeout=60))
    assert infos[-1].score_mate == 2 and best.move == infos[-1].pv[0]
    # No mate in 1 there: the search ends at its depth cap, without claiming one.
    engine.send("go mate 1")
    infos, best = infos_and_best(engine.until("bestmove", timeout=60))
    assert best.move in legal(MATE_IN_2) and infos[-1].depth <= 3
    assert all(info.score_mate is None or info.score_mate > 1 for info in infos)


def test_ponder_is_untimed_until_ponderhit_then_on_the_clock(engine: EngineProcess) -> None:
    engine.send("setoption name Ponder value true")
    engine.send(f"position fen {MIDGAME}")
    engine.send("go ponder movetime 300")  # without ponder: a bestmove within 300 ms
    before = engine.lines_for(2.0)
    assert before and not any(line.startswith("bestmove") for line in before)
    hit = time.monotonic()
    engine.send("ponderhit")
    after = engine.until("bestmove", timeout=20)
    elapsed = time.monotonic() - hit
    assert elapsed < 5, f"answered {elapsed:.1f} s after ponderhit, movetime 300"
    infos, best = infos_and_best(before + after)
    # The same search went on: its iterations keep deepening across the ponderhit.
    depths = [info.depth for info in infos]
    assert depths == sorted(depths) and depths[0] == 1 and depths.count(1) == 1
    pv = infos[-1].pv
    assert best.move == pv[0] and len(pv) >= 2 and best.ponder == pv[1]
    # Ponder off: no ponder move.
    engine.send("setoption name Ponder value false")
    _, move = engine.search("go depth 3")
    assert engine.lines[-1] == f"bestmove {move}"


def test_a_ponderhit_after_pondering_past_the_target_is_answered_at_once(engine: EngineProcess) -> None:
    """The pondering thought about this move: its time counts toward the move's target (at
    60 s on the clock about 2 s), so after 4 s of it a ponderhit is answered at once with the
    last complete iteration, not after the iteration begun without a limit (which used to run
    on at every move to the deadline, five times the target, and lost games on time).

    On a busy machine the engine's answer to any command during a search waits for its threads
    to be scheduled: that wait, measured by an ``isready`` just before, is not held against it."""
    engine.send("setoption name Ponder value true")
    engine.send(f"position fen {MIDGAME}")
    engine.send("go ponder wtime 60000 btime 60000")
    before = engine.lines_for(4.0)
    asked = time.monotonic()
    engine.send("isready")
    before += [line for line in engine.until("readyok", timeout=20) if line != "readyok"]
    scheduling = time.monotonic() - asked
    assert not any(line.startswith("bestmove") for line in before)
    hit = time.monotonic()
    engine.send("ponderhit")
    after = engine.until("bestmove", timeout=20)
    elapsed = time.monotonic() - hit
    assert elapsed - scheduling < 0.8, (
        f"answered {elapsed:.2f} s after ponderhit, isready {scheduling:.2f} s (at least 1.2 s before the fix)"
    )
    _, best = infos_and_best(before + after)
    assert best.move in legal(MIDGAME)


def test_stop_ends_a_ponder_search(engine: EngineProcess) -> None:
    engine.send(f"position fen {MIDGAME}")
    engine.send("go ponder wtime 60000 btime 60000")
    assert not any(line.startswith("bestmove") for line in engine.lines_for(1.0))
    engine.send("stop")
    _, best = infos_and_best(engine.until("bestmove", timeout=10))
    assert best.move in legal(MIDGAME) and best.ponder is None  # Ponder is off by default
    engine.ready()


def test_a_ponder_search_that_ends_early_holds_its_bestmove_until_ponderhit(engine: EngineProcess) -> None:
    engine.send("position fen W:W2d4:B1d6")
    engine.send("go ponder depth 2")
    assert not any(line.startswith("bestmove") for line in engine.lines_for(1.0))
    engine.send("ponderhit")
    _, best = infos_and_best(engine.until("bestmove", timeout=10))
    assert best.move == "d4xd6"


def test_a_flagged_clock_is_answered_at_once_without_searching_past_it(engine: EngineProcess) -> None:
    engine.send(f"position fen {MIDGAME}")
    engine.ready()
    started = time.monotonic()
    engine.send("go wtime 5 btime 5")  # 5 ms left, less than MoveOverhead: no time to search
    lines = engine.until("bestmove", timeout=20)
    elapsed = time.monotonic() - started
    infos, best = infos_and_best(lines)
    assert elapsed < 2, f"{elapsed:.2f} s with 5 ms on the clock"
    assert best.move in legal(MIDGAME) and "-off" not in best.move
    # Past the deadline from the first node: no iteration, not even depth 1, was completed.
    assert infos == []


@pytest.mark.parametrize(
    ("command", "reason"),
    [
        ("ponderhit", "ponderhit: no ponder search is running"),
        ("setoption name MultiPV value 0", "setoption MultiPV: must be at least 1, found 0"),
        ("setoption name MultiPV value 17", "setoption MultiPV: must be at most 16"),
        ("setoption name Ponder value maybe", "setoption Ponder: expected true or false"),
        ("go searchmoves d4-d9", "go searchmoves: move 1 of 1, 'd4-d9'"),
        ("go searchmoves d4xd6 h1-h3", "go searchmoves: move 2 of 2, 'h1-h3'"),
        ("go searchmoves hello", "'hello' is not a Dipole move"),
        ("go depth 2 searchmoves", "'searchmoves' needs at least one move"),
        ("go mate -1", "go mate: must be at least 1, found -1"),
        ("go mate x", "go mate: expected an integer, found 'x'"),
        ("go mate 0", "go mate: must be at least 1, found 0"),
        ("go ponder ponder", "'ponder' is given twice"),
    ],
)
def test_bad_feature_input_gets_one_error_line_and_the_engine_goes_on(
    engine: EngineProcess, command: str, reason: str
) -> None:
    engine.send("position fen W:W2d4:B1d6")
    assert reason in error_after(engine, command)
    _, best = engine.search("go depth 2")
    assert best == "d4xd6"


def test_ponderhit_during_an_ordinary_search_is_refused_and_it_goes_on(engine: EngineProcess) -> None:
    engine.send(f"position fen {MIDGAME}")
    engine.send("go infinite")
    engine.send("ponderhit")
    lines = engine.until("info string error")
    assert "ponderhit: no ponder search is running" in lines[-1]
    assert not any(line.startswith("bestmove") for line in engine.lines_for(0.5))
    engine.send("stop")
    _, best = infos_and_best([line for line in engine.until("bestmove") if not line.startswith("info string")])
    assert best.move in legal(MIDGAME)
    engine.ready()


@pytest.mark.parametrize("variant,fen", [("dipole", MIDGAME), ("impasse", None)])
def test_a_cut_iteration_reports_the_line_of_the_move_it_plays(
    engine: EngineProcess, variant: str, fen: str | None
) -> None:
    # A search cut short mid-iteration plays the root move that iteration already preferred;
    # its line is reported first, so the bestmove is always the last pv's first move (what a GUI
    # shows as the engine's line, and where `bestmove ... ponder` comes from).  Node limits are
    # deterministic: this range holds cuts right after a new best root move in both games.
    engine.send(f"setoption name UCI_Variant value {variant}")
    for nodes in range(100, 6000, 97):
        engine.send("ucinewgame")
        engine.send(f"position fen {fen}" if fen else "position startpos")
        infos, move = engine.search(f"go nodes {nodes}")
        lines = [info.pv for info in infos if info.pv]
        assert lines and lines[-1][0] == move, (nodes, move, lines[-1:])
