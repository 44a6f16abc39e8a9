"""Ratings: the Bradley-Terry fit against hand computations and the two-engine formula, the
White advantage recovered from synthetic games, the prior for unbounded cases, the scale,
the likelihood of superiority, the crosstable and the text tables."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.records.game import BLACK_WINS, UNFINISHED, WHITE_WINS, GameRecord, Termination
from arbiter.stats.ratings import (
    DRAW,
    ELO_PER_LOGIT,
    FLAG_ALL_LOSSES,
    FLAG_ALL_WINS,
    FLAG_PRIOR,
    FLAG_SEPARATED,
    RatingError,
    RatingTable,
    Results,
    fit_ratings,
    parse_anchor,
)
from arbiter.stats.tallies import Z_95, elo_estimate, elo_from_score

LOG3 = 400 * math.log10(3)  # the Elo difference that expects a 3-1 score: 190.848...


def game(white: str, black: str, result: str, number: int = 1) -> GameRecord:
    termination = Termination.UNTERMINATED if result == UNFINISHED else Termination.NORMAL
    return GameRecord(number, white, black, "dipole", None, (), result, termination, "")


def games_between(
    first: str, second: str, white_wins: int, white_losses: int, black_wins: int, black_losses: int
) -> list[GameRecord]:
    """``first``'s results against ``second``: W-L as White, then W-L as Black."""
    return (
        [game(first, second, WHITE_WINS)] * white_wins
        + [game(first, second, BLACK_WINS)] * white_losses
        + [game(second, first, BLACK_WINS)] * black_wins
        + [game(second, first, WHITE_WINS)] * black_losses
    )


def sigmoid_elo(diff: float) -> float:
    return 1 / (1 + 10 ** (-diff / 400))


def synthetic(true: dict[str, float], advantage: float, games_per_colour: int, seed: int) -> list[GameRecord]:
    rng = random.Random(seed)
    games = []
    for white, white_elo in true.items():
        for black, black_elo in true.items():
            if white != black:
                p = sigmoid_elo(white_elo - black_elo + advantage)
                games += [
                    game(white, black, WHITE_WINS if rng.random() < p else BLACK_WINS) for _ in range(games_per_colour)
                ]
    return games


def difference(table: RatingTable, first: str, second: str) -> float:
    return table.row(first).rating - table.row(second).rating


# --- hand computations ---------------------------------------------------------------------


def test_two_engines_three_to_one_with_equal_colours_by_hand():
    # A scores 3-1 as White and 3-1 as Black: no colour effect, so the advantage is 0 and the
    # difference is the 3-1 Elo; each colour cell has information 4 * 3/4 * 1/4 = 0.75 (log-odds),
    # so the difference and the advantage both have information 1.5 and are uncorrelated.
    table = fit_ratings(games_between("A", "B", 3, 1, 3, 1))
    assert difference(table, "A", "B") == pytest.approx(LOG3, abs=1e-9)
    assert table.white_advantage.value == pytest.approx(0, abs=1e-9)
    sd_difference = ELO_PER_LOGIT / math.sqrt(1.5)
    assert table.difference_sd("A", "B") == pytest.approx(sd_difference, rel=1e-9)
    assert table.white_advantage.error == pytest.approx(Z_95 * sd_difference, rel=1e-9)
    a = table.row("A")  # pool average 0: r_A = d / 2, so its error is half the difference's
    assert a.rating == pytest.approx(LOG3 / 2, abs=1e-9)
    assert a.ci_high - a.rating == pytest.approx(Z_95 * sd_difference / 2, rel=1e-9)
    assert table.los("A", "B") == pytest.approx(0.5 * math.erfc(-LOG3 / sd_difference / math.sqrt(2)), rel=1e-12)
    assert table.prior_games == 0 and not table.notes and all(not row.flag for row in table.rows)


def test_plain_bradley_terry_three_to_one_by_hand():
    table = fit_ratings(games_between("A", "B", 3, 1, 0, 0), advantage=False)
    assert difference(table, "A", "B") == pytest.approx(LOG3, abs=1e-9)
    assert table.white_advantage is None
    assert table.difference_sd("A", "B") == pytest.approx(ELO_PER_LOGIT / math.sqrt(4 * 0.75 * 0.25), rel=1e-9)


