"""What the user sees while games run: start and finish lines, the score so far, an ETA.

On a terminal the last line is a progress bar redrawn in place; elsewhere (a pipe, a file,
a CI log) every update is a plain line.  The ``Started game``/``Finished game`` lines are in
cutechess-cli's form, so scripts written for it can follow a match.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TextIO

from ..play.referee import GameJob
from ..records.game import GameRecord

BAR_WIDTH = 24


def format_duration(seconds: float) -> str:
    seconds = max(0, int(seconds + 0.5))
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


class Progress:
    """Reports a run of ``total`` games to ``stream``; ``score_text()`` gives the running score
    (``alpha 4 - 3 beta``) and ``score_lines()`` the plain-mode lines after each game.
    ``done_before`` games were finished by an earlier run (a resumed event): they count as
    done, and the ETA comes from the pace of this run alone."""

    def __init__(
        self,
        total: int,
        stream: TextIO,
        messages: TextIO,
        *,
        tty: bool,
        score_text: Callable[[], str],
        score_lines: Callable[[], list[str]],
        done_before: int = 0,
    ) -> None:
        self.total = total
        self.stream = stream
        self.messages = messages
        self.tty = tty
        self.score_text = score_text
        self.score_lines = score_lines
        self.done = self.done_before = done_before
        self.started_at = time.monotonic()
        self._lock = threading.RLock()
        self._bar_shown = False

    def eta(self) -> str:
        played = self.done - self.done_before
        if played <= 0:
            return "?"
        elapsed = time.monotonic() - self.started_at
        return format_duration(elapsed / played * (self.total - self.done))

    def _emit(self, lines: list[str], stream: TextIO | None = None) -> None:
        """Print ``lines`` (to ``stream``, default the main one) above the bar on a terminal."""
        with self._lock:
            if self.tty and self._bar_shown:
                self.stream.write("\r\x1b[K")
                self.stream.flush()
                self._bar_shown = False
            target = stream or self.stream
            for line in lines:
                target.write(line + "\n")
            target.flush()
            if self.tty:
                self._draw()
                self.stream.flush()

    def _draw(self) -> None:
        filled = BAR_WIDTH * self.done // max(1, self.total)
        bar = "#" * filled + "." * (BAR_WIDTH - filled)
        self.stream.write(f"[{bar}] {self.done}/{self.total} games  {self.score_text()}  ETA {self.eta()}")
        self._bar_shown = True

    def started(self, job: GameJob) -> None:
        self._emit([f"Started game {job.number} of {self.total} ({job.white.name} vs {job.black.name})"])

    def finished(self, record: GameRecord) -> None:
        with self._lock:
            self.done += 1
            lines = [record.finished_line()]
            if not self.tty:
                lines += self.score_lines()
                lines.append(
                    f"Progress: {self.done}/{self.total} games, elapsed "
                    f"{format_duration(time.monotonic() - self.started_at)}, ETA {self.eta()}"
                )
            self._emit(lines)

    def note(self, lines: list[str]) -> None:
        """Lines for the main stream (a new round's pairings, the standings so far)."""
        self._emit(lines)

    def message(self, line: str) -> None:
        """A warning or notice, on the message stream, without breaking the bar."""
        self._emit([line], self.messages)

    def close(self) -> None:
        """Leave the terminal on a fresh line."""
        with self._lock:
            if self.tty and self._bar_shown:
                self.stream.write("\n")
                self._bar_shown = False
            self.stream.flush()
