"""The SPRT on colour-reversed pairs: parsing with one-line errors, Wald's bounds, the GSPRT
log-likelihood ratio against a hand computation and a brute-force maximisation, and simulated
matches that stop the right way."""

from __future__ import annotations

import math
import random

import pytest

from arbiter.records.game import BLACK_WINS, UNFINISHED, WHITE_WINS, GameRecord, Termination
from arbiter.stats.sprt import (
    H0_ACCEPTED,
    H1_ACCEPTED,
    SprtError,
    SprtParams,
    SprtState,
    constrained_mle,
    expected_score,
    pair_llr,
    pair_score,
)


def test_parse_and_text():
    params = SprtParams.parse("elo0=0 elo1=10 alpha=0.05 beta=0.05")
    assert params == SprtParams(0, 10, 0.05, 0.05)
    assert SprtParams.parse("beta=0.1, alpha=0.02,elo1=5.5  elo0=-1.5") == SprtParams(-1.5, 5.5, 0.02, 0.1)
    assert params.text() == "elo0=0 elo1=10 alpha=0.05 beta=0.05"
    assert SprtParams.parse(params.text()) == params


@pytest.mark.parametrize(
    "text,message",
    [
        ("", "missing elo0, elo1, alpha, beta (expected e.g. elo0=0 elo1=10 alpha=0.05 beta=0.05)"),
        ("elo0=0 elo1=10 alpha=0.05", "missing beta"),
        ("elo0=0 elo1=10 alpha=0.05 beta", "'beta' is not key=value"),
        ("elo0=0 elo1=10 alpha=0.05 beta=0.05 gamma=1", "unknown key 'gamma' (the keys are elo0, elo1, alpha, beta)"),
        ("elo0=0 elo0=1 elo1=10 alpha=0.05 beta=0.05", "elo0 is given twice"),
        ("elo0=zero elo1=10 alpha=0.05 beta=0.05", "elo0='zero' is not a number"),
        ("elo0=0 elo1=10 alpha=0 beta=0.05", "alpha must be between 0 and 1 (exclusive), not 0"),
        ("elo0=0 elo1=10 alpha=0.05 beta=1.5", "beta must be between 0 and 1 (exclusive), not 1.5"),
        ("elo0=0 elo1=10 alpha=0.6 beta=0.5", "alpha + beta must be less than 1, not 1.1"),
        ("elo0=10 elo1=10 alpha=0.05 beta=0.05", "elo0 must be less than elo1 (got elo0=10 elo1=10)"),
        ("elo0=5 elo1=-5 alpha=0.05 beta=0.05", "elo0 must be less than elo1"),
        ("elo0=nan elo1=10 alpha=0.05 beta=0.05", "elo0 must be a finite number, not nan"),
        ("elo0=0 elo1=inf alpha=0.05 beta=0.05", "elo1 must be a finite number, not inf"),
    ],
)
def test_parse_errors_are_one_clear_line(text, message):
    with pytest.raises(SprtError) as error:
        SprtParams.parse(text)
    assert message in str(error.value) and "\n" not in str(error.value)


def test_bounds():
    params = SprtParams(0, 10, 0.05, 0.05)
    assert params.lower == pytest.approx(math.log(0.05 / 0.95)) == pytest.approx(-2.944, abs=1e-3)
    assert params.upper == pytest.approx(math.log(0.95 / 0.05)) == pytest.approx(2.944, abs=1e-3)
    asymmetric = SprtParams(0, 5, 0.01, 0.2)
    assert asymmetric.lower == pytest.approx(math.log(0.2 / 0.99))
    assert asymmetric.upper == pytest.approx(math.log(0.8 / 0.01))


def test_no_data_gives_zero_and_no_decision():
    state = SprtState(SprtParams.parse("elo0=0 elo1=10 alpha=0.05 beta=0.05"))
    assert state.llr == 0.0 and state.pairs == 0 and state.decision is None
    assert state.progress() == "LLR: 0.00 (-2.94, 2.94) [0.00, 10.00]"
    assert pair_llr([0, 0, 0], -5, 5) == 0.0


