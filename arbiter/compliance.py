"""``dipole-arbiter check-engine``: runs an engine through everything protocol/SPEC.md requires.

Each check is one line, ``ok``, ``FAIL`` (and why) or ``skip`` (an optional feature the engine
does not offer, or a check that does not apply); a summary follows; the run passes when no
check failed.  Checked: the ``uci`` and ``ugi`` handshakes (ids and option lines well formed),
``isready`` answered promptly, also during a search, ``UCI_Variant`` for each variant checked,
``ucinewgame``, ``position startpos|fen ... moves ...``, each game's own check positions
(``gameplug.CheckPosition``: a Dipole pass and an Impasse crown in a moves list, castling,
finished games), ``go`` with each limit (depth, nodes, movetime, a clock, infinite and a bare
``go`` until ``stop``), exactly one ``bestmove`` per ``go``, time use within the clock and
``movetime``, legal moves (and a game's forced moves) over random positions of every variant
checked, ``bestmove (none)`` at finished positions, ``CR LF`` line endings, bad input answered by
exactly one error line and no crash, ``quit`` ending the process promptly, and the optional
``go perft`` and ``query`` answers.

The checker knows games only through their plug-ins (:mod:`gameplug`): legal moves, forced
moves, outcomes, perft and the check positions are the variant's.  An engine is told a variant
as the game says (``GameVariant.engine_variant``): a game whose engines are told nothing (chess)
has plain UCI engines, so such an engine is sent only UCI's commands (and the options it
declares), its lines that are not the protocol's (Stockfish's banner) are ignored as UCI's GUIs
ignore them, and the checks of what SPEC.md adds to UCI are skipped, saying so.

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

import gameplug
from gameplug import CheckPosition, GameError, State, divide, winning_moves
from gameplug.serve import query_answer
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
SPEC_VARIANT = "dipole"  # what an engine without a UCI_Variant option plays (SPEC.md 7)
GO_LEGAL = "depth 1"  # the go parameters of the legal-move checks: any engine answers them fast
GO_ANALYSIS = "depth 2"  # the go parameters of the MultiPV and searchmoves checks
MATE_LIMIT = 2
MATE_BUDGET = 50_000  # positions the rules may visit to judge one mate claim; beyond: not judged
RUN_TIMEOUT = 90.0  # seconds: the whole run's bound (the project's engine takes 4 s)
QUERIES = ("gameover", "p1turn", "result", "fen", "moves", "size", "startpos")  # SPEC.md 4.9
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

    ``variants``: the variants to check (empty: every installed variant the engine offers);
    ``positions``: random positions for the legal-move check, shared out among them;
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
    none is kept beyond what the check at hand needs (see :class:`_Awaited`).  ``plain``: a
    plain UCI engine, whose lines that are not the protocol's are ignored (counted)."""

    def __init__(self, settings: CheckSettings, ends: float, plain: bool) -> None:
        self.settings = settings
        self.ends = ends  # the run's bound (time.monotonic()): no wait or write goes beyond it
        self.plain = plain
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
        response of the protocol (a plain UCI engine's are skipped, as UCI's GUIs skip them).
        The run's bound ends the wait too, if it comes first."""
        deadline = min(wait.deadline, self.ends)
        while True:
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
                if not self.plain:
                    raise _Fail(f"unreadable line {line[:60]!r}: {error}") from None
                wait.lines += 1

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
    plain: bool = False  # a plain UCI engine: only UCI's commands (see the module docstring)
    resets: dict[str, str] = field(default_factory=dict)  # the variants' own options, at their defaults
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
        session = _Session(self.settings, self.ends, self.plain)
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
        """Tell the engine ``variant`` as its game says (nothing, for chess; UCI_Chess960 for
        Chess960, and back to its default for another variant), and a new game."""
        chosen = gameplug.variant(variant)
        if chosen.engine_variant is not None and "UCI_Variant" in self.options:
            session.quiet(f"setoption name UCI_Variant value {chosen.engine_variant}")
        for name, value in {**self.resets, **chosen.engine_options}.items():
            session.quiet(f"setoption name {name} value {value}")
        session.quiet("ucinewgame")

    def spec_only(self, what: str) -> None:
        """_Skip when the engine is checked as a plain UCI engine: ``what`` is SPEC.md's, not UCI's."""
        if self.plain:
            raise _Skip(f"plain UCI: {what} is SPEC.md's, not asked of a UCI engine")

    def legal(self, state: State[Any], move: str | None, where: str) -> None:
        """Fail unless ``move`` is legal at ``state`` (None: only when the game is over), and the
        game's forced move there, when it has one."""
        if move is None:
            if state.legal_moves():
                raise _Fail(f"bestmove (none) {where}, but the game is not over")
            return
        try:
            state.read_move(move)
        except GameError as error:
            raise _Fail(
                f"illegal bestmove {move!r} {where} ({state.variant} {state.position_text()}): {error}"
            ) from None
        forced = state.forced_move()
        if forced is not None and move != state.move_text(forced):
            raise _Fail(f"answered {move!r} {where}, where {state.move_text(forced)!r} is the only legal move")

    # -- the checks --------------------------------------------------------------------------
    def run(self) -> list[CheckResult]:
        self.ends = time.monotonic() + self.settings.run_timeout
        self.plain = _plain_uci(self.settings.variants)
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
            self.session = session = _Session(self.settings, self.ends, self.plain)
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
            self.spec_only("the UGI handshake")
            session = _Session(self.settings, self.ends, self.plain)
            try:
                responses = session.handshake("ugi")
                session.ready()
            finally:
                session.close()
            note(f"{sum(isinstance(r, OptionSpec) for r in responses)} option(s)")

    def choose_variants(self) -> list[str]:
        """The variants to check: those asked for, or every installed one the engine offers."""
        spec = self.options.get("UCI_Variant")
        offered = list(spec.vars) if spec is not None and spec.type == "combo" else []
        installed = {v.engine_variant: v.name for v in gameplug.all_variants() if v.engine_variant is not None}
        wanted = list(self.settings.variants) or (
            [installed[value] for value in offered if value in installed] if spec is not None else [SPEC_VARIANT]
        )
        with self.check("variants") as note:
            if spec is not None and spec.type != "combo":
                raise _Fail(f"UCI_Variant is a {spec.type} option; it must be a combo listing the variants")
            if not wanted:
                raise _Fail(f"it offers no installed variant (offered: {', '.join(offered)})")
            told = [gameplug.variant(name) for name in wanted if gameplug.variant(name).engine_variant is not None]
            if spec is None and told:  # it plays one variant: its game's first
                plays = told[0].game.variants[0].name
                note(f"no UCI_Variant option: the engine plays {plays} only (SPEC.md 7)")
                missing = [chosen.name for chosen in told if chosen.name != plays]
                if missing:
                    raise _Fail(f"variant {missing[0]!r} is not offered (no UCI_Variant option: it plays {plays} only)")
            missing = [chosen.name for chosen in told if spec is not None and chosen.engine_variant not in offered]
            if missing:
                raise _Fail(f"variant {missing[0]!r} is not offered (UCI_Variant offers: {', '.join(offered)})")
            needed = {name: chosen for chosen in map(gameplug.variant, wanted) for name in chosen.engine_options}
            lacking = [name for name in needed if name not in self.options]
            if lacking:
                raise _Fail(
                    f"variant {needed[lacking[0]].name!r} needs the option {lacking[0]}, which it does not offer"
                )
            self.resets = {name: _option_text(self.options[name].default) for name in needed}
            unknown = [value for value in offered if value not in installed]
            note("checking " + ", ".join(wanted) + (f"; not installed here: {', '.join(unknown)}" if unknown else ""))
            if self.plain:
                note("engines of its game are told nothing: a plain UCI engine, not sent what SPEC.md adds")
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
            told = gameplug.variant(variant).engine_variant
            name = f"UCI_Variant {told}: set, then" if told else f"{variant} (engines are told nothing):"
            with self.check(f"{name} a legal move from its start"):
                session = self.engine()
                self.use_variant(session, variant)
                session.quiet("position startpos")
                move, _ = session.go(GO_LEGAL, self.settings.timeout)
                self.legal(_start(variant), move, "from the start position")

    def check_new_game(self) -> None:
        with self.check("ucinewgame resets to the start position"):
            self.spec_only("ucinewgame setting the start position")
            session = self.engine()
            variant = self.variants[0]
            self.use_variant(session, variant)
            state = _start(variant)
            session.quiet("position startpos moves " + state.move_text(state.legal_moves()[0]))
            session.quiet("ucinewgame")
            move, _ = session.go(GO_LEGAL, self.settings.timeout)  # no position: ucinewgame set it
            self.legal(state, move, "after 'ucinewgame' (no 'position' since), from the start position")

    def check_positions(self) -> None:
        variant = self.variants[0]
        rng = random.Random(self.settings.seed)
        with self.check("position startpos moves ... and position fen ... moves ..."):
            session = self.engine()
            self.use_variant(session, variant)
            state = _start(variant)
            moves = _random_moves(state, rng, 6)
            session.quiet("position startpos moves " + " ".join(moves))
            move, _ = session.go(GO_LEGAL, self.settings.timeout)
            self.legal(state, move, "after 'position startpos moves " + " ".join(moves) + "'")
            start = state.position_text()
            more = _random_moves(state, rng, 3)
            session.quiet(f"position fen {start} moves " + " ".join(more))
            move, _ = session.go(GO_LEGAL, self.settings.timeout)
            self.legal(state, move, f"after 'position fen {start} moves {' '.join(more)}'")
        seen: set[tuple[str, str | None, tuple[str, ...], tuple[str, ...]]] = set()
        games: set[str] = set()
        for variant in self.variants:  # each game's positions, named after the game (another variant's after it)
            chosen = gameplug.variant(variant)
            where = variant if chosen.game.name in games else chosen.game.title
            games.add(chosen.game.name)
            for position in chosen.check_positions():
                key = (position.description, position.start, position.moves, position.legal)
                if (position.start is None and not position.moves) or key in seen:
                    continue  # (the start: checked with the variant; the same position: checked)
                seen.add(key)
                with self.check(f"{position.description} ({where})") as note:
                    session = self.engine()
                    self.use_variant(session, variant)
                    command = _position_command(position)
                    session.quiet(command)
                    move, _ = session.go(GO_LEGAL, self.settings.timeout)
                    self.legal(_position_state(position), move, f"after '{command}'")
                    note(f"bestmove {move or '(none)'}")

    def check_limits(self) -> None:
        variant = self.variants[0]
        for parameters in ("depth 2", "nodes 500"):
            with self.check(f"go {parameters}") as note:
                session = self.engine()
                self.use_variant(session, variant)
                session.quiet("position startpos")
                move, elapsed = session.go(parameters, self.settings.timeout)
                self.legal(_start(variant), move, f"for 'go {parameters}'")
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
                self.legal(_start(variant), move, f"for 'go {parameters}'")
                if elapsed * 1000 > limit + margin:
                    raise _Late(f"answered after {elapsed * 1000:.0f} ms (more than {limit} + a margin of {margin})")
                note(f"{elapsed * 1000:.0f} ms")

    def check_infinite(self) -> None:
        variant = self.variants[0]
        for parameters in ("infinite", ""):
            shown = f"go {parameters}".strip()
            refused = parameters and not self.plain  # (a second go, refused: SPEC.md's)
            name = f"{shown}: isready answered during it" + (", a second go refused" if refused else "")
            with self.check(name + ", bestmove only after stop") as note:
                if not parameters:
                    self.spec_only("'go' alone searching until 'stop'")
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
                if refused:  # a go during a search is refused; the running search goes on
                    session.send("go depth 1")
                    errors = session.ready().errors
                    if errors != 1:
                        raise _Fail(f"'go depth 1' during '{shown}' got {errors} error lines; expected one")
                time.sleep(0.1)
                session.send("stop")
                started = time.monotonic()
                bestmove, arrival = session.until(BestMove, _Awaited("'bestmove' after 'stop'", 1.0))
                session.ready()
                self.legal(_start(variant), bestmove.move, f"after '{shown}' and 'stop'")
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
                    state = _start(variant)
                    moves = _random_moves(state, rng, rng.randrange(0, 40), playing=True)
                    if number % 2:
                        session.quiet(f"position fen {state.position_text()}")
                    else:
                        session.quiet("position startpos" + (" moves " + " ".join(moves) if moves else ""))
                    move, elapsed = session.go(GO_LEGAL, self.settings.timeout)
                    slowest = max(slowest, elapsed)
                    self.legal(state, move, f"in position {number + 1}")
                note(f"slowest answer {slowest * 1000:.0f} ms")

    def check_finished(self) -> None:
        rng = random.Random(self.settings.seed + 1)
        with self.check("bestmove (none) at finished positions") as note:
            self.spec_only("'bestmove (none)' where the game's own rules end it (its draws, say)")
            session = self.engine()
            for variant in self.variants:
                self.use_variant(session, variant)
                moves = _random_moves(_start(variant), rng, 10_000)
                session.quiet("position startpos moves " + " ".join(moves))
                move, _ = session.go(GO_LEGAL, self.settings.timeout)
                if move is not None:
                    raise _Fail(f"answered {move!r} in {variant} after a finished game of {len(moves)} plies")
            note(f"{len(self.variants)} finished game(s)")

    def check_line_endings(self) -> None:
        with self.check("CR LF line endings accepted"):
            self.spec_only("CR LF in commands")
            session = self.engine()
            variant = self.variants[0]
            self.use_variant(session, variant)
            state = _start(variant)
            first = state.move_text(state.legal_moves()[0])
            session.send(f"position startpos moves {first}\r")
            state.play(state.read_move(first))
            session.send("isready\r")
            wait = _Awaited("'readyok' for 'isready\\r\\n'", self.settings.timeout)
            session.until(ReadyOk, wait)
            if wait.errors:
                raise _Fail(f"a line ending in CR LF was refused: {wait.first_error}")
            move, _ = session.go(GO_LEGAL, self.settings.timeout)
            self.legal(state, move, f"after 'position startpos moves {first}' sent with CR LF")

    def check_bad_input(self) -> None:
        variant = self.variants[0]
        bad = (
            "hello",
            "position fen no-such-position",
            "position startpos moves no-such-move",
            "go depth x",
            "setoption name NoSuchOption value 1",
            "isready now",
        )
        with self.check("bad input: one error line each, and the engine plays on") as note:
            self.spec_only("an error line for bad input")
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
            self.legal(_start(variant), move, "after the bad input")
            note(f"{len(bad)} bad lines")

    def check_perft(self) -> None:
        variant = self.variants[0]
        with self.check("go perft 2 (optional)") as note:
            self.spec_only("'go perft'")
            session = self.engine()
            self.use_variant(session, variant)
            session.quiet("position startpos")
            session.send("go perft 2")
            wait = _Awaited("'Nodes searched:'", self.settings.timeout)
            expected = dict(divide(_start(variant), 2))
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
        if self.plain:
            self.record("query (optional)", "skip", "plain UCI: 'query' is SPEC.md's, not asked of a UCI engine")
            return
        variant = self.variants[0]
        state = _start(variant)
        moves = _random_moves(state, random.Random(self.settings.seed), 5)
        game = gameplug.variant(variant).game
        expected = {item: query_answer(game, state, item) or "" for item in QUERIES}
        expected["moves"] = " ".join(sorted(expected["moves"].split())) if state.legal_moves() else "(none)"
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
                    raise _Fail(f"answered {response.value[:80]!r}; the game says {want[:80]!r}")
                session.ready()
                note(response.value if len(response.value) < 40 else f"{len(response.words)} moves")

    def one_per_game(self) -> list[str]:
        """The first variant checked of each game."""
        first: dict[str, str] = {}
        for variant in self.variants:
            first.setdefault(gameplug.variant(variant).game.name, variant)
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
        state = _start(variant)
        claims = _MateClaims(state)
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
        firsts = _check_lines(state, lines, wanted)
        if bestmove.move != firsts[0]:
            raise _Fail(f"bestmove {bestmove.move!r} is not line 1's first move {firsts[0]!r}")

        def single(info: Info) -> None:
            claims.judge(info)
            if info.multipv not in (None, 1):
                raise _Fail(f"an 'info multipv {info.multipv}' line with MultiPV set back to 1")

        session.quiet("position startpos")
        move, _ = session.search(GO_ANALYSIS, self.settings.timeout, single)
        self.legal(state, move.move, "with MultiPV set back to 1")
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
        state = _start(variant)
        session.quiet("position startpos")
        best, _ = session.go(GO_ANALYSIS, self.settings.timeout)  # the move searchmoves leaves out
        texts = [state.move_text(move) for move in state.legal_moves()]
        allowed = sorted(rng.sample([text for text in texts if text != best], 2))
        shown = " ".join(allowed)
        claims = _MateClaims(state)

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
                position = _win_in_one(variant)
                if position is None:
                    raise _Skip(f"none of {variant}'s check positions has a win in one")
                session = self.engine()
                self.use_variant(session, variant)
                command = _position_command(position)
                state = _position_state(position)
                claims = _MateClaims(state)
                session.quiet(command)
                bestmove, _ = session.search(f"mate {MATE_LIMIT}", self.settings.timeout, claims.judge, True)
                self.legal(state, bestmove.move, f"for 'go mate {MATE_LIMIT}'")
                win = position.answers[0]
                if claims.best is None or claims.best > MATE_LIMIT:
                    raise _Fail(f"no 'score mate' claim of at most {MATE_LIMIT} ('{command}' has a win in one: {win})")
                if not _move_wins(state, bestmove.move or "", MATE_LIMIT, [MATE_BUDGET]):
                    raise _Fail(f"bestmove {bestmove.move!r} does not win within {MATE_LIMIT} moves ({win} does)")
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
                    state = _start(variant)
                    predicted = state.move_text(state.legal_moves()[0])
                    state.play(state.read_move(predicted))
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
                    self.legal(state, bestmove.move, f"after '{line}' and '{how}'")
                    if bestmove.ponder is not None and bestmove.move is not None:
                        state.play(state.read_move(bestmove.move))
                        try:
                            state.read_move(bestmove.ponder)
                        except GameError as error:
                            raise _Fail(
                                f"'bestmove {bestmove.move} ponder {bestmove.ponder}': the ponder move is illegal "
                                f"after {bestmove.move} ({state.position_text()}): {error}"
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


def _check_lines(state: State[Any], lines: dict[int, Info], wanted: int) -> list[str]:
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
            state.read_move(move)
        except GameError as error:
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
    ``state`` by its game's rules: the pv's first move must win within K moves whatever the
    opponent does.  Each claim is judged once, and only when cheap (at most MATE_BUDGET
    positions); a false one is a _Fail.  ``best``: the shortest win claimed."""

    def __init__(self, state: State[Any]) -> None:
        self.state = state
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
            wins = _move_wins(self.state, info.pv[0], mate, [MATE_BUDGET])
        except _TooCostly:
            return
        if not wins:
            raise _Fail(f"a false claim: 'score mate {mate}' with pv {info.pv[0]}, which does not win within {mate}")


class _TooCostly(Exception):
    """Judging a mate claim would visit more positions than its budget."""


def _move_wins(state: State[Any], move: str, moves: int, budget: list[int]) -> bool:
    """Whether ``move`` (illegal: False) wins for the side to move within ``moves`` of its moves
    whatever the opponent replies, by the game's rules; ``budget[0]`` positions at most
    (_TooCostly).  ``state`` is left as it was."""
    mover = state.turn
    try:
        state.play(state.read_move(move))
    except GameError:
        return False
    try:
        budget[0] -= 1
        if budget[0] < 0:
            raise _TooCostly
        outcome = state.outcome()
        if outcome.over or moves <= 1:
            return outcome.winner is mover
        for reply in state.legal_moves():
            state.play(reply)
            try:
                outcome = state.outcome()
                lost = (
                    outcome.winner is not mover
                    if outcome.over
                    else not any(
                        _move_wins(state, state.move_text(next_move), moves - 1, budget)
                        for next_move in state.legal_moves()
                    )
                )
            finally:
                state.undo()
            if lost:
                return False
        return True
    finally:
        state.undo()


def _random_moves(state: State[Any], rng: random.Random, plies: int, playing: bool = False) -> list[str]:
    """Play up to ``plies`` random moves at ``state`` (fewer if the game ends; with ``playing``,
    stop one ply before the end, so that the position still has moves); their texts."""
    texts: list[str] = []
    for _ in range(plies):
        moves = state.legal_moves()
        if not moves:
            break
        move = rng.choice(moves)
        text = state.move_text(move)
        state.play(move)
        if playing and state.outcome().over:
            state.undo()
            break
        texts.append(text)
    return texts


def _option_text(value: str | int | bool | None) -> str:
    """An option's value as ``setoption`` writes it (a check's as ``true``/``false``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


def _start(variant: str) -> State[Any]:
    return gameplug.variant(variant).start()


def _position_state(position: CheckPosition) -> State[Any]:
    """The position a check position stands for, its moves played."""
    chosen = gameplug.variant(position.variant)
    state = chosen.start() if position.start is None else chosen.read_position(position.start)
    for text in position.moves:
        state.play(state.read_move(text))
    return state


def _position_command(position: CheckPosition) -> str:
    """The ``position`` command that sets a check position."""
    start = "position startpos" if position.start is None else f"position fen {position.start}"
    return start + (" moves " + " ".join(position.moves) if position.moves else "")


def _win_in_one(variant: str) -> CheckPosition | None:
    """The first of ``variant``'s check positions whose right answers are its wins in one move."""
    for position in gameplug.variant(variant).check_positions():
        if position.answers and set(position.answers) <= set(winning_moves(_position_state(position))):
            return position
    return None


def _plain_uci(variants: Sequence[str]) -> bool:
    """Whether an engine checked in ``variants`` is a plain UCI engine: their games tell engines
    nothing (chess).  ArbiterError, naming the installed variants, for an unknown one."""
    try:
        told = [gameplug.variant(name).engine_variant for name in variants]
    except GameError as error:
        raise ArbiterError(str(error)) from None
    return bool(told) and all(value is None for value in told)


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
