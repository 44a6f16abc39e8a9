"""Draws in the statistics: W-D-L tallies and fastchess's summary lines, the Elo estimate and
LOS with draws checked by hand, pentanomial counts of colour-reversed pairs, and the SPRT on
them against a hand computation, a search over all distributions, and fastchess's formula."""

from __future__ import annotations

import math
import random

import pytest

from arbiter.events.pairings import EventShape, plan_event
from arbiter.events.store import ScheduledGame
from arbiter.records.game import BLACK_WINS, DRAW, UNFINISHED, WHITE_WINS, GameOutcome, Termination
from arbiter.stats.ratings import fit_ratings
from arbiter.stats.sprt import SprtParams, SprtState, constrained_mle, expected_score, pair_llr
from arbiter.stats.sprt_monitor import SprtMonitor, consecutive_pairs
from arbiter.stats.tallies import (
    PAIR_SCORES,
    MatchStats,
    Pentanomial,
    Results,
    consecutive_partner,
    elo_estimate,
    pair_score,
)


def outcome(number: int, white: str, black: str, result: str) -> GameOutcome:
    termination = Termination.UNTERMINATED if result == UNFINISHED else Termination.NORMAL
    return GameOutcome(number, white, black, result, termination, "", 10)


def match_games(results: list[str]) -> list[GameOutcome]:
    """Games 1, 2, ... of a match new vs old, colours swapped every game (pairs 1-2, 3-4, ...)."""
    return [outcome(n, *(("new", "old") if n % 2 else ("old", "new")), result) for n, result in enumerate(results, 1)]


def test_elo_and_los_with_draws_by_hand() -> None:
    # 5 wins, 3 losses, 2 draws: p = 6/10 = 0.6; per-game variance
    # (5 * 0.4^2 + 3 * 0.6^2 + 2 * 0.1^2) / 10 = 0.19, s = sqrt(0.019) = 0.1378405;
    # p -/+ 1.959964 s = [0.3298376, 0.8701624] -> Elo [-123.1520, 330.4799]: half-width 226.8159.
    # LOS = (1 + erf(2 / sqrt(16))) / 2 = 0.7602499 (draws do not enter it).
    estimate = elo_estimate(5, 3, 2)
    assert estimate.elo == pytest.approx(70.437, abs=1e-3)
    assert estimate.margin == pytest.approx(226.816, abs=1e-3)
    assert estimate.los == pytest.approx(0.7602499, abs=1e-7)
    assert estimate.text() == "Elo difference: 70.4 +/- 226.8, LOS: 76.0 %"
    # all draws: score 1/2, no spread, no evidence either way
    assert elo_estimate(0, 0, 4).elo == 0 and elo_estimate(0, 0, 4).los == 0.5


def test_a_match_summary_counts_draws_and_pairs() -> None:
    # new's pairs: (1-0, 1/2) = 1.5 points, (1/2, 1/2) = 1, (0-1 as White, 1/2) = 0.5, (1-0, 0-1)
    # = 2, then pair 9-10 with an unfinished game, and game 11 drawn whose partner is to come
    results = [WHITE_WINS, DRAW, DRAW, DRAW, BLACK_WINS, DRAW, WHITE_WINS, BLACK_WINS, DRAW, UNFINISHED, DRAW]
    games = match_games(results)
    stats = MatchStats(["new", "old"], consecutive_partner(12))
    for game in games:
        stats.add(game)
    tally = stats.pair("new", "old")
    assert (tally.wins, tally.losses, tally.draws) == (3, 1, 6)
    summary = stats.summary("new", "old")
    assert summary[0] == "Score of new vs old: 3 - 1 - 6  [0.600] 10"
    assert "...      White vs Black: 2 - 2 - 6  [0.500] 10" in summary
    assert "Games: 10, Wins: 3, Losses: 1, Draws: 6, Points: 6.0 (60.00 %)" in summary
    assert "Ptnml(0-2): [0, 1, 1, 1, 1]" in summary
    table = summary[summary.index("") + 1 :]
    header = "Engine  Games  Wins  Losses  Draws   Score  White W-L-D  Black W-L-D"
    assert table[0] == header
    assert table[1].split() == ["new", "10", "3", "1", "6", "60.0%", "2-1-3", "1-0-3"]
    assert table[2].split() == ["old", "10", "1", "3", "6", "40.0%", "0-1-3", "1-2-3"]
    assert "Unfinished games (not scored): 1" in summary
    assert stats.paired is not None and stats.paired.unscored == 1
    stats.add(outcome(12, "old", "new", WHITE_WINS))  # game 11's partner: new scores 1/2 of 2
    assert stats.paired.ptnml.counts == (0, 2, 1, 1, 1)


