"""The engine's protocol loop: protocol/SPEC.md spoken on stdin/stdout (``dipole-engine``).

Commands are read and answered on the main thread while a search runs on the facade's
thread (:class:`dipole_engine.engine.Engine`), so ``isready``, ``stop``, ``quit`` and
everything else are answered at once during a search.  Every ``go`` gets exactly one
``bestmove``.  Bad input gets one ``info string error <reason>`` line and changes nothing
but what it validly could (a ``moves`` list is played up to its first bad move).  End of
input is ``quit``.  Lines are written whole and flushed, from either thread, under a lock.
"""

from __future__ import annotations

import importlib.metadata
import os
import sys
import threading
import traceback
from collections.abc import Callable
from typing import Any, BinaryIO, TextIO

from protocol import (
    BestMove,
    Command,
    Go,
    GoPerft,
    Id,
    Info,
    IsReady,
    Limit,
    OptionSpec,
    PerftMove,
    PerftTotal,
    Position,
    ProtocolError,
    Query,
    QueryResponse,
    Quit,
    ReadyOk,
    Response,
    SetOption,
    Stop,
    Uci,
    UciNewGame,
    UciOk,
    Ugi,
    UgiNewGame,
    UgiOk,
    error_info,
    format_response,
    parse_command,
    parse_int,
)

from .build_info import build_name
from .engine import Engine, Limits, SearchInfo
from .evaluate import hooks_for
from .rules import WHITE, Board, RulesError, all_variants, divide, new_board

ENGINE_NAME = "Dipole Engine"
ENGINE_AUTHOR = "the dipole-engine authors"
HASH = OptionSpec("Hash", "spin", 16, 1, 1024)
MOVE_OVERHEAD = OptionSpec("MoveOverhead", "spin", 30, 0, 5000)


def engine_version() -> str:
    try:
        return importlib.metadata.version("dipole-engine")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def searchable_variants() -> list[str]:
    """The variants whose game the search can evaluate, in registration order."""
    names = []
    for variant in all_variants():
        try:
            hooks_for(variant.new_board())
        except ValueError:
            continue
        names.append(variant.name)
    return names


