"""The HTML report of an event: one self-contained HTML5 file (inline CSS and SVG; no script,
no external font, style sheet or image, no network) with the standings and their 95%
intervals drawn as a chart, the standings table, the White advantage, the per-colour
crosstable, the likelihood-of-superiority matrix and the termination counts.

Every name and text from outside is escaped, in text and in attributes alike.  The chart is a
plain SVG: one ``g.engine`` per rated engine holding a ``line.whisker`` from ``ci_low`` to
``ci_high``, two ``line.cap`` ends and a ``circle.rating`` at the rating, all on one linear
x scale; flagged engines (ratings resting on the prior) are drawn hollow and dashed.
"""

from __future__ import annotations

import math
import os
from html import escape
from typing import Callable, Mapping, Sequence

from .files import replace_text
from .ratings import EngineRating, RatingTable

CHART_WIDTH = 760
LABEL_WIDTH = 190  # room left of the plot for the engine names
RIGHT_MARGIN = 30
TOP_MARGIN = 12
ROW_HEIGHT = 26
AXIS_HEIGHT = 40
LABEL_CHARS = 28  # longer names are cut in the chart (the full name is in its tooltip)

_STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 2em auto;
       max-width: 1100px; padding: 0 1em; color: #1d2330; background: #fff; }