def test_a_draw_counts_as_half_a_win_and_half_a_loss():
    two_wins_two_draws = [
        game("A", "B", WHITE_WINS),
        game("B", "A", BLACK_WINS),
        game("A", "B", DRAW),
        game("B", "A", DRAW),
    ]
    table = fit_ratings(two_wins_two_draws, advantage=False)
    assert difference(table, "A", "B") == pytest.approx(LOG3, abs=1e-9)  # 3 points of 4, as 3-1
    assert table.row("A").score == 3 and table.crosstable.cell("A", "B").as_white == Results(1, 0, 1)
    even = fit_ratings([game("A", "B", WHITE_WINS), game("A", "B", BLACK_WINS), game("B", "A", DRAW)])
    assert difference(even, "A", "B") == pytest.approx(0, abs=1e-9)


# --- the two-engine formula -----------------------------------------------------------------


@pytest.mark.parametrize("wins,losses", [(3, 1), (7, 3), (13, 20), (55, 45), (1, 9)])
def test_same_elo_difference_as_the_two_engine_formula(wins, losses):
    expected = elo_estimate(wins, losses).elo
    assert expected == pytest.approx(elo_from_score(wins / (wins + losses)))
    rng = random.Random(wins * 100 + losses)
    results = [WHITE_WINS] * wins + [BLACK_WINS] * losses
    rng.shuffle(results)
    # without a colour term, any colours give the two-engine answer
    shuffled = [
        game("A", "B", r) if rng.random() < 0.5 else game("B", "A", BLACK_WINS if r == WHITE_WINS else WHITE_WINS)
        for r in results
    ]
    assert difference(fit_ratings(shuffled, advantage=False), "A", "B") == pytest.approx(expected, abs=1e-8)
    # with it, balanced colours (the same results with each colour) give it too
    balanced = games_between("A", "B", wins, losses, wins, losses)
    table = fit_ratings(balanced)
    assert difference(table, "A", "B") == pytest.approx(elo_estimate(2 * wins, 2 * losses).elo, abs=1e-8)
    assert table.white_advantage.value == pytest.approx(0, abs=1e-8)


def test_interval_agrees_with_the_two_engine_margin_on_a_large_sample():
    # the observed information gives the delta-method interval; cutechess-cli maps the score
    # interval through the Elo curve: the two agree when the interval is narrow
    table = fit_ratings(games_between("A", "B", 330, 270, 330, 270))
    margin = elo_estimate(660, 540).margin
    assert Z_95 * table.difference_sd("A", "B") == pytest.approx(margin, rel=0.01)


# --- many engines ---------------------------------------------------------------------------

TRUE = {"alpha": 250.0, "beta": 120.0, "gamma": 0.0, "delta": -40.0, "epsilon": -130.0, "zeta": -200.0}


def test_white_advantage_and_ratings_recovered_from_synthetic_games():
    mean = sum(TRUE.values()) / len(TRUE)
    games = synthetic(TRUE, advantage=60, games_per_colour=300, seed=1)
    table = fit_ratings(games)
    adv = table.white_advantage
    # 9000 games: the advantage's sd is about 4.4 Elo, a rating's about 6; allow three sd
    assert adv.error < 10 and not adv.flag
    assert abs(adv.value - 60) < 1.5 * adv.error
    for name, rating in TRUE.items():
        row = table.row(name)
        assert row.error < 15
        assert abs(row.rating - (rating - mean)) < 1.5 * row.error
    assert [row.name for row in table.rows] == sorted(TRUE, key=TRUE.get, reverse=True)
    assert sum(row.rating for row in table.rows) == pytest.approx(0, abs=1e-6)
    assert [row.rank for row in table.rows] == list(range(1, 7))


def test_fit_solves_the_score_equations():
    # at the maximum each engine's expected score equals its actual score, and White's expected
    # points equal White's actual points (the likelihood equations of the model)
    games = synthetic({"a": 100, "b": 0, "c": -50, "d": -120}, advantage=30, games_per_colour=9, seed=3)
    table = fit_ratings(games)
    rating = {row.name: row.rating for row in table.rows}
    adv = table.white_advantage.value
    expected = dict.fromkeys(rating, 0.0)
    expected_white = 0.0
    for g in games:
        p = sigmoid_elo(rating[g.white] - rating[g.black] + adv)
        expected[g.white] += p
        expected[g.black] += 1 - p
        expected_white += p
    for row in table.rows:
        assert expected[row.name] == pytest.approx(row.score, abs=1e-7)
    assert expected_white == pytest.approx(table.white_points, abs=1e-7)