class ProtocolLoop:
    """One protocol session over ``stdin`` (bytes) and ``stdout`` (text)."""

    def __init__(self, stdin: BinaryIO, stdout: TextIO, engine: Engine | None = None) -> None:
        self._stdin = stdin
        self._stdout = stdout
        self._output_lock = threading.Lock()
        self._output_broken = False
        self.engine = engine if engine is not None else Engine(HASH.default, MOVE_OVERHEAD.default)  # type: ignore[arg-type]
        self.variants = searchable_variants()
        self.variant_option = OptionSpec("UCI_Variant", "combo", self.variants[0], vars=tuple(self.variants))
        self.options = (HASH, MOVE_OVERHEAD, self.variant_option)
        self.variant = self.variants[0]
        self.board: Board[Any] = new_board(self.variant)
        # True from a go until its bestmove is written; only the search thread clears it,
        # before writing the bestmove, so a host that has read the bestmove finds it False.
        self._searching = False
        self._handlers: dict[type, Callable[[Any], None]] = {
            Uci: lambda _: self._handshake(UciOk()), Ugi: lambda _: self._handshake(UgiOk()),
            IsReady: lambda _: self._send(ReadyOk()), SetOption: self._set_option,
            UciNewGame: self._new_game, UgiNewGame: self._new_game, Position: self._position,
            Go: self._go, GoPerft: self._perft, Stop: self._stop, Query: self._query,
        }

    # -- the loop --------------------------------------------------------------------------
    def run(self) -> int:
        """Answer commands until ``quit`` or end of input; then stop the search.  Returns 0."""
        for raw in self._stdin:
            line = raw.decode("utf-8", "replace")
            if line.strip() and not self.handle(line):
                break
            if self._output_broken:
                break
        self.engine.stop()
        self.engine.wait()
        return 0

    def handle(self, line: str) -> bool:
        """Carry out one command line; False when it was ``quit``."""
        try:
            command: Command = parse_command(line)
            if isinstance(command, Quit):
                return False
            self._handlers[type(command)](command)
        except (ProtocolError, RulesError) as error:
            self._error(str(error))
        except Exception as error:  # a bug: report it and keep serving
            traceback.print_exc(file=sys.stderr)
            self._error(f"internal error on {line.strip()[:40]!r}: {type(error).__name__}: {error}")
        return True

    # -- output ----------------------------------------------------------------------------
    def _send(self, *responses: Response) -> None:
        self._write("".join(format_response(response) + "\n" for response in responses))

    def _error(self, reason: str) -> None:
        self._send(error_info(reason))

    def _write(self, text: str) -> None:
        with self._output_lock:
            if self._output_broken:
                return
            try:
                self._stdout.write(text)
                self._stdout.flush()
            except (OSError, ValueError):  # the host has gone: stop writing, and let the loop end
                self._output_broken = True
                _silence(self._stdout)

    # -- commands --------------------------------------------------------------------------
    def _handshake(self, done: UciOk | UgiOk) -> None:
        self._send(Id("name", f"{ENGINE_NAME} {engine_version()} ({build_name()})"), Id("author", ENGINE_AUTHOR),
                   *self.options, done)

    def _set_option(self, command: SetOption) -> None:
        spec = next((option for option in self.options if option.name.lower() == command.name.lower()), None)
        if spec is None:
            known = ", ".join(option.name for option in self.options)
            raise ProtocolError(f"setoption: unknown option {command.name!r}; the options are {known}")
        if not command.value:
            raise ProtocolError(f"setoption: option {spec.name!r} needs a value")
        if spec is self.variant_option:
            variant = next((name for name in self.variants if name.lower() == command.value.lower()), None)
            if variant is None:
                raise ProtocolError(f"setoption: UCI_Variant must be one of {', '.join(self.variants)}, "
                                    f"found {command.value!r}")
            self.variant = variant
            self.board = new_board(variant)
            return
        value = parse_int(command.value, f"setoption {spec.name}", spec.min, spec.max)  # type: ignore[arg-type]
        if spec is HASH:
            self.engine.set_hash(value)
        else:
            self.engine.set_move_overhead(value)

    def _new_game(self, _: UciNewGame | UgiNewGame) -> None:
        self.engine.new_game()
        self.board = new_board(self.variant)

    def _position(self, command: Position) -> None:
        try:
            board = new_board(self.variant, command.fen)
        except RulesError as error:
            raise ProtocolError(f"position: {error}") from None
        total = len(command.moves)
        for number, text in enumerate(command.moves, start=1):
            try:
                board.push_text(text)
            except RulesError as error:
                self.board = board
                kept = f"kept the position after move {number - 1}" if number > 1 else "kept the position before it"
                raise ProtocolError(f"position: move {number} of {total}, {error}; {kept}") from None
        self.board = board

    def _go(self, command: Go) -> None:
        if self._searching:
            raise ProtocolError("go: a search is already running; send stop first")
        self._searching = True
        try:
            self.engine.set_position(self.board)
            self.engine.go(_limits(command.limit), self._on_info, self._on_bestmove)
        except BaseException:
            self._searching = False  # no search started, so no bestmove will clear it
            raise

    def _on_info(self, info: SearchInfo) -> None:
        self._send(Info(depth=info.depth, seldepth=info.seldepth, score_cp=info.score_cp,
                        score_mate=info.score_mate, nodes=info.nodes, nps=info.nps,
                        time=info.time_ms, hashfull=info.hashfull, pv=info.pv))

    def _on_bestmove(self, move: str | None) -> None:
        self._searching = False
        self._send(BestMove(move))

    def _stop(self, _: Stop) -> None:
        self.engine.stop()
        self.engine.wait()  # the bestmove is out before the next command is read

    def _perft(self, command: GoPerft) -> None:
        if self._searching:
            raise ProtocolError("go perft: a search is running; send stop first")
        counts = divide(self.board.copy(), command.depth) if command.depth > 0 else []
        total = sum(count for _, count in counts) if command.depth > 0 else 1
        self._send(*(PerftMove(str(move), count) for move, count in counts), PerftTotal(total))

    def _query(self, command: Query) -> None:
        board = self.board
        if command.item == "gameover":
            value = _bool(board.is_game_over())
        elif command.item == "p1turn":
            value = _bool(board.turn == WHITE)
        elif command.item == "result":
            winner = board.winner()
            value = "none" if winner is None else ("p1win" if winner == WHITE else "p2win")
        elif command.item == "fen":
            value = board.fen()
        elif command.item == "moves":
            value = " ".join(str(move) for move in board.legal_moves()) or "(none)"
        elif command.item == "size":
            value = f"{board.variant.width}x{board.variant.height}"
        else:
            value = board.variant.start_fen
        self._send(QueryResponse(value))


def _bool(value: bool) -> str:
    return "true" if value else "false"


def _limits(limit: Limit) -> Limits:
    """The facade's limits for a ``go`` (a ``go`` without parameters has ``infinite`` set)."""
    return Limits(wtime=limit.wtime, btime=limit.btime, winc=limit.winc, binc=limit.binc,
                  movestogo=limit.movestogo, movetime=limit.movetime, depth=limit.depth,
                  nodes=limit.nodes, infinite=limit.infinite)


def _silence(stream: TextIO) -> None:
    """Point a broken output at /dev/null, so that flushing it at exit cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


SWITCH_INTERVAL = 0.0001
"""Seconds a thread waits for the interpreter lock before it asks the holder to hand it over
(Python's default is 0.005).  The protocol thread takes and gives up the lock several times to
answer one command while the search thread holds it.  The compiled search gives the lock up
only at its checks, every CHECK_EVERY nodes (under a millisecond), and takes it straight back;
a waiting thread asks for a hand-over only after a whole interval in which the lock did not
change hands, so the interval must be shorter than the time between those checks, or the
protocol thread is left to win races for the lock and ``isready`` can wait for seconds.  It
costs nothing while nothing else waits."""


def run_loop() -> int:
    """Run the protocol on this process's stdin and stdout; the exit status."""
    sys.setswitchinterval(SWITCH_INTERVAL)
    return ProtocolLoop(sys.stdin.buffer, sys.stdout).run()