def test_llr_by_hand_on_a_small_sample():
    # 6 pairs: 1 lost, 2 split, 3 won; the empirical distribution p^ = (1/6, 2/6, 3/6).
    # H0 (elo0 = 0, s0 = 1/2): sum p^_i (a_i - s0) / (1 + theta (a_i - s0)) = 0 has theta = 1 (the
    # split term vanishes; -1/6 * 1/2 / (1 - 1/2) + 1/2 * 1/2 / (1 + 1/2) = 0), so p0 = (1/3, 1/3, 1/3).
    assert constrained_mle([1 / 6, 2 / 6, 3 / 6], 0.5) == pytest.approx([1 / 3, 1 / 3, 1 / 3], abs=1e-14)
    # H1 (elo1 = 10): clearing denominators turns the same equation into A theta^2 + B theta + C = 0
    # with d = a - s1: A = d0 d1 d2, B = sum_i p^_i d_i (d_j + d_k), C = sum_i p^_i d_i; the root
    # that keeps every 1 + theta d_i positive gives p1.
    s1 = 1 / (1 + 10 ** (-10 / 400))
    empirical = [1 / 6, 2 / 6, 3 / 6]
    d = [0 - s1, 0.5 - s1, 1 - s1]
    a = d[0] * d[1] * d[2]
    b = empirical[0] * d[0] * (d[1] + d[2]) + empirical[1] * d[1] * (d[0] + d[2]) + empirical[2] * d[2] * (d[0] + d[1])
    c = sum(p * x for p, x in zip(empirical, d))
    roots = [(-b + sign * math.sqrt(b * b - 4 * a * c)) / (2 * a) for sign in (1, -1)]
    theta = next(r for r in roots if all(1 + r * x > 0 for x in d))
    p1 = [p / (1 + theta * x) for p, x in zip(empirical, d)]
    assert p1 == pytest.approx(constrained_mle(empirical, s1), abs=1e-12)
    assert sum(p1) == pytest.approx(1) and sum(p * v for p, v in zip(p1, (0, 0.5, 1))) == pytest.approx(s1)
    llr = 6 * sum(p * math.log(q1 / (1 / 3)) for p, q1 in zip(empirical, p1))
    assert llr == pytest.approx(0.0829121, abs=1e-7)
    state = SprtState(SprtParams(0, 10))
    for score in (0, 0.5, 0.5, 1, 1, 1):
        state.add_pair(score)
    assert state.counts == (1, 2, 3) and state.pairs == 6
    assert state.llr == pytest.approx(llr, abs=1e-12)
    assert state.progress() == "LLR: 0.08 (-2.94, 2.94) [0.00, 10.00]"


def best_log_likelihood(counts: list[int], mean: float) -> float:
    """max of sum n_i log p_i over trinomials on (0, 1/2, 1) with the given mean, by brute force:
    with the split probability q, p_won = mean - q/2 and p_lost = 1 - mean - q/2."""

    def value(q: float) -> float:
        p = (1 - mean - q / 2, q, mean - q / 2)
        return sum(n * math.log(x) for n, x in zip(counts, p))

    low, high = 1e-12, min(2 * mean, 2 - 2 * mean) - 1e-12
    for _ in range(200):  # golden-section search: the function is concave in q
        m1, m2 = low + (high - low) * 0.382, low + (high - low) * 0.618
        if value(m1) < value(m2):
            low = m1
        else:
            high = m2
    return value((low + high) / 2)


@pytest.mark.parametrize(
    "counts,elo0,elo1",
    [
        ([5, 11, 9], 0, 10),
        ([40, 52, 38], -5, 5),
        ([3, 20, 12], 0, 50),
        ([17, 9, 4], -20, 0),
        ([1, 1, 30], 0, 200),
    ],
)
def test_llr_is_the_generalised_likelihood_ratio(counts, elo0, elo1):
    expected = best_log_likelihood(counts, expected_score(elo1)) - best_log_likelihood(counts, expected_score(elo0))
    assert pair_llr(counts, elo0, elo1) == pytest.approx(expected, abs=1e-6)