def test_transitive_three_engines():
    games = (
        games_between("A", "B", 4, 1, 3, 2) + games_between("B", "C", 4, 1, 3, 2) + games_between("A", "C", 5, 0, 4, 1)
    )
    table = fit_ratings(games)
    assert table.names == ("A", "B", "C")
    assert table.los("A", "B") > 0.5 and table.los("B", "C") > 0.5
    assert table.los("A", "C") > max(table.los("A", "B"), table.los("B", "C"))
    assert difference(table, "A", "C") > max(difference(table, "A", "B"), difference(table, "B", "C"))
    assert table.prior_games == 0


def test_los_is_antisymmetric():
    table = fit_ratings(synthetic({"a": 30, "b": 0, "c": -10, "d": 5}, advantage=20, games_per_colour=5, seed=11))
    for a in table.names:
        assert table.los(a, a) == 0.5
        for b in table.names:
            assert table.los(a, b) + table.los(b, a) == pytest.approx(1, abs=1e-12)
            assert (table.los(a, b) > 0.5) == (table.row(a).rating > table.row(b).rating) or a == b


def test_anchor_shifts_every_rating():
    games = synthetic({"a": 100, "b": 0, "c": -60}, advantage=0, games_per_colour=20, seed=5)
    free = fit_ratings(games)
    anchored = fit_ratings(games, anchor=("b", 1500))
    shift = 1500 - free.row("b").rating
    for row in free.rows:
        assert anchored.row(row.name).rating == pytest.approx(row.rating + shift, abs=1e-9)
    b = anchored.row("b")
    assert b.rating == 1500 and b.ci_low == pytest.approx(1500) and b.ci_high == pytest.approx(1500)
    # the others' errors are now those of their difference to the anchor
    assert anchored.row("a").error == pytest.approx(Z_95 * free.difference_sd("a", "b"), rel=1e-9)
    for x in free.names:
        for y in free.names:
            assert anchored.los(x, y) == pytest.approx(free.los(x, y), abs=1e-12)
    assert "b anchored at 1500" in anchored.text()


def test_anchor_errors():
    games = games_between("A", "B", 3, 1, 3, 1)
    with pytest.raises(RatingError, match="'Z' is not among the engines"):
        fit_ratings(games, anchor=("Z", 0))
    with pytest.raises(RatingError, match="'C' has no finished games"):
        fit_ratings(games + [game("A", "C", UNFINISHED)], anchor=("C", 0))
    assert parse_anchor("stockfish=3000") == ("stockfish", 3000.0)
    assert parse_anchor("a=b=-12.5") == ("a=b", -12.5)
    for bad, message in [
        ("noequals", "is not NAME=RATING"),
        ("=5", "is not NAME=RATING"),
        ("x=high", "is not a number"),
        ("x=inf", "must be finite"),
    ]:
        with pytest.raises(RatingError, match=message):
            parse_anchor(bad)


# --- when the maximum likelihood does not exist --------------------------------------------


def test_perfect_score_gets_a_finite_flagged_rating_above_the_others():
    games = (
        games_between("ace", "b", 5, 0, 5, 0)
        + games_between("ace", "c", 5, 0, 5, 0)
        + games_between("b", "c", 4, 1, 2, 3)
    )
    table = fit_ratings(games)
    ace = table.row("ace")
    assert math.isfinite(ace.rating) and math.isfinite(ace.ci_low) and math.isfinite(ace.ci_high)
    assert ace.flag == FLAG_ALL_WINS and ace.rank == 1
    assert ace.rating > table.row("b").rating + 200
    assert table.row("b").flag == "" and table.row("c").flag == ""  # the main pool is bounded
    assert table.prior_games == 1.0
    assert any("ace (all wins)" in note for note in table.notes)
    assert "all wins" in table.text()
    # the prior is small: b and c keep nearly their own difference (6-4 gives 70.4)
    assert difference(table, "b", "c") == pytest.approx(elo_from_score(0.6), abs=15)
    # a stronger prior pulls the perfect score in
    assert fit_ratings(games, prior_games=10).row("ace").rating < ace.rating


