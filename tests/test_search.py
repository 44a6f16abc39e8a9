"""The search engine: evaluation, transposition table, time management, search and the
Engine facade, checked in-process against brute force, limits and a random opponent."""

from __future__ import annotations

import random
import threading
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dipole_engine.bench import DEFAULT_DEPTH, run_bench
from dipole_engine.engine import Engine
from dipole_engine.evaluate import evaluate, hooks_for
from dipole_engine.rules import (
    BLACK,
    PASS,
    WHITE,
    Board,
    DipoleMove,
    MoveKind,
    all_variants,
    new_board,
)
from dipole_engine.search import Searcher, SearchInfo, mate_moves
from dipole_engine.tt import (
    EXACT,
    LOWER,
    MATE,
    MATE_BOUND,
    UPPER,
    TranspositionTable,
    entries_for,
)
from protocol import Limit
from protocol.loop import SearchJob
from protocol.timeman import RESERVE_DECAY, Reserve, TimePlan, overrun, plan

pytestmark = pytest.mark.build  # the rules or the engine themselves: CI runs these on both builds

BENCH_NODES = 344024
"""`dipole-engine bench` at its default depth: changes exactly when the search's behaviour does."""


def playout_positions(variant: str, seed: int, games: int = 6) -> list[Board]:
    """Positions from random games that rarely throw checkers off the board."""
    rng = random.Random(seed)
    positions = []
    for _ in range(games):
        board = new_board(variant)
        while board.legal_moves():
            moves = board.legal_moves()
            stay = [m for m in moves if m.kind != MoveKind.EXIT or rng.random() < 0.05]
            board.push(rng.choice(stay or moves))
            positions.append(board.copy())
    return positions


def search(board: Board, **limits: int) -> tuple[object, list[SearchInfo], int]:
    infos: list[SearchInfo] = []
    result = Searcher(TranspositionTable(4)).search(board, Limit(**limits), on_info=infos.append)
    return result.best_move, infos, result.nodes


def wins_within(board: Board, plies: int) -> bool:
    """Brute force: can the side to move force a win within ``plies`` plies?"""
    if plies <= 0:
        return False
    mover = board.turn
    for move in board.legal_moves():
        board.push(move)
        winner = board.winner()
        if winner is not None:
            won = winner == mover
        else:
            won = plies >= 3 and all(_reply_loses(board, reply, mover, plies - 2) for reply in board.legal_moves())
        board.pop()
        if won:
            return True
    return False


def _reply_loses(board: Board, reply: object, mover: int, plies: int) -> bool:
    board.push(reply)
    winner = board.winner()
    lost = winner == mover if winner is not None else wins_within(board, plies)
    board.pop()
    return lost


# -- rules helper ------------------------------------------------------------------------------
@pytest.mark.parametrize("variant", ["dipole", "dipole-10s"])
def test_capture_moves_are_exactly_the_legal_captures(variant: str) -> None:
    for board in playout_positions(variant, seed=11):
        expected = [m for m in board.legal_moves() if m.kind == MoveKind.CAPTURE]
        got = board.capture_moves()
        assert sorted(map(id, got)) == sorted(map(id, expected)), board.fen()


@pytest.mark.parametrize("variant", ["dipole", "dipole-s", "dipole-10s"])
def test_quiet_and_capture_moves_are_every_legal_move_but_the_pass(variant: str) -> None:
    for board in playout_positions(variant, seed=12):
        legal = board.legal_moves()
        quiet = board.quiet_moves()
        assert quiet == [m for m in legal if m.kind not in (MoveKind.CAPTURE, MoveKind.PASS)], board.fen()
        assert len(quiet) + len(board.capture_moves()) == len(legal) - (legal == [PASS]), board.fen()


