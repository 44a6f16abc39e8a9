"""The HTML report of an event: one self-contained HTML5 file (inline CSS and SVG; no script,
no external font, style sheet or image, no network) with the standings and their 95%
intervals drawn as a chart, the standings table, the White advantage, the per-colour
crosstable, the likelihood-of-superiority matrix and the termination counts.

The page is the template ``arbiter/report/templates/report.html`` (with ``report.css``), rendered by
:func:`arbiter.report.render.render`, which escapes every name and text from outside, in text and in
attributes alike; this module only computes what the template shows.  The chart is a plain
SVG: one ``g.engine`` per rated engine holding a ``line.whisker`` from ``ci_low`` to
``ci_high``, two ``line.cap`` ends and a ``circle.rating`` at the rating, all on one linear
x scale; flagged engines (ratings resting on the prior) are drawn hollow and dashed.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup

from ..files import replace_text
from ..stats.ratings import EngineRating, RatingTable
from .render import render

CHART_WIDTH = 760
LABEL_WIDTH = 190  # room left of the plot for the engine names
RIGHT_MARGIN = 30
TOP_MARGIN = 12
ROW_HEIGHT = 26
AXIS_HEIGHT = 40
LABEL_CHARS = 28  # longer names are cut in the chart (the full name is in its tooltip)


def write_report(
    path: str | os.PathLike[str],
    table: RatingTable,
    terminations: Mapping[str, int],
    title: str = "Tournament report",
    details: Sequence[tuple[str, str]] = (),
    sections: Sequence[Markup] = (),
) -> None:
    """Write the report to ``path`` (through a temporary file, so a reader never sees half of
    it).  ``terminations`` counts games by termination label; ``details`` are (label, text)
    lines shown under the title (event, variant, time control, date ...); ``sections`` are
    rendered sections placed before the terminations (a knockout bracket:
    :func:`arbiter.events.pairings.plan_html`)."""
    replace_text(path, render_report(table, terminations, title, details, sections))


def render_report(
    table: RatingTable,
    terminations: Mapping[str, int],
    title: str = "Tournament report",
    details: Sequence[tuple[str, str]] = (),
    sections: Sequence[Markup] = (),
) -> str:
    """The report as one HTML5 document (see ``write_report``)."""
    return str(render("report.html", title=title, details=details, **report_context(table, terminations, sections)))


def report_context(
    table: RatingTable,
    terminations: Mapping[str, int],
    sections: Sequence[Markup] = (),
    engine_link: Callable[[str], str] | None = None,
) -> dict[str, Any]:
    """What ``report_body.html`` shows (the report's sections, also a published site's):
    ``engine_link`` makes each engine's name in the standings a link to that address."""
    notes = list(table.notes)
    if table.unrated:
        notes.append(f"Not rated (no finished games): {', '.join(table.unrated)}.")
    counted = sorted(
        ((label, count) for label, count in terminations.items() if count), key=lambda item: (-item[1], item[0])
    )
    return dict(
        table=table,
        notes=notes,
        sections=sections,
        engine_link=engine_link,
        chart=_chart(table.rows, table.anchor[1] if table.anchor else 0.0) if table.rows else None,
        matrices=[_crosstable(table), _los(table)] if table.rows else [],
        maybe=_maybe,
        terminations=counted,
        total=sum(terminations.values()),
    )


def _maybe(value: float | None) -> str:
    return "\u2013" if value is None else f"{value:.1f}"


@dataclass(frozen=True)
class Tick:
    value: float
    x: str


@dataclass(frozen=True)
class Bar:
    """One engine in the chart: its row, its (cut) label, its y and its x's as the SVG's text."""

    row: EngineRating
    label: str
    y: float
    low: str
    rating: str
    high: str


@dataclass(frozen=True)
class Chart:
    width: int
    height: int
    top: int
    bottom: int
    left: int
    right: int
    reference: str
    ticks: list[Tick]
    bars: list[Bar]


def _chart(rows: Sequence[EngineRating], reference: float) -> Chart:
    """The SVG's geometry: one whisker and point per engine, best at the top, on a shared x scale."""
    low = min(*(row.ci_low for row in rows), reference)
    high = max(*(row.ci_high for row in rows), reference)
    if high - low < 20:
        low, high = (low + high) / 2 - 10, (low + high) / 2 + 10
    step = _nice_step((high - low) / 6)
    low = math.floor(low / step) * step
    high = math.ceil(high / step) * step
    plot_left, plot_right = LABEL_WIDTH, CHART_WIDTH - RIGHT_MARGIN
    plot_bottom = TOP_MARGIN + ROW_HEIGHT * len(rows)

    def x(value: float) -> str:
        return f"{plot_left + (value - low) / (high - low) * (plot_right - plot_left):.2f}"

    ticks = [Tick(tick, x(tick)) for tick in (low + k * step for k in range(round((high - low) / step) + 1))]
    bars = [
        Bar(
            row,
            row.name if len(row.name) <= LABEL_CHARS else row.name[: LABEL_CHARS - 1] + "\u2026",
            TOP_MARGIN + ROW_HEIGHT * (i + 0.5),
            x(row.ci_low),
            x(row.rating),
            x(row.ci_high),
        )
        for i, row in enumerate(rows)
    ]
    return Chart(
        CHART_WIDTH,
        plot_bottom + AXIS_HEIGHT,
        TOP_MARGIN,
        plot_bottom,
        plot_left,
        plot_right,
        x(reference),
        ticks,
        bars,
    )


def _nice_step(rough: float) -> float:
    """The smallest of 1, 2, 5 times a power of ten that is at least ``rough``."""
    power: float = 10 ** math.floor(math.log10(rough))
    return next(multiple * power for multiple in (1, 2, 5, 10) if multiple * power >= rough)


@dataclass(frozen=True)
class Matrix:
    """A section with a square table, rows and columns in rank order (columns by rank number):
    per row, (text, css class) of each cell."""

    id: str
    heading: str
    note: str
    rows: list[tuple[EngineRating, list[tuple[str, str]]]]


def _matrix(
    table: RatingTable, section: str, heading: str, note: str, cell: Callable[[str, str], tuple[str, str]]
) -> Matrix:
    rows = [
        (row, [("\u2013", "self") if row.name == other else cell(row.name, other) for other in table.names])
        for row in table.rows
    ]
    return Matrix(section, heading, note, rows)


def _crosstable(table: RatingTable) -> Matrix:
    def cell(a: str, b: str) -> tuple[str, str]:
        pair = table.crosstable.cell(a, b).total
        balance = 2 * pair.points - pair.games  # > 0: the row engine scored more than half
        css = "better" if balance > 0 else "worse" if balance < 0 else ""
        return table.crosstable.cell_text(a, b), css

    return _matrix(
        table,
        "crosstable",
        "Crosstable",
        f"Each cell: the row engine's {'wins-losses-draws' if table.crosstable.has_draws else 'wins-losses'} "
        "as White / as Black against the column engine.",
        cell,
    )


def _los(table: RatingTable) -> Matrix:
    def cell(a: str, b: str) -> tuple[str, str]:
        los = table.los(a, b)
        return f"{100 * los:.0f}", "better" if los >= 0.95 else "worse" if los <= 0.05 else ""

    return _matrix(
        table,
        "los",
        "Likelihood of superiority",
        "Percent chance that the row engine is stronger than the column engine.",
        cell,
    )
