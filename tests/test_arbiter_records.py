"""Game records: the PGN writer and reader, replay checking, and the match statistics."""

from __future__ import annotations

import copy
import math
import os
import pickle
import random
import threading
import time
from collections.abc import Callable
from dataclasses import FrozenInstanceError, replace
from pathlib import Path

import pytest

from arbiter.errors import ArbiterError
from arbiter.play.referee import engine_move_record
from arbiter.play.replay import check_game, check_games
from arbiter.records.game import GameRecord, MoveRecord, MoveSource, Termination
from arbiter.records.pgn import (
    PgnGame,
    PgnSyntaxError,
    PgnWriter,
    format_game,
    read_pgn,
    read_pgn_file,
)
from arbiter.stats.tallies import (
    MatchStats,
    elo_estimate,
    elo_from_score,
    likelihood_of_superiority,
)
from dipole_engine.rules import WHITE, new_board
from protocol import Info, SearchResult


def random_game(seed: int, variant: str = "dipole", fen: str | None = None) -> GameRecord:
    """A whole game of random legal moves, recorded as the arbiter records one."""
    rng = random.Random(seed)
    board = new_board(variant, fen)
    moves = []
    while not board.is_game_over():
        legal = board.legal_moves()
        move = rng.choice(legal)
        board.push(move)
        if str(move) == "pass":
            moves.append(MoveRecord("pass", MoveSource.FORCED))
        elif len(moves) < 2:
            moves.append(MoveRecord(str(move), MoveSource.BOOK))
        else:
            moves.append(
                MoveRecord(
                    str(move),
                    score_cp=rng.randint(-900, 900),
                    depth=rng.randint(1, 9),
                    time=rng.randint(0, 5000) / 1000,
                )
            )
    winner = board.winner()
    return GameRecord(
        number=seed,
        white="alpha",
        black="beta",
        variant=variant,
        fen=fen,
        moves=tuple(moves),
        result="1-0" if winner == WHITE else "0-1",
        termination=Termination.NORMAL,
        reason="Black has no checkers left" if winner == WHITE else "White has no checkers left",
        white_tc="10+0.1",
        black_tc="10+0.1",
        opening="test",
        event="unit test",
        date="2026.01.02",
    )


def test_pgn_layout() -> None:
    record = GameRecord(
        number=3,
        white="alpha",
        black='be"ta',
        variant="dipole",
        fen="B:W3e1,1g5:B2d6,1h8",
        moves=(
            MoveRecord("d6xe5", MoveSource.BOOK),
            MoveRecord("e1-e3", score_cp=35, depth=7, time=0.52),
            MoveRecord("h8-g7", score_mate=-3, depth=9, time=1.0),
            MoveRecord("e3+e5", time=0.004),
        ),
        result="1-0",
        termination=Termination.TIME_FORFEIT,
        reason="Black loses on time",
        white_tc="40/60",
        black_tc="0.5/move",
        event="e",
        date="2026.01.02",
    )
    assert format_game(record) == (
        '[Event "e"]\n[Site "?"]\n[Date "2026.01.02"]\n[Round "3"]\n[White "alpha"]\n'
        '[Black "be\\"ta"]\n[Result "1-0"]\n[Variant "dipole"]\n[SetUp "1"]\n'
        '[FEN "B:W3e1,1g5:B2d6,1h8"]\n[WhiteTimeControl "40/60"]\n[BlackTimeControl "0.5/move"]\n'
        '[Termination "time forfeit"]\n[PlyCount "4"]\n'
        "\n"
        "1... d6xe5 {book} 2. e1-e3 {+0.35/7 0.520s} h8-g7 {-M3/9 1.000s} 3. e3+e5\n"
        "{0.004s} {Black loses on time} 1-0\n\n"
    )


ENGINE = MoveSource.ENGINE


