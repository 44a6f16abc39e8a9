"""Resign adjudication: ending a game that an engine's own scores say is lost.

The rule is cutechess-cli's ``-resign movecount=N score=CP [twosided=true]``: a side loses when
its engine reported a score of at most ``-CP`` centipawns for ``N`` consecutive moves of its
own; with ``twosided``, only when the opponent's engine also reported at least ``+CP`` for its
last ``N`` moves.  A reported mate counts as beyond any centipawn score (a mate against the
mover is at most ``-CP``, a mate for it at least ``+CP``).  Only the engines' own moves count:
book moves and forced passes are not searched and neither extend nor break a run, while an
engine move without a score breaks it (the engine did not say it is lost).

:class:`ResignRule` is the parsed option (a value, stored with an event); :class:`ResignWatch`
follows one game and says when, and whom, the rule adjudicates; :func:`check_adjudication`
replays the rule over a finished record's scores (``dipole-arbiter replay``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from mypy_extensions import mypyc_attr

from dipole_engine.rules import Color, color_name

from ..errors import ArbiterError
from ..records.game import MoveRecord, MoveSource

_TRUE = ("true", "1", "yes", "on")
_RULE_IN_REASON = re.compile(r"\(adjudication: resign (movecount=\d+ score=\d+(?: twosided=true)?);")
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
        movecount = _count(values["movecount"], "movecount", 1)
        score = _count(values["score"], "score", 0)
        twosided = values.get("twosided", "false").lower()
        if twosided not in _TRUE + _FALSE:
            raise ArbiterError(f"--resign: twosided must be true or false, not {values['twosided']!r}")
        return cls(movecount, score, twosided in _TRUE)

    def text(self) -> str:
        """The option as given: ``movecount=3 score=400 twosided=true``."""
        return f"movecount={self.movecount} score={self.score}" + (" twosided=true" if self.twosided else "")


def _count(value: str, key: str, least: int) -> int:
    if not value.isdigit() or int(value) < least:
        raise ArbiterError(f"--resign: {key} must be a whole number of at least {least}, not {value!r}")
    if int(value) > 1_000_000:
        raise ArbiterError(f"--resign: {key} {value} is absurdly large")
    return int(value)


def _pawns(move: MoveRecord) -> str:
    """A score as the PGN comments write it: ``-4.50`` or ``-M3``."""
    if move.score_mate is not None:
        return f"{'+' if move.score_mate > 0 else '-'}M{abs(move.score_mate)}"
    assert move.score_cp is not None
    return f"{move.score_cp / 100:+.2f}"


@dataclass
class ResignWatch:
    """One game's runs of losing and winning scores per side (see the module docstring)."""

    rule: ResignRule
    _low: dict[Color, list[MoveRecord]] = field(default_factory=dict)  # the current run at or below -CP
    _high: dict[Color, list[MoveRecord]] = field(default_factory=dict)  # the current run at or above +CP

    def observe(self, color: Color, move: MoveRecord) -> tuple[Color, str] | None:
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
        for loser in (color, -color):
            if self._lost(loser):
                return loser, self._reason(loser)
        return None

    def _lost(self, loser: Color) -> bool:
        count = self.rule.movecount
        if len(self._low.get(loser, [])) < count:
            return False
        return not self.rule.twosided or len(self._high.get(-loser, [])) >= count

    def _reason(self, loser: Color) -> str:
        """``Black resigns (adjudication: resign movecount=3 score=400; Black -4.50 -5.10 -6.00)``."""
        runs = [(loser, self._low[loser])] + ([(-loser, self._high[-loser])] if self.rule.twosided else [])
        scores = "; ".join(f"{color_name(side)} {' '.join(map(_pawns, run))}" for side, run in runs)
        return f"{color_name(loser)} resigns (adjudication: resign {self.rule.text()}; {scores})"


def check_adjudication(reason: str, moves: Sequence[MoveRecord], first: Color, loser: Color) -> str | None:
    """What does not hold in an adjudicated record, or None: the rule its closing comment
    names, applied to the scores recorded with its moves (``first`` moved first), must decide
    the game at its last move, against ``loser``."""
    found = _RULE_IN_REASON.search(reason)
    if found is None:
        return f"the closing comment {reason!r} does not name the resign rule"
    try:
        watch = ResignWatch(ResignRule.parse(found.group(1)))
    except ArbiterError as error:
        return str(error)
    color = first
    for ply, move in enumerate(moves, 1):
        verdict = watch.observe(color, move)
        if verdict is not None:
            if ply != len(moves) or verdict[0] != loser:
                return (
                    f"by the recorded scores, resign {watch.rule.text()} adjudicates the game against "
                    f"{color_name(verdict[0])} at ply {ply}, not against {color_name(loser)} at ply {len(moves)}"
                )
            return None
        color = -color
    return f"the recorded scores never reach resign {watch.rule.text()}"
