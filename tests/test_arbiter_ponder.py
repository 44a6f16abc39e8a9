"""The arbiter's ``--ponder``: two ``dipole-engine`` processes think on each other's time.

A real match through the command line: each engine's log shows ``go ... ponder`` searches
ended by ``ponderhit`` (the predicted reply was played) or by ``stop`` and a normal ``go``
(it was not), and the recorded time of a move answered after ``ponderhit`` is the engine's
own, counted from ``ponderhit``, not the pondering before it.
"""

from __future__ import annotations

import datetime
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from arbiter.records.game import MoveSource
from arbiter.records.pgn import read_pgn

pytestmark = pytest.mark.build  # the compiled client, transport, referee or hub: CI runs these on both builds

ENGINE = f"{sys.executable} -m dipole_engine"
LOG_LINE = re.compile(r"^(\S+) \S+ ([<>#!]) (.*)$")


def engine_moves(log: Path) -> list[tuple[str, float, float]]:
    """The first game's moves of the engine whose log this is: (how it was asked for: "go" or
    "ponderhit", seconds from that command to bestmove, seconds from its go to bestmove);
    the answers to a ponder search's ``stop`` are left out (they are not played).

    Each ``go`` gets exactly one ``bestmove``, in order, so the k-th answer is the k-th
    search's; the log's order alone would not do: the writer logs a command once written and
    the reader an answer once read, so an answer can be logged after the next ``go``."""
    searches: list[list[Any]] = []  # [kind, go at, asked at, in the first game]
    answers: list[float] = []
    games = 0
    for line in log.read_text().splitlines():
        found = LOG_LINE.match(line)
        if found is None:
            continue
        at = datetime.datetime.fromisoformat(found.group(1)).timestamp()
        direction, text = found.group(2), found.group(3)
        if direction == ">" and text == "ucinewgame":
            games += 1
        elif direction == ">" and text.startswith("go "):
            searches.append(["pondering" if text.split()[-1] == "ponder" else "go", at, at, games == 1])
        elif direction == ">" and text in ("ponderhit", "stop") and searches and searches[-1][0] == "pondering":
            searches[-1][0], searches[-1][2] = ("ponderhit" if text == "ponderhit" else "stopped"), at
        elif direction == "<" and text.startswith("bestmove"):
            answers.append(at)
    return [
        (kind, answer - asked_at, answer - go_at)
        for (kind, go_at, asked_at, first), answer in zip(searches, answers)
        if first and kind in ("go", "ponderhit")
    ]


@pytest.mark.slow
def test_a_pondering_match_sends_ponderhit_or_stop_and_charges_only_the_engines_own_time(tmp_path: Path) -> None:
    pgn, logs = tmp_path / "games.pgn", tmp_path / "logs"
    done = subprocess.run(
        [sys.executable, "-m", "arbiter", "match", "--engine", f"cmd={ENGINE}", "name=a",
         "--engine", f"cmd={ENGINE}", "name=b", "--tc", "3+0.1", "--timemargin", "300", "--games", "2",
         "--concurrency", "1", "--ponder", "--pgn", str(pgn), "--log", str(logs)],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    games = pgn.read_text()
    assert games.count('[Termination "normal"]') == 2, games
    assert "does not ponder" not in done.stderr
    text = {name: (logs / f"{name}.log").read_text() for name in "ab"}
    for name in "ab":
        assert re.search(r"> go wtime \d+ btime \d+ winc 100 binc 100 ponder$", text[name], re.M), name
        assert "> ponderhit" in text[name], name
    # A miss: stop, the discarded bestmove, then the real position and a normal go.
    miss = re.compile(r"> go [^\n]* ponder\n(?:[^\n]*< info[^\n]*\n)*[^\n]*> stop\n(?:[^\n]*< info[^\n]*\n)*"
                      r"[^\n]*< bestmove [^\n]*\n[^\n]*> position [^\n]*\n[^\n]*> go wtime \d+ btime \d+ winc 100 binc 100\n")  # fmt: skip
    assert miss.search(text["a"] + text["b"]), "no ponder miss ended by stop and a normal go"
    # White's recorded times in game 1 (engine a) against a's own log: its engine moves only
    # (a forced pass is the arbiter's, not the engine's), read back through the PGN reader.
    first = read_pgn(games)[0].to_record()
    recorded = [move.time for move in first.moves[0::2] if move.source is MoveSource.ENGINE and move.time is not None]
    moves = engine_moves(logs / "a.log")
    assert len(recorded) == len(moves)
    hits = [(time, kind, own, whole) for time, (kind, own, whole) in zip(recorded, moves) if kind == "ponderhit"]
    assert hits, "no ponderhit in game 1"
    for time, _, own, _ in hits:
        # Never more than the engine's own time: the pondering is not charged.  The log stamps
        # an answer once the reader has logged it, which a loaded machine delays, so the log's
        # time may be the longer one (by 51 ms once, in CI).
        assert -0.25 < time - own < 0.05, (time, own)
    pondered = sum(whole - own for _, _, own, whole in hits)
    assert sum(time for time, *_ in hits) < sum(whole for *_, whole in hits) - pondered / 2