@pytest.mark.parametrize("variant", ["dipole", "dipole-10s"])
def test_is_legal_knows_every_move_of_the_tables_without_generating(variant: str) -> None:
    """Every move the board's tables hold (captures, exits, basics, merges of both sides, and
    the pass) is legal exactly when ``legal_moves`` lists it; made-up moves never are."""
    boards = playout_positions(variant, seed=13, games=3)
    every = {id(m): m for board in boards for m in board.legal_moves()}
    every.update({id(m): m for row in boards[0].capture_table for m in row if m is not None})
    every[id(PASS)] = PASS
    size = boards[0].geometry.size
    junk = [
        DipoleMove(MoveKind.BASIC, 0, size + 5, 1, "junk"),
        DipoleMove(MoveKind.CAPTURE, -3, 0, 1, "junk"),
        DipoleMove(MoveKind.EXIT, 0, 5, 1, "junk"),
        DipoleMove(MoveKind.MERGE, 0, 0, 0, "junk"),
    ]
    for board in boards[::3]:
        legal = {id(m) for m in board.legal_moves()}
        for move in every.values():
            assert board.is_legal(move) == (id(move) in legal), (board.fen(), str(move))
        assert not any(board.is_legal(move) for move in junk)


# -- evaluation --------------------------------------------------------------------------------
def rotated(board: Board) -> Board:
    """The same position with the colours swapped and the board turned half round."""
    geom = board.geometry
    stacks = []
    for sq, height in enumerate(board.cells):
        if height:
            file, rank = geom.width - 1 - geom.file_of(sq), geom.height - 1 - geom.rank_of(sq)
            stacks.append((geom.name(geom.square(file, rank)), -height))
    whites = ",".join(f"{h}{name}" for name, h in stacks if h > 0)
    blacks = ",".join(f"{-h}{name}" for name, h in stacks if h < 0)
    turn = "B" if board.turn == WHITE else "W"
    return new_board(board.variant.name, f"{turn}:W{whites}:B{blacks}")


@pytest.mark.parametrize("variant", ["dipole-s", "dipole-10", "impasse", "impasse-singles"])
def test_evaluation_is_colour_symmetric_and_bounded(variant: str) -> None:
    for board in playout_positions(variant, seed=5, games=3):
        if board.winner() is None:
            score = evaluate(board)
            assert abs(score) < MATE_BOUND
            assert evaluate(rotated(board)) == score, board.fen()


def test_evaluation_knows_material_advancement_and_threats() -> None:
    # An extra checker is worth about a checker.
    assert evaluate(new_board("dipole", "W:W1a1,1c1:B1h8")) - evaluate(new_board("dipole", "W:W1a1:B1h8")) >= 80
    # The same checker further back is worth more (it has more moves and capture reach left).
    assert evaluate(new_board("dipole", "W:W1a1:B1h8")) > evaluate(new_board("dipole", "W:W1a7:B1h8"))
    # A stack that the enemy can capture next move costs us; less when we could recapture.
    safe = evaluate(new_board("dipole", "W:W2c3,4g3:B1h8,3h6"))
    hanging = evaluate(new_board("dipole", "W:W2c3,4h2:B1h8,3f6"))  # f6xc3 (3 squares, 3 checkers)
    defended = evaluate(new_board("dipole", "W:W2c3,4g3:B1h8,3f6"))  # then g3xc3 retakes
    assert hanging + 50 < defended <= safe


def test_hooks_order_captures_by_victim_and_list_them_for_quiescence() -> None:
    board = new_board("dipole", "W:W3d4:B1b2,3a7,2f2")
    hooks = hooks_for(board)
    _, tactical = hooks.quiesce()
    assert [str(move) for _, move in tactical] == ["d4xa7", "d4xf2", "d4xb2"]
    assert [str(move) for move in hooks.tactical_moves()] == ["d4xa7", "d4xf2", "d4xb2"]
    assert {str(move) for move in hooks.quiet_moves()} == {
        str(move) for move in board.legal_moves() if move.kind != MoveKind.CAPTURE
    }
    # A capture that can be retaken for more than it wins is not worth a quiescence ply.
    _, tactical = hooks_for(new_board("dipole", "W:W3d4:B1b2,4b4")).quiesce()
    assert not tactical


