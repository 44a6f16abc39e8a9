"""``dipole-arbiter match`` against cutegames (a C++ match runner), side by side, on an instant engine.

    python benchmarks/arbiter_vs_cutegames.py                      # 600 games at concurrency 1, 2, 4, 8
    python benchmarks/arbiter_vs_cutegames.py --games 100 --concurrency 2 4
    python benchmarks/arbiter_vs_cutegames.py --rounds 2           # each runner twice at each concurrency
    python benchmarks/arbiter_vs_cutegames.py --tc 1+0.01 --concurrency 8   # a fast clock
    python benchmarks/arbiter_vs_cutegames.py --info 8             # 8 info lines before each bestmove
    python benchmarks/arbiter_vs_cutegames.py --think 1 --cores 1 --concurrency 8 16 32
                                                  # engines that leave the cores free, on one core

The engine is ``benchmarks/instant_engine.c``, compiled with ``cc`` into a temporary directory:
it answers every ``go`` at once by replaying one fixed legal game from the start position (the
game the toy engine of the tests plays with seed 1, 55 plies, generated here with the rules
core), and answers cutegames' UGI queries (``gameover``, ``result``, ``p1turn``) from the same
game.  So every game of both runners is the same 55 plies, and what is measured is the
runners' own cost.  With ``--info N`` it first writes N ``info`` lines (depth, score, nodes, a
pv), as an engine that searches does at each iteration: what reading them costs each runner.
With ``--think MS`` it waits that long before each ``bestmove``, asleep: engines that leave the
cores to the runner, whose throughput should then grow with its concurrency until its own CPU
fills the cores; ``--cores N`` runs both runners (and their engines) on N of the cores this
process may use, so that the same concurrency can be measured on one core and on more.

Each runner plays ``--games`` games at 10+0.1 (``--tc``) from the start position, at each concurrency,
the two runners alternating (so that the shared machine's load falls on both alike).  For each
run: plies/s (plies counted from the PGN's ``PlyCount`` tags, over the wall time of the whole
command, start-up included) and the runner's own CPU per ply (user + system time of the
runner's whole process tree, the arbiter's game processes and engine guards included, less the
engines' own time, which the instant engine reports as it ends), with its share of system time; then the arbiter's figures as ratios
of cutegames' (throughput: higher is better; CPU per ply: lower is better).  For the arbiter
also: the games that did not end normally (a loss on time of an engine that answers at once is
the arbiter's doing), and the move times it recorded (what the clocks were charged, to the
millisecond of its PGN): median, p99, p99.9 and worst, and where the moves of 5 ms or more were
(the first 100 games, when the game processes start; the last 100, as the cores empty; between).

cutegames is found at ``--cutegames`` (default ``$CUTEGAMES`` or ``/work/cutegames/cutegames``;
``../shared/tools/cutegames/README.md`` builds it).
"""

from __future__ import annotations

import argparse
import ctypes
import functools
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dipole_engine.rules import WHITE, new_board  # noqa: E402

ENGINE_SOURCE = ROOT / "benchmarks" / "instant_engine.c"
DEFAULT_CUTEGAMES = os.environ.get("CUTEGAMES", "/work/cutegames/cutegames")
TICKS = os.sysconf("SC_CLK_TCK")


def fixed_game(seed: int = 1) -> tuple[list[str], str]:
    """One legal Dipole game from the start position, as the toy engine of the tests plays it
    with ``seed`` on both sides; its moves and its result in UGI's words."""
    board = new_board("dipole")
    moves: list[str] = []
    while (winner := board.winner()) is None:
        legal = board.legal_moves()
        rng = random.Random(f"{seed}/{board.fen()}")
        keep = [move for move in legal if not board.takes_checkers_off(move)]
        move = rng.choice(keep if keep and rng.random() >= 0.05 else legal)
        moves.append(str(move))
        board.push(move)
    return moves, "p1win" if winner == WHITE else "p2win"


def build_engine(directory: Path) -> Path:
    moves, result = fixed_game()
    header = directory / "game.h"
    header.write_text(
        "#define GAME_MOVES " + ", ".join(f'"{move}"' for move in moves) + f'\n#define GAME_RESULT "{result}"\n'
    )
    binary = directory / "instant_engine"
    subprocess.run(["cc", "-O2", "-I", str(directory), "-o", str(binary), str(ENGINE_SOURCE)], check=True)
    return binary


