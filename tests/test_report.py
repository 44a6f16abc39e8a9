"""The HTML report: a well-formed self-contained HTML5 document whose chart draws every
engine's rating and interval on one linear scale, with tables per engine, escaped names, and
no reference to the network; rendered by a headless browser when one is installed."""

from __future__ import annotations

import random
import struct
import subprocess
from html.parser import HTMLParser

import pytest

from arbiter.events.pairings import EventShape, knockout_rounds, plan_event, plan_html
from arbiter.records.game import BLACK_WINS, WHITE_WINS, GameRecord, Termination
from arbiter.report.event_report import render_report, write_report
from arbiter.stats.ratings import DRAW, RatingTable, fit_ratings

VOID = {"meta", "br", "hr", "img", "input", "link", "wbr", "area", "base", "col", "embed", "source", "track"}
HOSTILE = '<script>alert("x")</script>'


class Element:
    def __init__(self, tag: str, attrs: dict[str, str | None], parent: Element | None) -> None:
        self.tag, self.attrs, self.parent = tag, attrs, parent
        self.children: list[Element] = []
        self.text = ""

    def classes(self) -> set[str]:
        return set((self.attrs.get("class") or "").split())

    def all(self, tag: str, css: str | None = None) -> list[Element]:
        found = []
        for child in self.children:
            if child.tag == tag and (css is None or css in child.classes()):
                found.append(child)
            found += child.all(tag, css)
        return found

    def all_text(self) -> str:
        return self.text + "".join(child.all_text() for child in self.children)


