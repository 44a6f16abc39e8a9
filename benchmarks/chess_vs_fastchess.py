"""``dipole-arbiter match --variant chess`` against fastchess, side by side, on Stockfish.

    python benchmarks/chess_vs_fastchess.py                        # 400 games a runner at concurrency 1 and 2
    python benchmarks/chess_vs_fastchess.py --games 20 --pair-games 20    # a quick check
    python benchmarks/chess_vs_fastchess.py --concurrency 2 --rounds 2 --tc 2+0.02 --keep runs/

Both runners play the same Stockfish (``--stockfish``, Debian's ``/usr/games/stockfish``), the
same EPD book (``benchmarks/chess_openings.epd``, taken in the same order by both: each
opening twice, colours reversed), the same settings, and no adjudication:

- the clock pair: Stockfish against itself at ``--tc`` (1+0.01) with Hash=16, at each
  ``--concurrency`` (1, and one game per core): ``--games`` games a runner;
- the handicapped pair, played first: Stockfish at depth 9 against depth 7 (``--pair``),
  Hash=16, no clock, ``--pair-games`` (100) games a runner at ``--pair-concurrency`` (the
  largest concurrency).

Each runner's games are played in ``--rounds`` runs of its commands, the runners alternating
(arbiter, fastchess, fastchess, arbiter, ...) so that the shared machine's load falls on both
alike; a round takes the book from where the previous one stopped.

For each runner and each round (with the load average), then over all rounds: games, wall
time (of its whole commands, start-up included), games and plies per hour (games per hour
hangs on the games' lengths), time forfeits and other abnormal endings (the PGN's
``Termination`` tags), and Stockfish's nodes per move, search milliseconds per move and nodes
per second of search.  They are read the same way under both runners, from Stockfish's own
log (its ``Debug Log File`` option, one file per engine process, set by a small wrapper that
passes the runner's commands on): the ``nodes`` and ``time`` of the last ``info`` line before
each ``bestmove``.  Both runners also record nodes in their PGN (``nodes=true``: ``n=`` in
each move's comment), shown beside: the arbiter those of the last info line, as the log;
fastchess those of the last line with an exact score, fewer.  ``--keep DIR`` keeps each run's
PGN and output.  For the handicapped pair: the Elo of the deeper engine with its 95% interval,
computed from each runner's PGN with the arbiter's formula (cutechess-cli's), and how many
games the two runners played move for move alike (a single-threaded Stockfish at a fixed
depth is deterministic).

Then the arbiter's figures as ratios of fastchess's: games and plies per hour, nodes per move
(the host's own CPU comes out of the engines' time; at least 0.98 is the goal), search time
per move (what the runner's clocks leave to the engine: a load that slows both runners' engines
alike leaves it as it is) and nodes per second, time forfeits (no more than fastchess's, and
0 at concurrency 1), and whether the two Elo intervals overlap.

fastchess is found at ``--fastchess`` (default ``$FASTCHESS`` or ``/tmp/fastchess/fastchess``;
``../shared/tools/fastchess/README.md`` builds it).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import chess.pgn

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arbiter_vs_cutegames import PR_SET_CHILD_SUBREAPER, reap_outliving, set_process_option  # noqa: E402
from chess_openings import BOOK  # noqa: E402

from arbiter.stats.tallies import EloEstimate, elo_estimate  # noqa: E402

DEFAULT_FASTCHESS = os.environ.get("FASTCHESS", "/tmp/fastchess/fastchess")
DEFAULT_STOCKFISH = "/usr/games/stockfish"

# Stockfish with its own log: the runner's commands go through ``cat`` to the engine, after one
# that names a new log file; the engine keeps the wrapper's process (exec), so the runner
# talks to, times and stops Stockfish itself.
WRAPPER = """#!/bin/bash
log=$(mktemp {logs}/sf-XXXXXXXX.log)
exec {stockfish} < <(echo "setoption name Debug Log File value $log"; exec cat)
"""


@dataclass(frozen=True)
class Setting:
    """Two engines (a name and its limit words each) and the words they share."""

    label: str
    first: tuple[str, ...]
    second: tuple[str, ...]
    each: tuple[str, ...]


@dataclass
class Run:
    """What one runner did in one setting at one concurrency, over its rounds."""

    runner: str
    games: int = 0
    wall: float = 0.0
    forfeits: int = 0
    abnormal: Counter[str] = field(default_factory=Counter)
    moves: int = 0  # engine moves with a node count in Stockfish's logs
    nodes: int = 0
    search_ms: int = 0  # the engines' own search times (their info lines' time)
    plies: int = 0  # book moves not counted
    pgn_moves: int = 0  # engine moves with a node count in the PGN (fastchess's n=)
    pgn_nodes: int = 0
    wins: int = 0  # of the first engine
    losses: int = 0
    draws: int = 0
    played: Counter[tuple[str, ...]] = field(default_factory=Counter)  # each game's players, start and moves
    outliving: int = 0  # engines still running when their runner had ended

    def add(self, other: Run) -> None:
        """Count ``other``'s games (another run of the same runner) in this one."""
        for name in (each.name for each in dataclasses.fields(self) if each.name != "runner"):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    @property
    def games_per_hour(self) -> float:
        return self.games / self.wall * 3600

    @property
    def plies_per_hour(self) -> float:
        return self.plies / self.wall * 3600

    @property
    def nodes_per_move(self) -> float:
        return self.nodes / max(self.moves, 1)

    @property
    def search_ms_per_move(self) -> float:
        return self.search_ms / max(self.moves, 1)

    @property
    def nodes_per_second(self) -> float:
        return self.nodes / max(self.search_ms, 1) * 1000

    @property
    def elo(self) -> EloEstimate:
        return elo_estimate(self.wins, self.losses, self.draws)


