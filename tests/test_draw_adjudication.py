"""Draw adjudication and the game-length limit (cutechess-cli's ``-draw movenumber=N movecount=N
score=N`` and ``-maxmoves N``): the options' one-line errors, when the rules draw a game, their
order with the resign rule, and the check of a drawn record's closing comment."""

from __future__ import annotations

import pytest

import gameplug
from arbiter.errors import ArbiterError
from arbiter.play.adjudication import (
    Adjudicator,
    DrawRule,
    DrawWatch,
    ResignRule,
    check_draw_adjudication,
    max_moves_reason,
)
from arbiter.records.game import MoveRecord, MoveSource
from gameplug import Side

WHITE, BLACK = Side.FIRST, Side.SECOND
NAMES = gameplug.game("dipole").side_name


def engine(cp: int | None, mate: int | None = None) -> MoveRecord:
    return MoveRecord("a1-b2", MoveSource.ENGINE, score_cp=cp, score_mate=mate, depth=5, time=0.1)


BOOK = MoveRecord("a1-b2", MoveSource.BOOK)
FORCED = MoveRecord("pass", MoveSource.FORCED)


def test_parse_draw_rule() -> None:
    rule = DrawRule.parse("movenumber=40 movecount=8 score=10")
    assert rule == DrawRule(40, 8, 10) and rule.text() == "movenumber=40 movecount=8 score=10"
    assert DrawRule.parse("score=0  movecount=1 movenumber=0") == DrawRule(0, 1, 0)
    for text, message in [
        ("movenumber=40 movecount=8", "--draw: score missing (movenumber=N movecount=N score=CP)"),
        ("movenumber=40 movecount=8 score=10 twosided=true", "--draw: expected movenumber=N movecount=N score=CP, "),
        ("movenumber=40 movecount=0 score=10", "--draw: movecount must be a whole number of at least 1, not '0'"),
        ("movenumber=-1 movecount=2 score=10", "--draw: movenumber must be a whole number of at least 0, not '-1'"),
        ("movenumber=4 movecount=2 score=99999999", "--draw: score 99999999 is absurdly large"),
    ]:
        with pytest.raises(ArbiterError) as error:
            DrawRule.parse(text)
        assert str(error.value).startswith(message)


def plies_until_drawn(rule: DrawRule, moves: list[MoveRecord]) -> int | None:
    watch = DrawWatch(rule)
    for ply, move in enumerate(moves, 1):
        if watch.observe(move, ply) is not None:
            return ply
    return None


def test_the_draw_rule_waits_for_the_move_number_and_the_run() -> None:
    rule = DrawRule(movenumber=3, movecount=2, score=10)
    # every move level: the run (4 moves) is long enough at ply 4, the game 3 moves old at ply 6
    assert plies_until_drawn(rule, [engine(0)] * 10) == 6
    # a score beyond 10 cp either way breaks the run: 4 more level moves are needed (plies 6..9)
    assert plies_until_drawn(rule, [engine(3), engine(-10), engine(10), engine(0), engine(-11)] + [engine(5)] * 5) == 9
    # a mate score or a move without a score breaks it too
    assert plies_until_drawn(rule, [engine(0)] * 5 + [engine(None, mate=-3)] + [engine(0)] * 4) == 10
    assert plies_until_drawn(rule, [engine(0)] * 5 + [engine(None)] + [engine(0)] * 3) is None
    # book moves and forced passes neither extend nor break it, but count for the move number
    assert plies_until_drawn(rule, [BOOK] * 5 + [engine(0), FORCED, engine(0), engine(0), engine(0)]) == 10
    reason = DrawWatch(DrawRule(0, 1, 0))
    assert reason.observe(engine(0), 1) is None
    assert reason.observe(engine(0), 2) == (
        "Draw by adjudication (adjudication: draw movenumber=0 movecount=1 score=0; +0.00 +0.00)"
    )


def test_adjudicator_order_and_nothing_when_off() -> None:
    assert Adjudicator.of(None, None, 0, NAMES) is None
    # both rules complete on Black's -0.60: the draw rule is asked first (cutechess-cli's order)
    both = Adjudicator.of(ResignRule(1, 50), DrawRule(0, 1, 100), 0, NAMES)
    assert both is not None
    assert both.observe(WHITE, engine(0), 1) is None
    verdict = both.observe(BLACK, engine(-60), 2)
    assert verdict is not None and verdict[0] is None and verdict[1].startswith("Draw by adjudication")
    resign = Adjudicator.of(ResignRule(1, 100), DrawRule(0, 2, 0), 0, NAMES)
    assert resign is not None and resign.observe(WHITE, engine(-150), 1) == (
        WHITE,
        "White resigns (adjudication: resign movecount=1 score=100; White -1.50)",
    )
    length = Adjudicator.of(None, None, 2, NAMES)
    assert length is not None
    assert [length.observe(WHITE, move, ply) for ply, move in enumerate([BOOK, engine(0), FORCED], 1)] == [None] * 3
    assert length.observe(BLACK, engine(900), 4) == (None, "Draw by adjudication (adjudication: maxmoves 2)")
    assert max_moves_reason(2) == "Draw by adjudication (adjudication: maxmoves 2)"


def test_check_a_drawn_record() -> None:
    moves = [BOOK, BOOK] + [engine(0)] * 6
    drawn = "Draw by adjudication (adjudication: draw movenumber=4 movecount=2 score=10; +0.00 +0.00 +0.00 +0.00)"
    assert check_draw_adjudication(drawn, moves) is None
    assert check_draw_adjudication(drawn, moves + [engine(0)]) == (
        "by the recorded scores, draw movenumber=4 movecount=2 score=10 draws the game at ply 8, not 9"
    )
    assert check_draw_adjudication(drawn, moves[:-1]) == (
        "the recorded scores never reach draw movenumber=4 movecount=2 score=10"
    )
    assert check_draw_adjudication(max_moves_reason(4), moves) is None
    assert check_draw_adjudication(max_moves_reason(5), moves) == "maxmoves 5 ends a game at ply 10, not at ply 8"
    assert check_draw_adjudication("Draw by adjudication", moves) == (
        "the closing comment 'Draw by adjudication' names neither the draw rule nor maxmoves"
    )
