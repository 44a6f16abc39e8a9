"""The Texel error of a set of weights, the fit of its scale ``k``, and the search for the weights
that minimise it.

The error is the mean of ``(result - 1 / (1 + 10 ** (-k * score / 400))) ** 2`` over the
labelled positions, ``score`` being the engine's static evaluation from White's side.  Weights
are integers (the engine's evaluation is integer arithmetic), searched by coordinate descent:
each weight in turn moves up or down by its step while that lowers the error; when a whole
round lowers it no further, the steps are halved; the search ends when no weight moves at
step 1.  Every weight stays at or above its ``min`` (a dataclass field's metadata; 0 if none).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Collection, Sequence
from typing import TypeVar

from dipole_engine.evaluate import Weights, hooks_for

from .positions import LabelledPosition, white_score

W = TypeVar("W", bound=Weights)


def scores(positions: Sequence[LabelledPosition], weights: Weights) -> list[int]:
    """Each position's static evaluation with ``weights``, from White's side."""
    return [white_score(p.board, hooks_for(p.board, weights).evaluate()) for p in positions]


def mean_error(positions: Sequence[LabelledPosition], white_scores: Sequence[int], k: float) -> float:
    """The mean squared error of the expected results of ``white_scores`` at scale ``k``."""
    scale = -k / 400 * math.log(10)
    total = 0.0
    for position, score in zip(positions, white_scores, strict=True):
        exponent = scale * score
        expected = 0.0 if exponent > 700 else 1.0 / (1.0 + math.exp(exponent))
        total += (position.white_result - expected) ** 2
    return total / len(positions)


def fit_k(positions: Sequence[LabelledPosition], white_scores: Sequence[int]) -> float:
    """The scale ``k`` (between 0.01 and 10) that minimises the error of ``white_scores``: a
    golden-section search, the error being unimodal in ``k``."""
    low, high = 0.01, 10.0
    ratio = (math.sqrt(5) - 1) / 2
    a, b = high - ratio * (high - low), low + ratio * (high - low)
    error_a, error_b = mean_error(positions, white_scores, a), mean_error(positions, white_scores, b)
    while high - low > 1e-4:
        if error_a < error_b:
            high, b, error_b = b, a, error_a
            a = high - ratio * (high - low)
            error_a = mean_error(positions, white_scores, a)
        else:
            low, a, error_a = a, b, error_b
            b = low + ratio * (high - low)
            error_b = mean_error(positions, white_scores, b)
    return (low + high) / 2


def weight_error(positions: Sequence[LabelledPosition], weights: Weights, k: float) -> float:
    """The error of ``weights`` at scale ``k``."""
    return mean_error(positions, scores(positions, weights), k)


def tune(
    positions: Sequence[LabelledPosition],
    start: W,
    k: float,
    report: Callable[[W, float], None] = lambda weights, error: None,
    max_rounds: int = 100,
    held: Collection[str] = (),
) -> tuple[W, float]:
    """The weights, from ``start``, that coordinate descent finds for the lowest error at scale
    ``k``, and that error; ``report`` sees each improvement.  The weights named in ``held``
    keep their start values."""
    best, best_error = start, weight_error(positions, start, k)
    fields = [f for f in dataclasses.fields(start) if f.name not in held]
    steps = {f.name: max(1, abs(getattr(start, f.name)) // 4) for f in fields}
    for _ in range(max_rounds):
        improved = False
        for f in fields:
            lowest = f.metadata.get("min", 0)
            for direction in (1, -1):
                while True:
                    value = getattr(best, f.name) + direction * steps[f.name]
                    if value < lowest:
                        break
                    trial = dataclasses.replace(best, **{f.name: value})
                    error = weight_error(positions, trial, k)
                    if error >= best_error:
                        break
                    best, best_error, improved = trial, error, True
                    report(best, best_error)
        if not improved:
            if all(step == 1 for step in steps.values()):
                break
            steps = {name: max(1, step // 2) for name, step in steps.items()}
    return best, best_error