@pytest.mark.parametrize(
    "move",
    [
        MoveRecord("e1-e3", ENGINE, time=0.0005),
        MoveRecord("e1-e3", ENGINE, time=12.3456),
        MoveRecord("e1-e3", ENGINE),
        MoveRecord("e1-e3", ENGINE, depth=4, time=1.5),
        MoveRecord("e1-e3", ENGINE, score_cp=-7, time=0.25),
        MoveRecord("e1-e3", ENGINE, score_cp=0),
        MoveRecord("e1-e3", ENGINE, score_mate=2, depth=3, time=0.1),
        MoveRecord("e1-e3", MoveSource.BOOK, time=0.1),
        MoveRecord("pass", MoveSource.FORCED),
    ],
)
def test_each_moves_comment_is_written_as_its_record_says(move: MoveRecord) -> None:
    """``format_game`` writes an engine's move with its time alone itself (the usual comment,
    on the arbiter's path at every game's end); every move's comment is still the one
    ``MoveRecord.comment`` gives."""
    record = replace(random_game(1), moves=(move,), reason="", result="1-0")
    comment = move.comment()
    written = f"1. {move.text} {{{comment}}} 1-0" if comment else f"1. {move.text} 1-0"
    assert format_game(record).split("\n\n")[1] == written


@pytest.mark.parametrize(
    "answer,made",
    [
        (SearchResult("a1-b2", elapsed=0.25), MoveRecord("a1-b2", ENGINE, time=0.25)),
        (SearchResult("a1-b2", elapsed=0.0219999), MoveRecord("a1-b2", ENGINE, time=0.021)),  # as charged
        (
            SearchResult("a1-b2", elapsed=0.5, scored=Info(depth=7, score_cp=35), depth=9),
            MoveRecord("a1-b2", ENGINE, score_cp=35, depth=7, time=0.5),
        ),
        (
            SearchResult("c3-d4", elapsed=1.0, scored=Info(score_mate=-3), depth=5),
            MoveRecord("c3-d4", ENGINE, score_mate=-3, depth=5, time=1.0),
        ),
        (SearchResult("c3-d4", elapsed=0.0, depth=4), MoveRecord("c3-d4", ENGINE, depth=4, time=0.0)),
        (  # numbers no record holds are left out
            SearchResult("e5", elapsed=2.0, scored=Info(depth=2**40, score_cp=-(2**40))),
            MoveRecord("e5", ENGINE, time=2.0),
        ),
    ],
)
def test_an_engines_move_is_recorded_as_its_constructor_would(answer: SearchResult, made: MoveRecord) -> None:
    """The record the referee makes of an engine's answer equals, hashes, prints, pickles and
    comments as the record made by hand, and stays frozen."""
    assert answer.bestmove is not None
    record = engine_move_record(answer.bestmove, answer)
    assert record == made and hash(record) == hash(made) and repr(record) == repr(made)
    assert pickle.loads(pickle.dumps(record)) == made and record.comment() == made.comment()
    with pytest.raises(FrozenInstanceError):
        record.time = 3.0  # type: ignore[misc]


def test_a_game_record_pickles_and_copies_as_itself() -> None:
    """What comes back of a GameRecord, by every pickle protocol and by copy, is an equal
    record of equal moves, frozen."""
    moves = (
        MoveRecord("a1-b2", MoveSource.BOOK),
        MoveRecord("pass", MoveSource.FORCED),
        MoveRecord("c3-d4", ENGINE, score_cp=-35, depth=7, time=0.5),
        MoveRecord("e5xf6", ENGINE, score_mate=2, time=0.0),
    )
    record = GameRecord(
        7, "alpha", "beta", "dipole", None, moves, "1-0", Termination.ADJUDICATION, "Black resigns", "10+0.1"
    )
    for empty in (False, True):
        original = replace(record, moves=()) if empty else record
        copies = [pickle.loads(pickle.dumps(original, protocol)) for protocol in range(pickle.HIGHEST_PROTOCOL + 1)]
        for copied in [*copies, copy.copy(original), copy.deepcopy(original)]:
            assert copied == original and repr(copied) == repr(original)
            assert [move.comment() for move in copied.moves] == [move.comment() for move in original.moves]
            for move in copied.moves:
                with pytest.raises(FrozenInstanceError):
                    move.time = 1.0  # type: ignore[misc]
            with pytest.raises(FrozenInstanceError):
                copied.result = "0-1"  # type: ignore[misc]


