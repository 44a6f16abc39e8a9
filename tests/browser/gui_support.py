"""What the GUI's tests and benchmark share: a real ``dipole-gui`` server process, the system's
Chromium through Playwright, and a player that clicks moves on the page.

Playwright is pointed at Debian's Chromium (``executable_path``: the ``chromium_executable``
fixture of ``tests/conftest.py``) and never downloads a browser.
"""

from __future__ import annotations

import contextlib
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import gameplug
from dipole_engine.rules import new_board

ROOT = Path(__file__).resolve().parents[2]
TOY_ENGINE = ROOT / "tests" / "engines" / "toy_engine.py"
SERVER_CODE = "from dipole_gui.cli import main; main()"


class GuiServer:
    """A ``dipole-gui`` process on a free loopback port; ``url`` is what it printed."""

    def __init__(self, *args: str, env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", SERVER_CODE, "--port", "0", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            env=env,
        )
        self.url = ""
        self.lines: list[str] = []
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline() if self.proc.stdout else ""
            if not line:
                break
            self.lines.append(line)
            match = re.search(r"open (\S+)", line)
            if match:
                self.url = match.group(1)
                break
        if not self.url:
            self.proc.kill()
            raise AssertionError(
                f"dipole-gui did not start: {self.lines} {self.proc.stderr.read() if self.proc.stderr else ''}"
            )

    @property
    def base(self) -> str:
        """The URL without its query (no token)."""
        return self.url.split("?")[0]

    def descendants(self) -> set[int]:
        """The pids of the engine processes below the server (each runs under a guard process
        of :mod:`protocol.guard` on Linux; the guards are not counted, nor a child forked by
        the server that has not yet become a guard: it still has the server's command line)."""
        server = command_line(self.proc.pid)
        return {pid for pid in descendants(self.proc.pid) if not is_guard(pid) and command_line(pid) != server}

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def descendants(pid: int) -> set[int]:
    """Every process below ``pid`` (read from /proc: children of each of its threads)."""
    found: set[int] = set()
    todo = [pid]
    while todo:
        parent = todo.pop()
        for task in Path(f"/proc/{parent}/task").glob("*"):
            with contextlib.suppress(OSError):
                for child in (task / "children").read_text().split():
                    if int(child) not in found:
                        found.add(int(child))
                        todo.append(int(child))
    return found


def command_line(pid: int) -> bytes:
    """The command line of ``pid`` (empty once it has gone)."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def is_guard(pid: int) -> bool:
    """Whether ``pid`` is an engine's guard process (:mod:`protocol.guard`)."""
    return b"import guard; guard.main(sys.argv)" in command_line(pid)


def alive(pid: int) -> bool:
    """Whether ``pid`` is a running process (a zombie counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def wait_gone(pids: set[int], timeout: float = 30.0) -> set[int]:
    """Wait for ``pids`` to end; the ones still running after ``timeout``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        left = {pid for pid in pids if alive(pid)}
        if not left:
            return set()
        time.sleep(0.05)
    return {pid for pid in pids if alive(pid)}


@contextlib.contextmanager
def gui_server(*args: str, env: dict[str, str] | None = None) -> Iterator[GuiServer]:
    server = GuiServer(*args, env=env)
    try:
        yield server
    finally:
        engines = server.descendants()
        server.stop()
        assert not wait_gone(engines), "engines outlived the GUI server"


def open_page(browser, url: str) -> tuple:
    """A page of the GUI at ``url``, its board drawn, and the list its script errors go to."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(url)
    page.wait_for_selector("#board svg")
    return page, errors


def start_game(
    page,
    *,
    variant: str,
    white: str,
    black: str,
    tc: str = "clock",
    base_minutes: str = "10",
    increment: str = "0",
    movetime: str = "0.1",
    depth: str = "2",
    start: str = "start",
) -> None:
    """Fill in the page's new-game form, start the game and wait for it to be shown
    (``white``/``black``: the option values, "human" or an engine id; ``start``: "start" or
    "current", the position shown)."""
    page.select_option("#variant", variant)
    page.select_option("#start-from", start)
    page.select_option("#white", white)
    page.select_option("#black", black)
    page.select_option("#tc-kind", tc)
    if tc == "clock":
        page.fill("#tc-base", base_minutes)
        page.fill("#tc-inc", increment)
    elif tc == "movetime":
        page.fill("#tc-movetime", movetime)
    else:
        page.fill("#tc-depth", depth)
    number = page.get_attribute("body", "data-game")
    page.click("#new")
    page.wait_for_function(f"() => document.body.dataset.game !== '{number}'")


def click_move(page, variant: str, fen: str, move: str) -> str | None:
    """Enter ``move`` (its text, legal at ``fen``) by clicking where the game says it is entered:
    its piece (when it has an origin), its target (a square, a marker beyond the edge such as a
    Dipole exit, a removal mark), and the chooser's button when asked.  Returns the chooser's
    question, or None when the GUI asked none."""
    state = gameplug.variant(variant).read_position(fen)
    choice = state.describe_move(state.read_move(move))
    target = choice.target
    assert target is not None, f"{move} has no place on the board"
    plies = int(page.get_attribute("body", "data-plies"))
    if choice.origin is not None:
        page.click(f'g.piece[data-square="{choice.origin}"]')
    edge = f'[data-edge="{target.edge}"]' if target.edge else ":not([data-edge])"
    page.click(f'.target-hit[data-target="{target.square}"][data-kind="{target.kind}"]{edge}')
    question = None
    if page.locator("#chooser").is_visible():
        question = page.text_content("#chooser-title")
        page.click(f'#chooser-options button[data-move="{move}"]')
    page.wait_for_function(f"() => Number(document.body.dataset.plies) > {plies} || document.body.dataset.result")
    return question


def big_pgn(characters: int, seed: int = 1) -> str:
    """At least ``characters`` of PGN in the arbiter's format: one game of legal moves with
    engine comments, written again and again as numbered games (as a long event's file)."""
    import random

    from arbiter.records.game import GameRecord, MoveRecord, Termination
    from arbiter.records.pgn import format_game

    board, chance = new_board("dipole"), random.Random(seed)
    moves = []
    while board.winner() is None and len(moves) < 120:
        legal = board.legal_moves()
        move = chance.choice([m for m in legal if "off" not in str(m)] or legal)  # exits end games early
        board.push(move)
        moves.append(MoveRecord(str(move), score_cp=chance.randint(-200, 200), depth=7, time=0.25))
    games, number = [], 0
    while sum(map(len, games)) < characters:
        number += 1
        games.append(
            format_game(
                GameRecord(
                    number, "a", "b", "dipole", None, tuple(moves), "*", Termination.UNTERMINATED, "game in progress"
                )
            )
        )
    return "\n".join(games)
