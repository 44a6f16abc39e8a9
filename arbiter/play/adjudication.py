"""Adjudication: ending a game that the engines' own scores say is lost or drawn, or that is too long.

The rule is cutechess-cli's ``-resign movecount=N score=CP [twosided=true]``: a side loses when
its engine reported a score of at most ``-CP`` centipawns for ``N`` consecutive moves of its
own; with ``twosided``, only when the opponent's engine also reported at least ``+CP`` for its
last ``N`` moves.  A reported mate counts as beyond any centipawn score (a mate against the
mover is at most ``-CP``, a mate for it at least ``+CP``).  Only the engines' own moves count:
book moves and forced passes are not searched and neither extend nor break a run, while an
engine move without a score breaks it (the engine did not say it is lost).

The draw rule is cutechess-cli's ``-draw movenumber=N movecount=N score=CP``: the game is drawn
once it is ``N`` full moves old (``plies // 2 >= movenumber``, book moves included) and the
last ``2 * movecount`` engine moves in a row (both sides') each reported a score of at most
``CP`` centipawns either way; a mate score, or an engine move without a score, breaks the run,
and book moves and forced passes neither extend nor break it.  ``--maxmoves N`` draws a game
that reaches ``2 N`` plies.  The closing comment starts with cutechess-cli's words, ``Draw by
adjudication``, and names the rule (``Draw by adjudication (adjudication: draw movenumber=40
movecount=8 score=10; +0.05 -0.02 ...)``, ``Draw by adjudication (adjudication: maxmoves
100)``); the PGN ``Termination`` tag is ``adjudication`` as for the resign rule.  A move that
ends the game by the rules is never adjudicated; of the rules, as in cutechess-cli, the draw
rule is asked first, then the resign rule, then the length.

:class:`ResignRule` and :class:`DrawRule` are the parsed options (values, stored with an
event); :class:`ResignWatch` and :class:`DrawWatch` follow one game and say when the rule
adjudicates it, and :class:`Adjudicator` asks the rules a game is played under in that order;
:func:`check_adjudication` replays the rule a finished record names over its scores
(``dipole-arbiter replay``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from mypy_extensions import mypyc_attr

from gameplug import Side

from ..errors import ArbiterError
from ..records.game import MoveRecord, MoveSource

_TRUE = ("true", "1", "yes", "on")
_RULE_IN_REASON = re.compile(r"\(adjudication: resign (movecount=\d+ score=\d+(?: twosided=true)?);")
_DRAW_IN_REASON = re.compile(r"^Draw by adjudication \(adjudication: draw (movenumber=\d+ movecount=\d+ score=\d+);")
_MAXMOVES_IN_REASON = re.compile(r"^Draw by adjudication \(adjudication: maxmoves (\d+)\)$")
DRAW_BY_ADJUDICATION = "Draw by adjudication"  # cutechess-cli's words
_FALSE = ("false", "0", "no", "off")


@mypyc_attr(native_class=False)  # pickled to game processes and workers (README: Builds)
@dataclass(frozen=True)
class ResignRule:
    """``movecount`` consecutive own moves at or below ``-score`` centipawns lose (see the module)."""

    movecount: int
    score: int
    twosided: bool = False

    @classmethod
    def parse(cls, text: str) -> ResignRule:
        """``movecount=3 score=400 [twosided=true]`` (words split on whitespace); raises
        ArbiterError naming what is wrong."""
        values: dict[str, str] = {}
        for word in text.split():
            key, sep, value = word.partition("=")
            if not sep or key not in ("movecount", "score", "twosided"):
                raise ArbiterError(f"--resign: expected movecount=N score=CP [twosided=true], found {word!r}")
            values[key] = value
        missing = [key for key in ("movecount", "score") if key not in values]
        if missing:
            raise ArbiterError(f"--resign: {' and '.join(missing)} missing (movecount=N score=CP [twosided=true])")
        movecount = _count(values["movecount"], "movecount", 1, "--resign")
        score = _count(values["score"], "score", 0, "--resign")
        twosided = values.get("twosided", "false").lower()
        if twosided not in _TRUE + _FALSE:
            raise ArbiterError(f"--resign: twosided must be true or false, not {values['twosided']!r}")
        return cls(movecount, score, twosided in _TRUE)

    def text(self) -> str:
        """The option as given: ``movecount=3 score=400 twosided=true``."""
        return f"movecount={self.movecount} score={self.score}" + (" twosided=true" if self.twosided else "")


@mypyc_attr(native_class=False)  # pickled to game processes and workers (README: Builds)
@dataclass(frozen=True)
class DrawRule:
    """From full move ``movenumber`` on, ``2 * movecount`` engine moves in a row scored within
    ``score`` centipawns of 0 draw the game (see the module)."""

    movenumber: int
    movecount: int
    score: int

    @classmethod
    def parse(cls, text: str) -> DrawRule:
        """``movenumber=40 movecount=8 score=10`` (words split on whitespace); raises
        ArbiterError naming what is wrong."""
        keys = ("movenumber", "movecount", "score")
        values: dict[str, str] = {}
        for word in text.split():
            key, sep, value = word.partition("=")
            if not sep or key not in keys:
                raise ArbiterError(f"--draw: expected movenumber=N movecount=N score=CP, found {word!r}")
            values[key] = value
        missing = [key for key in keys if key not in values]
        if missing:
            raise ArbiterError(f"--draw: {' and '.join(missing)} missing (movenumber=N movecount=N score=CP)")
        return cls(
            _count(values["movenumber"], "movenumber", 0, "--draw"),
            _count(values["movecount"], "movecount", 1, "--draw"),
            _count(values["score"], "score", 0, "--draw"),
        )

    def text(self) -> str:
        """The option as given: ``movenumber=40 movecount=8 score=10``."""
        return f"movenumber={self.movenumber} movecount={self.movecount} score={self.score}"


def _count(value: str, key: str, least: int, flag: str) -> int:
    if not value.isdigit() or int(value) < least:
        raise ArbiterError(f"{flag}: {key} must be a whole number of at least {least}, not {value!r}")
    if int(value) > 1_000_000:
        raise ArbiterError(f"{flag}: {key} {value} is absurdly large")
    return int(value)


@dataclass
class ResignWatch:
    """One game's runs of losing and winning scores per side (see the module docstring)."""

    rule: ResignRule
    side_name: Callable[[Side], str]  # the game's names of its sides ("White", "Black")
    _low: dict[Side, list[MoveRecord]] = field(default_factory=dict)  # the current run at or below -CP
    _high: dict[Side, list[MoveRecord]] = field(default_factory=dict)  # the current run at or above +CP

    def observe(self, color: Side, move: MoveRecord) -> tuple[Side, str] | None:
        """``color`` has just played ``move``: the side the rule now adjudicates as lost and
        the closing comment that says why, or None while the game goes on."""
        if move.source is not MoveSource.ENGINE:
            return None
        low, high = self._low.setdefault(color, []), self._high.setdefault(color, [])
        losing = (
            move.score_mate < 0
            if move.score_mate is not None
            else (move.score_cp is not None and move.score_cp <= -self.rule.score)
        )
        winning = (
            move.score_mate > 0
            if move.score_mate is not None
            else (move.score_cp is not None and move.score_cp >= self.rule.score)
        )
        for run, extends in ((low, losing), (high, winning)):
            if extends:
                run.append(move)
                del run[: -self.rule.movecount]
            else:
                run.clear()
        # The mover's own run may have completed, or (two-sided) its winning run may have been
        # the half its opponent's completed losing run was waiting for.
        for loser in (color, color.other):
            if self._lost(loser):
                return loser, self._reason(loser)
        return None

    def _lost(self, loser: Side) -> bool:
        count = self.rule.movecount
        if len(self._low.get(loser, [])) < count:
            return False
        return not self.rule.twosided or len(self._high.get(loser.other, [])) >= count

    def _reason(self, loser: Side) -> str:
        """``Black resigns (adjudication: resign movecount=3 score=400; Black -4.50 -5.10 -6.00)``."""
        runs = [(loser, self._low[loser])] + ([(loser.other, self._high[loser.other])] if self.rule.twosided else [])
        scores = "; ".join(f"{self.side_name(side)} {' '.join(map(MoveRecord.score_text, run))}" for side, run in runs)
        return f"{self.side_name(loser)} resigns (adjudication: resign {self.rule.text()}; {scores})"