def test_written_games_read_back_as_the_same_records() -> None:
    records = [random_game(seed) for seed in range(1, 6)]
    records.append(random_game(6, "dipole", "W:W1d4:B2c5,2e5"))  # starts with a forced pass
    text = "".join(map(format_game, records))
    assert all(len(line) <= 79 for line in text.splitlines())
    games = read_pgn(text)
    assert [game.to_record() for game in games] == records
    assert check_games(games) == []


def test_writer_appends_whole_games_and_refuses_after_seal(tmp_path: Path) -> None:
    path = tmp_path / "games.pgn"
    writer = PgnWriter(str(path))
    assert writer.write(random_game(1)) and writer.write(random_game(2))
    writer.seal()
    assert not writer.write(random_game(3))
    again = PgnWriter(str(path))  # appends to what is there
    again.write(random_game(4))
    again.close()
    assert [game.to_record().number for game in read_pgn_file(str(path))] == [1, 2, 4]


def test_a_writer_starts_its_flusher_with_its_first_game_and_closes_at_once_without_one(tmp_path: Path) -> None:
    # No thread until a game is written: the arbiter forks its game processes meanwhile.
    descriptors, threads = len(os.listdir("/proc/self/fd")), threading.active_count()
    idle = PgnWriter(str(tmp_path / "idle.pgn"))
    assert threading.active_count() == threads
    idle.close()
    assert len(os.listdir("/proc/self/fd")) == descriptors
    busy = PgnWriter(str(tmp_path / "busy.pgn"))
    busy.write(random_game(1))
    assert threading.active_count() == threads + 1
    busy.close()
    assert threading.active_count() == threads and len(os.listdir("/proc/self/fd")) == descriptors


def test_reader_skips_what_our_writer_never_writes() -> None:
    text = (
        '% an escape line\n[Event "x"]\n[Result "1-0"]\n\n'
        "1. c1-c3 $1 {a} (1. c1-d2 {var} (1. c1-b2)) 1... d8-d6!? ; rest of line\n2.c3-c5 1-0\n"
    )
    (game,) = read_pgn(text)
    assert [move.text for move in game.moves] == ["c1-c3", "d8-d6", "c3-c5"]
    assert [move.line for move in game.moves] == [5, 5, 6]
    assert game.moves[0].comments == ["a"]


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ('[Event "x"]\n\n1. c1-c3 {never closed\n\n', "line 3: comment opened with '{' is never closed"),
        ("[Event x]\n1. c1-c3 *\n", "line 1: malformed tag pair"),
        ('[Event "x"]\n1. c1-c3\n[Event "y"]\n1. c1-c3 *\n', "line 3: tag pair"),
        ('[Event "x"]\n1. c1-c3 ) *\n', "line 2: unexpected ')'"),
        ('[Event "x"]\n1. c1-c3 (1. c1-d2 *\n', "line 2: variation opened with '(' is never closed"),
    ],
)
def test_malformed_pgn_names_the_line(text: str, fragment: str) -> None:
    with pytest.raises(PgnSyntaxError) as error:
        read_pgn(text, "f.pgn")
    assert str(error.value).startswith("f.pgn line ")
    assert fragment in str(error.value)


def test_missing_result_is_reported() -> None:
    with pytest.raises(PgnSyntaxError, match=r"f.pgn line 3: game 1 .* has no result"):
        read_pgn('[Event "x"]\n\n1. c1-c3 d8-d6\n', "f.pgn")


def _game(record: GameRecord) -> PgnGame:
    (game,) = read_pgn(format_game(record))
    return game