@dataclass
class Run:
    runner: str
    concurrency: int
    games: int
    plies: int
    wall: float
    user: float
    system: float

    @property
    def plies_per_second(self) -> float:
        return self.plies / self.wall

    @property
    def cpu_per_ply_ms(self) -> float:
        return (self.user + self.system) / self.plies * 1000

    @property
    def system_share(self) -> float:
        return self.system / max(self.user + self.system, 1e-9)


def run_measured(
    command: list[str], cwd: Path, engine: Path, python_path: str | None = None
) -> tuple[float, float, float]:
    """Run ``command``; its wall time and the user and system CPU seconds of its whole process
    tree but the engines (``engine`` is their program).  The tree's CPU: the runner's own, read
    from /proc while it is a zombie (``waitid`` with ``WNOWAIT``), plus that of every descendant
    it reaped (the arbiter's game processes and engine guards, and the engines), less what those
    engines report they used; plus that of the descendants that outlive it, which this process,
    a subreaper, inherits and reaps (multiprocessing's fork server, with the game processes it
    reaped, and its resource tracker; the engines a runner leaves behind, killed, are not
    counted)."""
    set_process_option(PR_SET_CHILD_SUBREAPER, 1)
    report = cwd / "engine-cpu.txt"
    report.unlink(missing_ok=True)
    # Python's bytecode cached, as an installed command has it (not compiled at every start).
    environment = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    environment["INSTANT_ENGINE_CPU"] = str(report)
    if python_path is not None:
        environment["PYTHONPATH"] = python_path
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    os.waitid(os.P_PID, process.pid, os.WEXITED | os.WNOWAIT)
    wall = time.perf_counter() - started
    stat = Path(f"/proc/{process.pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2 :].split()  # after the command name, which may hold spaces
    user, system, children_user, children_system = (int(value) / TICKS for value in fields[11:15])
    _, errors = process.communicate()
    if process.returncode != 0:
        raise SystemExit(f"{command[0]} failed ({process.returncode}): {errors.decode(errors='replace')[-2000:]}")
    outlived_user, outlived_system, outliving_engines = reap_outliving(command[0], engine.name)
    reports = [line.split() for line in report.read_text().splitlines()] if report.exists() else []
    reaped = [entry for entry in reports if int(entry[2]) not in outliving_engines]  # counted in the tree
    engines_user = sum(float(entry[0]) for entry in reaped)
    engines_system = sum(float(entry[1]) for entry in reaped)
    return (
        wall,
        user + children_user + outlived_user - engines_user,
        system + children_system + outlived_system - engines_system,
    )


PR_SET_CHILD_SUBREAPER = 36
OUTLIVING_LIMIT = 10.0  # seconds a runner's descendant may outlive it before the run fails


def set_process_option(option: int, value: int) -> None:
    prctl = ctypes.CDLL(None, use_errno=True).prctl
    if prctl(option, value, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl")


def reap_outliving(runner: str, engine: str) -> tuple[float, float, set[int]]:
    """Wait for the descendants of the runner that outlived it (now this process's children):
    the user and system CPU seconds of those that are not engines (with what they reaped), and
    the process ids of those that are (their time is the engines', not the runner's)."""
    user = system = 0.0
    engines: set[int] = set()
    deadline = time.monotonic() + OUTLIVING_LIMIT
    while True:
        try:
            ended = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOWAIT | os.WNOHANG)
        except ChildProcessError:  # none left
            return user, system, engines
        if ended is None:
            if time.monotonic() > deadline:
                raise SystemExit(f"a process started by {runner} still runs {OUTLIVING_LIMIT:.0f} s after it ended")
            time.sleep(0.005)
            continue
        stat = Path(f"/proc/{ended.si_pid}/stat").read_text()  # a zombie's, until reaped below
        _, _, usage = os.wait4(ended.si_pid, 0)
        if stat[stat.index("(") + 1 : stat.rindex(")")] == engine[:15]:  # the kernel keeps 15 characters
            engines.add(ended.si_pid)
        else:
            user, system = user + usage.ru_utime, system + usage.ru_stime


SLOW_MOVE = 0.005  # seconds: the bound on p99.9 of the recorded move times
EDGE_GAMES = 100  # the first and the last games, where the processes start and the cores empty


def move_times(pgn: Path) -> tuple[list[float], int, tuple[int, int, int]]:
    """The move times recorded in the arbiter's PGN (sorted), its games not ended normally, and
    its moves of SLOW_MOVE or more in the first EDGE_GAMES games (by number), between them and
    the last EDGE_GAMES."""
    text = pgn.read_text()
    times: list[float] = []
    slow_by_game: dict[int, int] = {}
    for game in re.split(r"^\[Event ", text, flags=re.MULTILINE)[1:]:
        number = re.search(r'\[Round "(\d+)"\]', game)
        own = [float(value) for value in re.findall(r"\{(\d+\.\d+)s\}", game)]
        times += own
        if number is not None:
            slow_by_game[int(number.group(1))] = sum(seconds >= SLOW_MOVE for seconds in own)
    times.sort()
    last = max(slow_by_game, default=0) - EDGE_GAMES
    first = sum(slow for number, slow in slow_by_game.items() if number <= EDGE_GAMES)
    end = sum(slow for number, slow in slow_by_game.items() if number > max(last, EDGE_GAMES))
    abnormal = len([tag for tag in re.findall(r'\[Termination "([^"]*)"\]', text) if tag != "normal"])
    return times, abnormal, (first, sum(slow_by_game.values()) - first - end, end)


def count_plies(pgn: Path) -> tuple[int, int]:
    """Games and plies of a PGN file (from its PlyCount tags)."""
    counts = [int(value) for value in re.findall(r'\[PlyCount "(\d+)"\]', pgn.read_text())]
    return len(counts), sum(counts)


def run_arbiter(
    engine: Path, games: int, concurrency: int, tc: tuple[float, float], directory: Path, root: str | None = None
) -> Run:
    pgn = directory / "arbiter.pgn"
    pgn.unlink(missing_ok=True)
    command = [
        sys.executable,
        "-m",
        "arbiter",
        "match",
        "--engine",
        f"cmd={engine}",
        "name=a",
        "--engine",
        f"cmd={engine}",
        "name=b",
        "--tc",
        f"{tc[0]:g}+{tc[1]:g}",
        "--games",
        str(games),
        "--concurrency",
        str(concurrency),
        "--pgn",
        str(pgn),
    ]
    wall, user, system = run_measured(command, directory, engine, root)
    played, plies = count_plies(pgn)
    times, abnormal, (first, between, end) = move_times(pgn)
    if times:

        def at(share: float) -> float:
            return times[min(len(times) - 1, int(share * len(times)))] * 1000

        print(
            f"  dipole-arbiter recorded move times: median {at(0.5):.0f} ms, p99 {at(0.99):.0f} ms, "
            f"p99.9 {at(0.999):.0f} ms, worst {times[-1] * 1000:.0f} ms; games not ended normally: {abnormal}; "
            f"moves of {SLOW_MOVE * 1000:.0f} ms or more in the first {EDGE_GAMES} games / between / "
            f"the last {EDGE_GAMES}: {first} / {between} / {end}"
        )
    return Run("dipole-arbiter", concurrency, played, plies, wall, user, system)


def run_cutegames(
    cutegames: str, engine: Path, games: int, concurrency: int, tc: tuple[float, float], directory: Path
) -> Run:
    pgn = directory / "cutegames.pgn"
    pgn.unlink(missing_ok=True)
    (directory / "openings.txt").write_text("startpos\n")
    settings = {
        "game": "generic",
        "games": games,
        "concurrency": concurrency,
        "ratinginterval": games,  # 0 divides by zero
        "verbose": False,
        "debug": False,
        "recover": False,
        "tournament": "roundrobin",
        "protocol": {"askturn": False},
        "openings": {"path": "openings.txt", "repeat": True, "shuffle": False},
        "adjudication": {"timeoutbuffer": 25},
        "timecontrol": {"type": "clock", "time": round(tc[0] * 1000), "increment": round(tc[1] * 1000)},
        "pgn": {
            "enabled": True,
            "verbose": False,
            "override": False,
            "colour1": "White",
            "colour2": "Black",
            "path": str(pgn),
            "event": "bench",
        },
        "engines": [
            {"name": "a", "path": str(engine), "protocol": "UGI"},
            {"name": "b", "path": str(engine), "protocol": "UGI"},
        ],
    }
    (directory / "settings.json").write_text(json.dumps(settings))
    wall, user, system = run_measured([cutegames, "--settings", "settings.json"], directory, engine)
    played, plies = count_plies(pgn)
    return Run("cutegames", concurrency, played, plies, wall, user, system)


def show(run: Run) -> None:
    print(
        f"  {run.runner:<15} {run.games:>5} games {run.plies:>7} plies {run.wall:7.2f} s "
        f"{run.plies_per_second:>9,.0f} plies/s  CPU/ply {run.cpu_per_ply_ms:.4f} ms "
        f"(system {run.system_share:.0%})",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=600, help="games per run (default 600)")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 2, 4, 8])
    parser.add_argument("--tc", default="10+0.1", help="SECONDS+INCREMENT (default 10+0.1)")
    parser.add_argument("--rounds", type=int, default=1, help="runs of each runner at each concurrency")
    parser.add_argument(
        "--info",
        type=int,
        default=0,
        metavar="N",
        help="info lines the engine writes before each bestmove, as a searching engine does (default 0)",
    )
    parser.add_argument(
        "--think",
        type=float,
        default=0.0,
        metavar="MS",
        help="milliseconds the engine waits, asleep, before each bestmove (default 0: it answers at once)",
    )
    parser.add_argument(
        "--cores", type=int, metavar="N", help="run both runners on N of the cores this process may use (default all)"
    )
    parser.add_argument("--cutegames", default=DEFAULT_CUTEGAMES, help="the cutegames binary")
    parser.add_argument(
        "--arbiter-root",
        metavar="DIR",
        help="run the arbiter of this checkout (e.g. an older commit's) instead of this one",
    )
    args = parser.parse_args()
    base, _, increment = args.tc.partition("+")
    tc = (float(base), float(increment or 0))
    if args.info < 0:
        raise SystemExit(f"--info: expected a number of lines, 0 or more, found {args.info}")
    if not 0 <= args.think <= 10_000:
        raise SystemExit(f"--think: expected milliseconds from 0 to 10000, found {args.think:g}")
    os.environ["INSTANT_ENGINE_INFO"] = str(args.info)  # (the engines inherit it)
    os.environ["INSTANT_ENGINE_THINK_US"] = str(round(args.think * 1000))
    if args.cores is not None:
        allowed = sorted(os.sched_getaffinity(0))
        if not 1 <= args.cores <= len(allowed):
            raise SystemExit(
                f"--cores: expected 1 to {len(allowed)} (the cores this process may use), found {args.cores}"
            )
        os.sched_setaffinity(0, allowed[: args.cores])  # (the runners, their processes and engines inherit it)
    if not os.access(args.cutegames, os.X_OK):
        raise SystemExit(f"cutegames not found at {args.cutegames} (--cutegames PATH or $CUTEGAMES)")
    with tempfile.TemporaryDirectory(prefix="arbiter-vs-cutegames-") as temp:
        directory = Path(temp)
        engine = build_engine(directory)
        root = Path(args.arbiter_root) if args.arbiter_root else ROOT
        subprocess.run(
            [
                sys.executable,
                "-m",
                "compileall",
                "-q",
                str(root / "arbiter"),
                str(root / "protocol"),
                str(root / "dipole_engine"),
            ],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        print(
            f"{args.games} games at {args.tc} per run, instant engine ({len(fixed_game()[0])} plies a game, "
            f"{args.info} info lines a move, {args.think:g} ms asleep a move), "
            f"{len(os.sched_getaffinity(0))} of {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}"
        )
        summary: list[tuple[int, Run, Run]] = []
        for concurrency in args.concurrency:
            print(f"concurrency {concurrency}:")
            for round_number in range(args.rounds):
                runs = [
                    functools.partial(run_arbiter, engine, args.games, concurrency, tc, directory, args.arbiter_root),
                    functools.partial(run_cutegames, args.cutegames, engine, args.games, concurrency, tc, directory),
                ]
                if round_number % 2 == 1:  # alternate which runner goes first
                    runs.reverse()
                results = [measure() for measure in runs]
                for result in results:
                    show(result)
                arbiter = next(run for run in results if run.runner == "dipole-arbiter")
                cutegames = next(run for run in results if run.runner == "cutegames")
                summary.append((concurrency, arbiter, cutegames))
                print(
                    f"  arbiter/cutegames: throughput {arbiter.plies_per_second / cutegames.plies_per_second:.2f}, "
                    f"CPU per ply {arbiter.cpu_per_ply_ms / cutegames.cpu_per_ply_ms:.2f}",
                    flush=True,
                )
        print(
            "\n| concurrency | dipole-arbiter plies/s | CPU/ply ms | cutegames plies/s | CPU/ply ms "
            "| throughput ratio | CPU ratio |"
        )
        print("|---|---|---|---|---|---|---|")
        for concurrency, arbiter, cutegames in summary:
            print(
                f"| {concurrency} | {arbiter.plies_per_second:,.0f} | {arbiter.cpu_per_ply_ms:.3f} "
                f"| {cutegames.plies_per_second:,.0f} | {cutegames.cpu_per_ply_ms:.3f} "
                f"| {arbiter.plies_per_second / cutegames.plies_per_second:.2f} "
                f"| {arbiter.cpu_per_ply_ms / cutegames.cpu_per_ply_ms:.2f} |"
            )


if __name__ == "__main__":
    main()
