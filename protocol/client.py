"""The engine client hosts use to run an engine process that speaks protocol/SPEC.md.

:class:`EngineClient` starts the engine in its own process group, does the handshake with a
deadline, sets options, sends positions, runs searches under a :class:`~protocol.codec.Limit`
collecting ``info`` and ``bestmove``, ponders (``go ponder``, then ``ponderhit`` or ``stop``), stops,
quits and kills.  Each command is a small state
machine reading the engine's lines until its answer arrives or its deadline passes; lines
that are not part of the answer (stray or garbage output) are logged and skipped.

It writes only UCI's commands (``uci``, ``isready``, ``setoption``, ``ucinewgame``,
``position``, ``go``, ``stop``, ``ponderhit``, ``quit``) and sets only the options the engine
declared, so it drives a plain UCI chess engine such as Stockfish as it drives an engine of
this protocol; the options a variant needs (Chess960's ``UCI_Chess960``) come from the host
through :meth:`EngineClient.set_options`.

The client never spins: it blocks on the transport (for a process, on the engine's output
pipe) with a timeout, and times a search from writing ``go`` to the arrival of ``bestmove`` on
``time.monotonic``.  Whatever the engine
writes, its deadlines hold (a line that arrived after the deadline never counts) and what it
keeps is bounded (the last :data:`MAX_INFOS` info lines of a search); a ``bestmove`` that no
``go`` is owed, a line longer than the transport's limit, or an endless handshake is a
:class:`ProtocolViolation`, and the engine is killed.  A ``bestmove`` line that does not follow
its grammar ends the search with no move (:class:`UnreadableMove`).

Writes have deadlines too: each command must be taken by the engine within ``write_timeout``
seconds (and within the deadline of the command it belongs to, such as a search's); an engine
that does not take its input in time (it stopped reading, its input pipe stays full) is
killed and the command raises :class:`EngineStalled`.  So ``stop`` and ``quit`` never wait
longer than that either.

Errors are :class:`EngineError` subclasses whose ``str()`` is one line naming the engine.
``stop()`` and ``kill()`` may be called from another thread while ``go()`` waits.
"""

from __future__ import annotations

import dataclasses
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Final

from .codec import (
    BestMove,
    Go,
    Id,
    Info,
    IsReady,
    Limit,
    OptionSpec,
    PonderHit,
    Position,
    ProtocolError,
    Quit,
    ReadyOk,
    Response,
    SetOption,
    Stop,
    Uci,
    UciNewGame,
    UciOk,
    extend_position,
    format_command,
    format_go,
    format_response,
)
from .liveprocesses import kill_all
from .processtransport import ProcessTransport
from .reading import read_response
from .transport import EndOfOutput, LineTooLongError, LogFunction, Transport

__all__ = [
    "EngineClient",
    "EngineCrashed",
    "EngineError",
    "EngineStalled",
    "EngineStartError",
    "EngineTimeout",
    "ProtocolViolation",
    "HandshakeError",
    "SearchResult",
    "UnreadableMove",
    "kill_all",
]

# Compiled code looks a module's function up at every call, and a C type's method; a Final
# name is the compiled module's own constant.  These and those of the other transport modules
# save 2,800 instructions a ply of the referee's 64,700 (callgrind, benchmarks/ply_floor.py).
_monotonic: Final = time.monotonic


class EngineError(Exception):
    """Something went wrong with an engine; ``str()`` is one line naming the engine."""

    def __init__(self, engine: str, message: str) -> None:
        super().__init__(f"engine {engine!r}: {message}")
        self.engine = engine


class EngineStartError(EngineError):
    """The engine's command could not be started (not found, not executable)."""


class HandshakeError(EngineError):
    """No ``uciok``/``readyok`` in time during start, or the engine died during it."""


class EngineCrashed(EngineError):
    """The engine exited or closed its output unexpectedly; ``returncode`` is its exit status
    (negative: killed by that signal; None: unknown)."""

    def __init__(self, engine: str, message: str, returncode: int | None) -> None:
        super().__init__(engine, message)
        self.returncode = returncode