def impasse_score(fen: str) -> int:
    return evaluate(new_board("impasse", fen))


def test_impasse_evaluation_knows_the_race() -> None:
    # Impasse is won by getting rid of your own checkers: one fewer is worth about a checker.
    assert impasse_score("W:W1c3:B1d6,1f6") - impasse_score("W:W1c3,1e3:B1d6,1f6") >= 80
    # Before the endgame, a single nearer its furthest row, a double nearer its nearest row,
    # have less work left.
    assert impasse_score("W:W1c5,1a1,1e1,1g1,1h2:B1f6,1h8,1f8,1d8,1b8") > impasse_score(
        "W:W1c3,1a1,1e1,1g1,1h2:B1f6,1h8,1f8,1d8,1b8"
    )
    # In the endgame what counts is the slides: c3 is one from the top row (the long diagonal),
    # e3 two (both its diagonals meet a side edge first); d4 one from the bottom row, d6 two.
    assert impasse_score("W:W1c3:B1a7") > impasse_score("W:W1e3:B1a7")
    assert impasse_score("W:W2d4:B1f6") > impasse_score("W:W2d6:B1f6")
    # Black's lone single on c3 walled in by White's doubles: Black must remove it next turn,
    # which is good for Black (the same doubles elsewhere leave it a clear path instead).
    assert impasse_score("W:W2b2,2d2:B1c3") + 30 < impasse_score("W:W2f2,2h2:B1c3")


def test_impasse_tactical_moves_take_checkers_off() -> None:
    # Bear-offs are tactical; a quiet position has none.
    board = new_board("impasse", "W:W2b2,1e3:B1h8")
    _, tactical = hooks_for(board).quiesce()
    assert sorted(str(move) for _, move in tactical) == ["b2-a1", "b2-c1"] and all(gain > 0 for gain, _ in tactical)
    assert not hooks_for(new_board("impasse")).quiesce()[1]
    # At an impasse every move is a removal, and all of them are tactical.
    board = new_board("impasse", "W:W1b8,2d8:B1c7,1e7")
    _, tactical = hooks_for(board).quiesce()
    assert {str(move) for _, move in tactical} == {"xb8", "xd8=b8", "xd8=d8"}
    for board in playout_positions("impasse", seed=9, games=2)[::5]:
        moves = board.legal_moves()
        hooks = hooks_for(board)
        ordered = hooks.tactical_moves()
        gains = {id(move): gain for gain, move in hooks.quiesce()[1]}  # when quiescence lists them
        assert {id(move) for move in ordered} == {id(move) for move in moves if board.takes_checkers_off(move)}
        listed = [gains[id(move)] for move in ordered if id(move) in gains]
        assert listed == sorted(listed, reverse=True)  # biggest gain first
        assert [id(move) for move in hooks.quiet_moves()] == [
            id(move) for move in moves if not board.takes_checkers_off(move)
        ]
        assert all(hooks.is_legal(move) for move in moves)
        _, tactical = hooks_for(board).quiesce()
        assert {id(move) for _, move in tactical} == {id(move) for move in moves if board.takes_checkers_off(move)}


def test_moves_are_the_same_objects_each_time_they_are_generated() -> None:
    # The search knows its table, killer and history moves by identity, in both games.
    for variant in ("dipole", "impasse", "impasse-singles"):
        for board in playout_positions(variant, seed=2, games=1)[::4]:
            assert [id(move) for move in board.legal_moves()] == [id(move) for move in board.legal_moves()]