def test_straight_wins_follow_the_virtual_draws_exactly():
    # A beats B n times with each colour.  By symmetry the advantage is 0 and the reference
    # player sits midway, at 0 with A at +x and B at -x (log-odds); A's score equation, real
    # games plus its one virtual draw, is 2n (1 - s(2x)) = s(x) - 1/2 with s the logistic curve.
    def solve(n: int) -> float:
        low, high = 0.0, 50.0
        for _ in range(200):
            x = (low + high) / 2
            if 2 * n * (1 - 1 / (1 + math.exp(-2 * x))) > 1 / (1 + math.exp(-x)) - 0.5:
                low = x
            else:
                high = x
        return 2 * x * ELO_PER_LOGIT

    previous = 0.0
    for n in (1, 4, 16, 64):
        table = fit_ratings(games_between("A", "B", n, 0, n, 0))
        assert table.row("A").flag == FLAG_ALL_WINS and table.row("B").flag == FLAG_ALL_LOSSES
        assert table.white_advantage.value == pytest.approx(0, abs=1e-9)
        assert difference(table, "A", "B") == pytest.approx(solve(n), abs=1e-6)
        if n >= 16:  # for large n, x -> ln(4n) / 2: the module docstring's 400 log10(2N), N = 2n games
            assert difference(table, "A", "B") == pytest.approx(400 * math.log10(4 * n), rel=0.06)
        assert difference(table, "A", "B") > previous
        previous = difference(table, "A", "B")


def test_group_that_beat_everyone_else_is_separated():
    games = (
        games_between("A", "B", 3, 2, 2, 3)
        + games_between("A", "C", 2, 0, 1, 0)
        + games_between("B", "C", 1, 0, 1, 0)
        + games_between("B", "D", 2, 0, 2, 0)
        + games_between("C", "D", 3, 1, 2, 2)
        + games_between("D", "E", 1, 1, 1, 1)
        + games_between("A", "E", 1, 0, 1, 0)
    )
    table = fit_ratings(games)
    assert {row.name: row.flag for row in table.rows} == {
        "A": FLAG_SEPARATED,
        "B": FLAG_SEPARATED,
        "C": "",
        "D": "",
        "E": "",
    }
    assert min(table.row("A").rating, table.row("B").rating) > max(row.rating for row in table.rows[2:])


def test_chain_of_perfect_scores():
    games = (
        games_between("A", "B", 2, 0, 2, 0) + games_between("B", "C", 2, 0, 2, 0) + games_between("A", "C", 1, 0, 1, 0)
    )
    table = fit_ratings(games)
    assert [(row.name, row.flag) for row in table.rows] == [
        ("A", FLAG_ALL_WINS),
        ("B", FLAG_SEPARATED),
        ("C", FLAG_ALL_LOSSES),
    ]
    assert all(math.isfinite(row.rating) for row in table.rows)


def test_pools_that_never_met_get_finite_ratings():
    games = games_between("A", "B", 3, 1, 2, 2) + games_between("C", "D", 1, 3, 2, 2)
    table = fit_ratings(games)
    assert all(row.flag == FLAG_SEPARATED for row in table.rows)
    assert all(math.isfinite(row.rating) and row.ci_high - row.ci_low < 2000 for row in table.rows)
    assert table.crosstable.cell_text("A", "C") == "."


def test_white_winning_every_game_bounds_the_advantage_by_the_prior():
    table = fit_ratings(games_between("A", "B", 2, 0, 0, 2))  # White won all four
    adv = table.white_advantage
    assert adv.flag == FLAG_PRIOR and math.isfinite(adv.value) and adv.value > 100
    assert difference(table, "A", "B") == pytest.approx(0, abs=1e-9)
    assert all(not row.flag for row in table.rows)  # the ratings themselves are bounded
    assert table.prior_games == 1.0 and "White advantage unbounded" in table.notes[0]


def test_advantage_confounded_with_ratings_uses_the_prior():
    # A is always White: its rating and the advantage cannot be told apart
    table = fit_ratings(games_between("A", "B", 3, 1, 0, 0))
    assert table.white_advantage.flag == FLAG_PRIOR
    fitted = table.row("A").rating - table.row("B").rating + table.white_advantage.value
    assert 0 < fitted < LOG3  # shrunk towards the virtual draws
    assert fit_ratings(games_between("A", "B", 3, 1, 0, 0), advantage=False).prior_games == 0


def test_always_prior_shrinks_a_bounded_fit_slightly():
    games = games_between("A", "B", 3, 1, 3, 1)
    table = fit_ratings(games, always_prior=True)
    assert table.prior_games == 1.0 and table.notes[0].startswith("Prior (requested")
    assert 0 < difference(table, "A", "B") < LOG3