class TreeBuilder(HTMLParser):
    """Builds an element tree and fails on anything that is not properly nested."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Element("#document", {}, None)
        self.current = self.root
        self.doctype = ""

    def handle_decl(self, decl: str) -> None:
        self.doctype = decl

    def handle_starttag(self, tag, attrs):
        element = Element(tag, dict(attrs), self.current)
        self.current.children.append(element)
        if tag not in VOID:
            self.current = element

    def handle_startendtag(self, tag, attrs):
        self.current.children.append(Element(tag, dict(attrs), self.current))

    def handle_endtag(self, tag):
        assert tag not in VOID, f"end tag for void element <{tag}>"
        assert self.current.tag == tag, f"</{tag}> closes <{self.current.tag}>"
        self.current = self.current.parent

    def handle_data(self, data):
        self.current.text += data


def parse(html: str) -> TreeBuilder:
    builder = TreeBuilder()
    builder.feed(html)
    builder.close()
    assert builder.current is builder.root, f"<{builder.current.tag}> is never closed"
    return builder


def game(white: str, black: str, result: str) -> GameRecord:
    return GameRecord(1, white, black, "dipole", None, (), result, Termination.NORMAL, "")


def sample_table() -> RatingTable:
    rng = random.Random(4)
    strength = {"alpha": 150, "beta": 40, HOSTILE: 0, 'quote"&amp': -90, "a" * 40: -160}
    games = []
    for white, white_elo in strength.items():
        for black, black_elo in strength.items():
            if white != black:
                p = 1 / (1 + 10 ** (-(white_elo - black_elo + 30) / 400))
                games += [game(white, black, WHITE_WINS if rng.random() < p else BLACK_WINS) for _ in range(8)]
    for name in strength:  # an engine that won every game
        games += [game("perfect", name, WHITE_WINS), game(name, "perfect", BLACK_WINS)]
    return fit_ratings(games)


TERMINATIONS = {"normal": 150, "time forfeit": 3, "illegal move": 1, "crash": 0}


def test_structure_and_chart_geometry():
    table = sample_table()
    html = render_report(table, TERMINATIONS, "Dipole <autumn> event", (("Variant", "dipole"), ("TC", "10+0.1")))
    tree = parse(html)
    assert tree.doctype.lower() == "doctype html"
    (document,) = tree.root.children
    assert document.tag == "html" and document.attrs["lang"] == "en"
    head, body = document.children
    assert [e.attrs for e in head.all("meta") if "charset" in e.attrs] == [{"charset": "utf-8"}]
    assert head.all("title")[0].text == "Dipole <autumn> event"
    assert body.all("h1")[0].text == "Dipole <autumn> event"

    (svg,) = body.all("svg")
    groups = svg.all("g", "engine")
    assert [g.attrs["data-name"] for g in groups] == list(table.names)
    points = []
    for g, row in zip(groups, table.rows):
        (whisker,) = g.all("line", "whisker")
        (circle,) = g.all("circle", "rating")
        assert len(g.all("line", "cap")) == 2
        assert float(whisker.attrs["y1"]) == float(whisker.attrs["y2"]) == float(circle.attrs["cy"])
        assert ("flagged" in g.classes()) == bool(row.flag)
        assert row.name in g.all("title")[0].text
        points += [
            (row.ci_low, float(whisker.attrs["x1"])),
            (row.rating, float(circle.attrs["cx"])),
            (row.ci_high, float(whisker.attrs["x2"])),
        ]
    # one linear scale for every engine: fit it on the extremes, check every point (0.01 px rounding)
    (v0, x0), (v1, x1) = min(points), max(points)
    scale = (x1 - x0) / (v1 - v0)
    assert scale > 0
    for value, x in points:
        assert x == pytest.approx(x0 + (value - v0) * scale, abs=0.02)
    width = float(svg.attrs["width"])
    assert all(0 <= x <= width for _, x in points)
    ys = [float(g.all("circle", "rating")[0].attrs["cy"]) for g in groups]
    assert ys == sorted(ys) and len(set(ys)) == len(ys)  # best at the top, one row each

    standings = body.all("table", "standings")[0]
    rows = standings.all("tr", "engine")
    assert [r.attrs["data-name"] for r in rows] == list(table.names)
    for r, row in zip(rows, table.rows):
        cells = [td.all_text() for td in r.all("td")]
        assert cells[:4] == [str(row.rank), row.name, f"{row.rating:.1f}", f"{row.error:.1f}"]
        assert cells[-1] == row.flag
    assert "perfect" in table.names and table.row("perfect").flag == "all wins"

    cross = body.all("table", "crosstable")[0]
    cross_rows = cross.all("tbody")[0].all("tr")
    assert [r.attrs["data-name"] for r in cross_rows] == list(table.names)
    first, second = table.names[0], table.names[1]
    assert cross_rows[0].all("td")[3].text == table.crosstable.cell_text(first, second)
    assert all(len(r.all("td")) == 2 + len(table.rows) for r in cross_rows)
    los_rows = body.all("table", "los")[0].all("tbody")[0].all("tr")
    assert los_rows[0].all("td")[3].text == f"{100 * table.los(first, second):.0f}"

    terminations = body.all("table", "terminations")[0].all("tbody")[0].all("tr")
    assert [[c.all_text() for c in r.children] for r in terminations] == [
        ["normal", "150", "97.4"],
        ["time forfeit", "3", "1.9"],
        ["illegal move", "1", "0.6"],
        ["total", "154", "100.0"],
    ]
    advantage = body.all("section")[1]
    assert advantage.attrs["id"] == "white-advantage"
    assert f"{table.white_advantage.value:+.1f} Elo" in advantage.all_text()
    assert [e.text for e in body.all("dt")] == ["Variant", "TC"]


def test_self_contained_and_escaped():
    table = sample_table()
    html = render_report(table, TERMINATIONS, HOSTILE)
    tree = parse(html)
    lowered = html.lower()
    assert "http://" not in lowered and "https://" not in lowered and "url(" not in lowered
    assert "@import" not in lowered
    everything = _walk(tree.root)
    assert not [e for e in everything if e.tag in ("script", "link", "img", "iframe", "object", "embed")]
    assert not [e for e in everything if {"src", "href", "onload", "onclick"} & set(e.attrs)]
    # the hostile name and title come back as text, intact
    assert HOSTILE in tree.root.all("title")[0].text
    assert any(e.attrs.get("data-name") == HOSTILE for e in everything)
    assert any(e.attrs.get("data-name") == 'quote"&amp' for e in everything)
    assert "<script>" not in html


def test_markup_from_every_outside_text_is_shown_as_text():
    """Engine names, details, termination labels, a knockout's and a Swiss event's sections: all
    text, never markup; and a section that is not rendered markup (a plain string) is text too."""
    names = (HOSTILE, "<b>bold</b>", 'quote"&amp', "plain", "<i>")
    ratings = fit_ratings([game(HOSTILE, "<b>bold</b>", WHITE_WINS), game("<b>bold</b>", HOSTILE, DRAW)])
    sections = []
    for format_ in ("knockout", "swiss"):
        shape = EventShape(format_, names, knockout_rounds(len(names)) if format_ == "knockout" else 2, 1, 4)
        schedule = plan_event(shape, [], {}).next_games
        plan = plan_event(shape, schedule, {g.number: WHITE_WINS for g in schedule})
        sections.append(plan_html(shape, plan))
    sections.append('<em id="raw">not rendered</em>')  # type: ignore[arg-type]  # a str: shown as text
    html = render_report(ratings, {HOSTILE: 1, "normal": 1}, "<h1>title</h1>", ((HOSTILE, "<u>text</u>"),), sections)
    tree = parse(html)
    everything = _walk(tree.root)
    assert not [e for e in everything if e.tag in ("script", "b", "i", "u", "em")]
    assert not [e for e in everything if e.tag == "h1" and e.all_text() != "<h1>title</h1>"]
    text = tree.root.all_text()
    for shown in (HOSTILE, "<u>text</u>", '<em id="raw">not rendered</em>', "<b>bold</b> bye", "<i> bye"):
        assert shown in text, shown
    assert [e.text for e in tree.root.all("dt")] == [HOSTILE]
    bracket = tree.root.all("table", "bracket")[0]
    assert any(HOSTILE in cell.text for cell in bracket.all("td"))
    pairings = tree.root.all("table", "pairings")[0]
    assert any(HOSTILE in cell.text for cell in pairings.all("td", "name"))
    terminations = tree.root.all("table", "terminations")[0]
    assert HOSTILE in [cell.text for cell in terminations.all("td")]
    assert "<script>" not in html and "<b>" not in html and "<em" not in html


def _walk(element: Element) -> list[Element]:
    found = []
    for child in element.children:
        found.append(child)
        found += _walk(child)
    return found


def test_long_names_are_cut_in_the_chart_only():
    table = sample_table()
    tree = parse(render_report(table, {}))
    long_name = "a" * 40
    group = next(g for g in tree.root.all("g", "engine") if g.attrs["data-name"] == long_name)
    label = group.all("text", "label")[0].text
    assert len(label) == 28 and label.endswith("\u2026")
    assert long_name in group.all("title")[0].text


def test_empty_event_and_draws():
    empty = fit_ratings([])
    tree = parse(render_report(empty, {}))
    assert tree.root.all("svg") == [] and "nothing to rate" in _walk(tree.root)[0].all_text()
    assert "No games." in tree.root.all("section")[-1].all_text()
    drawn = fit_ratings([game("a", "b", DRAW), game("b", "a", WHITE_WINS), game("a", "b", WHITE_WINS)])
    tree = parse(render_report(drawn, {"normal": 3}))
    rows = {r.attrs["data-name"]: r for r in tree.root.all("table", "crosstable")[0].all("tbody")[0].all("tr")}
    # a: as White a draw and a win, as Black a loss; b's cell is the mirror image
    b_column = 2 + drawn.names.index("b")
    a_column = 2 + drawn.names.index("a")
    assert rows["a"].all("td")[b_column].text == "1-0-1/0-1-0"
    assert rows["b"].all("td")[a_column].text == "1-0-0/0-1-1"


def test_write_report_replaces_the_file_whole(tmp_path):
    table = sample_table()
    target = tmp_path / "report.html"
    target.write_text("old")
    write_report(target, table, TERMINATIONS, "Event")
    assert target.read_text(encoding="utf-8") == render_report(table, TERMINATIONS, "Event")
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]


def test_headless_browser_renders_the_report(tmp_path, chromium_executable):
    target = tmp_path / "report.html"
    write_report(target, sample_table(), TERMINATIONS, "Rendered")
    screenshot = tmp_path / "report.png"
    subprocess.run(
        [
            chromium_executable,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--window-size=1000,1600",
            f"--screenshot={screenshot}",
            target.as_uri(),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    data = screenshot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (1000, 1600)
    assert len(data) > 20000  # a blank page compresses to far less than the tables and chart