# -- transposition table -----------------------------------------------------------------------
def test_tt_store_probe_and_replacement() -> None:
    tt = TranspositionTable(1)
    assert tt.size == entries_for(1) and tt.size & (tt.size - 1) == 0
    move = object()
    key = 0x1234_5678_9ABC_DEF0
    assert tt.probe(key) is None
    tt.store(key, 5, 42, EXACT, move, ply=3)
    assert tt.probe(key) == (key, 5, 42, EXACT, move, tt.generation)
    tt.store(key, 3, 10, LOWER, None, ply=3)  # shallower, not exact: the deeper entry stays
    assert tt.probe(key)[1:4] == (5, 42, EXACT)
    tt.store(key, 7, -7, UPPER, None, ply=3)  # deeper: replaces, keeps the known move
    assert tt.probe(key)[1:5] == (7, -7, UPPER, move)
    other = key + tt.size  # same slot, another position: always replaces, never answers for key
    tt.store(other, 1, 0, EXACT, None, ply=0)
    assert tt.probe(key) is None and tt.probe(other) is not None
    tt.clear()
    assert tt.probe(other) is None


def test_tt_mate_scores_are_stored_relative_to_the_node() -> None:
    tt = TranspositionTable(1)
    # Found 3 plies deep: a win 5 plies from the root is 2 plies from this node.
    tt.store(1, 4, MATE - 5, EXACT, None, ply=3)
    assert tt.probe(1)[2] == MATE - 2
    # Met again 1 ply from the root, the same win is 3 plies away.
    from dipole_engine.tt import score_from_tt

    assert score_from_tt(tt.probe(1)[2], 1) == MATE - 3
    tt.store(2, 4, -(MATE - 6), EXACT, None, ply=2)
    assert score_from_tt(tt.probe(2)[2], 4) == -(MATE - 8)
    tt.store(3, 4, 150, EXACT, None, ply=9)  # ordinary scores are stored as they are
    assert tt.probe(3)[2] == 150


def test_tt_hashfull_counts_the_current_search() -> None:
    tt = TranspositionTable(1)
    tt.new_search()
    for key in range(500):
        tt.store(key, 1, 0, EXACT, None, ply=0)
    assert tt.hashfull() == 500
    tt.new_search()
    assert tt.hashfull() == 0


# -- time management ---------------------------------------------------------------------------
@settings(max_examples=300, deadline=None)
@given(
    time_left=st.integers(0, 10_000_000),
    inc=st.integers(0, 60_000),
    mtg=st.none() | st.integers(0, 100),
    overhead=st.integers(0, 1000),
    reserve=st.floats(0, 2000),
    white=st.booleans(),
)
def test_timeman_never_plans_beyond_the_clock(
    time_left: int, inc: int, mtg: int | None, overhead: int, reserve: float, white: bool
) -> None:
    limits = Limit(wtime=time_left, btime=time_left, winc=inc, binc=inc, movestogo=mtg)
    budget = plan(limits, white, overhead, reserve)
    keep_back = overhead + reserve
    assert budget.soft_ms is not None and budget.hard_ms is not None
    assert 0 <= budget.soft_ms <= budget.hard_ms
    assert budget.hard_ms <= max(0, time_left - keep_back)
    if time_left > keep_back + 1000 and (mtg is None or mtg > 1):
        assert budget.hard_ms <= 0.8 * (time_left - keep_back)


def test_the_reserve_grows_with_an_overrun_and_decays_without() -> None:
    # A move planned to stop by 40 ms that the host charged 70 ms for overran by 30 ms; one
    # that stopped by itself after 12 ms and was charged 13 overran by 1 ms.
    assert overrun(took_ms=45, hard_ms=40, charged_ms=70) == 30
    assert overrun(took_ms=12, hard_ms=40, charged_ms=13) == 1
    assert overrun(took_ms=45, hard_ms=40) == 5  # no clock to tell: the engine's own lateness
    reserve = Reserve()
    reserve.observe(30)
    assert reserve.ms == 60
    reserve.observe(-5)
    reserve.observe(1)
    assert reserve.ms == 60 * RESERVE_DECAY * RESERVE_DECAY
    reserve.observe(10_000)  # a host's odd clock cannot make it keep everything back
    assert reserve.ms == 2000


