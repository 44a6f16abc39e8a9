"""The sequential probability ratio test for two-engine matches played as colour-reversed pairs.

A pair is the two games of one opening, one with each colour, scored from the tested engine's
view as the mean of its two results: 0, 1/4, 1/2, 3/4 or 1 (fastchess's ``Ptnml(0-2)`` counts
the pairs by these five scores).  The pairs are a sample from a pentanomial distribution, and
pairing cancels most of the colour and opening noise: this is the pentanomial SPRT of
fastchess, fishtest and OpenBench.  A game without draws (Dipole, Impasse) can only give 0,
1/2 and 1, and so long as no game of the test was drawn the model has those three scores only
(a trinomial); the first drawn game brings in the other two.

Hypotheses are in logistic Elo: H0 says the expected score of a game is
``s0 = 1 / (1 + 10^(-elo0/400))``, H1 says ``s1`` from ``elo1``.  The log-likelihood ratio is
the generalised SPRT (GSPRT) of fastchess's and fishtest's ``logistic`` model: with ``p^`` the
empirical distribution of the N pair scores ``a_i``, ``p_j`` is the maximum-likelihood
distribution on the same scores whose mean is ``s_j`` -- ``p_j,i = p^_i / (1 + theta (a_i - s_j))``
with ``theta`` solving ``sum_i p^_i (a_i - s_j) / (1 + theta (a_i - s_j)) = 0`` (M. Van den
Bergh, "Comments on Normalized Elo", proposition 1.1) -- and ``LLR = N sum_i p^_i log(p_1,i /
p_0,i)``.  (fastchess's ``0.5 N log(var0 / var1)``, with ``var_j`` the variance of the pair
scores about ``s_j``, is the second-order approximation of the same quantity.)  As in
fastchess, a score never seen is counted as 1e-3 of a pair, in ``p^`` and ``N`` alike (so the
LLR stays finite when, say, every pair was won); no pair at all gives 0.  ``theta`` is found by
bisection to machine precision, so the result is exact and deterministic.  The normalised-Elo
model is not offered: elo0/elo1 are always logistic Elo.

Wald's bounds: stop and accept H1 once ``LLR >= log((1 - beta) / alpha)``, accept H0 once
``LLR <= log(beta / (1 - alpha))``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from .tallies import PAIR_SCORES, Pentanomial, pair_score

__all__ = ["PAIR_SCORES", "pair_score"]  # they live in tallies (the summaries count pairs too)

TRINOMIAL_SCORES = (0.0, 0.5, 1.0)  # the pair scores of a game without draws
UNSEEN_PAIRS = 1e-3  # what a score with no pairs counts for in the LLR (fastchess's regularisation)
H0_ACCEPTED = "H0 accepted"
H1_ACCEPTED = "H1 accepted"
_KEYS = ("elo0", "elo1", "alpha", "beta")
_EXAMPLE = "elo0=0 elo1=10 alpha=0.05 beta=0.05"


class SprtError(ValueError):
    """SPRT settings that cannot be used; the message is one line naming what is wrong."""


def expected_score(elo: float) -> float:
    """The logistic expected score of a side ``elo`` points stronger."""
    return 1 / (1 + 10 ** (-elo / 400))


@dataclass(frozen=True)
class SprtParams:
    """``elo0 < elo1`` (logistic Elo), error rates ``alpha`` (accepting H1 when H0 holds) and
    ``beta`` (accepting H0 when H1 holds), each in (0, 1) with ``alpha + beta < 1``."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        for key in _KEYS:
            if not math.isfinite(getattr(self, key)):
                raise SprtError(f"{key} must be a finite number, not {getattr(self, key)}")
        if not 0 < self.alpha < 1:
            raise SprtError(f"alpha must be between 0 and 1 (exclusive), not {self.alpha:g}")
        if not 0 < self.beta < 1:
            raise SprtError(f"beta must be between 0 and 1 (exclusive), not {self.beta:g}")
        if self.alpha + self.beta >= 1:
            raise SprtError(f"alpha + beta must be less than 1, not {self.alpha + self.beta:g}")
        if self.elo0 >= self.elo1:
            raise SprtError(f"elo0 must be less than elo1 (got elo0={self.elo0:g} elo1={self.elo1:g})")

    @classmethod
    def parse(cls, text: str) -> SprtParams:
        """Read ``elo0=0 elo1=10 alpha=0.05 beta=0.05`` (space- or comma-separated, any order)."""
        values: dict[str, float] = {}
        for item in text.replace(",", " ").split():
            key, sep, value = item.partition("=")
            if not sep:
                raise SprtError(f"{item!r} is not key=value (expected e.g. {_EXAMPLE})")
            if key not in _KEYS:
                raise SprtError(f"unknown key {key!r} (the keys are {', '.join(_KEYS)})")
            if key in values:
                raise SprtError(f"{key} is given twice")
            try:
                values[key] = float(value)
            except ValueError:
                raise SprtError(f"{key}={value!r} is not a number") from None
        missing = [key for key in _KEYS if key not in values]
        if missing:
            raise SprtError(f"missing {', '.join(missing)} (expected e.g. {_EXAMPLE})")
        return cls(**values)

    @property
    def lower(self) -> float:
        """Accept H0 at or below this LLR."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """Accept H1 at or above this LLR."""
        return math.log((1 - self.beta) / self.alpha)

    def text(self) -> str:
        return f"elo0={self.elo0:g} elo1={self.elo1:g} alpha={self.alpha:g} beta={self.beta:g}"


def pair_llr(counts: Sequence[float], elo0: float, elo1: float) -> float:
    """The GSPRT log-likelihood ratio of H1 (``elo1``) against H0 (``elo0``) for ``counts`` of
    pairs scoring 0, 1/4, 1/2, 3/4 and 1 (the pentanomial), or 0, 1/2 and 1 (a game without
    draws); see the module docstring."""
    if len(counts) not in (len(PAIR_SCORES), len(TRINOMIAL_SCORES)) or any(c < 0 for c in counts):
        raise ValueError(f"pair counts must be three or five non-negative numbers, not {list(counts)}")
    if sum(counts) == 0:
        return 0.0
    scores = PAIR_SCORES if len(counts) == len(PAIR_SCORES) else TRINOMIAL_SCORES
    regularised = [c if c > 0 else UNSEEN_PAIRS for c in counts]
    total = sum(regularised)
    empirical = [c / total for c in regularised]
    p0 = constrained_mle(empirical, expected_score(elo0), scores)
    p1 = constrained_mle(empirical, expected_score(elo1), scores)
    return total * sum(p * (math.log(b) - math.log(a)) for p, a, b in zip(empirical, p0, p1))


def constrained_mle(empirical: Sequence[float], mean: float, scores: Sequence[float] = TRINOMIAL_SCORES) -> list[float]:
    """The distribution on ``scores`` with the given mean that maximises the likelihood of the
    (all positive) ``empirical`` frequencies."""
    deviations = [a - mean for a in scores]

    def slope(theta: float) -> float:
        # decreasing in theta on (-1/max deviation, -1/min deviation), from +inf to -inf
        return sum(p * d / (1 + theta * d) for p, d in zip(empirical, deviations))

    low, high = -1 / max(deviations), -1 / min(deviations)
    while True:
        middle = (low + high) / 2
        if middle in (low, high):
            break
        if slope(middle) > 0:
            low = middle
        else:
            high = middle
    return [p / (1 + middle * d) for p, d in zip(empirical, deviations)]


class SprtState:
    """The running test: feed it pair scores, read the LLR, the bounds and the decision."""

    def __init__(self, params: SprtParams) -> None:
        self.params = params
        self.ptnml = Pentanomial()
        self.draws = False  # a pair scored 1/4 or 3/4, or a drawn game was reported
        self._llr: float | None = 0.0  # None: stale, recomputed on the next read

    def add_pair(self, score: float, drawn: bool = False) -> None:
        """Count one pair: the tested engine's mean score over its two games (0, 1/4, 1/2, 3/4
        or 1); ``drawn`` when a game of the pair was drawn (a 1/2 of two draws)."""
        self.ptnml = self.ptnml.add(score)
        self.draws = self.draws or drawn or score in (0.25, 0.75)
        self._llr = None

    @property
    def counts(self) -> tuple[int, ...]:
        """Pairs lost twice, split, won twice (a game without draws so far), else the five
        pentanomial counts."""
        a, b, c, d, e = self.ptnml.counts
        return (a, b, c, d, e) if self.draws else (a, c, e)

    @property
    def pairs(self) -> int:
        return self.ptnml.pairs

    @property
    def llr(self) -> float:
        if self._llr is None:
            self._llr = pair_llr(self.counts, self.params.elo0, self.params.elo1)
        return self._llr

    @property
    def lower(self) -> float:
        return self.params.lower

    @property
    def upper(self) -> float:
        return self.params.upper

    @property
    def decision(self) -> str | None:
        """``H1 accepted``, ``H0 accepted``, or None while the test goes on."""
        llr = self.llr
        if llr >= self.upper:
            return H1_ACCEPTED
        if llr <= self.lower:
            return H0_ACCEPTED
        return None

    def progress(self) -> str:
        """``LLR: 1.23 (-2.94, 2.94) [0.00, 10.00]``: the LLR, its bounds, and elo0, elo1."""
        p = self.params
        return f"LLR: {self.llr:.2f} ({self.lower:.2f}, {self.upper:.2f}) [{p.elo0:.2f}, {p.elo1:.2f}]"

    def summary(self) -> str:
        """The final line: the decision (or that none was reached) after how many pairs."""
        outcome = self.decision or "no decision"
        if self.draws:
            pairs = self.ptnml.line()
        else:
            losses, splits, wins = self.counts
            pairs = f"won {wins}, split {splits}, lost {losses}"
        return f"SPRT ({self.params.text()}): {outcome} after {self.pairs} pairs ({pairs}); {self.progress()}"
