"""``dipole-arbiter check-engine``: runs an engine through everything protocol/SPEC.md requires.

Each check is one line, ``ok``, ``FAIL`` (and why) or ``skip`` (an optional feature the engine
does not offer, or a check that does not apply); a summary follows; the run passes when no
check failed.  Checked: the ``uci`` and ``ugi`` handshakes (ids and option lines well formed),
``isready`` answered promptly, also during a search, ``UCI_Variant`` for each variant checked,
``ucinewgame``, ``position startpos|fen ... moves ...`` including a pass and an Impasse crown,
``go`` with each limit (depth, nodes, movetime, a clock, infinite and a bare ``go`` until
``stop``), exactly one ``bestmove`` per ``go``, time use within the clock and ``movetime``,
legal moves (by this project's rules) over random positions of every variant checked,
``bestmove (none)`` at finished positions, ``CR LF`` line endings, bad input answered by
exactly one error line and no crash, ``quit`` ending the process promptly, and the optional
``go perft`` and ``query`` answers compared with the rules.

The arbiter's own client (:class:`protocol.EngineClient`) must be able to start the engine and
set its options; every other check talks to it through that client's process transport and
the codec, seeing every line the engine writes, so it notices what a host would merely skip:
a line that does not parse, a second ``bestmove``, an error report.
A check that leaves the engine in doubt (it failed, crashed or hung) is followed by a fresh
engine process, so one fault is reported once, where it is.

It is meant for broken engines, so it holds against them as a match does: whatever an engine
writes, the checker keeps only counts and the few lines a check needs (never every line: an
engine may flood millions), its handshake no more id and option lines than the arbiter's
client takes; every wait ends at its deadline, checked on every line read, however fast lines
come, and so does every write; and a line longer than the transport takes (an endless one too)
is a FAIL of the check that reads it, like a flood or a late answer.  The run then goes on and
ends with its summary.

The whole run has a bound too (``run_timeout``), so that the deadlines of many checks, each
failed by an engine that floods or hangs, do not add up: every wait and write ends by then at
the latest; once it has passed, the check under way fails, the checks not yet run are one FAIL
line, the engine is stopped and the summary follows.
"""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from dipole_engine.rules import Board, RulesError, all_variants, divide, new_board
from protocol import (
    BestMove,
    Id,
    Info,
    OptionSpec,
    PerftMove,
    PerftTotal,
    ProtocolError,
    QueryResponse,
    ReadyOk,
    Response,
    UciOk,
    UgiOk,
    format_response,
    parse_response,
)
from protocol.client import MAX_HANDSHAKE_CHARS, MAX_HANDSHAKE_LINES, EngineClient, EngineError
from protocol.processtransport import ProcessTransport
from protocol.transport import EndOfOutput, LineTooLongError

from .errors import ArbiterError

__all__ = ["CheckResult", "CheckSettings", "check_engine", "summary"]

Status = Literal["ok", "FAIL", "skip"]
KNOWN_VARIANTS = [variant.name for variant in all_variants()]
GO_LEGAL = "depth 1"  # the go parameters of the legal-move checks: any engine answers them fast
GO_ANALYSIS = "depth 2"  # the go parameters of the MultiPV and searchmoves checks
# A position of each game with a win in one move (and, in Dipole, other moves that do not win),
# for "go mate 2"; the check proves the win with the rules before it asks.
MATES = {"dipole": "W:W2d4:B1d6", "impasse": "W:W1a1:B2b2"}
MATE_LIMIT = 2
MATE_BUDGET = 50_000  # positions the rules may visit to judge one mate claim; beyond: not judged
RUN_TIMEOUT = 90.0  # seconds: the whole run's bound (the project's engine takes 4 s)
_R = TypeVar("_R", bound=Response)


@dataclass(frozen=True)
class CheckResult:
    """One check: its name, ``ok``/``FAIL``/``skip``, and a one-line detail (why, for a FAIL)."""

    name: str
    status: Status
    detail: str = ""

    def line(self) -> str:
        return f"{self.status:<4}  {self.name}" + (f": {self.detail}" if self.detail else "")


@dataclass(frozen=True)
class CheckSettings:
    """What to check and how patiently.

    ``variants``: the variants to check (empty: every variant the engine offers that the rules
    know); ``positions``: random positions for the legal-move check, shared out among them;
    ``timeout``: seconds for the handshake and for any answer without a time limit;
    ``margin``: milliseconds an answer may arrive after its time limit (pipe and scheduling),
    and an engine may take to exit after ``quit`` beyond a second; ``run_timeout``: seconds
    the whole run may take.
    """

    command: tuple[str, ...]
    cwd: str | None = None
    options: tuple[tuple[str, str], ...] = ()
    variants: tuple[str, ...] = ()
    positions: int = 300
    seed: int = 1
    timeout: float = 10.0
    margin: int = 100
    run_timeout: float = RUN_TIMEOUT
    log: Callable[[str, str], None] | None = None


class _Fail(Exception):
    """The check fails, for the reason given."""


class _Late(_Fail):
    """The check fails because an answer came late; the engine is otherwise fine (kept)."""


class _Skip(Exception):
    """The check does not apply, or checks an optional feature the engine does not offer."""


class _OutOfTime(Exception):
    """The run's bound has passed: the checks not yet run are not run."""