def test_timeman_budgets() -> None:
    # movetime is the full time but for the answer's way, whatever MoveOverhead: that is for clocks.
    assert plan(Limit(movetime=500), True, 30) == TimePlan(498, 498)
    assert plan(Limit(movetime=10), True, 30) == TimePlan(9.5, 9.5)
    assert plan(Limit(movetime=10), True, 30).fixed
    assert plan(Limit(movetime=0), True, 30) == TimePlan(0, 0)
    assert not plan(Limit(depth=5), True, 30).timed
    assert not plan(Limit(infinite=True, wtime=1000), True, 30).timed
    # Each side's own clock: White has a minute, Black a second.
    white = plan(Limit(wtime=60_000, btime=1000), True, 0)
    black = plan(Limit(wtime=60_000, btime=1000), False, 0)
    assert white.soft_ms > 1000 > black.hard_ms
    # A minute, sudden death: about 2 s a move; the increment adds most of itself.
    base = plan(Limit(wtime=60_000), True, 0)
    assert 1000 < base.soft_ms < 4000 < base.hard_ms <= 48_000
    assert plan(Limit(wtime=60_000, winc=1000), True, 0).soft_ms >= base.soft_ms + 700
    # A reserve of 400 ms (moves seen to cost 200 ms beyond their plan): the increment counts
    # 200 ms less, besides the 400 ms kept back.
    busy = plan(Limit(wtime=60_000, winc=1000), True, 0, reserve_ms=400)
    assert busy == plan(Limit(wtime=59_600, winc=800), True, 0)
    # movestogo 1: most of what is left; movetime and clock together: the tighter wins.
    assert 5000 < plan(Limit(wtime=10_000, movestogo=1), True, 0).soft_ms < 9000
    assert plan(Limit(wtime=60_000, movetime=100), True, 0).hard_ms == 98


# -- search ------------------------------------------------------------------------------------
def test_finds_mate_in_one() -> None:
    board = new_board("dipole", "W:W2d4,3e1:B2b2")  # d4xb2 takes Black's last checkers
    assert wins_within(board, 1)
    move, infos, _ = search(board, depth=4)
    board.push(move)
    assert board.winner() == WHITE
    assert infos[-1].score_mate == 1 and infos[-1].score_cp is None


@pytest.mark.parametrize("fen", ["W:W3b4,4e3:B1e1,2c5,1a5", "W:W3f6,2g3:B1e1,1c1,1c3"])
def test_finds_mate_in_two(fen: str) -> None:
    board = new_board("dipole", fen)
    assert not wins_within(board, 1) and wins_within(board, 3)
    move, infos, _ = search(board, depth=5)
    assert infos[-1].score_mate == 2
    board.push(move)
    # Whatever Black answers, White wins at once.
    for reply in board.legal_moves():
        board.push(reply)
        assert board.winner() is None and wins_within(board, 1), f"{move} {reply}"
        board.pop()


def test_being_mated_is_a_negative_mate_score() -> None:
    # White's only move takes its last checker off the board.
    _, infos, _ = search(new_board("dipole", "W:W1b8:B1a1"), depth=3)
    assert infos[-1].score_mate == -1
    assert mate_moves(MATE - 1) == 1 and mate_moves(MATE - 4) == 2 and mate_moves(-(MATE - 2)) == -1
    assert mate_moves(0) is None


def test_never_returns_an_illegal_move_and_passes_when_forced() -> None:
    positions = playout_positions("dipole", seed=3, games=2) + playout_positions("dipole-10s", seed=4, games=1)
    for board in positions[::3]:
        legal = board.legal_moves()
        move, _, _ = search(board, depth=2)
        assert (move is None) if not legal else any(move is m for m in legal), board.fen()
    move, _, _ = search(new_board("dipole", "W:W1d4:B2c5,2e5"), depth=3)
    assert str(move) == "pass"