class DrawWatch:
    """One game's current run of engine moves scored near 0 (see the module docstring)."""

    def __init__(self, rule: DrawRule) -> None:
        self.rule = rule
        self._run: list[MoveRecord] = []

    def observe(self, move: MoveRecord, plies: int) -> str | None:
        """``move`` has just been played, the game's ``plies``-th: the closing comment when the
        rule now draws the game, else None."""
        if move.source is not MoveSource.ENGINE:
            return None
        if move.score_mate is None and move.score_cp is not None and abs(move.score_cp) <= self.rule.score:
            self._run.append(move)
            del self._run[: -2 * self.rule.movecount]
        else:
            self._run.clear()
        if plies // 2 < self.rule.movenumber or len(self._run) < 2 * self.rule.movecount:
            return None
        scores = " ".join(map(MoveRecord.score_text, self._run))
        return f"{DRAW_BY_ADJUDICATION} (adjudication: draw {self.rule.text()}; {scores})"


def max_moves_reason(maxmoves: int) -> str:
    """The closing comment of a game drawn at ``2 * maxmoves`` plies."""
    return f"{DRAW_BY_ADJUDICATION} (adjudication: maxmoves {maxmoves})"


class Adjudicator:
    """The adjudication rules one game is played under, asked after each of its moves in
    cutechess-cli's order: the draw rule, the resign rule, the game's length.  Make one with
    :meth:`of`, which gives None when no rule is set (the referee then asks nothing)."""

    def __init__(
        self, resign: ResignRule | None, draw: DrawRule | None, maxmoves: int, side_name: Callable[[Side], str]
    ) -> None:
        self.resign = ResignWatch(resign, side_name) if resign is not None else None
        self.draw = DrawWatch(draw) if draw is not None else None
        self.max_plies = 2 * maxmoves
        self.maxmoves = maxmoves

    @classmethod
    def of(
        cls, resign: ResignRule | None, draw: DrawRule | None, maxmoves: int, side_name: Callable[[Side], str]
    ) -> Adjudicator | None:
        """The rules set, for a game whose sides ``side_name`` names; None when none is set."""
        if resign is None and draw is None and not maxmoves:
            return None
        return cls(resign, draw, maxmoves, side_name)

    def observe(self, color: Side, move: MoveRecord, plies: int) -> tuple[Side | None, str] | None:
        """``color`` has just played ``move``, the game's ``plies``-th (a move that ended the game
        by the rules is not asked about): the loser (None: a draw) and the closing comment when a
        rule now ends the game, else None."""
        if self.draw is not None and (reason := self.draw.observe(move, plies)) is not None:
            return None, reason
        if self.resign is not None and (verdict := self.resign.observe(color, move)) is not None:
            return verdict
        if self.max_plies and plies >= self.max_plies:
            return None, max_moves_reason(self.maxmoves)
        return None