class EngineTimeout(EngineError):
    """No answer by the deadline.  The engine is left running (kill or quit it)."""


class EngineStalled(EngineError):
    """The engine did not take a command within the deadline of writing it: its input stayed
    full (it stopped reading).  The engine has been killed."""


class UnreadableMove(EngineError):
    """The search ended with a ``bestmove`` line that does not follow its grammar
    (``bestmove <move> [ponder <move>]`` or ``bestmove (none)``); ``line`` is that line.  The
    engine is idle and usable, as after any ``bestmove``."""

    def __init__(self, engine: str, message: str, line: str) -> None:
        super().__init__(engine, message)
        self.line = line


class ProtocolViolation(EngineError):
    """The engine broke the protocol in a way no answer can repair: a ``bestmove`` when no
    search was running (before ``go``, or a second one for one ``go``), a line longer than
    :data:`~protocol.transport.MAX_LINE`, or an endless handshake.  The engine has been killed."""


@dataclass(init=False)
class SearchResult:
    """What one ``go`` produced."""

    bestmove: str | None  # the token exactly as sent; None for ``bestmove (none)``
    infos: list[Info]  # the last MAX_INFOS info lines of this search, in order
    elapsed: float  # seconds from writing ``go`` to the arrival of ``bestmove``
    scored: Info | None  # the last info line with a score (however many came after it)
    depth: int | None  # the depth of the last info line that gave one
    ponder: str | None  # the reply the engine predicts (``bestmove ... ponder <move>``), unchecked
    nodes: int | None  # the nodes of the last info line that gave them (the search's count)

    # Written out, not the dataclass's: compiled with the class, where the generated one would
    # be interpreted code run at every move (2,300 instructions a ply of the referee's 64,700).
    def __init__(
        self,
        bestmove: str | None,
        infos: list[Info] | None = None,
        elapsed: float = 0.0,
        scored: Info | None = None,
        depth: int | None = None,
        ponder: str | None = None,
        nodes: int | None = None,
    ) -> None:
        self.bestmove = bestmove
        self.infos = [] if infos is None else infos
        self.elapsed = elapsed
        self.scored = scored
        self.depth = depth
        self.ponder = ponder
        self.nodes = nodes


MAX_INFOS = 32
"""How many of a search's ``info`` lines a :class:`SearchResult` keeps (the last ones): an
engine may write millions, and each may be a long line."""

MAX_HANDSHAKE_LINES = 1024
MAX_HANDSHAKE_CHARS = 256 * 1024
"""The most ``id`` and ``option`` lines a handshake may have, and their most text; more is a
protocol violation."""

MAX_PARSED_LINE = 8192
"""Longer lines are logged but not read: no answer a host needs is that long (a move, an
option), and reading one (a ``pv`` of 100,000 moves) would cost time and memory."""

SHOWN_LINE = 200
"""How much of an engine's line an error message quotes."""

MAX_ERROR_REPORTS = 16
ERROR_REPORT_CHARS = 500
"""The most error reports (``info string error <reason>``) :attr:`EngineClient.error_reports`
holds between two looks (more are dropped), and the most characters of each reason kept."""


@dataclass(frozen=True)
class _UnreadableBestMove:
    """A line whose first word is ``bestmove`` but that does not parse (``error`` says why):
    it still ends the search it answers."""

    line: str
    error: str


_ANSWERS = (BestMove, _UnreadableBestMove)  # the lines that end a search


_NEW, _IDLE, _SEARCHING, _PONDERING, _CLOSED = "new", "idle", "searching", "pondering", "closed"
# _PONDERING: a ``go ponder`` search runs and no answer is read until ponderhit() or
# stop_pondering() turns it into a search (_SEARCHING) whose bestmove is awaited.