def test_bad_input():
    with pytest.raises(RatingError, match="unknown result '2-0'"):
        fit_ratings([game("A", "B", "2-0")])
    with pytest.raises(RatingError, match="prior_games"):
        fit_ratings([], prior_games=0)


def test_unfinished_games_and_engines_without_games():
    games = games_between("A", "B", 3, 1, 3, 1) + [game("A", "B", UNFINISHED), game("C", "A", UNFINISHED)]
    table = fit_ratings(games, engines=["D", "A"])
    assert table.names == ("A", "B") and table.unrated == ("D", "C")
    assert table.games == 8 and table.row("A").games == 8
    assert difference(table, "A", "B") == pytest.approx(LOG3, abs=1e-9)
    assert "Not rated (no finished games): D, C" in table.text()
    empty = fit_ratings([game("A", "B", UNFINISHED)])
    assert empty.rows == () and empty.unrated == ("A", "B") and "nothing to rate" in empty.text()
    with pytest.raises(RatingError, match="no rated engine named 'C'"):
        table.los("A", "C")


# --- crosstable, per colour, text -----------------------------------------------------------


def test_crosstable_per_colour():
    games = games_between("A", "B", 3, 1, 2, 2) + games_between("A", "C", 1, 0, 0, 1)
    table = fit_ratings(games)
    cross = table.crosstable
    assert cross.cell("A", "B").as_white == Results(3, 1) and cross.cell("A", "B").as_black == Results(2, 2)
    assert cross.cell("B", "A").as_white == Results(2, 2) and cross.cell("B", "A").as_black == Results(1, 3)
    assert cross.cell("A", "C").total == Results(1, 1)
    assert cross.cell("B", "C").total.games == 0
    assert cross.cell_text("A", "B") == "3-1/2-2" and cross.cell_text("B", "C") == "."
    a = table.row("A")
    assert (a.games, a.score, a.white_games, a.white_score, a.black_games, a.black_score) == (10, 6, 5, 4, 5, 2)
    assert a.white_percent == 80 and a.black_percent == 40
    # the mean opponent rating, weighted by games
    assert a.opponents == pytest.approx((8 * table.row("B").rating + 2 * table.row("C").rating) / 10)


def test_text_tables():
    games = synthetic({"first engine": 80, "b": 0, "<c>": -80}, advantage=25, games_per_colour=6, seed=2)
    table = fit_ratings(games)
    text = table.text()
    lines = text.splitlines()
    assert lines[0].startswith("Bradley-Terry ratings with a White advantage term, 36 games, pool average fixed at 0")
    standings = table.standings_lines()
    assert standings[0].split()[:4] == ["#", "ENGINE", "RATING", "ERROR"]
    for row, line in zip(table.rows, standings[1:]):
        assert line.split()[0] == str(row.rank) and row.name in line and f"{row.rating:.1f}" in line
    assert f"White advantage: {table.white_advantage.value:+.1f} +/- {table.white_advantage.error:.1f}" in text
    cross = table.crosstable_lines()
    assert len(cross) == 4 and cross[0].split() == ["#", "ENGINE", "1", "2", "3"]
    los = table.los_lines()
    first, last = table.rows[0].name, table.rows[-1].name
    assert los[1].split()[-1] == f"{100 * table.los(first, last):.0f}"
    assert los[1].split().count("-") == 1
    assert text == fit_ratings(games).text()
    reordered = fit_ratings(list(reversed(games)))
    for row in table.rows:
        assert reordered.row(row.name).rating == pytest.approx(row.rating, abs=1e-8)


# --- properties -----------------------------------------------------------------------------

RESULTS = st.sampled_from([WHITE_WINS, BLACK_WINS, DRAW])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4), RESULTS), min_size=1, max_size=40))
def test_any_games_give_finite_consistent_ratings(raw):
    games = [game(f"e{w}", f"e{b}", result) for w, b, result in raw]
    table = fit_ratings(games)
    assert sum(row.rating for row in table.rows) == pytest.approx(0, abs=1e-6)
    for row in table.rows:
        assert math.isfinite(row.rating) and row.ci_low <= row.rating <= row.ci_high
        assert row.games == row.white_games + row.black_games
    for a in table.names:
        for b in table.names:
            assert table.los(a, b) + table.los(b, a) == pytest.approx(1, abs=1e-9)
    assert math.isfinite(table.white_advantage.value)
