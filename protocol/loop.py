"""The engine side of protocol/SPEC.md, done once, for Python engine authors.

An engine written with :func:`serve` is only its search; the loop does the rest: the ``uci`` /
``ugi`` handshake, ``id`` and ``option`` lines (``UCI_Variant`` from the variants the engine
plays, ``MoveOverhead``, and the engine's own options), checking ``setoption`` values,
``position`` (through the engine's ``new_position`` and ``play`` functions), the search on a
background thread with its time budget (:mod:`protocol.timeman`), ``isready`` and ``stop``
answered during it, exactly one ``bestmove`` per ``go`` (held back until ``stop`` in ``go
infinite``, and until ``ponderhit`` or ``stop`` in ``go ponder``), ``go searchmoves`` checked
against the position (or, with ``go mate``, refused unless the engine says it honours them),
``info string error`` for every bad line, and ``quit`` / end of input::

    from protocol.loop import serve

    def search(job):                       # on the loop's search thread
        moves = job.position.legal_moves()
        return str(moves[0]) if moves else None

    raise SystemExit(serve(search, name="first", variants=["dipole"],
                           new_position=new_board, play=lambda board, move: board.push_text(move)))

The loop knows nothing of any game: positions are whatever ``new_position(variant, fen)``
returns (``fen`` None: the variant's start), ``play(position, move)`` plays one move text on
it in place, and both raise ``ValueError`` (the reason is sent as the error line) for bad
input.  A ``moves`` list is played up to its first bad move, as SPEC.md 4.5 says.  A
``position`` command during a search builds a new position, so it never touches the searched
one; between searches, one that only adds moves to the last (a game going on) plays them on
it (a host resends the whole game every move, and replaying 130 plies of Impasse cost 1.5-3
ms, on the clock, of a 10 ms increment).  So the search must leave its position as it found
it (push, then pop), as the next ``go`` may search it again, and an ``answer`` or ``perft`` during the search reads
it too (search a copy where that matters).  The search callback gets a :class:`SearchJob` and
returns a move text, or None for ``bestmove (none)`` (no legal move); it should return soon
after :meth:`SearchJob.stopped` turns true (or after the callback it gave
:meth:`SearchJob.on_stop` is called), and may report progress with :meth:`SearchJob.info`.

The optional hooks, each None when the engine does not offer it:

* ``answer(position, item)`` answers ``query <item>`` (optional in SPEC.md): the value of the
  ``response`` line, or None for an item it does not answer (an error line);
* ``perft(position, depth)`` answers ``go perft <depth>`` (optional too): the count below each
  legal move, as ``(move, count)`` pairs (the loop writes them and the total);
* ``new_game()`` is called on ``ucinewgame`` / ``uginewgame`` (forget what earlier searches
  learnt); the loop resets the position to the variant's start itself;
* ``on_option(name, value)`` is called for every valid ``setoption`` (the spec's name, the
  value parsed as in :attr:`SearchJob.options`), before the value is kept; a ``ValueError``
  refuses it.  Both may come while a search runs, on the loop's thread.

``analysis=True`` says that the search honours ``limit.searchmoves`` and ``limit.mate``
(optional in SPEC.md 10); without it a ``go`` with either is refused with an error line, as an
engine that does not offer them must, rather than searched as if they were not there.

The handshake lists ``UCI_Variant``, ``MoveOverhead`` and then the engine's ``options``; an
engine that names either of the first two among its ``options`` puts it there instead
(``MoveOverhead`` with the engine's default and range; ``UCI_Variant`` always with ``variants``
as its values).
"""

from __future__ import annotations

import os
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, BinaryIO, Generic, TextIO, TypeVar

from .codec import (
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
    PonderHit,
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
    parse_int,
)
from .reading import read_command
from .timeman import MOVE_OVERHEAD, UNTIMED, Reserve, TimePlan, overrun, plan

__all__ = ["MULTI_PV", "PONDER", "EngineLoop", "SearchJob", "serve"]

P = TypeVar("P")
OptionValue = str | int | bool
VARIANT = "UCI_Variant"