@dataclass
class _Awaited:
    """One wait for an answer: its deadline, and what came before the answer, kept bounded
    whatever the engine writes (counts, the first error report and the first ``bestmove``;
    never the lines themselves, of which an engine may write millions)."""

    awaited: str
    timeout: float
    deadline: float = field(init=False)
    lines: int = 0
    infos: int = 0
    errors: int = 0
    first_error: str | None = None
    bestmove: BestMove | None = None

    def __post_init__(self) -> None:
        self.deadline = time.monotonic() + self.timeout

    def count(self, response: Response) -> None:
        self.lines += 1
        if isinstance(response, Info):
            self.infos += 1
            if response.error is not None:
                self.errors += 1
                if self.first_error is None:
                    self.first_error = response.error
        elif isinstance(response, BestMove) and self.bestmove is None:
            self.bestmove = response

    def late(self) -> _Fail:
        meanwhile = f" (it wrote {self.lines} other lines meanwhile, {self.infos} of them info)" if self.lines else ""
        return _Fail(f"no {self.awaited} within {self.timeout:.1f} s{meanwhile}")


class _Session:
    """One engine process and a raw conversation with it: every line it writes is seen, and
    none is kept beyond what the check at hand needs (see :class:`_Awaited`)."""

    def __init__(self, settings: CheckSettings, ends: float) -> None:
        self.settings = settings
        self.ends = ends  # the run's bound (time.monotonic()): no wait or write goes beyond it
        self.transport = ProcessTransport(list(settings.command), settings.cwd)
        try:
            self.transport.start(settings.log or (lambda direction, line: None))
        except OSError as error:
            raise _Fail(f"cannot start {' '.join(settings.command)!r}: {error.strerror or error}") from None

    def send(self, line: str) -> None:
        if self.settings.log is not None:
            self.settings.log(">", line)
        timeout = min(self.settings.timeout, self.ends - time.monotonic())
        try:
            self.transport.send(line, max(0.0, timeout))
        except TimeoutError:
            if timeout < self.settings.timeout:
                raise self.out_of_time(f"the engine took {line.strip()!r}") from None
            raise _Fail(f"the engine did not take {line.strip()!r} within {timeout:.1f} s") from None
        except OSError:
            raise _Fail(f"the engine is gone ({self._how()}) when sent {line.strip()!r}") from None

    def read(self, wait: _Awaited) -> tuple[Response, float]:
        """The next line, parsed, with its arrival time.  _Fail once ``wait``'s deadline has
        passed (a line that arrived after it never counts, however fast lines come), when the
        output ends, on a line longer than the transport takes, or on a line that is not a
        response of the protocol.  The run's bound ends the wait too, if it comes first."""
        deadline = min(wait.deadline, self.ends)
        try:
            line, arrival = self.transport.receive(max(0.0, deadline - time.monotonic()))
        except TimeoutError:
            raise self._late(wait) from None
        except LineTooLongError as error:
            raise _Fail(f"the engine wrote {error} while the checker waited for {wait.awaited}") from None
        if arrival > deadline:
            raise self._late(wait)
        if line is EndOfOutput:
            raise _Fail(f"the engine {self._how()} while the checker waited for {wait.awaited}")
        try:
            return parse_response(line), arrival
        except ProtocolError as error:
            raise _Fail(f"unreadable line {line[:60]!r}: {error}") from None

    def _late(self, wait: _Awaited) -> _Fail:
        return wait.late() if wait.deadline <= self.ends else self.out_of_time(f"{wait.awaited} came")

    def out_of_time(self, what: str) -> _Fail:
        return _Fail(f"the run's bound of {self.settings.run_timeout:g} s (--run-timeout) passed before {what}")

    def until(self, kind: type[_R], wait: _Awaited) -> tuple[_R, float]:
        """The first response of type ``kind`` and its arrival time; ``wait`` counts the others."""
        while True:
            response, arrival = self.read(wait)
            if isinstance(response, kind):
                return response, arrival
            wait.count(response)

    def ready(self, timeout: float | None = None) -> _Awaited:
        """``isready``; what came before ``readyok`` (a ``bestmove`` there is a fault)."""
        self.send("isready")
        wait = _Awaited("'readyok'", timeout or self.settings.timeout)
        self.until(ReadyOk, wait)
        if wait.bestmove is not None:
            raise _Fail(f"an unrequested 'bestmove {wait.bestmove.move or '(none)'}' (a second answer to one go?)")
        return wait

    def quiet(self, command: str) -> None:
        """Send a command that must be accepted silently: no error line before ``readyok``."""
        self.send(command)
        wait = self.ready()
        if wait.errors:
            raise _Fail(f"{command!r} was refused: {wait.first_error}")

    def go(self, parameters: str, timeout: float) -> tuple[str | None, float]:
        """``go <parameters>``: the bestmove and the seconds it took.
        Exactly one bestmove: ``isready`` after it must not bring another."""
        bestmove, took = self.search(parameters, timeout)
        return bestmove.move, took

    def search(
        self, parameters: str, timeout: float, watch: Callable[[Info], None] | None = None, optional: bool = False
    ) -> tuple[BestMove, float]:
        """:meth:`go`, with the whole ``bestmove``; ``watch`` sees each ``info`` line as it comes
        (and keeps what it needs of it).  ``optional``: an error line before the bestmove means
        the engine does not offer these parameters (_Skip), if no bestmove follows it."""
        line = f"go {parameters}".strip()
        self.send(line)
        started = time.monotonic()
        wait = _Awaited(f"'bestmove' for {line!r}", timeout)
        while True:
            response, arrival = self.read(wait)
            if isinstance(response, BestMove):
                break
            wait.count(response)
            if isinstance(response, Info) and response.error is not None:
                if optional:  # a bestmove before readyok still fails: refused and answered
                    self.ready()
                    raise _Skip(f"not offered ({response.error})")
            elif isinstance(response, Info) and watch is not None:
                watch(response)
        if wait.errors:
            raise _Fail(f"{line!r} was answered by an error line ({wait.first_error}) and then a bestmove")
        self.ready()
        return response, arrival - started

    def handshake(self, word: str = "uci") -> list[Id | OptionSpec]:
        """``uci`` or ``ugi``: the id and option lines up to ``uciok``/``ugiok``, no more of them
        than the arbiter's own client takes."""
        self.send(word)
        done = UciOk if word == "uci" else UgiOk
        wait = _Awaited(f"'{word}ok'", self.settings.timeout)
        kept: list[Id | OptionSpec] = []
        size = 0
        while not isinstance(response := self.read(wait)[0], done):
            wait.count(response)
            if isinstance(response, Info) and response.string is not None:
                continue
            if not isinstance(response, (Id, OptionSpec)):
                raise _Fail(f"'{type(response).__name__}' during the handshake; expected id and option lines")
            kept.append(response)
            size += len(format_response(response))
            if len(kept) > MAX_HANDSHAKE_LINES or size > MAX_HANDSHAKE_CHARS:
                raise _Fail(
                    f"more than {MAX_HANDSHAKE_LINES} id and option lines or "
                    f"{MAX_HANDSHAKE_CHARS // 1024} KB of them before '{word}ok'"
                )
        return kept

    def alive(self) -> bool:
        return self.transport.poll() is None

    def _how(self) -> str:
        code = self.transport.wait(0.5)
        if code is None:
            return "closed its output"
        return f"exited with code {code}" if code >= 0 else f"was killed by signal {-code}"

    def close(self) -> None:
        self.transport.close()