def test_a_match_without_draws_keeps_its_numbers() -> None:
    stats = MatchStats(["new", "old"], consecutive_partner(4))
    for game in match_games([WHITE_WINS, WHITE_WINS, WHITE_WINS, BLACK_WINS]):
        stats.add(game)
    summary = stats.summary("new", "old")
    assert summary[0] == "Score of new vs old: 3 - 1 - 0  [0.750] 4"
    assert "Games: 4, Wins: 3, Losses: 1, Draws: 0, Points: 3.0 (75.00 %)" in summary
    assert "Ptnml(0-2): [0, 0, 1, 0, 1]" in summary
    assert summary[summary.index("") + 1].split()[-4:] == ["White", "W-L", "Black", "W-L"]


def test_pair_scores_and_pentanomial() -> None:
    assert [pair_score(match_games(pair), "new") for pair in ([DRAW, WHITE_WINS], [DRAW, BLACK_WINS])] == [0.25, 0.75]
    assert pair_score(match_games([DRAW, DRAW]), "old") == 0.5
    ptnml = Pentanomial()
    for score in (0, 0.25, 0.25, 1):
        ptnml = ptnml.add(score)
    assert ptnml.counts == (1, 2, 0, 0, 1) and ptnml.pairs == 4
    assert ptnml.line() == "Ptnml(0-2): [1, 2, 0, 0, 1]"
    with pytest.raises(ValueError, match=r"a pair scores 0, 1/4, 1/2, 3/4 or 1, not 0\.3"):
        ptnml.add(0.3)
    assert Results.of_game(DRAW, white=False) == Results(draws=1)
    assert Results.of_game(BLACK_WINS, white=False) == Results(wins=1)


def test_pentanomial_llr_by_hand() -> None:
    # Ptnml [1, 2, 4, 2, 1]: the mean is 1/2 = s0 (elo0 = 0), so p0 is the empirical distribution
    # itself (theta = 0).  For s1 = expected_score(10) = 0.5143872 the deviations d = a - s1 have
    # mean E[d] = -0.0143872 and E[d^2] = 0.075 + 0.0143872^2 = 0.0752070; theta solves
    # sum p^ d / (1 + theta d) = 0, to first order theta = E[d] / E[d^2] = -0.1913 (exactly
    # -0.191566), and LLR = N sum p^ log(p1 / p^) = -N sum p^ log(1 + theta d), to second order
    # -N E[d]^2 / (2 E[d^2]) = -0.013762 (exactly -0.013790).
    counts = [1, 2, 4, 2, 1]
    empirical = [c / 10 for c in counts]
    s1 = expected_score(10)
    assert s1 == pytest.approx(0.5143872, abs=1e-7)
    p1 = constrained_mle(empirical, s1, PAIR_SCORES)
    assert sum(p1) == pytest.approx(1, abs=1e-12)
    assert sum(p * a for p, a in zip(p1, PAIR_SCORES)) == pytest.approx(s1, abs=1e-12)
    theta = (empirical[0] / p1[0] - 1) / (PAIR_SCORES[0] - s1)
    assert theta == pytest.approx(-0.191566, abs=1e-6)
    assert all(q == pytest.approx(p / (1 + theta * (a - s1)), abs=1e-12) for p, q, a in zip(empirical, p1, PAIR_SCORES))
    llr = -10 * sum(p * math.log(1 + theta * (a - s1)) for p, a in zip(empirical, PAIR_SCORES))
    assert pair_llr(counts, 0, 10) == pytest.approx(llr, abs=1e-12)
    assert llr == pytest.approx(-0.013790, abs=1e-6)
    assert llr == pytest.approx(-10 * 0.0143872**2 / (2 * 0.0752070), rel=0.01)


def test_pentanomial_mle_beats_every_other_distribution_with_that_mean() -> None:
    rng = random.Random(7)
    counts = [3, 11, 47, 25, 16]
    total = sum(counts)
    empirical = [c / total for c in counts]
    for mean in (0.48, 0.5, 0.514, 0.6):
        best = constrained_mle(empirical, mean, PAIR_SCORES)
        best_value = sum(c * math.log(p) for c, p in zip(counts, best))
        for _ in range(2000):
            # a random distribution, moved along (1, 0, 0, 0, -1)-like directions to the mean
            raw = [rng.random() + 0.01 for _ in PAIR_SCORES]
            p = [x / sum(raw) for x in raw]
            shift = mean - sum(q * a for q, a in zip(p, PAIR_SCORES))
            low, high = (0, 4) if shift > 0 else (4, 0)
            move = abs(shift)  # moving mass m from score 0 to 1 (or back) moves the mean by m
            if p[low] <= move:
                continue
            p[low] -= move
            p[high] += move
            assert sum(c * math.log(q) for c, q in zip(counts, p)) <= best_value + 1e-9


@pytest.mark.parametrize(
    "counts",
    [[1, 11, 47, 25, 16], [1, 15, 25, 33, 26], [1, 24, 42, 25, 8], [2, 23, 32, 35, 8], [10, 20, 40, 20, 10]],
)
def test_pentanomial_llr_is_close_to_fastchess_logistic_formula(counts: list[int]) -> None:
    # fastchess's logistic pentanomial LLR: 0.5 N log(var0 / var1), var_j the mean squared
    # deviation of the pair scores from s_j: the second-order approximation of the exact GSPRT.
    pairs = sum(counts)

    def spread(score: float) -> float:
        return sum(n * (a - score) ** 2 for n, a in zip(counts, PAIR_SCORES)) / pairs

    fastchess = 0.5 * pairs * math.log(spread(expected_score(0)) / spread(expected_score(10)))
    assert pair_llr(counts, 0, 10) == pytest.approx(fastchess, rel=0.05, abs=0.01)