class EngineClient:
    """One engine process and the conversation with it (see the module docstring).

    ``log(direction, line)`` sees every line: ">" sent, "<" read, "!" the engine's stderr;
    calls are serialised, but may come from the thread that reads the engine's stderr.  ``transport``
    replaces the process by another :class:`~protocol.transport.Transport` (tests use
    :class:`~protocol.memorytransport.MemoryTransport`); ``command`` then only names the engine.
    """

    def __init__(
        self,
        command: Sequence[str],
        *,
        name: str = "",
        cwd: str | None = None,
        env: dict[str, str] | None = None,
        log: LogFunction | None = None,
        transport: Transport | None = None,
        write_timeout: float = 10.0,
    ) -> None:
        self.command = list(command)
        self.write_timeout = write_timeout
        self.name = name or (os.path.basename(self.command[0]) if self.command else "engine")
        self.id: dict[str, str] = {}
        self.options: dict[str, OptionSpec] = {}
        self._transport = transport if transport is not None else ProcessTransport(self.command, cwd, env)
        self._log_function = log
        self._log_lock = threading.Lock()
        self._state = _NEW
        self._stale = 0  # bestmoves still owed by searches the client stopped waiting for
        self._go_written = 0.0  # when the running search's go (or ponderhit) was written (time.monotonic)
        self._ponder_written = 0.0  # when the running ponder search's go ponder was written
        self._stalled = ""  # why the engine was killed for not taking its input, once it was
        # A line read after the deadline of the wait that read it: that wait timed out, and
        # the next one gets the line (a late bestmove is then the stale answer it is).
        self._held: tuple[str | None, float] | None = None
        # The last position line built: (fen, moves, line), which a game's next position extends.
        self._position: tuple[str | None, tuple[str, ...], str] | None = None
        self.error_reports: list[str] = []
        """The reasons of the error reports (``info string error <reason>``) read since the
        host last took them (:meth:`take_error_reports`), whatever command was waiting."""

    # -- properties --------------------------------------------------------------------
    @property
    def pid(self) -> int | None:
        return self._transport.pid

    @property
    def returncode(self) -> int | None:
        return self._transport.poll() if self._state != _NEW else None

    @property
    def alive(self) -> bool:
        return self._state in (_IDLE, _SEARCHING, _PONDERING) and self._transport.poll() is None

    @property
    def pondering(self) -> bool:
        """A ``go ponder`` search runs (:meth:`ponder`), waiting for :meth:`ponderhit` or
        :meth:`stop_pondering`."""
        return self._state == _PONDERING

    # -- the commands ------------------------------------------------------------------
    def start(self, timeout: float = 10.0) -> None:
        """Start the engine and do ``uci``..``uciok`` and ``isready``..``readyok`` within
        ``timeout`` seconds.  On failure the engine is killed and HandshakeError raised
        (EngineStartError when it cannot even be started, EngineStalled when it does not take
        its input)."""
        if self._state != _NEW:
            raise EngineError(self.name, "start() was already called")
        try:
            self._transport.start(self._log if self._log_function is not None else None)
        except OSError as error:
            self._state = _CLOSED
            reason = error.strerror or str(error)
            raise EngineStartError(self.name, f"cannot start {' '.join(self.command)!r}: {reason}") from None
        self._state = _IDLE
        deadline = _monotonic() + timeout
        handshake_lines = handshake_chars = 0
        try:
            self._send_command(Uci(), deadline)
            while True:
                response = self._expect(deadline, "uciok", HandshakeError)
                if isinstance(response, UciOk):
                    break
                if isinstance(response, (Id, OptionSpec)):
                    handshake_lines += 1
                    handshake_chars += len(format_response(response))
                    if handshake_lines > MAX_HANDSHAKE_LINES or handshake_chars > MAX_HANDSHAKE_CHARS:
                        raise self._violation(
                            f"sent more than {MAX_HANDSHAKE_LINES} id and option lines "
                            f"or {MAX_HANDSHAKE_CHARS // 1024} KB of them"
                        )
                if isinstance(response, Id):
                    self.id[response.field] = response.value
                elif isinstance(response, OptionSpec):
                    self.options[response.name] = response
            self._send_command(IsReady(), deadline)
            while not isinstance(self._expect(deadline, "readyok", HandshakeError), ReadyOk):
                pass
        except EngineError:
            self.kill()
            raise

    def set_option(self, name: str, value: str | int | bool) -> None:
        """``setoption``, after checking ``value`` against the option the engine advertised
        (names match case-insensitively); raises EngineError for an unknown option or a bad value."""
        self._send_command(self._option_line(name, value))

    def set_options(self, options: Mapping[str, str | int | bool], timeout: float = 10.0) -> None:
        """Set ``options`` in order, each followed by :meth:`is_ready`: the engine options a
        variant needs (gameplug's ``GameVariant.engine_options``: ``UCI_Chess960 true`` for
        Chess960), or a user's.  Every name and value is checked against the options the engine declared
        before any is written, so nothing it did not declare is ever sent.  Raises EngineError
        naming the option it does not declare or the bad value (nothing written then), or the
        option it refused with an error report (``info string error``); EngineTimeout,
        EngineStalled or EngineCrashed."""
        lines = [(name, self._option_line(name, value)) for name, value in options.items()]
        for name, line in lines:
            reported = len(self.error_reports)
            self._send_command(line, _monotonic() + timeout)
            self.is_ready(timeout)
            if len(self.error_reports) > reported:
                raise EngineError(self.name, f"refused option {name!r}: {self.error_reports[reported]}")

    def _option_line(self, name: str, value: str | int | bool) -> SetOption:
        """The ``setoption`` of ``value`` for the option ``name`` as the engine declared it."""
        spec = self.options.get(name) or next(
            (option for key, option in self.options.items() if key.lower() == name.lower()), None
        )
        if spec is None:
            known = ", ".join(self.options) or "none"
            raise EngineError(self.name, f"has no option {name!r} (its options: {known})")
        return SetOption(spec.name, self._option_text(spec, value))

    def _option_text(self, spec: OptionSpec, value: str | int | bool) -> str | None:
        where = f"option {spec.name!r} ({spec.type})"
        if spec.type == "button":
            return None
        if spec.type == "check":
            if isinstance(value, bool):
                return "true" if value else "false"
            if isinstance(value, str) and value.lower() in ("true", "false"):
                return value.lower()
            raise EngineError(self.name, f"{where} takes true or false, not {value!r}")
        if spec.type == "spin":
            number = value
            if isinstance(value, str):
                try:
                    number = int(value.strip())
                except ValueError:
                    number = value
            if not isinstance(number, int) or isinstance(number, bool):
                raise EngineError(self.name, f"{where} takes an integer, not {value!r}")
            if (spec.min is not None and number < spec.min) or (spec.max is not None and number > spec.max):
                raise EngineError(self.name, f"{where} takes {spec.min}..{spec.max}, not {number}")
            return str(number)
        text = " ".join(str(value).split())
        if spec.type == "combo" and spec.vars:
            match = next((var for var in spec.vars if var.lower() == text.lower()), None)
            if match is None:
                raise EngineError(self.name, f"{where} takes one of {', '.join(spec.vars)}, not {value!r}")
            return match
        return text

    def is_ready(self, timeout: float = 10.0) -> None:
        """``isready`` and wait for ``readyok``; EngineTimeout, EngineStalled or EngineCrashed."""
        deadline = _monotonic() + timeout
        self._send_command(IsReady(), deadline)
        while not isinstance(self._expect(deadline, "readyok", EngineTimeout), ReadyOk):
            pass

    def new_game(self, timeout: float = 10.0) -> None:
        """``ucinewgame`` then :meth:`is_ready`."""
        self._send_command(UciNewGame(), _monotonic() + timeout)
        self.is_ready(timeout)

    def set_position(self, fen: str | None, moves: Sequence[str] = ()) -> None:
        """``position startpos|fen <fen> [moves ...]`` (``fen`` None: the start position).
        Raises ProtocolError for a FEN or move that cannot be written on one line."""
        self._send(self._position_line(fen, moves))

    def _position_line(self, fen: str | None, moves: Sequence[str]) -> str:
        """The ``position`` line.  One that follows the last line built by more moves (the
        next ply of a game) is that line extended: only the new moves are checked."""
        moves = tuple(moves)
        last = self._position
        if last is not None and last[0] == fen and moves[: len(last[1])] == last[1]:
            line = extend_position(last[2], len(last[1]), moves[len(last[1]) :])
        else:
            line = format_command(Position(fen, moves))
        self._position = (fen, moves, line)
        return line

    def go(
        self,
        limit: Limit,
        timeout: float | None = None,
        on_info: Callable[[Info], None] | None = None,
        *,
        position: tuple[str | None, Sequence[str]] | None = None,
        stop_after: float | None = None,
    ) -> SearchResult:
        """Search under ``limit`` and wait at most ``timeout`` seconds (None: no limit) for
        ``bestmove``.  ``on_info`` sees each info line as it is read.  ``position`` (a FEN or
        None, and moves) is :meth:`set_position` written together with the ``go``, in one
        write: one wake-up of the engine a move instead of two.  ``stop_after`` is the host's
        own bound on a search that has none (``go infinite``): ``stop`` is written when that
        many seconds have passed, and ``timeout`` then counts from when it was written (not
        from ``go``: a host that is slow to send it takes nothing from the engine's grace).
        Raises EngineTimeout
        (the engine keeps searching; the next command first stops it and collects that
        bestmove), UnreadableMove (the search ended with a ``bestmove`` line that cannot be
        read), EngineStalled or EngineCrashed."""
        if self._state in (_SEARCHING, _PONDERING):
            raise EngineError(self.name, "go() while a search is running")
        if self._stale:
            self._collect_stale(None if timeout is None else _monotonic() + timeout)
        line = format_go(limit)
        if position is not None:
            line = self._position_line(*position) + "\n" + line
        self._transport.collect()  # what was written before the go is not its answer
        self._state = _SEARCHING
        started = _monotonic()
        self._go_written = started
        if stop_after is not None:
            return self._answer(line, None, started, started, timeout, on_info, started + stop_after)
        deadline = None if timeout is None else started + timeout
        # A position goes with its go: the engine has write_timeout to take it, as when it
        # comes alone (an engine that stops reading stalls the same way).
        return self._answer(line, deadline if position is None else None, started, started, deadline, on_info)

    def ponder(self, limit: Limit, position: tuple[str | None, Sequence[str]]) -> None:
        """Start a ``go ponder`` search under ``limit`` (the clocks as they will stand when the
        predicted reply is played) on ``position`` (a FEN or None, and the moves up to the
        predicted reply), written in one go with it, and return at once.  The engine thinks
        until :meth:`ponderhit` or :meth:`stop_pondering`; no line of it is read meanwhile.
        Raises EngineStalled or EngineCrashed."""
        if self._state in (_SEARCHING, _PONDERING):
            raise EngineError(self.name, "ponder() while a search is running")
        if self._stale:
            self._collect_stale(_monotonic() + self.write_timeout)
        line = self._position_line(*position) + "\n" + format_command(Go(dataclasses.replace(limit, ponder=True)))
        self._state = _PONDERING
        self._ponder_written = _monotonic()
        self._send(line)

    def ponderhit(
        self,
        timeout: float | None = None,
        on_info: Callable[[Info], None] | None = None,
        *,
        stop_after: float | None = None,
    ) -> SearchResult:
        """``ponderhit`` (the predicted reply was played): the ponder search goes on, on the
        clock; as :meth:`go`, with ``elapsed``, ``timeout`` and ``stop_after`` counted from
        writing ``ponderhit``.  A ``bestmove`` read before ``ponderhit`` was written is a
        :class:`ProtocolViolation` (a ponder search answers only after it).  The ``info`` lines
        of the whole search, pondering included, are kept."""
        if self._state != _PONDERING:
            raise EngineError(self.name, "ponderhit() without a ponder search")
        self._transport.collect()  # the ponder search's output so far: before the ponderhit
        self._state = _SEARCHING
        started = _monotonic()
        self._go_written = started
        line = format_command(PonderHit())
        if stop_after is not None:
            return self._answer(line, None, self._ponder_written, started, timeout, on_info, started + stop_after)
        deadline = None if timeout is None else started + timeout
        return self._answer(line, deadline, self._ponder_written, started, deadline, on_info)

    def stop_pondering(self, timeout: float) -> None:
        """``stop`` the ponder search (the predicted reply was not played) and read and discard
        its ``bestmove`` (an unreadable one too), within ``timeout`` seconds; harmless without
        one.  Raises EngineTimeout (the answer is then collected by the next command),
        EngineStalled or EngineCrashed."""
        if self._state != _PONDERING:
            return
        self._state = _SEARCHING
        self._go_written = self._ponder_written
        deadline = _monotonic() + timeout
        answered = False
        try:
            self._send_command(Stop(), deadline)
            while type(self._expect(deadline, "bestmove", EngineTimeout)) not in _ANSWERS:
                pass
            answered = True
        finally:
            if self._state == _SEARCHING:
                self._state = _IDLE
            if not answered:
                self._stale += 1

    def _answer(
        self,
        line: str,
        write_deadline: float | None,
        since: float,
        started: float,
        deadline: float | None,
        on_info: Callable[[Info], None] | None,
        stop_at: float | None = None,
    ) -> SearchResult:
        """Write ``line`` (the command that puts the search on the clock) and wait for the
        search's ``bestmove`` by ``deadline``: its result, with the info lines that arrived
        from ``since`` on and ``elapsed`` counted from ``started`` (the state is _SEARCHING).
        With ``stop_at`` (a time), ``stop`` is written then and ``deadline`` is instead a
        number of seconds counted from that write."""
        infos: deque[Info] | None = None  # (made at the first info line, if one comes)
        scored: Info | None = None
        depth: int | None = None
        nodes: int | None = None
        answered = False
        grace = deadline
        try:
            self._send(line, write_deadline)
            while True:
                if stop_at is None:
                    response, arrival = self._next(deadline, "bestmove", EngineTimeout)
                else:
                    try:  # a line read late, after stop_at, still counts: only the wait is bounded
                        response, arrival = self._next(stop_at, "bestmove", EngineTimeout, strict=False)
                    except EngineTimeout:
                        stopped = _monotonic()
                        deadline = None if grace is None else stopped + grace
                        stop_at = None
                        self._send_command(Stop(), deadline)
                        continue
                if type(response) is Info and arrival >= since:
                    if infos is None:
                        infos = deque(maxlen=MAX_INFOS)
                    infos.append(response)
                    if response.score_cp is not None or response.score_mate is not None:
                        scored = response
                    if response.depth is not None:
                        depth = response.depth
                    if response.nodes is not None:
                        nodes = response.nodes
                    if on_info is not None:
                        on_info(response)
                elif type(response) is BestMove:
                    answered = True
                    kept = [] if infos is None else list(infos)
                    return SearchResult(response.move, kept, arrival - started, scored, depth, response.ponder, nodes)
                elif type(response) is _UnreadableBestMove:
                    answered = True
                    raise UnreadableMove(
                        self.name, f"answered {_shown(response.line)}: {response.error}", response.line
                    )
        finally:
            if self._state == _SEARCHING:
                self._state = _IDLE
            if not answered:
                self._stale += 1

    def stop(self, write_timeout: float | None = None) -> None:
        """``stop``: the running search answers ``bestmove`` at once (harmless when idle).
        Safe to call from another thread while :meth:`go` waits; never raises: a failure
        (the engine crashed, or stalled and was killed) is reported by the next command.
        ``write_timeout`` (seconds; None: the client's) bounds the wait for the engine to
        take the line: 0 for a caller that may not wait at all."""
        if self.alive:
            try:
                self._send_command(Stop(), None if write_timeout is None else _monotonic() + write_timeout)
            except EngineError:
                pass

    def quit(self, grace: float = 1.0) -> int | None:
        """``quit``, wait up to ``grace`` seconds (writing ``quit`` included) for the engine to
        exit, then SIGKILL its process group (always, to catch helpers it left behind).  Returns
        the exit status (negative: killed by that signal), or None when the engine was never
        started."""
        if self._state == _NEW:
            self._state = _CLOSED
            return None
        if self._state != _CLOSED:
            deadline = _monotonic() + grace
            try:
                self._send(format_command(Quit()), deadline)
            except (EngineCrashed, EngineStalled):
                pass  # it is gone, or has just been killed
            self._transport.wait(deadline - _monotonic())
        self._close()
        return self._transport.poll()

    def kill(self) -> None:
        """SIGKILL the engine's process group now."""
        if self._state != _NEW:
            self._close()
        self._state = _CLOSED

    def __enter__(self) -> EngineClient:
        if self._state == _NEW:
            self.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.quit()

    def __repr__(self) -> str:
        return f"<EngineClient {self.name!r} pid={self.pid} {self._state}>"

    def take_error_reports(self) -> list[str]:
        """The reasons of the error reports read since the last call (at most
        :data:`MAX_ERROR_REPORTS`, each cut to :data:`ERROR_REPORT_CHARS` characters)."""
        reports, self.error_reports = self.error_reports, []
        return reports

    # -- the machinery -----------------------------------------------------------------
    def _log(self, direction: str, line: str) -> None:
        if self._log_function is not None:
            with self._log_lock:
                self._log_function(direction, line)

    def _send_command(
        self,
        command: Uci | IsReady | SetOption | UciNewGame | Position | Stop | PonderHit,
        deadline: float | None = None,
    ) -> None:
        self._send(format_command(command), deadline)

    def _send(self, line: str, deadline: float | None = None) -> None:
        """Write ``line`` within ``write_timeout`` seconds, and by ``deadline`` when given."""
        if self._state in (_NEW, _CLOSED):
            if self._stalled:
                raise EngineStalled(self.name, self._stalled)
            raise EngineError(
                self.name, "is not running (call start() first)" if self._state == _NEW else "is not running any more"
            )
        timeout = self.write_timeout
        if deadline is not None:
            timeout = min(timeout, max(0.0, deadline - _monotonic()))
        if self._log_function is not None:
            with self._log_lock:
                for part in line.split("\n"):  # a position and its go are written at once
                    self._log_function(">", part)
        try:
            self._transport.send(line, timeout)
        except TimeoutError:  # an OSError too: first
            raise self._stall(
                f"did not take the command {line.split(maxsplit=1)[0]!r} within "
                f"{timeout:.3g} s (it does not read its input)"
            ) from None
        except OSError:
            raise self._crashed("while the host was writing to it") from None

    def _expect(
        self, deadline: float | None, awaited: str, timeout_error: type[EngineError]
    ) -> Response | _UnreadableBestMove:
        return self._next(deadline, awaited, timeout_error)[0]

    def _next(
        self, deadline: float | None, awaited: str, timeout_error: type[EngineError], strict: bool = True
    ) -> tuple[Response | _UnreadableBestMove, float]:
        """The next response that belongs to the conversation, and its arrival time.

        Skips lines that do not parse (but a line that starts with the word ``bestmove`` is an
        answer, unreadable) and the answers of abandoned searches; raises
        ``timeout_error`` at the deadline and, when the output ends, EngineCrashed (or
        HandshakeError during the handshake).  A ``bestmove`` that no search owes (it was
        read before the running search's ``go`` was written, or while none ran) is a
        :class:`ProtocolViolation`: it is never taken as the answer to a later ``go``.
        Not ``strict``, a line that arrived after the deadline (read late) is still returned.
        """
        while True:
            response, arrival = self._receive(deadline, awaited, timeout_error, strict)
            if response is None:
                continue  # not a protocol line; it was logged on arrival
            if type(response) in _ANSWERS:
                if self._stale:
                    self._stale -= 1
                    continue
                if self._state != _SEARCHING or arrival < self._go_written:
                    when = "before its go or ponderhit" if self._state == _SEARCHING else "while no search was running"
                    line = response.line if isinstance(response, _UnreadableBestMove) else format_response(response)
                    raise self._violation(f"sent {_shown(line)} {when} (a bestmove out of turn)")
            return response, arrival

    def _receive(
        self, deadline: float | None, awaited: str, timeout_error: type[EngineError], strict: bool = True
    ) -> tuple[Response | _UnreadableBestMove | None, float]:
        if self._held is not None:
            (line, arrival), self._held = self._held, None
        else:
            remaining = None if deadline is None else max(0.0, deadline - _monotonic())
            try:
                line, arrival = self._transport.receive(remaining)
            except TimeoutError:
                raise timeout_error(self.name, f"no {awaited!r} within the deadline") from None
            except LineTooLongError as overlong:
                raise self._violation(f"wrote {overlong} while the host waited for {awaited!r}") from None
        if strict and deadline is not None and arrival > deadline:  # however busy the output, the deadline holds
            self._held = (line, arrival)
            raise timeout_error(self.name, f"no {awaited!r} within the deadline")
        if line is EndOfOutput:
            if self._stalled:  # killed by a write that another thread (stop) could not finish
                raise EngineStalled(self.name, self._stalled)
            message, returncode = self._ended(f"while the host waited for {awaited!r}")
            if timeout_error is HandshakeError:
                raise HandshakeError(self.name, message)
            raise EngineCrashed(self.name, message, returncode)
        if len(line) > MAX_PARSED_LINE:
            return _unreadable_bestmove(line, f"longer than {MAX_PARSED_LINE} characters"), arrival
        try:
            response = read_response(line)
        except ProtocolError as unparsed:
            return _unreadable_bestmove(line, str(unparsed)), arrival
        if type(response) is Info and response.string is not None:
            reason = response.error
            if reason is not None and len(self.error_reports) < MAX_ERROR_REPORTS:  # a flood stays bounded
                self.error_reports.append(reason[:ERROR_REPORT_CHARS])
        return response, arrival

    def _collect_stale(self, deadline: float | None) -> None:
        """Stop the searches left running by an abandoned go() and read their bestmoves."""
        self._send_command(Stop(), deadline)
        while self._stale:
            response, _ = self._receive(deadline, "bestmove of the previous search", EngineTimeout)
            if type(response) in _ANSWERS:
                self._stale -= 1

    def _violation(self, what: str) -> ProtocolViolation:
        """Kill the engine, which broke the protocol (``what`` says how)."""
        self._close()
        where = f"(pid {self.pid}) " if self.pid is not None else ""
        return ProtocolViolation(self.name, f"{where}{what}; the engine was killed")

    def _stall(self, what: str) -> EngineStalled:
        """Kill the engine, which did not take its input (``what`` says which)."""
        where = f"(pid {self.pid}) " if self.pid is not None else ""
        self._stalled = f"{where}{what}; the engine was killed"  # before the kill: a waiting go() reads it
        self._close()
        return EngineStalled(self.name, self._stalled)

    def _crashed(self, when: str) -> EngineCrashed:
        message, returncode = self._ended(when)
        return EngineCrashed(self.name, message, returncode)

    def _ended(self, when: str) -> tuple[str, int | None]:
        """Kill what is left of the engine; say how it ended, and its exit status."""
        returncode = self._transport.wait(0.5)
        self._close()
        if returncode is None:  # it closed its output but lived on, so it was just killed
            how = "closed its output"
            returncode = self._transport.poll()
        elif returncode < 0:
            how = f"was killed by signal {-returncode}"
        else:
            how = f"exited with code {returncode}"
        message = f"{how} {when}"
        if self.pid is not None:
            message = f"(pid {self.pid}) {message}"
        stderr = self._transport.last_stderr()
        if stderr:
            message += f"; its last stderr line: {stderr.strip()[:200]!r}"
        return message, returncode

    def _close(self) -> None:
        self._state = _CLOSED
        self._transport.close()


def _unreadable_bestmove(line: str, error: str) -> _UnreadableBestMove | None:
    """``line`` (not a protocol line) as a search's unreadable answer when it starts with the
    word ``bestmove``; None (a line to skip) otherwise."""
    return _UnreadableBestMove(line, error) if line[:64].split(maxsplit=1)[:1] == ["bestmove"] else None


def _shown(line: str) -> str:
    """An engine's line as an error message quotes it (shortened)."""
    return repr(line if len(line) <= SHOWN_LINE else line[:SHOWN_LINE] + "...")