MULTI_PV = OptionSpec("MultiPV", "spin", 1, 1, 16)
"""For an engine that can report its best lines: list it among ``options`` and read
:attr:`SearchJob.multipv`; the loop checks the range."""

PONDER = OptionSpec("Ponder", "check", False)
"""For an engine that wants ``bestmove <move> ponder <move>``: list it among ``options``; with it
on, the loop adds the second move of the last ``pv`` it reported for the played move."""


@dataclass
class SearchJob(Generic[P]):
    """One ``go``, as the search callback sees it.

    ``position`` is the engine's own position object; ``limit`` the ``go`` parameters (a bare
    ``go`` has ``infinite`` set; ``limit.searchmoves``, when set, are legal moves of
    ``position``, checked by the loop); ``options`` every option's current value by name (spin:
    int, check: bool, others: str); ``started`` the ``time.monotonic()`` at which ``go`` was
    read; ``reserve_ms`` the time the clock plan keeps back beyond ``MoveOverhead`` (the loop's
    :class:`~protocol.timeman.Reserve`); ``nodes`` the calls to :meth:`stopped` so far.

    A ``go ponder`` search is untimed (:meth:`time_plan` is UNTIMED) until ``ponderhit``; from
    then on its budget is that of its ``go`` limits, counted from the ``ponderhit``
    (:attr:`clock_started`), and the callback given to :meth:`on_ponderhit` is called.
    """

    position: P
    limit: Limit
    variant: str
    options: Mapping[str, OptionValue]
    started: float
    white_to_move: bool = True
    reserve_ms: float = 0.0
    nodes: int = 0
    _stop: threading.Event = field(default_factory=threading.Event, repr=False)
    _emit: Callable[[Info], None] = field(default=lambda info: None, repr=False)
    _on_stop: Callable[[], object] | None = field(default=None, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _ponder_hit_at: float | None = field(default=None, repr=False)
    _on_ponderhit: Callable[[], object] | None = field(default=None, repr=False)
    # Set by stop or ponderhit: a search that ended early may answer (unless infinite).
    _released: threading.Event = field(default_factory=threading.Event, repr=False)
    _last_pv: tuple[str, ...] = field(default=(), repr=False)

    @property
    def pondering(self) -> bool:
        """True from ``go ponder`` until ``ponderhit`` (a ``stop`` ends the search instead)."""
        return self.limit.ponder and self._ponder_hit_at is None

    @property
    def clock_started(self) -> float:
        """The ``time.monotonic()`` the time budget counts from: ``go``, or ``ponderhit``."""
        return self.started if self._ponder_hit_at is None else self._ponder_hit_at

    @property
    def multipv(self) -> int:
        """How many best lines to report: the ``MultiPV`` option (1 if the engine has none)."""
        return int(self.options.get(MULTI_PV.name, 1))

    def stopped(self) -> bool:
        """True once the search must end: ``stop``, ``quit``, the time budget is spent, or (for
        ``go nodes N``) this is the N-th call: call it once per node."""
        self.nodes += 1
        if self._stop.is_set() or (self.limit.nodes is not None and self.nodes >= self.limit.nodes):
            return True
        budget = self.time_budget()
        return budget is not None and time.monotonic() - self.clock_started >= budget

    def on_stop(self, callback: Callable[[], object]) -> None:
        """Have ``callback`` called once, on the loop's thread, when ``stop`` or ``quit`` ends
        this search (at once if one already has): for a search that polls a flag of its own
        rather than :meth:`stopped`.  A later call replaces the callback."""
        with self._lock:
            if not self._stop.is_set():
                self._on_stop = callback
                return
        callback()

    def on_ponderhit(self, callback: Callable[[], object]) -> None:
        """Have ``callback`` called once, on the loop's thread, when ``ponderhit`` puts this
        search on the clock: for a search that keeps its own deadlines (read them again from
        :meth:`time_plan` and :attr:`clock_started`)."""
        self._on_ponderhit = callback

    def info(self, **fields: Any) -> None:
        """Send an ``info`` line, e.g. ``job.info(depth=3, score_cp=25, pv=("e1-e3",))``; the
        fields are those of :class:`protocol.codec.Info`."""
        self._emit(Info(**fields))

    def time_plan(self) -> TimePlan:
        """This search's budgets (:func:`protocol.timeman.plan`) from the ``go`` limits, the
        mover's clock (``white_to_move`` says whose), ``MoveOverhead`` and the reserve: a target
        and a deadline, for a search that decides between iterations; UNTIMED while pondering."""
        if self.pondering:
            return UNTIMED
        overhead = self.options.get(MOVE_OVERHEAD.name, MOVE_OVERHEAD.default)
        return plan(self.limit, self.white_to_move, int(overhead), self.reserve_ms)  # type: ignore[arg-type]

    def time_budget(self) -> float | None:
        """Seconds this search may take (None: no time limit), what :meth:`stopped` keeps
        to: the target of :meth:`time_plan`."""
        soft_ms = self.time_plan().soft_ms
        return None if soft_ms is None else soft_ms / 1000

    def _request_stop(self) -> None:
        with self._lock:
            self._stop.set()
            callback, self._on_stop = self._on_stop, None
        self._released.set()
        if callback is not None:
            callback()

    def _ponder_hit(self) -> None:
        self._ponder_hit_at = time.monotonic()
        if self._on_ponderhit is not None:
            self._on_ponderhit()
        self._released.set()


@dataclass(frozen=True)
class _ClockedMove:
    """A search on the clock, kept until the next ``go`` shows what the host charged for it."""

    origin: tuple[str | None, tuple[str, ...]]
    time_left: int
    increment: int
    last_of_control: bool
    took_ms: float
    hard_ms: float

    def charged_ms(self, origin: tuple[str | None, list[str]], limit: Limit, white: bool) -> float | None:
        """What the host charged for this move, from the clock of the next ``go`` (``limit``,
        ``white`` to move, the position set as ``origin``), when that is the same side's next
        move in the same game and the clock was not reset by a new time control; else None."""
        fen, moves = origin
        earlier = self.origin[1]
        time_left = limit.wtime if white else limit.btime
        if (
            time_left is None
            or self.last_of_control
            or fen != self.origin[0]
            or len(moves) != len(earlier) + 2
            or tuple(moves[: len(earlier)]) != earlier
        ):
            return None
        charged = self.time_left + self.increment - time_left
        return float(charged) if charged >= 0 else None


class EngineLoop(Generic[P]):
    """One protocol session for an engine that is only its search (see the module docstring).

    ``turn(position)`` says whether White is to move (for :meth:`SearchJob.time_plan`);
    without it the budget assumes White.  ``output`` is where responses go (``run`` sets it).
    """

    def __init__(
        self,
        search: Callable[[SearchJob[P]], str | None],
        *,
        name: str,
        new_position: Callable[[str, str | None], P],
        play: Callable[[P, str], object],
        variants: Sequence[str] = ("dipole",),
        author: str = "",
        options: Iterable[OptionSpec] = (),
        turn: Callable[[P], bool] | None = None,
        answer: Callable[[P, str], str | None] | None = None,
        perft: Callable[[P, int], Iterable[tuple[object, int]]] | None = None,
        new_game: Callable[[], object] | None = None,
        on_option: Callable[[str, OptionValue], object] | None = None,
        analysis: bool = False,
    ) -> None:
        if not variants:
            raise ValueError("an engine plays at least one variant")
        self.search = search
        self.name = name
        self.author = author
        self.new_position = new_position
        self.play = play
        self.turn = turn
        self.answer = answer
        self.perft = perft
        self.new_game = new_game
        self.on_option = on_option
        self.analysis = analysis
        self.variants = list(variants)
        variant_spec = OptionSpec(VARIANT, "combo", self.variants[0], vars=tuple(self.variants))
        own = [variant_spec if spec.name == VARIANT else spec for spec in options]
        named = {spec.name for spec in own}
        self.option_specs: list[OptionSpec] = [
            *(spec for spec in (variant_spec, MOVE_OVERHEAD) if spec.name not in named),
            *own,
        ]
        self.values: dict[str, OptionValue] = {
            spec.name: spec.default for spec in self.option_specs if spec.default is not None
        }
        self.variant = self.variants[0]
        self.position: P = new_position(self.variant, None)
        # How self.position was built (FEN, moves played), to try a move on a fresh copy.
        self._origin: tuple[str | None, list[str]] = (None, [])
        self.output: TextIO = sys.stdout
        self._output = threading.Lock()
        self._output_broken = False
        self._thread: threading.Thread | None = None
        self._job: SearchJob[P] | None = None
        self.reserve = Reserve()
        self._last_clocked: _ClockedMove | None = None  # the last search on the clock, set on its bestmove
        # True from a go until its bestmove is written; changed only under the output lock, so a
        # host that has read the bestmove finds the engine idle (SPEC.md 6.2).
        self._busy = False
        self._handlers: dict[type, Callable[[Any], None]] = {
            Uci: lambda _: self._handshake(UciOk()),
            Ugi: lambda _: self._handshake(UgiOk()),
            IsReady: lambda _: self._send(ReadyOk()),
            SetOption: self._set_option,
            UciNewGame: self._new_game,
            UgiNewGame: self._new_game,
            Position: self._position,
            Go: self._go,
            Stop: lambda _: self.end_search(),
            GoPerft: self._perft,
            Query: self._query,
            PonderHit: self._ponderhit,
        }

    # -- the loop --------------------------------------------------------------------------
    def run(self, stdin: BinaryIO, stdout: TextIO) -> int:
        """Answer commands from ``stdin`` until ``quit``, end of input or a closed ``stdout``;
        then end the search.  The exit status, 0."""
        self.output = stdout
        for raw in stdin:
            line = raw.decode("utf-8", "replace")
            if (line.strip() and not self.handle(line)) or self._output_broken:
                break
        self.end_search()
        return 0

    def handle(self, line: str) -> bool:
        """Carry out one command line; False for ``quit``."""
        try:
            command: Command = read_command(line)
            if isinstance(command, Quit):
                return False
            self._handlers[type(command)](command)
        except (ProtocolError, ValueError) as error:
            self._send(error_info(str(error)))
        except Exception as error:  # noqa: BLE001  a bug in the engine's hooks: report it and keep serving
            traceback.print_exc(file=sys.stderr)
            self._send(error_info(f"internal error on {line.strip()[:40]!r}: {type(error).__name__}: {error}"))
        return True

    def end_search(self) -> None:
        """Stop the running search, if any, and wait until its ``bestmove`` is out."""
        if self._job is not None:
            self._job._request_stop()
        if self._thread is not None:
            self._thread.join()

    def _send(self, *responses: Response) -> None:
        text = "".join(format_response(response) + "\n" for response in responses)
        with self._output:
            self._write(text)

    def _write(self, text: str) -> None:
        """Write and flush; the caller holds the output lock."""
        if self._output_broken:
            return
        try:
            self.output.write(text)
            self.output.flush()
        except (OSError, ValueError):  # the host has gone: stop writing, and let the loop end
            self._output_broken = True
            _silence(self.output)

    # -- commands --------------------------------------------------------------------------
    def _query(self, command: Query) -> None:
        value = self.answer(self.position, command.item) if self.answer is not None else None
        if value is None:
            raise ProtocolError(f"query {command.item} is not supported by this engine")
        self._send(QueryResponse(value))

    def _perft(self, command: GoPerft) -> None:
        if self.perft is None:
            raise ProtocolError("go perft is not supported by this engine")
        if self._busy:
            raise ProtocolError("go perft: a search is running; send stop first")
        counts = list(self.perft(self.position, command.depth)) if command.depth > 0 else []
        total = sum(count for _, count in counts) if command.depth > 0 else 1
        self._send(*(PerftMove(str(move), count) for move, count in counts), PerftTotal(total))

    def _handshake(self, done: UciOk | UgiOk) -> None:
        ids = [Id("name", self.name)] + ([Id("author", self.author)] if self.author else [])
        self._send(*ids, *self.option_specs, done)

    def _set_option(self, command: SetOption) -> None:
        spec = next((s for s in self.option_specs if s.name.lower() == command.name.lower()), None)
        if spec is None:
            known = ", ".join(s.name for s in self.option_specs)
            raise ProtocolError(f"setoption: unknown option {command.name!r}; the options are {known}")
        text = command.value or ""
        if not text and spec.type in ("spin", "check", "combo"):
            raise ProtocolError(f"setoption: option {spec.name!r} needs a value")
        value: OptionValue = text
        if spec.type == "spin":
            value = parse_int(text, f"setoption {spec.name}", spec.min, spec.max)
        elif spec.type == "check":
            if text.lower() not in ("true", "false"):
                raise ProtocolError(f"setoption {spec.name}: expected true or false, found {text!r}")
            value = text.lower() == "true"
        elif spec.type == "combo":
            match = next((var for var in spec.vars if var.lower() == text.lower()), None)
            if match is None:
                raise ProtocolError(f"setoption: {spec.name} must be one of {', '.join(spec.vars)}, found {text!r}")
            value = match
        if self.on_option is not None:
            self.on_option(spec.name, value)
        if spec.name == VARIANT:
            self.position = self.new_position(str(value), None)
            self._origin = (None, [])
            self.variant = str(value)
        self.values[spec.name] = value

    def _new_game(self, _: UciNewGame | UgiNewGame) -> None:
        if self.new_game is not None:
            self.new_game()
        self.position = self.new_position(self.variant, None)
        self._origin = (None, [])

    def _position(self, command: Position) -> None:
        fen, played = self._origin
        done = len(played)
        if self._busy or command.fen != fen or command.moves[:done] != tuple(played):
            try:
                position = self.new_position(self.variant, command.fen)
            except ValueError as error:
                raise ProtocolError(f"position: {error}") from None
            played, done = [], 0
            self._origin = (command.fen, played)
        else:  # the same game, further on: play the new moves on the last position
            position = self.position
        for number, move in enumerate(command.moves[done:], start=done + 1):
            try:
                self.play(position, move)
                played.append(move)
            except ValueError as error:
                self.position = position
                kept = f"after move {number - 1}" if number > 1 else "before it"
                reason = str(error) if str(error).startswith(repr(move)) else f"{move!r}: {error}"
                raise ProtocolError(
                    f"position: move {number} of {len(command.moves)}, {reason}; kept the position {kept}"
                ) from None
        self.position = position

    def _check_searchmoves(self, moves: tuple[str, ...]) -> None:
        """ProtocolError unless every move is legal in the current position: each is played on
        a copy rebuilt from how the position was set (``play`` is the loop's only legality test)."""
        fen, played = self._origin
        for number, move in enumerate(moves, start=1):
            copy = self.new_position(self.variant, fen)
            for earlier in played:
                self.play(copy, earlier)
            try:
                self.play(copy, move)
            except ValueError as error:
                reason = str(error) if str(error).startswith(repr(move)) else f"{move!r}: {error}"
                raise ProtocolError(f"go searchmoves: move {number} of {len(moves)}, {reason}") from None

    def _go(self, command: Go) -> None:
        white = self.turn(self.position) if self.turn is not None else True
        if self._busy:
            raise ProtocolError("go: a search is already running; send stop first")
        if not self.analysis and (command.limit.searchmoves or command.limit.mate is not None):
            word = "searchmoves" if command.limit.searchmoves else "mate"
            raise ProtocolError(f"go {word} is not supported by this engine")
        self._check_searchmoves(command.limit.searchmoves)
        with self._output:
            if self._busy:
                raise ProtocolError("go: a search is already running; send stop first")
            self._busy = True
        self._learn_overrun(command.limit, white)
        job: SearchJob[P] = SearchJob(
            self.position,
            command.limit,
            self.variant,
            dict(self.values),
            time.monotonic(),
            white_to_move=white,
            reserve_ms=self.reserve.ms,
        )
        job._emit = lambda info: self._report(job, info)
        self._job = job
        fen, moves = self._origin
        self._thread = threading.Thread(target=self._run, args=(job, (fen, tuple(moves))), name="search", daemon=True)
        self._thread.start()

    def _learn_overrun(self, limit: Limit, white: bool) -> None:
        """Teach the reserve how far the last search on the clock overran its plan: by the
        host's clock when this ``go`` is the same side's next move, else by the engine's own."""
        last, self._last_clocked = self._last_clocked, None
        if last is not None:
            charged = last.charged_ms(self._origin, limit, white)
            self.reserve.observe(overrun(last.took_ms, last.hard_ms, charged))

    def _clocked_move(self, job: SearchJob[P], origin: tuple[str | None, tuple[str, ...]]) -> _ClockedMove | None:
        """``job`` (of the position set as ``origin``) as a search on the clock, just as it
        answers; None if it was not one (no clock, ``infinite``, or a ponder search that no
        ``ponderhit`` put on the clock)."""
        limit = job.limit
        time_left = limit.wtime if job.white_to_move else limit.btime
        hard_ms = job.time_plan().hard_ms
        if time_left is None or hard_ms is None or job.pondering:
            return None
        increment = (limit.winc if job.white_to_move else limit.binc) or 0
        return _ClockedMove(
            origin=origin,
            time_left=time_left,
            increment=increment,
            last_of_control=limit.movestogo == 1,
            took_ms=(time.monotonic() - job.clock_started) * 1000,
            hard_ms=hard_ms,
        )

    def _ponderhit(self, _: PonderHit) -> None:
        job = self._job
        if not self._busy or job is None or not job.pondering:
            raise ProtocolError("ponderhit: no ponder search is running (ponderhit answers a 'go ponder')")
        job._ponder_hit()

    def _report(self, job: SearchJob[P], info: Info) -> None:
        """Send an ``info`` of ``job``, keeping the first line's pv for ``bestmove ... ponder``."""
        if info.pv and (info.multipv is None or info.multipv == 1):
            job._last_pv = info.pv
        self._send(info)

    def _run(self, job: SearchJob[P], origin: tuple[str | None, tuple[str, ...]]) -> None:
        """The search thread: exactly one ``bestmove``, after every ``info`` of this search
        (of the position set as ``origin``)."""
        move: str | None = None
        try:
            move = self.search(job)
        except Exception as error:  # noqa: BLE001  (a bug in the search must not cost the bestmove)
            traceback.print_exc(file=sys.stderr)
            self._send(error_info(f"internal error in the search: {type(error).__name__}: {error}"))
        if job.limit.infinite:
            job._stop.wait()
        elif job.limit.ponder:
            job._released.wait()  # no bestmove while pondering: only after ponderhit or stop
        ponder = None
        if (
            self.values.get(PONDER.name) is True
            and move is not None
            and len(job._last_pv) >= 2
            and job._last_pv[0] == move
        ):
            ponder = job._last_pv[1]
        text = format_response(BestMove(move, ponder)) + "\n"
        with self._output:
            self._last_clocked = self._clocked_move(job, origin)
            self._busy = False
            self._write(text)


def _silence(stream: TextIO) -> None:
    """Point a broken output at /dev/null, so that flushing it at exit cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


def serve(
    search: Callable[[SearchJob[P]], str | None],
    *,
    name: str,
    new_position: Callable[[str, str | None], P],
    play: Callable[[P, str], object],
    variants: Sequence[str] = ("dipole",),
    author: str = "",
    options: Iterable[OptionSpec] = (),
    turn: Callable[[P], bool] | None = None,
    answer: Callable[[P, str], str | None] | None = None,
    perft: Callable[[P, int], Iterable[tuple[object, int]]] | None = None,
    new_game: Callable[[], object] | None = None,
    on_option: Callable[[str, OptionValue], object] | None = None,
    analysis: bool = False,
) -> int:
    """Run an :class:`EngineLoop` on this process's stdin and stdout; the exit status."""
    loop = EngineLoop(
        search,
        name=name,
        new_position=new_position,
        play=play,
        variants=variants,
        author=author,
        options=options,
        turn=turn,
        answer=answer,
        perft=perft,
        new_game=new_game,
        on_option=on_option,
        analysis=analysis,
    )
    return loop.run(sys.stdin.buffer, sys.stdout)