def test_sprt_state_goes_pentanomial_at_the_first_draw() -> None:
    state = SprtState(SprtParams(0, 10))
    for score in (1, 0.5, 1):
        state.add_pair(score)
    assert state.counts == (0, 1, 2) and not state.draws
    assert state.llr == pair_llr([0, 1, 2], 0, 10)
    assert "(won 2, split 1, lost 0)" in state.summary()
    state.add_pair(0.5, drawn=True)  # two draws
    assert state.draws and state.counts == (0, 0, 2, 0, 2)
    assert state.llr == pair_llr([0, 0, 2, 0, 2], 0, 10)
    assert "after 4 pairs (Ptnml(0-2): [0, 0, 2, 0, 2]); LLR: " in state.summary()


def test_sprt_monitor_counts_drawn_pairs() -> None:
    monitor = SprtMonitor(SprtParams(0, 10), "new", consecutive_pairs(8))
    games = match_games([DRAW, WHITE_WINS, DRAW, BLACK_WINS, DRAW, DRAW, WHITE_WINS, BLACK_WINS])
    for game in reversed(games):  # out of order: pairs still count in schedule order
        monitor.add(game)
    assert monitor.state.ptnml.counts == (0, 1, 1, 1, 1)
    assert monitor.state.llr == pytest.approx(pair_llr([0, 1, 1, 1, 1], 0, 10), abs=1e-12)
    assert monitor.skipped == 0


def test_draws_in_a_long_simulated_test_decide_the_right_way() -> None:
    """Pairs of a chess-like game (40% draws) between engines 50 Elo apart: the pentanomial SPRT
    accepts H1; between equal engines it accepts H0."""

    def run(elo: float, seed: int) -> SprtState:
        rng = random.Random(seed)
        state = SprtState(SprtParams(0, 10))
        while state.decision is None and state.pairs < 20000:
            points, drawn = 0.0, False
            for advantage in (40, -40):
                score = expected_score(elo + advantage)
                win, draw = score - 0.2, 0.4  # mean score = win + draw / 2
                roll = rng.random()
                drawn = drawn or win <= roll < win + draw
                points += 1 if roll < win else 0.5 if roll < win + draw else 0
            state.add_pair(points / 2, drawn)
        return state

    assert all(run(50, seed).decision == "H1 accepted" for seed in range(4))
    assert all(run(0, seed).decision == "H0 accepted" for seed in range(4))


def test_a_game_record_draw_is_scored_half() -> None:
    stats = MatchStats(["a", "b"])
    stats.add(outcome(1, "a", "b", DRAW))
    assert stats.engines["a"].white == Results(draws=1) and stats.engines["b"].black == Results(draws=1)
    assert stats.colours == Results(draws=1) and stats.unfinished == 0


def test_a_swiss_scores_a_draw_half_a_point_each() -> None:
    """Four engines, two rounds of one game: every game of engine 0 is drawn, engine 1 wins the
    rest (engines 2 and 3 lose theirs)."""
    shape = EventShape("swiss", ("e0", "e1", "e2", "e3"), 2, 1, 8)
    schedule: list[ScheduledGame] = []
    results: dict[int, str] = {}
    plan = plan_event(shape, schedule, results)
    while not plan.complete:
        schedule += plan.next_games
        for game in plan.next_games:
            players = {game.white, game.black}
            if 0 in players:
                results[game.number] = DRAW
            else:
                winner = 1 if 1 in players else min(players)
                results[game.number] = WHITE_WINS if game.white == winner else BLACK_WINS
        plan = plan_event(shape, schedule, results)
    points = {engine: score for engine, score, _ in plan.standings}
    assert sum(points.values()) == 4  # four games, one point each
    assert points[0] == 1.0  # two draws
    assert points[1] in (1.5, 2.0)  # a draw with e0 and a win, or two wins


def test_bradley_terry_counts_a_draw_as_half_a_win() -> None:
    # a scores 2 wins and 2 draws against b: 3 of 4 points; the fit (a draw is half a win and
    # half a loss in the likelihood) matches the expected score 3/4: 400 log10(3) = 190.8485 Elo.
    games = [
        outcome(1, "a", "b", WHITE_WINS),
        outcome(2, "b", "a", BLACK_WINS),
        outcome(3, "a", "b", DRAW),
        outcome(4, "b", "a", DRAW),
    ]
    table = fit_ratings(games, advantage=False)
    assert table.prior_games == 0  # b scored (its draws): the plain estimate exists
    assert table.row("a").rating - table.row("b").rating == pytest.approx(400 * math.log10(3), abs=1e-6)
    assert table.row("a").score == 3.0 and table.crosstable.cell_text("a", "b") == "1-0-1/1-0-1"