def test_tampered_move_is_reported_by_game_and_ply() -> None:
    record = random_game(11)
    moves = list(record.moves)
    moves[6] = replace(moves[6], text="a1-a3")
    (good, bad) = read_pgn(format_game(record) + format_game(replace(record, number=12, moves=tuple(moves))))
    assert check_game(good) is None
    problem = check_game(bad)
    assert problem is not None and problem.ply == 7
    assert str(problem).startswith("game 2 (round 12: alpha vs beta, line ")
    assert "ply 7: White's move 'a1-a3'" in str(problem)


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        (lambda r: replace(r, result="0-1" if r.result == "1-0" else "1-0"), "has won after ply"),
        (lambda r: replace(r, moves=r.moves[:-1]), "is not over after ply"),
        (lambda r: replace(r, moves=r.moves[:-1], termination=Termination.UNTERMINATED), "must have the result *"),
        (lambda r: replace(r, termination=Termination.TIME_FORFEIT), "cannot end by 'time forfeit'"),
        (lambda r: replace(r, moves=r.moves + (MoveRecord("pass"),)), "the game is over"),
    ],
)
def test_results_that_do_not_hold(change: Callable[[GameRecord], GameRecord], fragment: str) -> None:
    record = random_game(5)
    problem = check_game(_game(change(record)))
    assert problem is not None and fragment in str(problem)


def test_adjudicated_results_must_fit_the_side_to_move() -> None:
    record = random_game(8)
    cut = record.moves[:10]  # White to move after 10 plies
    lost_on_time = replace(record, moves=cut, result="0-1", termination=Termination.TIME_FORFEIT)
    assert check_game(_game(lost_on_time)) is None
    wrong_side = replace(lost_on_time, result="1-0")
    problem = check_game(_game(wrong_side))
    assert problem is not None and "White was to move" in str(problem)
    crashed = replace(lost_on_time, result="1-0", termination=Termination.CRASH)  # either side may crash
    assert check_game(_game(crashed)) is None
    unfinished = replace(lost_on_time, result="*", termination=Termination.UNTERMINATED)
    assert check_game(_game(unfinished)) is None


def test_result_tag_and_plycount_must_agree() -> None:
    text = format_game(random_game(3))
    result_tag = text.replace('[Result "', '[Result "x', 1)
    assert "Result tag says" in str(check_game(read_pgn(result_tag)[0]))
    plies = text.replace('[PlyCount "', '[PlyCount "9', 1)
    assert "PlyCount is 9" in str(check_game(read_pgn(plies)[0]))


# -- statistics ---------------------------------------------------------------------------


def test_elo_formula_known_values() -> None:
    assert elo_from_score(0.5) == 0
    assert elo_from_score(0.75) == pytest.approx(190.849, abs=1e-3)  # -400 log10(1/3)
    assert elo_from_score(1.0) == math.inf and elo_from_score(0.0) == -math.inf


def test_elo_interval_and_los_by_hand() -> None:
    # 6 wins, 4 losses: p = 0.6, per-game variance 0.24, s = sqrt(0.024) = 0.154919;
    # p +- 1.95996 s = [0.296364, 0.903636] -> Elo [-150.209, 388.832]: half-width 269.521.
    estimate = elo_estimate(6, 4)
    assert estimate.elo == pytest.approx(70.437, abs=1e-3)
    assert estimate.margin == pytest.approx(269.521, abs=1e-3)
    assert estimate.los == pytest.approx(0.7365, abs=1e-4)  # (1 + erf(2 / sqrt(20))) / 2
    assert likelihood_of_superiority(5, 5) == 0.5
    assert math.isinf(elo_estimate(3, 0).margin)
    assert estimate.text() == "Elo difference: 70.4 +/- 269.5, LOS: 73.6 %"


def test_match_stats_split_by_engine_and_colour() -> None:
    stats = MatchStats(["alpha", "beta"])
    base = random_game(1)
    games = [
        ("alpha", "beta", "1-0"),
        ("beta", "alpha", "1-0"),
        ("alpha", "beta", "1-0"),
        ("beta", "alpha", "0-1"),
        ("alpha", "beta", "*"),
    ]
    for white, black, result in games:
        termination = Termination.UNTERMINATED if result == "*" else Termination.NORMAL
        stats.add(replace(base, white=white, black=black, result=result, termination=termination))
    assert stats.score_line("alpha", "beta") == "Score of alpha vs beta: 3 - 1 - 0  [0.750] 4"
    assert stats.engines["alpha"].white.wins == 2 and stats.engines["alpha"].black.wins == 1
    assert stats.engines["beta"].white.wins == 1 and stats.engines["beta"].black.losses == 2
    assert stats.colours.wins == 3 and stats.colours.losses == 1
    summary = stats.summary("alpha", "beta")
    assert "...      alpha playing White: 2 - 0 - 0  [1.000] 2" in summary
    assert "...      alpha playing Black: 1 - 1 - 0  [0.500] 2" in summary
    assert "Terminations: normal 4, unterminated 1" in summary
    assert "Unfinished games (not scored): 1" in summary