def test_respects_depth_and_node_limits() -> None:
    board = new_board("dipole-s", "W:W2e1,5g3,3b4,2c7:B2f2,5d6,2f6,3d8")
    _, infos, _ = search(board, depth=4)
    assert [info.depth for info in infos] == [1, 2, 3, 4]
    assert all(info.pv and info.nodes > 0 and info.seldepth >= info.depth for info in infos)
    for info in infos:  # each principal variation is a legal line of play
        line = board.copy()
        for text in info.pv:
            line.push_text(text)
    depth_1_nodes = infos[0].nodes
    for limit in (1, 50, 777, 5000):
        move, infos, nodes = search(board, nodes=limit)
        # Depth 1 is always completed; past it, the limit holds.
        assert infos[0].depth == 1 and nodes <= max(limit, depth_1_nodes)
        assert all(info.nodes <= limit for info in infos[1:])
        assert move in board.legal_moves()


def test_a_node_limit_still_plays_the_depth_1_move() -> None:
    # A colleague saw c1-off:3 (three checkers thrown off) here when nothing completed.
    board = new_board("dipole")
    limits = Limit(nodes=1)
    result = Searcher(TranspositionTable(4)).search(board, limits, plan(limits, True, 30))
    assert result.depth == 1 and len(result.infos) == 1
    assert result.best_move is search(board, depth=1)[0]
    assert result.best_move.kind != MoveKind.EXIT


@pytest.mark.parametrize("limits", [Limit(movetime=0), Limit(wtime=20, btime=20)], ids=["movetime 0", "wtime 20"])
def test_no_time_left_plays_the_best_move_one_ply_on_without_searching(limits: Limit) -> None:
    # The deadline (0: nothing left beyond MoveOverhead) holds from the first node, depth 1 too.
    board = new_board("dipole", "W:W5c3,2f6,1h6,2h8:B1c5,4b6,5d8")
    result = Searcher(TranspositionTable(4)).search(board, limits, plan(limits, True, 30))
    assert result.depth == 0 and not result.infos and result.nodes <= 1
    best = max(one_ply_score(board, move) for move in board.legal_moves())
    assert one_ply_score(board, result.best_move) == best
    assert result.best_move.kind != MoveKind.EXIT


def one_ply_score(board: Board, move: object) -> int:
    """The mover's static score after ``move`` (a won or lost game counts as +-MATE)."""
    board.push(move)
    winner = board.winner()
    score = -evaluate(board) if winner is None else (MATE if winner != board.turn else -MATE)
    board.pop()
    return score


def test_stop_before_depth_1_plays_the_best_move_one_ply_on() -> None:
    for board in [new_board("dipole"), *playout_positions("dipole-s", seed=8, games=1)[::7]]:
        if board.winner() is not None:
            continue
        searcher = Searcher(TranspositionTable(4))
        searcher.stop()  # stopped before it starts: nothing is searched
        result = searcher.search(board, Limit(depth=5))
        assert result.depth == 0 and not result.infos
        best = max(one_ply_score(board, move) for move in board.legal_moves())
        assert one_ply_score(board, result.best_move) == best, board.fen()


@pytest.mark.parametrize(
    ("variant", "fen"),
    [
        ("dipole-10", "W:W7g1,1d4,2c5,3e5,6f8:B1d2,1e3,1f4,4c7,12f10"),
        ("impasse", "W:W2h2,2c3,2g7,2b8,2f8:B2e1,2g1,1b2,2e5,2e7,1d8"),
    ],
)
def test_search_is_deterministic_and_leaves_the_board_alone(variant: str, fen: str) -> None:
    board = new_board(variant, fen)
    before = board.fen()
    runs = [search(board, depth=5) for _ in range(2)]
    assert board.fen() == before and not board.move_stack
    assert [(i.depth, i.nodes, i.score_cp, i.pv) for i in runs[0][1]] == [
        (i.depth, i.nodes, i.score_cp, i.pv) for i in runs[1][1]
    ]


@pytest.mark.slow
def test_bench_node_count_is_pinned() -> None:
    lines: list[str] = []
    result = run_bench(DEFAULT_DEPTH, out=lines.append)
    assert result.nodes == BENCH_NODES
    assert f"Nodes searched: {BENCH_NODES}" in lines
    assert any(line.startswith("Nodes/second: ") for line in lines)


