"""The least a Python referee can cost per ply, beside what ``play_game`` costs: the floor of a ply.

    python benchmarks/ply_floor.py                 # 300 games of each loop, one and two at once
    python benchmarks/ply_floor.py --games 100 --at-once 2

Six loops play the same 55-ply game against the instant engine of
``benchmarks/arbiter_vs_cutegames.py`` (a C program that answers every ``go`` at once), each
in its own process, ``--at-once`` of them side by side (two at once keep both cores of the
development machine busy, as a match at concurrency 2 does):

- ``bare``: one ``os.write`` of the ``position`` and ``go`` lines, one ``poll``, one ``os.read``:
  no client, no rules, no clock (the pipes and the kernel alone);
- ``lean``: the bare loop plus what a referee must do: the legal moves, the engine's move found
  by its text and played, the clock charged, the ``go`` line built from both clocks, a
  :class:`~arbiter.records.game.MoveRecord` a ply;
- ``multiplexed``: the lean loop's work for four games at once in one thread, one ``poll`` over
  their engines (an event loop: no thread per game); two processes of it play eight games at
  once, as a match at concurrency 8 does;
- ``play_game``: the arbiter's referee (:func:`arbiter.play.referee.play_game`, engines started
  beforehand), at 10+0.1;
- ``threads``: four ``play_game`` loops at once in one process, on four threads (the game
  processes before the hub);
- ``hub``: the same four on four greenlets of one :class:`~arbiter.pools.hub.Hub` in one
  thread (the game processes now).

Each loop reports its process's CPU per ply (user + system, ``RUSAGE_SELF``: the loop's threads,
and its engine clients' idle stderr readers), the user part, its voluntary context switches per
ply and its plies per second.
"""

from __future__ import annotations

import argparse
import functools
import os
import resource
import select
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from arbiter_vs_cutegames import build_engine, fixed_game  # noqa: E402

from arbiter.play.engines import EngineSpec  # noqa: E402
from arbiter.play.referee import EngineSlot, GameJob, RefereeSettings, play_game  # noqa: E402
from arbiter.play.timecontrol import SearchLimits, TimeControl  # noqa: E402
from arbiter.pools.hub import Hub  # noqa: E402
from arbiter.records.game import START, MoveRecord, MoveSource  # noqa: E402
from dipole_engine.rules import new_board  # noqa: E402
from protocol.waiting import waiting_with  # noqa: E402

BASE_MS, INCREMENT_MS = 10_000, 100