@dataclass
class _Checker:
    """Runs the checks in order on one engine process at a time (see the module docstring)."""

    settings: CheckSettings
    report: Callable[[CheckResult], None]
    results: list[CheckResult] = field(default_factory=list)
    session: _Session | None = None
    options: dict[str, OptionSpec] = field(default_factory=dict)
    variants: list[str] = field(default_factory=list)
    ends: float = 0.0  # the run's bound (time.monotonic()), set when it starts

    # -- bookkeeping -----------------------------------------------------------------------
    def record(self, name: str, status: Status, detail: str = "") -> None:
        result = CheckResult(name, status, detail)
        self.results.append(result)
        self.report(result)

    @contextmanager
    def check(self, name: str) -> Iterator[Callable[[str], None]]:
        """Run one check: ``ok`` unless it raises _Fail; ``note(text)`` sets the ok detail.
        After a failure the engine is replaced by a fresh one.  _OutOfTime once the run's bound
        has passed: the check is not run."""
        if time.monotonic() >= self.ends:
            raise _OutOfTime
        notes: list[str] = []
        try:
            yield notes.append
        except _Fail as failure:
            self.record(name, "FAIL", str(failure))
            if not isinstance(failure, _Late):
                self.restart()
        except _Skip as skip:
            self.record(name, "skip", str(skip))
        else:
            self.record(name, "ok", "; ".join(notes))

    def engine(self) -> _Session:
        if self.session is None:
            self.session = self.fresh()
        return self.session

    def fresh(self) -> _Session:
        """A new engine process, after ``uci``, the user's options and ``isready``."""
        session = _Session(self.settings, self.ends)
        try:
            session.handshake()
            for name, value in self.settings.options:
                session.quiet(f"setoption name {name} value {value}")
            session.ready()
        except _Fail:
            session.close()
            raise
        return session

    def restart(self) -> None:
        if self.session is not None:
            self.session.close()
        self.session = None

    def use_variant(self, session: _Session, variant: str) -> None:
        if "UCI_Variant" in self.options:
            session.quiet(f"setoption name UCI_Variant value {variant}")
        session.quiet("ucinewgame")

    def legal(self, board: Board[Any], move: str | None, where: str) -> None:
        """Fail unless ``move`` is legal on ``board`` (None: only when the game is over)."""
        if move is None:
            if board.legal_moves():
                raise _Fail(f"bestmove (none) {where}, but the game is not over")
            return
        try:
            board.parse_move(move)
        except RulesError as error:
            raise _Fail(f"illegal bestmove {move!r} {where} ({board.variant.name} {board.fen()}): {error}") from None

    # -- the checks --------------------------------------------------------------------------
    def run(self) -> list[CheckResult]:
        self.ends = time.monotonic() + self.settings.run_timeout
        try:
            self.check_handshakes()
            if self.variants:
                self.check_protocol()
        except _OutOfTime:
            self.record(
                "the checks not run",
                "FAIL",
                f"the run's bound of {self.settings.run_timeout:g} s (--run-timeout) passed before them",
            )
        finally:
            self.restart()
        return self.results

    def check_protocol(self) -> None:
        """Every check after the handshakes, in order."""
        for check in (
            self.check_isready,
            self.check_variants,
            self.check_new_game,
            self.check_positions,
            self.check_limits,
            self.check_time,
            self.check_infinite,
            self.check_legal_moves,
            self.check_finished,
            self.check_line_endings,
            self.check_bad_input,
            self.check_perft,
            self.check_queries,
            self.check_multipv,
            self.check_searchmoves,
            self.check_mate,
            self.check_ponder,
            self.check_quit,
        ):
            check()

    def check_handshakes(self) -> None:
        with self.check("handshake: uci ... uciok, ids and options well formed") as note:
            self.restart()
            self.session = session = _Session(self.settings, self.ends)
            responses = session.handshake("uci")
            self.options = {r.name: r for r in responses if isinstance(r, OptionSpec)}
            ids = {r.field: r.value for r in responses if isinstance(r, Id)}
            if not ids.get("name"):
                raise _Fail("no 'id name' line")
            names = [r.name for r in responses if isinstance(r, OptionSpec)]
            duplicated = {n for n in names if names.count(n) > 1}
            if duplicated:
                raise _Fail(f"option {min(duplicated)!r} is listed twice")
            for name, value in self.settings.options:
                try:
                    session.quiet(f"setoption name {name} value {value}")
                except _Fail as refused:  # the user's request is wrong, not the engine
                    raise ArbiterError(f"--engine option.{name}={value}: {refused}") from None
            session.ready()
            note(f"id name {ids['name']!r}, {len(names)} option(s)")
        with self.check("the arbiter's client starts it and sets its options"):
            timeout = max(0.0, min(self.settings.timeout, self.ends - time.monotonic()))
            client = EngineClient(list(self.settings.command), cwd=self.settings.cwd, write_timeout=timeout)
            try:
                client.start(timeout=timeout)
                for name, value in self.settings.options:
                    client.set_option(name, value)
                client.is_ready(timeout=max(0.0, min(self.settings.timeout, self.ends - time.monotonic())))
            except EngineError as error:
                raise _Fail(str(error)) from None
            finally:
                client.quit(grace=1.0)
        if self.results[-2].status == "FAIL" and not self.options:  # no handshake: nothing else can run
            self.record("the other checks", "skip", "not run: the engine did not complete the uci handshake")
            return
        self.variants = self.choose_variants()
        with self.check("handshake: ugi ... ugiok") as note:
            session = _Session(self.settings, self.ends)
            try:
                responses = session.handshake("ugi")
                session.ready()
            finally:
                session.close()
            note(f"{sum(isinstance(r, OptionSpec) for r in responses)} option(s)")

    def choose_variants(self) -> list[str]:
        spec = self.options.get("UCI_Variant")
        offered = list(spec.vars) if spec is not None and spec.type == "combo" else ["dipole"]
        wanted = list(self.settings.variants) or [v for v in offered if v in KNOWN_VARIANTS]
        with self.check("variants") as note:
            if spec is None:
                note("no UCI_Variant option: the engine plays dipole only (SPEC.md 7)")
            elif spec.type != "combo":
                raise _Fail(f"UCI_Variant is a {spec.type} option; it must be a combo listing the variants")
            missing = [v for v in wanted if v not in offered]
            if missing:
                raise _Fail(f"variant {missing[0]!r} is not offered (UCI_Variant offers: {', '.join(offered)})")
            unknown = [v for v in offered if v not in KNOWN_VARIANTS]
            if not wanted:
                raise _Fail(f"it offers no variant these rules know (offered: {', '.join(offered)})")
            note("checking " + ", ".join(wanted) + (f"; not known here: {', '.join(unknown)}" if unknown else ""))
            return wanted
        return []

    def check_isready(self) -> None:
        with self.check("isready answered promptly (within 1 s)") as note:
            session = self.engine()
            started = time.monotonic()
            session.ready()
            took = time.monotonic() - started
            if took > 1.0:
                raise _Late(f"readyok came after {took * 1000:.0f} ms")
            note(f"readyok after {took * 1000:.0f} ms")

    def check_variants(self) -> None:
        for variant in self.variants:
            with self.check(f"UCI_Variant {variant}: set, then a legal move from its start"):
                session = self.engine()
                self.use_variant(session, variant)
                session.quiet("position startpos")
                move, _ = session.go(GO_LEGAL, self.settings.timeout)
                self.legal(new_board(variant), move, "from the start position")

    def check_new_game(self) -> None:
        with self.check("ucinewgame resets to the start position"):
            session = self.engine()
            variant = self.variants[0]
            self.use_variant(session, variant)
            board = new_board(variant)
            session.quiet("position startpos moves " + str(board.legal_moves()[0]))
            session.quiet("ucinewgame")
            move, _ = session.go(GO_LEGAL, self.settings.timeout)  # no position: ucinewgame set it
            self.legal(board, move, "after 'ucinewgame' (no 'position' since), from the start position")

    def check_positions(self) -> None:
        variant = self.variants[0]
        rng = random.Random(self.settings.seed)
        with self.check("position startpos moves ... and position fen ... moves ..."):
            session = self.engine()
            self.use_variant(session, variant)
            board = new_board(variant)
            moves = _random_moves(board, rng, 6)
            session.quiet("position startpos moves " + " ".join(moves))
            move, _ = session.go(GO_LEGAL, self.settings.timeout)
            self.legal(board, move, "after 'position startpos moves " + " ".join(moves) + "'")
            start = board.fen()
            more = _random_moves(board, rng, 3)
            session.quiet(f"position fen {start} moves " + " ".join(more))
            move, _ = session.go(GO_LEGAL, self.settings.timeout)
            self.legal(board, move, f"after 'position fen {start} moves {' '.join(more)}'")
        dipole = next((v for v in self.variants if new_board(v).game == "dipole"), None)
        with self.check("a pass in a moves list (Dipole)"):
            if dipole is None:
                raise _Skip("no Dipole variant checked")
            session = self.engine()
            self.use_variant(session, dipole)
            session.quiet("position fen W:W1d4:B2c5,2e5 moves pass")
            board = new_board(dipole, "W:W1d4:B2c5,2e5")
            board.push_text("pass")
            move, _ = session.go(GO_LEGAL, self.settings.timeout)
            self.legal(board, move, "after White's forced pass")
            session.quiet("position fen W:W1d4:B2c5,2e5")
            move, _ = session.go(GO_LEGAL, self.settings.timeout)
            if move != "pass":
                raise _Fail(f"answered {move!r} where 'pass' is the only legal move")
        impasse = next((v for v in self.variants if new_board(v).game == "impasse"), None)
        with self.check("a crown in a moves list (Impasse)"):
            if impasse is None:
                raise _Skip("no Impasse variant checked")
            session = self.engine()
            self.use_variant(session, impasse)
            fen = "W:W1a1,1c3,1g7:B1a7,1c7"
            session.quiet(f"position fen {fen} moves g7-h8=a1")
            board = new_board(impasse, fen)
            board.push_text("g7-h8=a1")
            move, _ = session.go(GO_LEGAL, self.settings.timeout)
            self.legal(board, move, "after the crown g7-h8=a1")

    def check_limits(self) -> None:
        variant = self.variants[0]
        for parameters in ("depth 2", "nodes 500"):
            with self.check(f"go {parameters}") as note:
                session = self.engine()
                self.use_variant(session, variant)
                session.quiet("position startpos")
                move, elapsed = session.go(parameters, self.settings.timeout)
                self.legal(new_board(variant), move, f"for 'go {parameters}'")
                note(f"{elapsed * 1000:.0f} ms")

    def check_time(self) -> None:
        variant = self.variants[0]
        margin = self.settings.margin
        for parameters, limit in (
            ("movetime 300", 300),
            ("wtime 2000 btime 2000 winc 0 binc 0", 2000),
            ("wtime 150 btime 60000 winc 0 binc 0", 150),
        ):
            with self.check(f"go {parameters}: answered within {limit} ms") as note:
                session = self.engine()
                self.use_variant(session, variant)
                session.quiet("position startpos")
                move, elapsed = session.go(parameters, limit / 1000 + self.settings.timeout)
                self.legal(new_board(variant), move, f"for 'go {parameters}'")
                if elapsed * 1000 > limit + margin:
                    raise _Late(f"answered after {elapsed * 1000:.0f} ms (more than {limit} + a margin of {margin})")
                note(f"{elapsed * 1000:.0f} ms")

    def check_infinite(self) -> None:
        variant = self.variants[0]
        for parameters in ("infinite", ""):
            shown = f"go {parameters}".strip()
            name = f"{shown}: isready answered during it" + (", a second go refused" if parameters else "")
            with self.check(name + ", bestmove only after stop") as note:
                session = self.engine()
                self.use_variant(session, variant)
                session.quiet("position startpos")
                session.send(shown)
                time.sleep(0.2)
                started = time.monotonic()
                session.send("isready")
                during = _Awaited(f"'readyok' during '{shown}'", 1.0)
                session.until(ReadyOk, during)
                answered = time.monotonic() - started
                if during.bestmove is not None:
                    raise _Fail(f"'bestmove' before 'stop' in '{shown}'")
                if parameters:  # a go during a search is refused; the running search goes on
                    session.send("go depth 1")
                    refused = session.ready().errors
                    if refused != 1:
                        raise _Fail(f"'go depth 1' during '{shown}' got {refused} error lines; expected one")
                time.sleep(0.1)
                session.send("stop")
                started = time.monotonic()
                bestmove, arrival = session.until(BestMove, _Awaited("'bestmove' after 'stop'", 1.0))
                session.ready()
                self.legal(new_board(variant), bestmove.move, f"after '{shown}' and 'stop'")
                note(f"readyok in {answered * 1000:.0f} ms, bestmove {(arrival - started) * 1000:.0f} ms after stop")

    def check_legal_moves(self) -> None:
        rng = random.Random(self.settings.seed)
        share = max(1, self.settings.positions // len(self.variants))
        for variant in self.variants:
            with self.check(f"legal moves in {share} random {variant} positions") as note:
                session = self.engine()
                self.use_variant(session, variant)
                slowest = 0.0
                for number in range(share):
                    board = new_board(variant)
                    moves = _random_moves(board, rng, rng.randrange(0, 40), playing=True)
                    if number % 2:
                        session.quiet(f"position fen {board.fen()}")
                    else:
                        session.quiet("position startpos" + (" moves " + " ".join(moves) if moves else ""))
                    move, elapsed = session.go(GO_LEGAL, self.settings.timeout)
                    slowest = max(slowest, elapsed)
                    self.legal(board, move, f"in position {number + 1}")
                note(f"slowest answer {slowest * 1000:.0f} ms")

    def check_finished(self) -> None:
        rng = random.Random(self.settings.seed + 1)
        with self.check("bestmove (none) at finished positions") as note:
            session = self.engine()
            for variant in self.variants:
                self.use_variant(session, variant)
                board = new_board(variant)
                moves = _random_moves(board, rng, 10_000)
                session.quiet("position startpos moves " + " ".join(moves))
                move, _ = session.go(GO_LEGAL, self.settings.timeout)
                if move is not None:
                    raise _Fail(f"answered {move!r} in {variant} after a finished game of {len(moves)} plies")
            note(f"{len(self.variants)} finished game(s)")

    def check_line_endings(self) -> None:
        with self.check("CR LF line endings accepted"):
            session = self.engine()
            variant = self.variants[0]
            self.use_variant(session, variant)
            board = new_board(variant)
            first = str(board.legal_moves()[0])
            session.send(f"position startpos moves {first}\r")
            board.push_text(first)
            session.send("isready\r")
            wait = _Awaited("'readyok' for 'isready\\r\\n'", self.settings.timeout)
            session.until(ReadyOk, wait)
            if wait.errors:
                raise _Fail(f"a line ending in CR LF was refused: {wait.first_error}")
            move, _ = session.go(GO_LEGAL, self.settings.timeout)
            self.legal(board, move, f"after 'position startpos moves {first}' sent with CR LF")

    def check_bad_input(self) -> None:
        variant = self.variants[0]
        bad = (
            "hello",
            "position fen W:W1z99:B1a1",
            "position startpos moves e9-e7",
            "go depth x",
            "setoption name NoSuchOption value 1",
            "isready now",
        )
        with self.check("bad input: one error line each, and the engine plays on") as note:
            session = self.engine()
            self.use_variant(session, variant)
            for line in bad:
                session.send(line)
                if not session.alive():
                    raise _Fail(f"the engine exited on {line!r}")
                errors = session.ready().errors
                if errors != 1:
                    raise _Fail(
                        f"{line!r} was answered by {errors} error lines; expected exactly one "
                        f"'info string error <reason>'"
                    )
            session.quiet("position startpos")
            move, _ = session.go(GO_LEGAL, self.settings.timeout)
            self.legal(new_board(variant), move, "after the bad input")
            note(f"{len(bad)} bad lines")

    def check_perft(self) -> None:
        variant = self.variants[0]
        with self.check("go perft 2 (optional)") as note:
            session = self.engine()
            self.use_variant(session, variant)
            session.quiet("position startpos")
            session.send("go perft 2")
            wait = _Awaited("'Nodes searched:'", self.settings.timeout)
            expected = {str(move): count for move, count in divide(new_board(variant), 2)}
            counts: dict[str, int] = {}
            while True:
                response, _ = session.read(wait)
                wait.count(response)
                if isinstance(response, Info) and response.error is not None:
                    session.ready()
                    raise _Skip(f"not offered ({response.error})")
                if isinstance(response, PerftMove):
                    counts[response.move] = response.count
                    if len(counts) > len(expected):  # kept bounded: the engine may write any number of them
                        raise _Fail(f"more 'move: count' lines than the {len(expected)} moves of the {variant} start")
                elif isinstance(response, PerftTotal):
                    break
            if counts != expected or response.nodes != sum(expected.values()):
                wrong = next((m for m in expected if counts.get(m) != expected[m]), None) or next(iter(counts), "?")
                raise _Fail(
                    f"perft 2 of the {variant} start: {response.nodes} nodes, expected "
                    f"{sum(expected.values())} (first difference: {wrong})"
                )
            session.ready()
            note(f"{response.nodes} nodes")

    def check_queries(self) -> None:
        variant = self.variants[0]
        board = new_board(variant)
        _random_moves(board, random.Random(self.settings.seed), 5)
        moves = [str(m) for m in board.move_stack]
        winner = board.winner()
        expected = {
            "gameover": "true" if winner is not None else "false",
            "p1turn": "true" if board.turn > 0 else "false",
            "result": "none" if winner is None else ("p1win" if winner > 0 else "p2win"),
            "fen": board.fen(),
            "moves": " ".join(sorted(str(m) for m in board.legal_moves())) or "(none)",
            "size": f"{board.variant.width}x{board.variant.height}",
            "startpos": board.variant.start_fen,
        }
        for item, want in expected.items():
            with self.check(f"query {item} (optional)") as note:
                session = self.engine()
                self.use_variant(session, variant)
                session.quiet("position startpos moves " + " ".join(moves))
                session.send(f"query {item}")
                response, _ = session.read(_Awaited(f"'response' to 'query {item}'", self.settings.timeout))
                if isinstance(response, Info) and response.error is not None:
                    session.ready()
                    raise _Skip(f"not offered ({response.error})")
                if not isinstance(response, QueryResponse):
                    raise _Fail(f"'query {item}' was answered by {type(response).__name__}, not 'response'")
                got = (" ".join(sorted(response.words)) or "(none)") if item == "moves" else response.value
                if got != want:
                    raise _Fail(f"answered {response.value[:80]!r}; the rules say {want[:80]!r}")
                session.ready()
                note(response.value if len(response.value) < 40 else f"{len(response.words)} moves")

    def one_per_game(self) -> list[str]:
        """The first variant checked of each game (Dipole, Impasse)."""
        first: dict[str, str] = {}
        for variant in self.variants:
            first.setdefault(new_board(variant).game, variant)
        return list(first.values())

    def check_multipv(self) -> None:
        for variant in self.one_per_game():
            name = f"MultiPV 3 ({variant}): distinct legal lines, best first, bestmove from line 1; MultiPV 1 as before"
            with self.check(name) as note:
                spec = self.options.get("MultiPV")
                if spec is None or spec.type != "spin":
                    raise _Skip("not offered (no MultiPV spin option)")
                wanted = min(3, spec.max if spec.max is not None else 3)
                if wanted < 2:
                    raise _Skip(f"not offered (MultiPV goes up to {spec.max} only)")
                note("lines " + " ".join(self.multipv_lines(variant, wanted)))

    def multipv_lines(self, variant: str, wanted: int) -> list[str]:
        """The MultiPV check in ``variant``'s start: the first moves of its lines."""
        session = self.engine()
        self.use_variant(session, variant)
        board = new_board(variant)
        claims = _MateClaims(board)
        lines: dict[int, Info] = {}  # the last line of each number: at most ``wanted`` kept

        def watch(info: Info) -> None:
            claims.judge(info)
            number = 1 if info.multipv is None else info.multipv
            if not 1 <= number <= wanted:
                raise _Fail(f"an 'info multipv {number}' line with MultiPV {wanted}")
            if info.pv:
                lines[number] = info

        session.quiet(f"setoption name MultiPV value {wanted}")
        session.quiet("position startpos")
        bestmove, _ = session.search(GO_ANALYSIS, self.settings.timeout, watch)
        session.quiet("setoption name MultiPV value 1")
        firsts = _check_lines(board, lines, wanted)
        if bestmove.move != firsts[0]:
            raise _Fail(f"bestmove {bestmove.move!r} is not line 1's first move {firsts[0]!r}")

        def single(info: Info) -> None:
            claims.judge(info)
            if info.multipv not in (None, 1):
                raise _Fail(f"an 'info multipv {info.multipv}' line with MultiPV set back to 1")

        session.quiet("position startpos")
        move, _ = session.search(GO_ANALYSIS, self.settings.timeout, single)
        self.legal(board, move.move, "with MultiPV set back to 1")
        return firsts

    def check_searchmoves(self) -> None:
        rng = random.Random(self.settings.seed)
        for variant in self.one_per_game():
            with self.check(f"go searchmoves ({variant}): bestmove and pv among them, without the best move") as note:
                note(self.searchmoves_in(variant, rng))

    def searchmoves_in(self, variant: str, rng: random.Random) -> str:
        """The searchmoves check in ``variant``'s start: two moves, not the engine's best."""
        session = self.engine()
        self.use_variant(session, variant)
        board = new_board(variant)
        session.quiet("position startpos")
        best, _ = session.go(GO_ANALYSIS, self.settings.timeout)  # the move searchmoves leaves out
        allowed = sorted(rng.sample([str(m) for m in board.legal_moves() if str(m) != best], 2))
        shown = " ".join(allowed)
        claims = _MateClaims(board)

        def watch(info: Info) -> None:
            if info.pv and info.pv[0] not in allowed:
                raise _Fail(f"an info line's pv starts with {info.pv[0]!r}, not one of searchmoves {shown}")
            claims.judge(info)

        bestmove, _ = session.search(f"{GO_ANALYSIS} searchmoves {shown}", self.settings.timeout, watch, True)
        if bestmove.move not in allowed:
            why = " (the best move without searchmoves)" if bestmove.move == best else ""
            raise _Fail(f"bestmove {bestmove.move!r}{why} is not one of searchmoves {shown}")
        return f"searchmoves {shown} without {best}: {bestmove.move}"

    def check_mate(self) -> None:
        for variant in self.one_per_game():
            name = f"go mate {MATE_LIMIT} ({variant}): a true 'score mate' claim and a winning bestmove"
            with self.check(name) as note:
                session = self.engine()
                self.use_variant(session, variant)
                fen = MATES[new_board(variant).game]
                board = new_board(variant, fen)
                winning = [str(m) for m in board.legal_moves() if _move_wins(board, str(m), 1, [MATE_BUDGET])]
                assert winning, f"{fen} has no win in one move"  # the checker's own position
                claims = _MateClaims(board)
                session.quiet(f"position fen {fen}")
                bestmove, _ = session.search(f"mate {MATE_LIMIT}", self.settings.timeout, claims.judge, True)
                self.legal(board, bestmove.move, f"for 'go mate {MATE_LIMIT}'")
                if claims.best is None or claims.best > MATE_LIMIT:
                    raise _Fail(f"no 'score mate' claim of at most {MATE_LIMIT} ({fen} has a win in one: {winning[0]})")
                if not _move_wins(board, bestmove.move or "", MATE_LIMIT, [MATE_BUDGET]):
                    raise _Fail(
                        f"bestmove {bestmove.move!r} does not win within {MATE_LIMIT} moves ({winning[0]} does)"
                    )
                note(f"score mate {claims.best}, bestmove {bestmove.move}")

    def check_ponder(self) -> None:
        for variant in self.one_per_game():
            for how in ("ponderhit", "stop"):
                name = f"go ponder, {how} ({variant}): no bestmove before {how}, then one" + (
                    ", its ponder move legal" if how == "ponderhit" else " promptly"
                )
                with self.check(name) as note:
                    spec = self.options.get("Ponder")
                    if spec is None or spec.type != "check":
                        raise _Skip("not offered (no Ponder check option)")
                    session = self.engine()
                    self.use_variant(session, variant)
                    board = new_board(variant)
                    predicted = str(board.legal_moves()[0])
                    board.push_text(predicted)
                    session.quiet("setoption name Ponder value true")
                    session.quiet(f"position startpos moves {predicted}")
                    # depth 2 ends the search soon: its bestmove must still wait for ponderhit
                    line = "go ponder depth 2" if how == "ponderhit" else "go ponder wtime 60000 btime 60000"
                    session.send(line)
                    time.sleep(0.3)
                    session.send("isready")
                    during = _Awaited(f"'readyok' during '{line}'", self.settings.timeout)
                    session.until(ReadyOk, during)
                    if during.bestmove is not None:
                        raise _Fail(f"'bestmove {during.bestmove.move}' while pondering, before '{how}'")
                    session.send(how)
                    started = time.monotonic()
                    limit = self.settings.timeout if how == "ponderhit" else 1.0
                    after = _Awaited(f"'bestmove' after '{how}'", limit)
                    bestmove, arrival = session.until(BestMove, after)
                    if after.errors:
                        raise _Fail(f"'{how}' during '{line}' was refused: {after.first_error}")
                    session.ready()
                    self.legal(board, bestmove.move, f"after '{line}' and '{how}'")
                    if bestmove.ponder is not None and bestmove.move is not None:
                        board.push_text(bestmove.move)
                        try:
                            board.parse_move(bestmove.ponder)
                        except RulesError as error:
                            raise _Fail(
                                f"'bestmove {bestmove.move} ponder {bestmove.ponder}': the ponder move is illegal "
                                f"after {bestmove.move} ({board.fen()}): {error}"
                            ) from None
                    session.quiet("setoption name Ponder value false")
                    ponder = f" ponder {bestmove.ponder}" if bestmove.ponder else ""
                    note(f"bestmove {bestmove.move}{ponder} {(arrival - started) * 1000:.0f} ms after {how}")

    def check_quit(self) -> None:
        with self.check("quit ends the process promptly, with status 0") as note:
            session = self.engine()
            session.send("quit")
            started = time.monotonic()
            bound = 1000 + self.settings.margin  # ms: a second to exit, and the scheduling margin
            patience = min(bound / 1000, self.ends - started)
            code = session.transport.wait(max(0.0, patience))
            if code is None and patience * 1000 < bound:
                raise session.out_of_time("the engine exited")
            if code is None:
                raise _Fail(f"still running {bound} ms after 'quit'")
            if code != 0:
                raise _Fail(f"exited with status {code}")
            note(f"exited after {(time.monotonic() - started) * 1000:.0f} ms")
            self.restart()


def _score_key(info: Info) -> float:
    """A score as a number that orders lines best first: any win beats any centipawns, a
    quicker win a slower one, and a later loss a sooner one."""
    if info.score_mate is not None:
        return (1e9 if info.score_mate > 0 else -1e9) - info.score_mate
    return float(info.score_cp if info.score_cp is not None else 0)


def _check_lines(board: Board[Any], lines: dict[int, Info], wanted: int) -> list[str]:
    """The first moves of the last ``multipv 1..wanted`` lines; _Fail unless every line is
    there, of one depth, starting with distinct legal moves, scored best first."""
    missing = [number for number in range(1, wanted + 1) if number not in lines]
    if missing:
        raise _Fail(f"no 'info multipv {missing[0]}' line with a pv (MultiPV {wanted})")
    ordered = [lines[number] for number in range(1, wanted + 1)]
    if len({info.depth for info in ordered}) > 1:
        raise _Fail("the last lines 1.." + str(wanted) + " are of different depths: " + str([i.depth for i in ordered]))
    firsts = [info.pv[0] for info in ordered]
    for number, move in enumerate(firsts, start=1):
        try:
            board.parse_move(move)
        except RulesError as error:
            raise _Fail(f"line {number} starts with the illegal move {move!r}: {error}") from None
        if move in firsts[: number - 1]:
            raise _Fail(f"lines {firsts.index(move) + 1} and {number} both start with {move}")
    unscored = [n for n, info in enumerate(ordered, start=1) if info.score_cp is None and info.score_mate is None]
    if unscored:
        raise _Fail(f"line {unscored[0]} has no score")
    for number, (better, worse) in enumerate(itertools.pairwise(ordered), start=1):
        if better.score_bound is None and worse.score_bound is None and _score_key(worse) > _score_key(better):
            raise _Fail(f"line {number + 1} ({format_response(worse)[:80]}) scores better than line {number}")
    return firsts


class _MateClaims:
    """Judges the ``score mate K`` claims (K > 0, a win for the side to move) of a search of
    ``board`` by the rules: the pv's first move must win within K moves whatever the opponent
    does.  Each claim is judged once, and only when cheap (at most MATE_BUDGET positions);
    a false one is a _Fail.  ``best``: the shortest win claimed."""

    def __init__(self, board: Board[Any]) -> None:
        self.board = board
        self.judged: set[tuple[str, int]] = set()  # bounded: legal moves x MATE_LIMIT + 1 values
        self.best: int | None = None

    def judge(self, info: Info) -> None:
        mate = info.score_mate
        if mate is None or mate <= 0 or not info.pv:
            return
        self.best = mate if self.best is None else min(self.best, mate)
        claim = (info.pv[0], mate)
        if mate > MATE_LIMIT + 1 or claim in self.judged:
            return
        self.judged.add(claim)
        try:
            wins = _move_wins(self.board, info.pv[0], mate, [MATE_BUDGET])
        except _TooCostly:
            return
        if not wins:
            raise _Fail(f"a false claim: 'score mate {mate}' with pv {info.pv[0]}, which does not win within {mate}")


class _TooCostly(Exception):
    """Judging a mate claim would visit more positions than its budget."""


def _move_wins(board: Board[Any], move: str, moves: int, budget: list[int]) -> bool:
    """Whether ``move`` (illegal: False) wins for the side to move within ``moves`` of its moves
    whatever the opponent replies, by the rules; ``budget[0]`` positions at most (_TooCostly)."""
    try:
        board.push_text(move)
    except RulesError:
        return False
    try:
        budget[0] -= 1
        if budget[0] < 0:
            raise _TooCostly
        winner = board.winner()
        if winner is not None or moves <= 1:
            return winner == -board.turn
        for reply in board.legal_moves():
            board.push(reply)
            try:
                winner = board.winner()
                lost = winner == board.turn or (
                    winner is None
                    and not any(_move_wins(board, str(m), moves - 1, budget) for m in board.legal_moves())
                )
            finally:
                board.pop()
            if lost:
                return False
        return True
    finally:
        board.pop()


def _random_moves(board: Board[Any], rng: random.Random, plies: int, playing: bool = False) -> list[str]:
    """Play up to ``plies`` random moves on ``board`` (fewer if the game ends; with ``playing``,
    stop one ply before the end, so that the position still has moves); their texts."""
    texts: list[str] = []
    for _ in range(plies):
        moves = board.legal_moves()
        if not moves:
            break
        move = rng.choice(moves)
        board.push(move)
        if playing and board.winner() is not None:
            board.pop()
            break
        texts.append(str(move))
    return texts


def check_engine(
    settings: CheckSettings, report: Callable[[CheckResult], None] = lambda result: None
) -> list[CheckResult]:
    """Run every check; ``report`` sees each result as it is known.  Never leaves the engine running.
    Raises ArbiterError when the engine refuses one of ``settings.options`` (bad input)."""
    return _Checker(settings, report).run()


def summary(results: Sequence[CheckResult]) -> str:
    """The closing line: how many checks passed, failed and were skipped, and the verdict."""
    counts = {status: sum(r.status == status for r in results) for status in ("ok", "FAIL", "skip")}
    verdict = "passed" if not counts["FAIL"] else "FAILED"
    return (
        f"{len(results)} checks: {counts['ok']} ok, {counts['FAIL']} failed, "
        f"{counts['skip']} skipped; the engine {verdict}"
    )
