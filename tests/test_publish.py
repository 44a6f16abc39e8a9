"""``dipole-arbiter publish`` from the command line: a site of an event database and a PGN file,
valid HTML5 (html5lib's strict parser) with hostile names as text, republishing that leaves unchanged game pages alone,
and one clear line for bad input."""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import html5lib  # type: ignore[import-untyped]
import pytest

HOSTILE = "<script>alert(1)</script>&\"x'"
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
SVG_LEAVES = {"rect", "line", "polyline", "circle", "path", "ellipse"}  # written self-closed inside <svg>


def arbiter(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arbiter", *args], cwd=cwd, capture_output=True, text=True, timeout=300
    )


@pytest.fixture(scope="module")
def event(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real round-robin of the project's engine at depth 1 (one side with a clock), with a
    hostile engine name; its database and PGN in the directory returned."""
    directory = tmp_path_factory.mktemp("event")
    own = f"cmd={sys.executable} -m dipole_engine"
    run = arbiter(
        "tournament",
        "--engine",
        own,
        f"name={HOSTILE}",
        "tc=20+0.1",
        "depth=1",
        "--engine",
        own,
        "name=beta",
        "depth=1",
        "--engine",
        own,
        "name=gamma",
        "depth=1",
        "--games",
        "2",
        "--opening-plies",
        "2",
        "--seed",
        "5",
        "--concurrency",
        "2",
        "--db",
        "event.db",
        "--pgn",
        "event.pgn",
        cwd=directory,
    )
    assert run.returncode == 0, run.stderr
    return directory


class Checker(HTMLParser):
    """Balanced tags (void elements aside), one doctype, unique ids."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.problems: list[str] = []
        self.ids: set[str] = set()
        self.doctype = False
        self.text: list[str] = []

    def handle_decl(self, decl: str) -> None:
        self.doctype = decl.lower() == "doctype html"

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name == "id":
                if value in self.ids:
                    self.problems.append(f"duplicate id {value}")
                self.ids.add(value or "")
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in VOID and tag not in SVG_LEAVES:
            self.problems.append(f"self-closed <{tag}/>")

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack[-1] != tag:
            self.problems.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
        else:
            self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def game_pages(site: Path) -> list[Path]:
    return sorted(page for page in (site / "games").glob("*.html") if not page.name.startswith("all-"))


def check_page(path: Path) -> str:
    """The page's text, once its HTML is checked: no HTML5 parse error (html5lib's strict
    WHATWG parser), balanced tags, one doctype, unique ids."""
    html5lib.HTMLParser(strict=True).parse(path.read_text(encoding="utf-8"))  # raises ParseError
    checker = Checker()
    checker.feed(path.read_text(encoding="utf-8"))
    checker.close()
    assert checker.doctype, path
    assert not checker.problems and not checker.stack, (path, checker.problems, checker.stack)
    return "".join(checker.text)


@pytest.mark.slow
def test_publish_event_and_pgn(event: Path, tmp_path: Path) -> None:
    pgn = tmp_path / "more.pgn"
    shutil.copy(event / "event.pgn", pgn)
    run = arbiter("publish", str(event / "event.db"), str(pgn), "--output", str(tmp_path / "site"), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "Published 2 source(s)" in run.stdout
    site = tmp_path / "site"
    pages = sorted(site.rglob("*.html"))
    assert len(game_pages(site)) == 12  # 6 games from each source
    shown = 0
    for page in pages:
        text = check_page(page)
        assert "<script>alert" not in page.read_text(encoding="utf-8")  # the name is never markup
        if page in game_pages(site):
            shown += HOSTILE in text  # ... but text
    assert shown == 8  # the games it played: 4 in each source
    index = check_page(site / "index.html")
    assert HOSTILE in index and "Standings" in index and "Crosstable" in index
    results = json.loads((site / "results.json").read_text())
    assert len(results["games"]) == 12
    assert {row["engine"] for row in results["ratings"]} == {HOSTILE, "beta", "gamma"}
    assert (site / "games.pgn").read_text().count("[Event ") == 12
    board = (site / "assets" / "board.js").read_text()
    assert "window.DipoleBoard" in board and "\nexport " not in board
    assert not any(url in page.read_text() for page in pages for url in ("http://", "https://"))


@pytest.mark.slow
def test_republish_leaves_unchanged_games_alone(event: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    assert arbiter("publish", str(event / "event.db"), "--output", str(site), cwd=tmp_path).returncode == 0
    games = game_pages(site)
    assert len(games) == 6
    for page in games:
        os.utime(page, (1_000_000_000, 1_000_000_000))
    pgn = tmp_path / "more.pgn"  # another event's games
    pgn.write_text((event / "event.pgn").read_text().replace('[Event "dipole-arbiter tournament"]', '[Event "Second"]'))
    run = arbiter("publish", str(event / "event.db"), str(pgn), "--output", str(site), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert all(page.stat().st_mtime == 1_000_000_000 for page in games)  # not written again
    assert len(game_pages(site)) == 12  # the new source's games added
    assert json.loads((site / "results.json").read_text())["games"].__len__() == 12
    again = arbiter("publish", str(event / "event.db"), str(pgn), "--output", str(site), cwd=tmp_path)
    assert "0 file(s) written" in again.stdout


@pytest.mark.slow
def test_bad_inputs_get_one_line(event: Path, tmp_path: Path) -> None:
    junk = tmp_path / "junk.bin"
    junk.write_bytes(b"\x00\x01 not a record \xff")
    text = tmp_path / "notes.txt"
    text.write_text("Some notes, not games.\n")
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.close()
    blocker = tmp_path / "file"
    blocker.write_text("x")
    cases = [
        ((str(tmp_path / "missing.db"), "--output", str(tmp_path / "s1")), "missing.db: no such file"),
        ((str(junk), "--output", str(tmp_path / "s2")), "junk.bin: not UTF-8 text"),
        ((str(text), "--output", str(tmp_path / "s2")), "notes.txt is neither an event database nor a PGN file"),
        ((str(other), "--output", str(tmp_path / "s3")), "is not a dipole-arbiter event database"),
        ((str(event / "event.db"), "--output", str(blocker / "site")), "cannot write there"),
        ((str(event / "event.db"), "--output", str(blocker)), "is not a directory"),
    ]
    for args, message in cases:
        run = arbiter("publish", *args, cwd=tmp_path)
        assert run.returncode == 2, (args, run.stdout)
        lines = run.stderr.strip().splitlines()
        assert len(lines) == 1 and message in lines[0] and lines[0].startswith("dipole-arbiter: error:"), run.stderr


def table_cells(page: Path, name: str) -> list[list[str]]:
    """The texts of the cells of each body row of the page's table of class ``name``."""
    tree = html5lib.parse(page.read_text(encoding="utf-8"), namespaceHTMLElements=False)
    (table,) = [table for table in tree.iter("table") if table.get("class") == name]
    return [
        ["".join(cell.itertext()) for cell in row.iter("td")] for row in table.iter("tr") if row.find("td") is not None
    ]


def played(db: Path) -> list[tuple[int, int, str, str, str]]:
    """Every finished game of an event database: its round, pairing, White, Black and result."""
    with sqlite3.connect(db) as connection:
        rows = connection.execute(
            "SELECT s.round, s.pairing, g.white, g.black, g.result FROM games g JOIN schedule s USING (number)"
        ).fetchall()
    connection.close()
    return rows


def points(result: str) -> tuple[float, float]:
    return {"1-0": (1.0, 0.0), "0-1": (0.0, 1.0), "1/2-1/2": (0.5, 0.5)}[result]


ENCOUNTER = re.compile(r"^(\S+) (\d+(?:\.5)?)-(\d+(?:\.5)?) (\S+)(?: \((.*)\))?$")


@pytest.mark.slow
def test_event_pages_show_bracket_swiss_rounds_and_sprt(tmp_path: Path) -> None:
    """The event pages of a real knockout, Swiss event and SPRT match: the bracket's encounters
    and the Swiss pairings by round are the database's games with their scores, each round's
    unpaired engine has a bye, the winner is the final's."""
    own = f"cmd={sys.executable} -m dipole_engine"
    common = ("--opening-plies", "2", "--concurrency", "2")
    knockout = arbiter(
        "tournament",
        "--format",
        "knockout",
        *(arg for name, depth in zip("abcd", "2121") for arg in ("--engine", own, f"name={name}", f"depth={depth}")),
        "--games",
        "2",
        *common,
        "--db",
        "ko.db",
        cwd=tmp_path,
    )
    assert knockout.returncode == 0, knockout.stderr
    swiss = arbiter(
        "tournament",
        "--format",
        "swiss",
        *(arg for name, depth in zip("abcde", "21211") for arg in ("--engine", own, f"name={name}", f"depth={depth}")),
        "--rounds",
        "3",
        "--games",
        "1",
        "--seed",
        "3",
        *common,
        "--db",
        "swiss.db",
        cwd=tmp_path,
    )
    assert swiss.returncode == 0, swiss.stderr
    sprt = arbiter(
        "tournament",
        "--engine",
        own,
        "name=a",
        "depth=2",
        "--engine",
        own,
        "name=b",
        "depth=1",
        "--games",
        "4",
        "--sprt",
        "elo0=0 elo1=200 alpha=0.05 beta=0.05",
        *common,
        "--db",
        "sprt.db",
        cwd=tmp_path,
    )
    assert sprt.returncode == 0, sprt.stderr
    run = arbiter("publish", "ko.db", "swiss.db", "sprt.db", "--output", "site", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    pages = {
        page.name.split("-")[0]: page
        for page in (tmp_path / "site" / "events").glob("*.html")
        if "-games-" not in page.name
    }
    events = {name: check_page(page) for name, page in pages.items()}

    # the Swiss rounds: per round, each game's pairing and score, and the one engine left out has a bye
    games = played(tmp_path / "swiss.db")
    expected: dict[int, set[str]] = {}
    for round_, _, white, black, result in games:
        a, b = points(result)
        expected.setdefault(round_, set()).add(f"{white} {a:g}-{b:g} {black}")
    for shown in expected.values():
        paired = {name for line in shown for name in line.split()[::2]}
        shown.update(f"{name} bye" for name in "abcde" if name not in paired)
    rows = table_cells(pages["swiss"], "pairings")
    assert {int(round_) for round_, _, _ in rows} == {1, 2, 3} == set(expected)
    for round_, lines in expected.items():
        assert {text for number, _, text in rows if int(number) == round_} == lines
    score = {name: 0.0 for name in "abcde"}
    for _, _, text in rows:
        if text.endswith(" bye"):
            score[text.split()[0]] += 1
        else:
            white, a, b, black, _ = ENCOUNTER.match(text).groups()  # type: ignore[union-attr]
            score[white] += float(a)
            score[black] += float(b)
    standings = table_cells(pages["swiss"], "swiss-standings")
    assert {name: float(total) for _, name, total, _ in standings} == score

    # the knockout bracket: each round's encounters with the points of their games
    encounters: dict[tuple[int, frozenset[str]], dict[str, float]] = {}
    for round_, _, white, black, result in played(tmp_path / "ko.db"):
        tally = encounters.setdefault((round_, frozenset((white, black))), {white: 0.0, black: 0.0})
        a, b = points(result)
        tally[white] += a
        tally[black] += b
    bracket = table_cells(pages["ko"], "bracket")
    shown_rounds: dict[tuple[int, frozenset[str]], dict[str, float]] = {}
    through = {}
    for row_index, row in enumerate(bracket):
        for column, text in enumerate(row):
            round_ = column + 1 if row_index == 0 else 1  # 4 engines: round 2's one cell spans both rows
            first, a, b, second, note = ENCOUNTER.match(text).groups()  # type: ignore[union-attr]
            shown_rounds[(round_, frozenset((first, second)))] = {first: float(a), second: float(b)}
            through[round_, frozenset((first, second))] = note.rsplit(", ", 1)[-1].split()[0] if note else None
    assert shown_rounds == encounters
    final = next(key for key in encounters if key[0] == 2)
    assert set(final[1]) == {through[key] for key in encounters if key[0] == 1}  # the winners meet
    assert f"Winner: {through[final]}" in events["ko"]
    assert "SPRT (elo0=0 elo1=200 alpha=0.05 beta=0.05)" in events["sprt"] and "LLR" in events["sprt"]


def test_republish_reads_and_rewrites_only_what_changed(event: Path, tmp_path: Path) -> None:
    """An unchanged event is not read again (its moves are not even looked at) and games.pgn is
    left alone; two more games are appended to games.pgn, and among the old game pages only the
    last one is written again, to link the next game."""
    db = tmp_path / "event.db"
    shutil.copy(event / "event.db", db)
    with sqlite3.connect(db) as connection:  # the event as it stood two games earlier
        connection.execute("DELETE FROM moves WHERE game > 4")
        connection.execute("DELETE FROM games WHERE number > 4")
    connection.close()
    site = tmp_path / "site"
    assert arbiter("publish", str(db), "--output", str(site), cwd=tmp_path).returncode == 0
    pgn = site / "games.pgn"
    before = pgn.read_text()
    inode = pgn.stat().st_ino
    pages = {page.name: page for page in game_pages(site)}
    for page in [pgn, *pages.values()]:
        os.utime(page, (1_000_000_000, 1_000_000_000))
    with sqlite3.connect(db) as connection:  # were the moves read, they would not replay
        connection.execute("UPDATE moves SET text = 'zz9' WHERE game = 1")
    connection.close()
    again = arbiter("publish", str(db), "--output", str(site), cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert "0 file(s) written" in again.stdout
    assert pgn.stat().st_mtime == 1_000_000_000
    shutil.copy(event / "event.db", db)  # the two more games
    more = arbiter("publish", str(db), "--output", str(site), cwd=tmp_path)
    assert more.returncode == 0, more.stderr
    assert pgn.stat().st_ino == inode and pgn.read_text().startswith(before)  # appended
    assert pgn.read_text().count("[Event ") == 6 == len(json.loads((site / "results.json").read_text())["games"])
    written = {name for name, page in pages.items() if page.stat().st_mtime != 1_000_000_000}
    last = max(pages, key=lambda name: int(name.rsplit("-", 1)[1].split(".")[0]))
    assert written == {last}  # it now links the next game
    fifth = last.replace("-4.html", "-5.html")
    assert f'rel="next" href="{fifth}"' in (site / "games" / last).read_text()
    assert f'rel="prev" href="{last}"' in (site / "games" / fifth).read_text()
    assert "last game so far" in check_page(site / "games" / last.replace("-4.html", "-6.html"))


PAGE_LIMIT = 150_000  # bytes: no page of a site of 130 engines may be larger


def many_engines_pgn(path: Path, engines: int) -> list[str]:
    """A PGN file of ``engines`` engines, the first (``e000``) playing each other one twice, by
    adjudication before any move (the cheapest real games: the rating fit and every list count
    them like any other); the engines' names."""
    names = [f"e{index:03d}" for index in range(engines)]
    games = []
    for index, name in enumerate(names[1:], 1):
        for white, black, result in (("e000", name, ("1-0", "0-1", "1/2-1/2")[index % 3]), (name, "e000", "1/2-1/2")):
            games.append(
                f'[Event "Many"]\n[Round "{len(games) + 1}"]\n[White "{white}"]\n[Black "{black}"]\n'
                f'[Result "{result}"]\n[Termination "adjudication"]\n\n{result}\n'
            )
    path.write_text("\n".join(games))
    return names


def follow_pages(first: Path, cells: str) -> list[list[list[str]]]:
    """The pages of a paginated list from ``first`` on, by their rel=next links (each page's
    rel=prev leading back to the page before): per page, the texts of the cells of each row
    that ``cells`` (an ElementPath to rows) finds."""
    pages: list[list[list[str]]] = []
    page: Path | None = first
    previous: Path | None = None
    while page is not None:
        check_page(page)
        assert page.stat().st_size < PAGE_LIMIT, (page.name, page.stat().st_size)
        tree = html5lib.parse(page.read_text(encoding="utf-8"), namespaceHTMLElements=False)
        links = {link.get("rel"): link.get("href") for link in tree.iter("a") if link.get("rel") in ("prev", "next")}
        assert (page.parent / links["prev"] if "prev" in links else None) == previous, page.name
        pages.append([["".join(cell.itertext()) for cell in row.iter("td")] for row in tree.findall(cells)])
        previous, page = page, (page.parent / links["next"] if "next" in links else None)
    return pages


@pytest.mark.slow
def test_long_lists_are_paginated(tmp_path: Path) -> None:
    """130 engines: the rating list (the site's and the event's) comes in pages of 100 engines,
    linked by next and previous, every engine once, ranks running on; the engine that met 129
    others has its opponents in pages too; and no page of the site reaches PAGE_LIMIT."""
    names = many_engines_pgn(tmp_path / "many.pgn", 130)
    run = arbiter("publish", "many.pgn", "--output", "site", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    site = tmp_path / "site"
    event = next(page for page in (site / "events").glob("many-*.html") if page.stem.count("-") == 1)
    for first in (site / "index.html", event):
        pages = follow_pages(first, ".//table[@class='standings']/tbody/tr")
        assert [len(rows) for rows in pages] == [100, 30], first.name
        rows = [row for rows in pages for row in rows]
        assert sorted(row[1] for row in rows) == names  # every engine exactly once
        assert [int(row[0]) for row in rows] == list(range(1, 131))  # page 2 goes on from 101
    hub = next(page for page in (site / "engines").glob("e000-*.html") if page.stem.count("-") == 1)
    pages = follow_pages(hub, ".//table[@class='opponents']/tbody/tr")
    assert [len(rows) for rows in pages] == [100, 29]
    assert sorted(row[0] for rows in pages for row in rows) == names[1:]
    assert all(row[3] == "2" for rows in pages for row in rows)  # two games with each
    largest = max(site.rglob("*.html"), key=lambda page: page.stat().st_size)
    assert largest.stat().st_size < PAGE_LIMIT, (largest.name, largest.stat().st_size)


def test_pgn_clocks_follow_its_time_control_tags(tmp_path: Path) -> None:
    """A PGN file published alone: each move's clock on the game page is the mover's time
    control from the PGN's tags (TimeControl, or WhiteTimeControl and BlackTimeControl), less
    the times its comments give, plus the increments; a book move shows no clock.  The tags
    are rewritten to other time controls than the games were played at, so the clocks can
    come from nowhere else."""
    own = f"cmd={sys.executable} -m dipole_engine"
    run = arbiter(
        "tournament",
        *("--engine", own, "name=a", "depth=1", "tc=30+0.25"),
        *("--engine", own, "name=b", "depth=1", "tc=20+0.5"),
        *("--games", "2", "--opening-plies", "2", "--pgn", "played.pgn"),
        cwd=tmp_path,
    )
    assert run.returncode == 0, run.stderr
    games = (tmp_path / "played.pgn").read_text().split("\n\n[Event ")
    assert len(games) == 2 and all('TimeControl "20+0.5"]' in game for game in games)
    games[0] = re.sub(r'\[(White|Black)TimeControl "[^"]*"\]\n', "", games[0]).replace(
        "[Result ", '[TimeControl "45+1"]\n[Result '
    )
    games[1] = games[1].replace('WhiteTimeControl "30+0.25"', 'WhiteTimeControl "50+2"')
    pgn = tmp_path / "games.pgn"
    pgn.write_text("\n\n[Event ".join(games))
    published = arbiter("publish", "games.pgn", "--output", "site", cwd=tmp_path)
    assert published.returncode == 0, published.stderr
    for number, game in enumerate(games, 1):
        tags = dict(re.findall(r'^\[(\w+) "([^"]*)"\]$', game, flags=re.M))
        white = tags.get("WhiteTimeControl", tags.get("TimeControl"))
        black = tags.get("BlackTimeControl", tags.get("TimeControl"))
        clocks = {side: [float(part) for part in tc.split("+")] for side, tc in (("w", white), ("b", black))}
        remaining = {side: base + increment for side, (base, increment) in clocks.items()}  # (on it from move 1)
        comments = re.findall(r"\{([^}]*)\}", game.split("\n\n", 1)[1])
        (page,) = (tmp_path / "site" / "games").glob(f"games-*-{number}.html")
        rows = table_cells(page, "moves")
        comments = comments[:-1]  # the last one says why the game ended
        assert len(rows) == len(comments) > 2 and [row[0] for row in rows] == [str(i) for i in range(1, len(rows) + 1)]
        side = "w"
        timed = 0
        for row, comment in zip(rows, comments):
            spent = re.search(r"(\d+\.\d+)s$", comment)
            if comment == "book":
                assert row[4] == "", (number, row)
            else:
                remaining[side] += clocks[side][1] - (float(spent.group(1)) if spent else 0.0)
                minutes, seconds = divmod(remaining[side], 60)
                assert row[4] == (f"{minutes:.0f}:{seconds:06.3f}" if minutes else f"{seconds:.3f}s"), (number, row)
                timed += spent is not None
            side = "b" if side == "w" else "w"
        assert timed > 2


def damaged_copies(event: Path, into: Path) -> dict[str, Path]:
    """Copies of the fixture's event database, damaged: ``settings`` has garbage over the pages
    of its settings (refused on opening), ``moves`` over its moves' pages only (the settings and
    results read well: the damage shows when the games are read, pages already being written)."""
    roots = dict(
        sqlite3.connect(f"file:{event / 'event.db'}?mode=ro&immutable=1", uri=True)
        .execute("SELECT name, rootpage FROM sqlite_master")
        .fetchall()
    )
    copies = {}
    for name, table in (("settings", "event"), ("moves", "moves")):
        copy = into / f"{name}-damaged.db"
        shutil.copy(event / "event.db", copy)
        with open(copy, "r+b") as handle:
            handle.seek((roots[table] - 1) * 4096)
            handle.write(b"\xa5" * 4096)
        copies[name] = copy
    return copies


def listing(directory: Path) -> dict[str, tuple[int, int]]:
    """Every file under ``directory`` with its size and mtime, and every directory.  (Not a
    directory's mtime: a file written beside its target and removed unused changes it.)"""
    return {
        str(path.relative_to(directory)): (0, 0) if path.is_dir() else (path.stat().st_size, path.stat().st_mtime_ns)
        for path in directory.rglob("*")
    }


def test_an_empty_file_is_neither_an_event_database_nor_pgn(tmp_path: Path) -> None:
    """Not an empty site and status 0: one line, status 2, from every command that reads it."""
    empty = tmp_path / "event.db"
    empty.write_bytes(b"")
    message = f"dipole-arbiter: error: {empty} is empty: neither an event database nor a PGN file\n"
    for command in (["publish", str(empty), "--output", str(tmp_path / "site")], ["ratings", str(empty)]):
        run = arbiter(*command, cwd=tmp_path)
        assert (run.returncode, run.stderr, run.stdout) == (2, message, ""), command
    run = arbiter("replay", str(empty), cwd=tmp_path)
    assert (run.returncode, run.stderr) == (2, message)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["event.db"]  # no site, no -wal


@pytest.mark.slow
def test_a_failed_publish_leaves_the_disk_as_it_was(event: Path, tmp_path: Path) -> None:
    """A damaged event database: one line, status 2; the output directories the publish would
    have made (and their parents) are not left behind, a site already there is untouched, and
    the database, read-only, is neither changed nor given -wal/-shm files.  ``export``,
    ``ratings`` and ``replay`` refuse it in one line too."""
    copies = damaged_copies(event, tmp_path)
    before = {name: copy.read_bytes() for name, copy in copies.items()}
    site = tmp_path / "site"
    assert arbiter("publish", str(event / "event.db"), "--output", str(site), cwd=tmp_path).returncode == 0
    published = listing(site)
    for name, copy in copies.items():
        damaged = f"dipole-arbiter: error: event database {copy} is damaged and cannot be read: "
        for output in (tmp_path / "new" / "site", site):
            run = arbiter("publish", str(copy), "--output", str(output), cwd=tmp_path)
            assert run.returncode == 2, (name, run.stdout)
            assert run.stderr.startswith(damaged) and run.stderr.count("\n") == 1, run.stderr
            assert not (tmp_path / "new").exists(), name
        assert listing(site) == published
        reads = [["export", str(copy), "--pgn", str(tmp_path / "out.pgn")]]
        if name == "settings":  # (ratings reads the results, not the moves)
            reads.append(["ratings", str(copy)])
        for command in reads:
            run = arbiter(*command, cwd=tmp_path)
            assert (run.returncode, run.stderr.startswith(damaged), run.stderr.count("\n")) == (2, True, 1), command
        run = arbiter("replay", str(copy), cwd=tmp_path)  # it reads PGN only: a database is no text
        assert run.returncode == 2 and run.stderr.count("\n") == 1
        assert run.stderr.startswith(f"dipole-arbiter: error: PGN file {copy}: not UTF-8 text")
        assert copy.read_bytes() == before[name]
    # A site of other games: the good database's pages are new files, written before the
    # damaged database's moves are read; they go, and every file written whole comes back.
    other = tmp_path / "other"
    assert arbiter("publish", str(event / "event.pgn"), "--output", str(other), cwd=tmp_path).returncode == 0
    before_other = listing(other)
    run = arbiter("publish", str(event / "event.db"), str(copies["moves"]), "--output", str(other), cwd=tmp_path)
    assert run.returncode == 2 and run.stderr.startswith(f"dipole-arbiter: error: event database {copies['moves']}")
    assert listing(other) == before_other
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted(
        [*(p.name for p in copies.values()), "site", "other"]
    )