class Pipes:
    """The instant engine over bare pipes: one write of a ply's lines, one poll, one read."""

    def __init__(self, engine: Path) -> None:
        self.process = subprocess.Popen([str(engine)], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert self.process.stdin is not None and self.process.stdout is not None
        self.input = self.process.stdin.fileno()
        self.output = self.process.stdout.fileno()
        self.poll = select.poll()
        self.poll.register(self.output, select.POLLIN)

    def ask(self, lines: str) -> bytes:
        self.send(lines)
        return self.answer()

    def send(self, lines: str) -> None:
        os.write(self.input, lines.encode())

    def answer(self) -> bytes:
        if not self.poll.poll(10_000):
            raise SystemExit("the instant engine did not answer within 10 s")
        return os.read(self.output, 65536)

    def close(self) -> None:
        self.process.kill()
        self.process.wait()


def bare(engine: Path, games: int) -> int:
    pipes = Pipes(engine)
    moves = fixed_game()[0]  # the game the engine replays
    plies = 0
    for _ in range(games):
        for ply in range(len(moves)):
            pipes.ask(f"position startpos moves {' '.join(moves[:ply])}\ngo wtime 10000 btime 10000\n")
            plies += 1
    pipes.close()
    return plies


class _LeanGame:
    """One game of the lean loop (what a referee must do, and no more), between two of its
    engine's answers: the lean loop plays one at a time, the multiplexed loop several."""

    def __init__(self, pipes: Pipes) -> None:
        self.pipes = pipes
        self.board = new_board("dipole")
        self.clocks = [BASE_MS / 1000, BASE_MS / 1000]
        self.records: list[MoveRecord] = []
        self.position = "position startpos moves"
        self.legal = self.board.legal_moves()
        self.started = 0.0

    def ask(self) -> None:
        go = f"go wtime {round(self.clocks[0] * 1000)} btime {round(self.clocks[1] * 1000)} winc 100 binc 100"
        self.started = time.monotonic()
        self.pipes.send(f"{self.position}\n{go}\n")

    def answered(self, data: bytes) -> bool:
        """The engine's answer: played, and the next ply asked for; False once the game is over."""
        elapsed = time.monotonic() - self.started
        words = data.decode().split("\n", 1)[0].split()
        if words[:1] != ["bestmove"] or len(words) < 2:
            raise SystemExit(f"the instant engine answered {words!r}")
        self.clocks[len(self.records) % 2] += INCREMENT_MS / 1000 - elapsed
        move = self.board.parse_move(words[1], self.legal)
        self.board.push(move)
        text = str(move)
        self.position += " " + text
        self.records.append(MoveRecord(text, MoveSource.ENGINE, time=elapsed))
        if self.board.winner() is not None:
            return False
        self.legal = self.board.legal_moves()
        self.ask()
        return True


def lean(engine: Path, games: int) -> int:
    pipes = Pipes(engine)
    plies = 0
    for _ in range(games):
        game = _LeanGame(pipes)
        game.ask()
        while game.answered(pipes.answer()):
            pass
        plies += len(game.records)
    pipes.close()
    return plies


MULTIPLEXED = 4  # games at once in the multiplexed loop's one thread


def multiplexed(engine: Path, games: int) -> int:
    """The lean loop's work for MULTIPLEXED games at once in one thread: one ``poll`` over their
    engines, each answer handled as it comes (no thread per game, no hand-off)."""
    engines = [Pipes(engine) for _ in range(MULTIPLEXED)]
    poll = select.poll()
    playing: dict[int, _LeanGame] = {}
    begun = plies = 0
    for pipes in engines[:games]:
        poll.register(pipes.output, select.POLLIN)
        playing[pipes.output] = game = _LeanGame(pipes)
        game.ask()
        begun += 1
    while playing:
        for fd, _ in poll.poll(10_000):
            game = playing[fd]
            if game.answered(os.read(fd, 65536)):
                continue
            plies += len(game.records)
            if begun < games:
                playing[fd] = game = _LeanGame(game.pipes)
                game.ask()
                begun += 1
            else:
                del playing[fd]
    for pipes in engines:
        pipes.close()
    return plies


def refereed(engine: Path, games: int, names: tuple[str, str] = ("first", "second")) -> int:
    settings = RefereeSettings()
    limits = SearchLimits(clock=TimeControl(0, BASE_MS / 1000, INCREMENT_MS / 1000))
    first, second = (EngineSpec(name, (str(engine),), limits) for name in names)
    slots = {spec.name: EngineSlot(spec, "dipole", settings) for spec in (first, second)}
    for slot in slots.values():
        slot.start()
    plies = 0
    for number in range(games):
        white, black = (first, second) if number % 2 == 0 else (second, first)
        record = play_game(
            GameJob(number + 1, white, black, START, "dipole"), slots[white.name], slots[black.name], settings
        )
        plies += len(record.moves)
    for slot in slots.values():
        slot.quit()
    return plies


def _loops(engine: Path, games: int, plies: list[int]) -> list[Callable[[], None]]:
    """MULTIPLEXED ``play_game`` loops, each with its engines, adding its plies to ``plies``."""

    def loop(k: int) -> None:
        plies.append(refereed(engine, games, (f"first{k}", f"second{k}")))

    return [functools.partial(loop, k) for k in range(MULTIPLEXED)]


def on_threads(engine: Path, games: int) -> int:
    """MULTIPLEXED ``play_game`` loops at once, each on a thread of its own."""
    plies: list[int] = []
    threads = [threading.Thread(target=loop) for loop in _loops(engine, games, plies)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sum(plies)


def on_hub(engine: Path, games: int) -> int:
    """MULTIPLEXED ``play_game`` loops at once, each in a greenlet of one hub (one thread)."""
    hub = Hub()
    plies: list[int] = []
    for loop in _loops(engine, games, plies):
        hub.spawn(loop)
    with waiting_with(hub):
        hub.run()
    return sum(plies)


RUNS: dict[str, Callable[[Path, int], int]] = {
    "bare": bare,
    "lean": lean,
    "multiplexed": multiplexed,
    "play_game": refereed,
    "threads": on_threads,
    "hub": on_hub,
}


def measure(loop: str, engine: Path, games: int) -> None:
    """Run one loop in this process and print its figures (a child of :func:`main`)."""
    before = resource.getrusage(resource.RUSAGE_SELF)
    started = time.perf_counter()
    plies = RUNS[loop](engine, games)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_SELF)
    user = (after.ru_utime - before.ru_utime) / plies * 1e6
    system = (after.ru_stime - before.ru_stime) / plies * 1e6
    switches = (after.ru_nvcsw - before.ru_nvcsw) / plies
    print(
        f"  {loop:<10} {plies:>7} plies {plies / wall:>9,.0f} plies/s  CPU {user + system:6.1f} us/ply "
        f"(user {user:5.1f})  {switches:.2f} waits/ply",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=300, help="games per loop (default 300)")
    parser.add_argument("--at-once", type=int, nargs="+", default=[1, 2], help="loops side by side (default 1 2)")
    parser.add_argument("--loop", choices=list(RUNS), help="run this loop alone, in this process")
    parser.add_argument("--engine", help=argparse.SUPPRESS)  # (a child's: the engine main() built)
    args = parser.parse_args()
    if args.games < 1 or any(count < 1 for count in args.at_once):
        parser.error("--games and --at-once take numbers of 1 or more")
    if args.loop is not None and args.engine is not None:
        measure(args.loop, Path(args.engine), args.games)
        return
    if args.loop is not None:  # one loop alone (under taskset, perf or valgrind): its engine first
        with tempfile.TemporaryDirectory(prefix="ply-floor-") as temp:
            measure(args.loop, build_engine(Path(temp)), args.games)
        return
    with tempfile.TemporaryDirectory(prefix="ply-floor-") as temp:
        engine = build_engine(Path(temp))
        plies = len(fixed_game()[0])
        print(f"{args.games} games of {plies} plies per loop, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
        for loop in RUNS:
            for count in args.at_once:
                print(f"{loop}, {count} at once:", flush=True)
                command = [
                    sys.executable,
                    __file__,
                    "--loop",
                    loop,
                    "--engine",
                    str(engine),
                    "--games",
                    str(args.games),
                ]
                children = [subprocess.Popen(command) for _ in range(count)]
                if any(child.wait() != 0 for child in children):
                    raise SystemExit(f"the {loop} loop failed")


if __name__ == "__main__":
    main()