def test_unseen_scores_are_regularised_like_fastchess():
    won_every_pair = pair_llr([0, 0, 12], 0, 10)
    assert math.isfinite(won_every_pair) and won_every_pair > 0
    assert won_every_pair == pytest.approx(pair_llr([1e-3, 1e-3, 12], 0, 10), abs=1e-12)
    assert pair_llr([12, 0, 0], 0, 10) < 0


def test_llr_rises_with_better_results():
    assert pair_llr([10, 10, 10], 0, 10) < pair_llr([9, 11, 10], 0, 10) < pair_llr([9, 10, 11], 0, 10)


def test_add_pair_rejects_impossible_scores():
    state = SprtState(SprtParams(0, 10))
    for bad in (2, -1, 0.3):
        with pytest.raises(ValueError, match="a pair scores 0, 1/4, 1/2, 3/4 or 1"):
            state.add_pair(bad)
    with pytest.raises(ValueError, match="three or five non-negative numbers"):
        pair_llr([1, 2], 0, 10)


def simulate(elo: float, params: SprtParams, seed: int, limit: int = 20000) -> SprtState:
    """Pairs between an engine ``elo`` stronger and its opponent, with a first-move advantage
    that cancels within each pair, until the test decides."""
    rng = random.Random(seed)
    as_white, as_black = expected_score(elo + 40), expected_score(elo - 40)
    state = SprtState(params)
    while state.decision is None and state.pairs < limit:
        state.add_pair(((rng.random() < as_white) + (rng.random() < as_black)) / 2)
    return state


def test_clearly_stronger_engine_stops_with_h1():
    params = SprtParams.parse("elo0=0 elo1=10 alpha=0.05 beta=0.05")
    for seed in range(6):
        state = simulate(100, params, seed)
        assert state.decision == H1_ACCEPTED and state.llr >= state.upper
        assert state.pairs < 1000
    assert "H1 accepted after" in state.summary()


def test_equal_engines_stop_with_h0():
    params = SprtParams.parse("elo0=0 elo1=30 alpha=0.05 beta=0.05")
    outcomes = [simulate(0, params, seed) for seed in range(12)]
    # alpha = 5%: an H1 among 12 runs would be unlucky; these seeds give none
    assert all(state.decision == H0_ACCEPTED and state.llr <= state.lower for state in outcomes)
    assert all(state.pairs < 5000 for state in outcomes)


def test_decision_follows_the_llr():
    state = SprtState(SprtParams(0, 10))
    while state.decision is None:
        state.add_pair(1)
    assert state.decision == H1_ACCEPTED and state.llr >= state.upper
    before = SprtState(SprtParams(0, 10))
    for _ in range(state.pairs - 1):
        before.add_pair(1)
    assert before.llr < before.upper and before.decision is None
    losing = SprtState(SprtParams(0, 10))
    while losing.decision is None:
        losing.add_pair(0)
    assert losing.decision == H0_ACCEPTED and losing.llr <= losing.lower
    assert losing.summary().startswith(
        f"SPRT (elo0=0 elo1=10 alpha=0.05 beta=0.05): H0 accepted after {losing.pairs} pairs"
    )


def test_pair_score_from_game_records():
    def game(white: str, black: str, result: str) -> GameRecord:
        return GameRecord(1, white, black, "dipole", None, (), result, Termination.NORMAL, "")

    won_both = [game("new", "old", WHITE_WINS), game("old", "new", BLACK_WINS)]
    split = [game("new", "old", WHITE_WINS), game("old", "new", WHITE_WINS)]
    assert pair_score(won_both, "new") == 1 and pair_score(won_both, "old") == 0
    assert pair_score(split, "new") == pair_score(split, "old") == 0.5
    for bad in ([won_both[0]], [won_both[0], won_both[0]], [game("new", "x", WHITE_WINS), won_both[1]]):
        with pytest.raises(ValueError, match="not a colour-reversed pair"):
            pair_score(bad, "new")
    with pytest.raises(ValueError, match="not a colour-reversed pair"):
        pair_score(won_both, "other")
    with pytest.raises(ValueError, match=r"has no result \(\*\)"):
        pair_score([won_both[0], game("old", "new", UNFINISHED)], "new")