h1 { font-size: 1.6em; margin-bottom: .2em; }
h2 { font-size: 1.2em; margin-top: 1.8em; border-bottom: 1px solid #d5d9e0; padding-bottom: .2em; }
dl.details { display: grid; grid-template-columns: max-content auto; gap: .15em 1em; margin: .5em 0; }
dl.details dt { font-weight: 600; }
dl.details dd { margin: 0; }
table { border-collapse: collapse; margin: .6em 0; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid #d5d9e0; padding: .25em .55em; text-align: right; white-space: nowrap; }
th { background: #f2f4f7; }
td.name, th.name { text-align: left; }
td.name { max-width: 16em; overflow: hidden; text-overflow: ellipsis; }
div.scroll { overflow-x: auto; }
td.self { color: #9aa3b2; text-align: center; }
table.bracket td, table.bracket th { text-align: left; vertical-align: middle; white-space: normal; min-width: 14em; }
td.better { background: #e3f4e6; }
td.worse { background: #fbe5e3; }
.flag { color: #a45d00; font-weight: 600; }
.notes { color: #4a5262; font-size: .92em; }
figure { margin: .8em 0; overflow-x: auto; }
figcaption { color: #4a5262; font-size: .9em; }
svg text { font-size: 12px; fill: #1d2330; }
svg .grid { stroke: #e4e7ec; stroke-width: 1; }
svg .reference { stroke: #8a93a3; stroke-width: 1; stroke-dasharray: 4 3; }
svg .axis { stroke: #1d2330; stroke-width: 1; }
svg .whisker, svg .cap { stroke: #2f5da8; stroke-width: 2; }
svg .rating { fill: #2f5da8; stroke: #2f5da8; stroke-width: 2; }
svg .flagged .whisker, svg .flagged .cap { stroke: #a45d00; stroke-dasharray: 5 3; }
svg .flagged .rating { fill: #fff; stroke: #a45d00; }
""".strip()


def write_report(
    path: str | os.PathLike[str],
    table: RatingTable,
    terminations: Mapping[str, int],
    title: str = "Tournament report",
    details: Sequence[tuple[str, str]] = (),
    sections: Sequence[str] = (),
) -> None:
    """Write the report to ``path`` (through a temporary file, so a reader never sees half of
    it).  ``terminations`` counts games by termination label; ``details`` are (label, text)
    lines shown under the title (event, variant, time control, date ...); ``sections`` is
    ready-made, escaped HTML placed before the terminations (a knockout bracket ...)."""
    replace_text(path, render_report(table, terminations, title, details, sections))


def render_report(
    table: RatingTable,
    terminations: Mapping[str, int],
    title: str = "Tournament report",
    details: Sequence[tuple[str, str]] = (),
    sections: Sequence[str] = (),
) -> str:
    """The report as one HTML5 document (see ``write_report``)."""
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(title)}</title>",
        f"<style>\n{_STYLE}\n</style>",
        "</head>",
        "<body>",
        "<header>",
        f"<h1>{escape(title)}</h1>",
    ]
    if details:
        parts.append('<dl class="details">')
        parts += [f"<dt>{escape(label)}</dt><dd>{escape(text)}</dd>" for label, text in details]
        parts.append("</dl>")
    parts.append("</header>")
    parts += _standings(table)
    if table.rows:
        parts += _white_advantage(table)
        parts += _crosstable(table)
        parts += _los(table)
    parts += sections
    parts += _terminations(terminations)
    parts += [
        "<footer>",
        '<p class="notes">Ratings: Bradley-Terry maximum likelihood on the logistic Elo scale '
        "(P(White wins) = 1 / (1 + 10<sup>-(r<sub>White</sub> - r<sub>Black</sub> + advantage) / 400</sup>)), "
        "95% intervals from the observed information, likelihood of superiority from the covariance "
        f"of each pair's difference; {escape(table.scale_text())}.</p>",
        "</footer>",
        "</body>",
        "</html>",
    ]
    return "\n".join(parts) + "\n"


def _standings(table: RatingTable) -> list[str]:
    parts = ['<section id="standings">', "<h2>Standings</h2>"]
    if not table.rows:
        parts.append("<p>No finished games: nothing to rate.</p>")
    else:
        parts += ["<figure>", *_chart(table.rows, table.anchor[1] if table.anchor else 0.0),
                  "<figcaption>Rating with its 95% confidence interval; hollow, dashed: the rating rests on "
                  "the prior (see the flags).</figcaption>", "</figure>"]
        parts += [
            '<div class="scroll"><table class="standings">',
            "<thead><tr><th>#</th><th class=\"name\">Engine</th><th>Rating</th><th>&#177;</th><th>95% CI</th>"
            "<th>Points</th><th>Games</th><th>%</th><th>White %</th><th>Black %</th><th>Opp.</th>"
            "<th class=\"name\">Flag</th></tr></thead>",
            "<tbody>",
        ]
        for row in table.rows:
            parts.append(
                f'<tr class="engine" data-name="{escape(row.name)}"><td>{row.rank}</td>'
                f'<td class="name" title="{escape(row.name)}">{escape(row.name)}</td><td>{row.rating:.1f}</td><td>{row.error:.1f}</td>'
                f"<td>[{row.ci_low:.1f}, {row.ci_high:.1f}]</td><td>{row.score:g}</td><td>{row.games}</td>"
                f"<td>{row.percent:.1f}</td><td>{_maybe(row.white_percent)}</td><td>{_maybe(row.black_percent)}</td>"
                f'<td>{row.opponents:.1f}</td><td class="name flag">{escape(row.flag)}</td></tr>'
            )
        parts += ["</tbody>", "</table></div>"]
    notes = list(table.notes)
    if table.unrated:
        notes.append(f"Not rated (no finished games): {', '.join(table.unrated)}.")
    parts += [f'<p class="notes">{escape(note)}</p>' for note in notes]
    parts.append("</section>")
    return parts


def _maybe(value: float | None) -> str:
    return "&#8211;" if value is None else f"{value:.1f}"


def _chart(rows: Sequence[EngineRating], reference: float) -> list[str]:
    """The SVG: one whisker and point per engine, best at the top, on a shared x scale."""
    low = min(min(row.ci_low for row in rows), reference)
    high = max(max(row.ci_high for row in rows), reference)
    if high - low < 20:
        low, high = (low + high) / 2 - 10, (low + high) / 2 + 10
    step = _nice_step((high - low) / 6)
    low = math.floor(low / step) * step
    high = math.ceil(high / step) * step
    plot_left, plot_right = LABEL_WIDTH, CHART_WIDTH - RIGHT_MARGIN
    plot_bottom = TOP_MARGIN + ROW_HEIGHT * len(rows)
    height = plot_bottom + AXIS_HEIGHT

    def x(value: float) -> str:
        return f"{plot_left + (value - low) / (high - low) * (plot_right - plot_left):.2f}"

    parts = [
        f'<svg class="chart" width="{CHART_WIDTH}" height="{height}" viewBox="0 0 {CHART_WIDTH} {height}" '
        'role="img" aria-label="Ratings with 95% confidence intervals">',
    ]
    ticks = [low + k * step for k in range(round((high - low) / step) + 1)]
    for tick in ticks:
        parts.append(f'<line class="grid" x1="{x(tick)}" y1="{TOP_MARGIN}" x2="{x(tick)}" y2="{plot_bottom}"/>')
        parts.append(f'<text class="tick" x="{x(tick)}" y="{plot_bottom + 18}" text-anchor="middle">{tick:g}</text>')
    parts.append(f'<line class="axis" x1="{plot_left}" y1="{plot_bottom}" x2="{plot_right}" y2="{plot_bottom}"/>')
    parts.append(f'<line class="reference" x1="{x(reference)}" y1="{TOP_MARGIN}" x2="{x(reference)}" y2="{plot_bottom}"/>')
    parts.append(f'<text x="{(plot_left + plot_right) / 2:.2f}" y="{height - 4}" text-anchor="middle">Elo</text>')
    for i, row in enumerate(rows):
        y = TOP_MARGIN + ROW_HEIGHT * (i + 0.5)
        label = row.name if len(row.name) <= LABEL_CHARS else row.name[: LABEL_CHARS - 1] + "\u2026"
        flagged = " flagged" if row.flag else ""
        parts += [
            f'<g class="engine{flagged}" data-name="{escape(row.name)}">',
            f"<title>{escape(row.name)}: {row.rating:.1f} [{row.ci_low:.1f}, {row.ci_high:.1f}]"
            f"{escape(' (' + row.flag + ')') if row.flag else ''}</title>",
            f'<text class="label" x="{plot_left - 8}" y="{y + 4:.2f}" text-anchor="end">{escape(label)}</text>',
            f'<line class="whisker" x1="{x(row.ci_low)}" y1="{y:.2f}" x2="{x(row.ci_high)}" y2="{y:.2f}"/>',
            f'<line class="cap" x1="{x(row.ci_low)}" y1="{y - 5:.2f}" x2="{x(row.ci_low)}" y2="{y + 5:.2f}"/>',
            f'<line class="cap" x1="{x(row.ci_high)}" y1="{y - 5:.2f}" x2="{x(row.ci_high)}" y2="{y + 5:.2f}"/>',
            f'<circle class="rating" cx="{x(row.rating)}" cy="{y:.2f}" r="4.5"/>',
            "</g>",
        ]
    parts.append("</svg>")
    return parts


def _nice_step(rough: float) -> float:
    """The smallest of 1, 2, 5 times a power of ten that is at least ``rough``."""
    power = 10 ** math.floor(math.log10(rough))
    return next(multiple * power for multiple in (1, 2, 5, 10) if multiple * power >= rough)


def _white_advantage(table: RatingTable) -> list[str]:
    parts = ['<section id="white-advantage">', "<h2>White advantage</h2>"]
    if table.white_advantage is not None:
        estimate = table.white_advantage
        flag = f' <span class="flag">({escape(estimate.flag)})</span>' if estimate.flag else ""
        parts.append(f"<p>Fitted first-move advantage: <strong>{estimate.value:+.1f} Elo</strong> "
                     f"&#177; {estimate.error:.1f} (95% CI {estimate.ci_low:+.1f} to {estimate.ci_high:+.1f}){flag}.</p>")
    else:
        parts.append("<p>Not fitted (ratings without a colour term).</p>")
    if table.games:
        parts.append(f"<p>White scored {table.white_points:g} of {table.games} games "
                     f"({100 * table.white_points / table.games:.1f}%).</p>")
    parts.append("</section>")
    return parts


def _matrix(table: RatingTable, section: str, heading: str, note: str,
            cell: Callable[[str, str], tuple[str, str]]) -> list[str]:
    """A section with a square table, rows and columns in rank order (columns by rank number);
    ``cell(row engine, column engine)`` gives the (already escaped) text and a css class."""
    names = table.names
    header = "".join(f'<th title="{escape(row.name)}">{row.rank}</th>' for row in table.rows)
    parts = [f'<section id="{section}">', f"<h2>{heading}</h2>", f'<p class="notes">{note}</p>',
             f'<div class="scroll"><table class="{section}">', f'<thead><tr><th>#</th><th class="name">Engine</th>{header}</tr></thead>',
             "<tbody>"]
    for row in table.rows:
        cells = [("&#8211;", "self") if row.name == other else cell(row.name, other) for other in names]
        body = "".join(f'<td class="{css}">{text}</td>' if css else f"<td>{text}</td>" for text, css in cells)
        parts.append(f'<tr data-name="{escape(row.name)}"><td>{row.rank}</td><td class="name" '
                     f'title="{escape(row.name)}">{escape(row.name)}</td>{body}</tr>')
    parts += ["</tbody>", "</table></div>", "</section>"]
    return parts


def _crosstable(table: RatingTable) -> list[str]:
    def cell(a: str, b: str) -> tuple[str, str]:
        pair = table.crosstable.cell(a, b).total
        balance = 2 * pair.points - pair.games  # > 0: the row engine scored more than half
        css = "better" if balance > 0 else "worse" if balance < 0 else ""
        return escape(table.crosstable.cell_text(a, b)), css

    return _matrix(table, "crosstable", "Crosstable",
                   "Each cell: the row engine's wins-losses as White / as Black against the column engine.", cell)


def _los(table: RatingTable) -> list[str]:
    def cell(a: str, b: str) -> tuple[str, str]:
        los = table.los(a, b)
        return f"{100 * los:.0f}", "better" if los >= 0.95 else "worse" if los <= 0.05 else ""

    return _matrix(table, "los", "Likelihood of superiority",
                   "Percent chance that the row engine is stronger than the column engine.", cell)


def _terminations(terminations: Mapping[str, int]) -> list[str]:
    parts = ['<section id="terminations">', "<h2>Terminations</h2>"]
    total = sum(terminations.values())
    if not total:
        parts.append("<p>No games.</p>")
    else:
        parts += ['<table class="terminations">',
                  '<thead><tr><th class="name">Termination</th><th>Games</th><th>%</th></tr></thead>', "<tbody>"]
        for label, count in sorted(terminations.items(), key=lambda item: (-item[1], item[0])):
            if count:
                parts.append(f'<tr><td class="name">{escape(label)}</td><td>{count}</td>'
                             f"<td>{100 * count / total:.1f}</td></tr>")
        parts += [f'<tr><th class="name">total</th><th>{total}</th><th>100.0</th></tr>', "</tbody>", "</table>"]
    parts.append("</section>")
    return parts