def write_wrapper(directory: Path, stockfish: str) -> tuple[Path, Path]:
    """The Stockfish wrapper in ``directory`` and the folder its engines' logs go to."""
    logs = directory / "logs"
    logs.mkdir(exist_ok=True)
    wrapper = directory / "stockfish-logged"
    wrapper.write_text(WRAPPER.format(logs=logs, stockfish=stockfish))
    wrapper.chmod(0o755)
    return wrapper, logs


def arbiter_command(setting: Setting, engine: Path, games: int, concurrency: int, start: int, pgn: Path) -> list[str]:
    command = [sys.executable, "-m", "arbiter", "match", "--variant", "chess"]
    for words in (setting.first, setting.second):
        command += ["--engine", f"cmd={engine}", f"name={words[0]}", *words[1:]]
    book = ["--openings", str(BOOK), "format=epd", "order=sequential", f"start={start}"]
    played = ["--games", str(games), "--concurrency", str(concurrency), "--pgn", str(pgn), "nodes=true"]
    return [*command, "--each", *setting.each, *book, *played]


def fastchess_command(
    fastchess: str, setting: Setting, engine: Path, games: int, concurrency: int, start: int, pgn: Path
) -> list[str]:
    command = [fastchess]
    for words in (setting.first, setting.second):
        command += ["-engine", f"cmd={engine}", f"name={words[0]}", *words[1:]]
    book = ["-openings", f"file={BOOK}", "format=epd", "order=sequential", f"start={start}"]
    played = ["-rounds", str(games // 2), "-games", "2", "-repeat", "-concurrency", str(concurrency)]
    output = ["-pgnout", f"file={pgn}", "nodes=true", "-output", "format=cutechess"]
    return [*command, "-each", *setting.each, *book, *played, *output]


def play(command: list[str], pgn: Path, logs: Path, run: Run, first: str) -> None:
    """Run ``command`` in the folder of ``pgn``, the PGN it writes (its output is kept beside
    it, as ``.out``), and add what it did to ``run``; ``first`` names the engine whose results
    are counted."""
    for log in logs.iterdir():
        log.unlink()
    pgn.unlink(missing_ok=True)
    set_process_option(PR_SET_CHILD_SUBREAPER, 1)  # the engines a runner leaves behind come back to this process
    started = time.perf_counter()
    finished = subprocess.run(command, cwd=pgn.parent, capture_output=True, text=True)
    run.wall += time.perf_counter() - started
    pgn.with_suffix(".out").write_text(finished.stdout + finished.stderr)
    if finished.returncode != 0:
        raise SystemExit(f"{command[0]} failed ({finished.returncode}): {(finished.stdout + finished.stderr)[-2000:]}")
    run.outliving += len(reap_outliving(command[0], "stockfish")[2])
    read_games(pgn, run, first)
    for log in logs.iterdir():
        moves, nodes, milliseconds = engine_nodes(log.read_text(errors="replace"))
        run.moves += moves
        run.nodes += nodes
        run.search_ms += milliseconds


def read_games(pgn: Path, run: Run, first: str) -> None:
    """Add the games of ``pgn`` to ``run``: counts, endings, results and moves."""
    with pgn.open() as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            headers = game.headers
            run.games += 1
            termination = headers.get("Termination", "normal")
            if termination == "time forfeit":
                run.forfeits += 1
            elif termination != "normal":
                run.abnormal[termination] += 1
            first_white = headers["White"] == first
            result = headers["Result"]
            if result == "1/2-1/2":
                run.draws += 1
            elif result in ("1-0", "0-1"):
                if (result == "1-0") == first_white:
                    run.wins += 1
                else:
                    run.losses += 1
            moves = [node.move.uci() for node in game.mainline()]
            run.plies += len(moves)
            for node in game.mainline():
                counted = re.search(r"\bn=(\d+)", node.comment)
                if counted:
                    run.pgn_moves += 1
                    run.pgn_nodes += int(counted.group(1))
            start = headers.get("FEN", chess.STARTING_FEN).split()[:4]
            game_key = (headers["White"], headers["Black"], *start, *moves)
            run.played[game_key] += 1


def engine_nodes(log: str) -> tuple[int, int, int]:
    """The moves, total nodes and total search milliseconds in one Stockfish log: the ``nodes``
    and ``time`` of the last ``info`` line with both before each ``bestmove`` (a move with no
    such line is not counted)."""
    moves = nodes = milliseconds = 0
    last: tuple[int, int] | None = None
    for line in log.splitlines():
        if line.startswith("<< info") and (counted := re.search(r" nodes (\d+) .*?\btime (\d+)", line)):
            last = int(counted.group(1)), int(counted.group(2))
        elif line.startswith("<< bestmove"):
            if last is not None:
                moves, nodes, milliseconds = moves + 1, nodes + last[0], milliseconds + last[1]
            last = None
    return moves, nodes, milliseconds


def show(run: Run, pair: bool, note: str = "") -> None:
    abnormal = ", ".join(f"{count} {reason}" for reason, count in sorted(run.abnormal.items())) or "none"
    line = (
        f"  {run.runner:<9} {run.games:>5} games {run.wall:8.1f} s {run.games_per_hour:6.0f} games/h "
        f"{run.plies_per_hour:7.0f} plies/h  "
        f"time forfeits {run.forfeits}, other abnormal endings: {abnormal}; "
        f"nodes/move {run.nodes_per_move:,.0f} ({run.moves} moves, {run.search_ms_per_move:.1f} ms "
        f"and {run.nodes_per_second:,.0f} nodes/s of search"
    )
    if run.outliving:
        line = f"  ({run.outliving} engines outlived the runner)\n" + line
    if run.pgn_moves:
        line += f"; the PGN says {run.pgn_nodes / run.pgn_moves:,.0f} over {run.pgn_moves}"
    line += ")"
    if pair:
        line += f"; first engine +{run.wins} ={run.draws} -{run.losses}, {run.elo.text()}"
    print(line + note, flush=True)


def compare(arbiter: Run, fastchess: Run, concurrency: int, pair: bool) -> list[str]:
    """The arbiter's figures as ratios of fastchess's, one table row's cells."""
    cells = [
        str(concurrency),
        f"{arbiter.games}/{fastchess.games}",
        f"{arbiter.games_per_hour:.0f} / {fastchess.games_per_hour:.0f} = "
        f"{arbiter.games_per_hour / fastchess.games_per_hour:.3f}",
        f"{arbiter.plies_per_hour / fastchess.plies_per_hour:.3f}",
        f"{arbiter.nodes_per_move:,.0f} / {fastchess.nodes_per_move:,.0f} = "
        f"{arbiter.nodes_per_move / max(fastchess.nodes_per_move, 1):.3f}",
        f"{arbiter.search_ms_per_move / max(fastchess.search_ms_per_move, 1e-9):.3f}",
        f"{arbiter.nodes_per_second / max(fastchess.nodes_per_second, 1):.3f}",
        f"{arbiter.forfeits} / {fastchess.forfeits}",
    ]
    if pair:
        ours, theirs = arbiter.elo, fastchess.elo
        overlap = ours.elo == theirs.elo or abs(ours.elo - theirs.elo) <= ours.margin + theirs.margin
        alike = sum((arbiter.played & fastchess.played).values())
        cells += [
            f"{ours.elo:.1f} +/- {ours.margin:.1f}",
            f"{theirs.elo:.1f} +/- {theirs.margin:.1f}",
            "yes" if overlap else "NO",
            f"{alike} of {min(arbiter.games, fastchess.games)}",
        ]
    return cells


def measure(
    setting: Setting,
    concurrency: int,
    games: int,
    rounds: int,
    fastchess: str,
    engine: Path,
    logs: Path,
    directory: Path,
    book_size: int,
) -> tuple[Run, Run]:
    """Both runners in ``setting`` at ``concurrency``, ``games`` games each in ``rounds`` rounds."""
    arbiter, theirs = Run("arbiter"), Run("fastchess")
    per_round = [2 * (games // 2 // rounds + (index < games // 2 % rounds)) for index in range(rounds)]
    start = 0
    for index, round_games in enumerate(per_round):
        stem = f"{setting.label}-c{concurrency}-r{index + 1}"
        ours, their = directory / f"{stem}-arbiter.pgn", directory / f"{stem}-fastchess.pgn"
        commands = [
            (arbiter, ours, arbiter_command(setting, engine, round_games, concurrency, start + 1, ours)),
            (theirs, their, fastchess_command(fastchess, setting, engine, round_games, concurrency, start + 1, their)),
        ]
        if index % 2 == 1:
            commands.reverse()
        print(f"  round {index + 1}/{rounds}, {round_games} games each:", flush=True)
        for run, pgn, command in commands:
            this_round = Run(run.runner)
            play(command, pgn, logs, this_round, setting.first[0])
            show(this_round, setting.label == "pair", f"; load average {os.getloadavg()[0]:.1f}")
            run.add(this_round)
        start = (start + round_games // 2) % book_size
    print("  all rounds:")
    for run in (arbiter, theirs):
        show(run, setting.label == "pair")
    return arbiter, theirs


def table(title: str, header: Sequence[str], rows: list[list[str]]) -> None:
    print(f"\n{title}\n\n| " + " | ".join(header) + " |\n|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(row) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=400, help="clock-pair games a runner at each concurrency")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 2], help="default 1 2")
    parser.add_argument("--tc", default="1+0.01", help="the clock pair's SECONDS+INCREMENT (default 1+0.01)")
    parser.add_argument("--hash", type=int, default=16, help="Stockfish's Hash in MB (default 16)")
    parser.add_argument("--rounds", type=int, default=4, help="alternated runs of each runner (default 4)")
    parser.add_argument(
        "--pair",
        nargs=2,
        default=["depth=9", "depth=7"],
        metavar="LIMIT",
        help="the handicapped pair's limits (default depth=9 depth=7; nodes=N also)",
    )
    parser.add_argument("--pair-games", type=int, default=100, help="handicapped-pair games a runner (0: none)")
    parser.add_argument("--pair-concurrency", type=int, help="default the largest --concurrency")
    parser.add_argument("--keep", metavar="DIR", help="keep each run's PGN and output in DIR (default: none kept)")
    parser.add_argument("--fastchess", default=DEFAULT_FASTCHESS, help="the fastchess binary")
    parser.add_argument("--stockfish", default=DEFAULT_STOCKFISH, help="the Stockfish binary")
    args = parser.parse_args()
    if args.games < 2 or args.pair_games < 0 or args.rounds < 1:
        raise SystemExit("--games: 2 or more; --pair-games: 0 or more; --rounds: 1 or more")
    if args.games // 2 < args.rounds or 0 < args.pair_games // 2 < args.rounds:
        raise SystemExit(f"--rounds {args.rounds}: more rounds than pairs of games")
    for limit in args.pair:
        if not re.fullmatch(r"(depth|nodes)=[1-9][0-9]*", limit):
            raise SystemExit(f"--pair: expected depth=N or nodes=N, found {limit!r}")
    for name, binary in (("--fastchess", args.fastchess), ("--stockfish", args.stockfish)):
        if not os.access(binary, os.X_OK):
            raise SystemExit(f"{name}: no program at {binary}")
    book_size = len(BOOK.read_text().splitlines())
    hashing = f"option.Hash={args.hash}"
    clock = Setting("clock", ("sf-a",), ("sf-b",), (f"tc={args.tc}", hashing))
    names = [limit.replace("=", "").replace("depth", "d").replace("nodes", "n") for limit in args.pair]
    pair = Setting("pair", (names[0], args.pair[0]), (names[1], args.pair[1]), (hashing,))
    if names[0] == names[1]:
        raise SystemExit("--pair: expected two different limits")
    print(
        f"Stockfish {args.stockfish}, book {BOOK.name} ({book_size} openings), {os.cpu_count()} cores, "
        f"load average {' '.join(f'{load:.1f}' for load in os.getloadavg())}",
        flush=True,
    )
    rows: list[list[str]] = []
    pair_rows: list[list[str]] = []
    with tempfile.TemporaryDirectory(prefix="chess-vs-fastchess-") as temp:
        directory = Path(args.keep or temp)
        directory.mkdir(parents=True, exist_ok=True)
        engine, logs = write_wrapper(directory, args.stockfish)
        if args.pair_games:  # first: the shortest part
            concurrency = args.pair_concurrency or max(args.concurrency)
            print(f"handicapped pair {' vs '.join(args.pair)}, Hash={args.hash}, concurrency {concurrency}:")
            ours, theirs = measure(
                pair, concurrency, args.pair_games, args.rounds, args.fastchess, engine, logs, directory, book_size
            )
            pair_rows.append(compare(ours, theirs, concurrency, True))
        for concurrency in args.concurrency:
            print(f"clock pair at {args.tc}, Hash={args.hash}, concurrency {concurrency}:", flush=True)
            ours, theirs = measure(
                clock, concurrency, args.games, args.rounds, args.fastchess, engine, logs, directory, book_size
            )
            rows.append(compare(ours, theirs, concurrency, False))
    header = [
        "concurrency",
        "games",
        "games/h arbiter / fastchess",
        "plies/h ratio",
        "nodes/move",
        "search ms/move ratio",
        "nodes/s ratio",
        "time forfeits",
    ]
    table(f"Clock pair, {args.tc}, Hash={args.hash}: arbiter / fastchess", header, rows)
    if pair_rows:
        table(
            f"Handicapped pair, {' vs '.join(args.pair)}: Elo of {names[0]}",
            [*header, "arbiter Elo", "fastchess Elo", "intervals overlap", "games alike"],
            pair_rows,
        )
    print(f"\nload average at the end: {' '.join(f'{load:.1f}' for load in os.getloadavg())}")


if __name__ == "__main__":
    main()
