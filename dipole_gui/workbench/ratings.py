"""Ratings over every finished game of the events directory: the fit and table of
``dipole-arbiter ratings`` (:func:`arbiter.stats.ratings.fit_ratings` on the same games, the
databases read in name order, as ``dipole-arbiter ratings DIR/*.db`` reads them), its standings
as the page shows them (:func:`standings`: every cell's text, every bar's place), and for each
engine its games, its score by colour and by opponent.
"""

from __future__ import annotations

import os
from typing import Any

from arbiter.events.running import event_running
from arbiter.events.store import is_event_file
from arbiter.records.game import GameOutcome
from arbiter.stats.ratings import RatingError, RatingTable, fit_ratings

from ..watch import open_store


def event_files(directory: str) -> list[str]:
    """The event databases of ``directory``, by name."""
    return sorted(
        entry.path
        for entry in os.scandir(directory)
        if entry.name.endswith(".db") and entry.is_file() and is_event_file(entry.path)
    )


def _percent(value: float | None) -> str:
    return "\u2013" if value is None else f"{value:.1f}%"


def standings(table: RatingTable) -> list[dict[str, Any]]:
    """The standings, best first: each cell's text (the numbers to the ``ratings`` command's
    decimals) and where the row's 95% interval and rating lie on the chart, in percent of its
    width (from the lowest bound of all to the highest)."""
    low = min((row.ci_low for row in table.rows), default=0.0)
    span = max((row.ci_high for row in table.rows), default=0.0) - low

    def place(value: float) -> float:
        return round(100 * (value - low) / span, 2) if span > 0 else 50.0

    return [
        {
            "rank": row.rank,
            "name": row.name,
            "flag": row.flag,
            "rating": f"{row.rating:.1f}",
            "error": f"{row.error:.1f}",
            "interval": f"[{row.ci_low:.1f}, {row.ci_high:.1f}]",
            "games": str(row.games),
            "score": f"{row.score:.1f} ({row.percent:.1f}%)",
            "white": _percent(row.white_percent),
            "black": _percent(row.black_percent),
            "opponents": f"{row.opponents:.1f}",
            "bar": {"left": place(row.ci_low), "right": place(row.ci_high), "dot": place(row.rating)},
        }
        for row in table.rows
    ]


def directory_ratings(directory: str) -> dict[str, Any]:
    """The ratings (the command's text, the standings, what they leave out) and each engine's
    record."""
    games: list[tuple[str, GameOutcome]] = []
    names: list[str] = []
    for path in event_files(directory):
        store, _ = open_store(path, event_running(path))
        try:
            games += [(os.path.basename(path), outcome) for outcome in store.outcomes()]
            names += [spec.name for spec in store.config.engines]
        finally:
            store.close()
    if not games:
        return {"games": 0, "empty": f"No finished game in {directory} yet."}
    outcomes = [outcome for _, outcome in games]
    try:
        table = fit_ratings(outcomes, engines=list(dict.fromkeys(names)))
    except RatingError as error:
        return {"games": len(games), "error": str(error)}
    engines: dict[str, Any] = {}
    for row in table.rows:
        opponents = []
        for other in table.names:
            cell = table.crosstable.cell(row.name, other)
            if other != row.name and cell.total.games:
                opponents.append(
                    {
                        "name": other,
                        "games": cell.total.games,
                        "points": cell.total.points,
                        "white": cell.as_white.text(True),
                        "black": cell.as_black.text(True),
                    }
                )
        engines[row.name] = {
            "white": {"games": row.white_games, "points": row.white_score, "percent": row.white_percent},
            "black": {"games": row.black_games, "points": row.black_score, "percent": row.black_percent},
            "opponents": opponents,
            "games": [
                {
                    "event": event,
                    "number": game.number,
                    "white": game.white,
                    "black": game.black,
                    "result": game.result,
                    "termination": game.termination.label,
                    "plies": game.plies,
                }
                for event, game in games
                if row.name in (game.white, game.black)
            ],
        }
    text = table.text()
    return {
        "games": len(games),
        "text": text,
        "heading": text.split("\n", 1)[0],
        "standings": standings(table),
        "notes": table.summary_lines(),
        "engines": engines,
    }