@pytest.mark.parametrize("variant", [v.name for v in all_variants()])
def test_beats_a_random_mover_with_both_colours(variant: str) -> None:
    # 5 games with each colour per variant, seeded random mover.  In Impasse the goal is the
    # opposite of Dipole's: an evaluation that got it backwards would lose these games.
    for color in (WHITE, BLACK):
        for game in range(5):
            rng = random.Random(f"{variant}-{color}-{game}")
            board = new_board(variant)
            tt = TranspositionTable(2)
            while board.winner() is None:
                if board.turn == color:
                    move = Searcher(tt).search(board, Limit(depth=2)).best_move
                else:
                    move = rng.choice(board.legal_moves())
                board.push(move)
            assert board.winner() == color, f"lost as {color} in game {game}: {board.fen()}"


# -- the engine, as protocol.loop's search callback -------------------------------------------------
def job(board: Board, limit: Limit) -> SearchJob[Board]:
    return SearchJob(board, limit, board.variant.name, {"MoveOverhead": 30}, time.monotonic(), board.turn == WHITE)


def test_engine_answers_none_when_the_game_is_over_and_defers_hash_and_new_game_past_a_search() -> None:
    engine = Engine(hash_mb=4)
    assert engine.search(job(new_board("dipole", "B:W1c3:B"), Limit(depth=3))) is None
    running = job(new_board("dipole"), Limit(infinite=True))
    thread = threading.Thread(target=engine.search, args=(running,))
    thread.start()
    time.sleep(0.2)
    engine.set_option("Hash", 8)  # the search holds the table: deferred until it ends
    engine.new_game()
    assert engine._tt.size == entries_for(4)
    running._request_stop()  # what the loop does on stop: the searcher's own flag is raised
    thread.join(5)
    assert not thread.is_alive() and engine._tt.size == entries_for(8)
    assert engine.search(job(new_board(), Limit(depth=2))) in {str(m) for m in new_board().legal_moves()}
    assert any(entry is not None for entry in engine._tt.table)
    engine.new_game()
    assert not any(entry is not None for entry in engine._tt.table)
    with pytest.raises(ValueError):
        engine.set_hash(0)


@pytest.mark.parametrize("variant", ["dipole", "dipole-10s", "impasse", "impasse-singles"])
def test_quiesce_below_beta_lists_the_same_moves_and_above_it_none(variant: str) -> None:
    """``quiesce(alpha, beta)`` works the tactical moves out only when the search will not
    stand pat (score below beta).  Its score is exact inside the window; at or below alpha it
    is from the exact score up to alpha, at or above beta from beta up to the exact score (what
    cannot change the stand-pat decision may be left out)."""
    listed = 0
    lazy_low = lazy_high = 0
    for board in playout_positions(variant, seed=5):
        hooks = hooks_for(board)
        score, tactical = hooks.quiesce()
        listed += len(tactical)
        assert hooks.evaluate() == score
        assert hooks.quiesce(-MATE, MATE) == (score, tactical)
        assert hooks.quiesce(score - 1, score + 1) == (score, tactical)
        for offset in (-500, -100, -1, 0, 1, 100, 500):
            alpha = score + offset
            for beta in (alpha + 1, alpha + 50):
                bound, moves = hooks.quiesce(alpha, beta)
                if score >= beta:
                    assert beta <= bound <= score and not moves, (board.fen(), alpha, beta)
                    lazy_high += bound != score
                elif score > alpha:
                    assert (bound, moves) == (score, tactical), (board.fen(), alpha, beta)
                else:
                    assert score <= bound <= alpha and moves == tactical, (board.fen(), alpha, beta)
                    lazy_low += bound != score
    assert listed > 0
    if variant.startswith("dipole"):  # threats were left out both ways somewhere
        assert lazy_low > 0 and lazy_high > 0