def test_a_games_end_does_not_wait_for_the_disk_but_close_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The fsync of finished games runs beside the games (several games in one fsync when the
    disk is slow); every game is in the file at once (a crash of the arbiter loses none), and
    close() returns only when all are on disk."""
    import os

    synced: list[int] = []
    real_fsync = os.fsync

    def slow_fsync(fd: int) -> None:
        time.sleep(0.5)  # a busy disk
        real_fsync(fd)
        synced.append(os.fstat(fd).st_size)

    monkeypatch.setattr(os, "fsync", slow_fsync)
    path = tmp_path / "games.pgn"
    writer = PgnWriter(str(path))
    started = time.monotonic()
    for number in range(1, 6):
        assert writer.write(random_game(number))
        assert [game.to_record().number for game in read_pgn_file(str(path))] == list(range(1, number + 1))
    assert time.monotonic() - started < 0.4  # today's writer: 2.5 s, one fsync per game
    writer.close()
    assert synced and synced[-1] == path.stat().st_size  # all of it on disk when close returns
    assert len(synced) < 5  # games that ended during an fsync share the next one


def test_games_that_end_in_quick_succession_share_an_fsync_and_close_does_not_wait_for_the_next(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Fast games end hundreds of times a second: the writer syncs at most once every
    SYNC_INTERVAL (each fsync is a journal commit for the whole machine), and close() syncs
    what is left at once instead of waiting out the interval."""
    import os

    import arbiter.records.pgn

    started_syncs: list[float] = []
    real_fsync = os.fsync

    def counted_fsync(fd: int) -> None:
        started_syncs.append(time.monotonic())
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", counted_fsync)
    monkeypatch.setattr(arbiter.records.pgn, "SYNC_INTERVAL", 3.0)
    path = tmp_path / "games.pgn"
    writer = PgnWriter(str(path))
    for number in range(1, 31):
        before_last = time.monotonic()
        assert writer.write(random_game(number))
        time.sleep(0.01)
    closing = time.monotonic()
    writer.close()
    assert time.monotonic() - closing < 2.0  # the last games' fsync at once, not after the interval
    assert len(started_syncs) == 2  # the first game's, then close's: not one per game
    assert started_syncs[-1] >= before_last  # close's covers the last game
    assert [game.to_record().number for game in read_pgn_file(str(path))] == list(range(1, 31))


def test_close_waits_for_a_slow_disk_and_says_so_when_it_waits_too_long(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An fsync may take seconds on a busy disk: close() waits for it (a bounded interrupt's
    seal() does not), and past its own bound raises one line, the games being in the file."""
    import os

    real_fsync = os.fsync

    def slow_fsync(fd: int) -> None:
        time.sleep(0.6)
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", slow_fsync)
    patient = PgnWriter(str(tmp_path / "patient.pgn"))
    assert patient.write(random_game(1))
    started = time.monotonic()
    patient.close(timeout=30)
    assert time.monotonic() - started >= 0.5
    hasty = PgnWriter(str(tmp_path / "hasty.pgn"))
    assert hasty.write(random_game(2))
    with pytest.raises(
        ArbiterError,
        match=r"hasty\.pgn: every game is in the file, but the disk had not confirmed them \(fsync\) after 0\.1 s$",
    ):
        hasty.close(timeout=0.1)
    assert [game.to_record().number for game in read_pgn_file(str(tmp_path / "hasty.pgn"))] == [2]


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_failed_write_is_one_clear_error() -> None:
    writer = PgnWriter("/dev/full")
    with pytest.raises(ArbiterError, match="PGN file /dev/full: No space left on device"):
        writer.write(random_game(1))
    writer.close()