def check_draw_adjudication(reason: str, moves: Sequence[MoveRecord]) -> str | None:
    """What does not hold in a record drawn by adjudication, or None: the draw rule or the
    game length its closing comment names must end the game at its last move."""
    plies = len(moves)
    found = _MAXMOVES_IN_REASON.match(reason)
    if found is not None:
        maxmoves = int(found.group(1))
        if plies != 2 * maxmoves:
            return f"maxmoves {maxmoves} ends a game at ply {2 * maxmoves}, not at ply {plies}"
        return None
    found = _DRAW_IN_REASON.match(reason)
    if found is None:
        return f"the closing comment {reason!r} names neither the draw rule nor maxmoves"
    try:
        watch = DrawWatch(DrawRule.parse(found.group(1)))
    except ArbiterError as error:
        return str(error)
    for ply, move in enumerate(moves, 1):
        if watch.observe(move, ply) is not None:
            if ply != plies:
                return f"by the recorded scores, draw {watch.rule.text()} draws the game at ply {ply}, not {plies}"
            return None
    return f"the recorded scores never reach draw {watch.rule.text()}"


def check_adjudication(
    reason: str, moves: Sequence[MoveRecord], first: Side, loser: Side, side_name: Callable[[Side], str]
) -> str | None:
    """What does not hold in an adjudicated record, or None: the rule its closing comment
    names, applied to the scores recorded with its moves (``first`` moved first), must decide
    the game at its last move, against ``loser`` (``side_name``: the game's names of its sides)."""
    found = _RULE_IN_REASON.search(reason)
    if found is None:
        return f"the closing comment {reason!r} does not name the resign rule"
    try:
        watch = ResignWatch(ResignRule.parse(found.group(1)), side_name)
    except ArbiterError as error:
        return str(error)
    color = first
    for ply, move in enumerate(moves, 1):
        verdict = watch.observe(color, move)
        if verdict is not None:
            if ply != len(moves) or verdict[0] != loser:
                return (
                    f"by the recorded scores, resign {watch.rule.text()} adjudicates the game against "
                    f"{side_name(verdict[0])} at ply {ply}, not against {side_name(loser)} at ply {len(moves)}"
                )
            return None
        color = color.other
    return f"the recorded scores never reach resign {watch.rule.text()}"
