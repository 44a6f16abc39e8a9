"""The engine side of protocol/SPEC.md, done once, for Python engine authors.

An engine written with :func:`serve` is only its search; the loop does the rest: the ``uci`` /
``ugi`` handshake, ``id`` and ``option`` lines (``UCI_Variant`` from the variants the engine
plays, ``MoveOverhead``, and the engine's own options), checking ``setoption`` values,
``position`` (through the engine's ``new_position`` and ``play`` functions), the search on a
background thread, ``isready`` and ``stop`` answered during it, exactly one ``bestmove`` per
``go`` (held back until ``stop`` in ``go infinite``), ``info string error`` for every bad line,
and ``quit`` / end of input::

    from protocol.loop import serve

    def search(job):                       # on the loop's search thread
        moves = job.position.legal_moves()
        return str(moves[0]) if moves else None

    raise SystemExit(serve(search, name="first", variants=["dipole"],
                           new_position=new_board, play=lambda board, move: board.push_text(move)))

The loop knows nothing of any game: positions are whatever ``new_position(variant, fen)``
returns (``fen`` None: the variant's start), ``play(position, move)`` plays one move text on
it in place, and both raise ``ValueError`` (the reason is sent as the error line) for bad
input.  A ``moves`` list is played up to its first bad move, as SPEC.md 4.5 says.  Every
``position`` command builds a new position, so a ``position`` during a search never touches
the searched one; but the search must leave its position as it found it (push, then pop), as
the next ``go`` may search it again, and an ``answer`` during the search reads it too (search
a copy where that matters).  The search callback gets a :class:`SearchJob` and returns a move text, or None for
``bestmove (none)`` (no legal move); it should return soon after :meth:`SearchJob.stopped`
turns true, and may report progress with :meth:`SearchJob.info`.  ``query`` (optional in
SPEC.md) is answered by ``answer(position, item)`` when the engine gives one: the value of the
``response`` line, or None for an item it does not answer; ``go perft`` (optional too) and
the queries not answered get an error line.
"""

from __future__ import annotations

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

__all__ = ["EngineLoop", "SearchJob", "serve"]

P = TypeVar("P")
OptionValue = str | int | bool
MOVE_OVERHEAD = OptionSpec("MoveOverhead", "spin", 30, 0, 5000)
DEFAULT_MOVES_TO_GO = 30  # a clock without movestogo: plan as if this many moves were left


@dataclass
class SearchJob(Generic[P]):
    """One ``go``, as the search callback sees it.

    ``position`` is the engine's own position object; ``limit`` the ``go`` parameters (a bare
    ``go`` has ``infinite`` set); ``options`` every option's current value by name (spin: int,
    check: bool, others: str); ``started`` the ``time.monotonic()`` at which ``go`` was read;
    ``nodes`` the calls to :meth:`stopped` so far.
    """

    position: P
    limit: Limit
    variant: str
    options: Mapping[str, OptionValue]
    started: float
    white_to_move: bool = True
    nodes: int = 0
    _stop: threading.Event = field(default_factory=threading.Event, repr=False)
    _emit: Callable[[Info], None] = field(default=lambda info: None, repr=False)

    def stopped(self) -> bool:
        """True once the search must end: ``stop``, ``quit``, the time budget is spent, or (for
        ``go nodes N``) this is the N-th call: call it once per node."""
        self.nodes += 1
        if self._stop.is_set() or (self.limit.nodes is not None and self.nodes >= self.limit.nodes):
            return True
        budget = self.time_budget()
        return budget is not None and time.monotonic() - self.started >= budget

    def info(self, **fields: Any) -> None:
        """Send an ``info`` line, e.g. ``job.info(depth=3, score_cp=25, pv=("e1-e3",))``; the
        fields are those of :class:`protocol.codec.Info`."""
        self._emit(Info(**fields))

    def time_budget(self) -> float | None:
        """Seconds this search may take (None: no time limit): ``movetime``, or a share of the
        mover's clock (``white_to_move`` says whose) plus most of its increment; both less
        ``MoveOverhead``.  ``infinite`` has none."""
        limit = self.limit
        if limit.infinite:
            return None
        overhead = int(self.options.get(MOVE_OVERHEAD.name, MOVE_OVERHEAD.default))  # type: ignore[arg-type]
        budgets: list[float] = []
        if limit.movetime is not None:
            budgets.append(max(0, limit.movetime - overhead))
        left = limit.wtime if self.white_to_move else limit.btime
        if left is not None:
            increment = (limit.winc if self.white_to_move else limit.binc) or 0
            usable = max(0, left - overhead)
            budgets.append(min(usable / (limit.movestogo or DEFAULT_MOVES_TO_GO) + increment * 0.75, usable / 2))
        return min(budgets) / 1000 if budgets else None


class EngineLoop(Generic[P]):
    """One protocol session for an engine that is only its search (see the module docstring).

    ``turn(position)`` says whether White is to move (for :meth:`SearchJob.time_budget`);
    without it the budget assumes White.  ``answer(position, item)`` answers ``query <item>``.
    """

    def __init__(self, search: Callable[[SearchJob[P]], str | None], *, name: str,
                 new_position: Callable[[str, str | None], P], play: Callable[[P, str], object],
                 variants: Sequence[str] = ("dipole",), author: str = "",
                 options: Iterable[OptionSpec] = (), turn: Callable[[P], bool] | None = None,
                 answer: Callable[[P, str], str | None] | None = None) -> None:
        if not variants:
            raise ValueError("an engine plays at least one variant")
        self.search = search
        self.name = name
        self.author = author
        self.new_position = new_position
        self.play = play
        self.turn = turn
        self.answer = answer
        self.variants = list(variants)
        self.option_specs: list[OptionSpec] = [
            OptionSpec("UCI_Variant", "combo", self.variants[0], vars=tuple(self.variants)),
            MOVE_OVERHEAD, *options]
        self.values: dict[str, OptionValue] = {
            spec.name: spec.default for spec in self.option_specs if spec.default is not None}
        self.variant = self.variants[0]
        self.position: P = new_position(self.variant, None)
        self._output = threading.Lock()
        self._thread: threading.Thread | None = None
        # True from a go until its bestmove is written; changed only under the output lock, so a
        # host that has read the bestmove finds the engine idle (SPEC.md 6.2).
        self._busy = False
        self._stop = threading.Event()
        self._handlers: dict[type, Callable[[Any], None]] = {
            Uci: lambda _: self._handshake(UciOk()), Ugi: lambda _: self._handshake(UgiOk()),
            IsReady: lambda _: self._send(ReadyOk()), SetOption: self._set_option,
            UciNewGame: self._new_game, UgiNewGame: self._new_game, Position: self._position,
            Go: self._go, Stop: lambda _: self._end_search(),
            GoPerft: self._unsupported("go perft"), Query: self._query,
        }

    # -- the loop --------------------------------------------------------------------------
    def run(self, stdin: BinaryIO, stdout: TextIO) -> int:
        """Answer commands from ``stdin`` until ``quit`` or end of input; the exit status, 0."""
        self._stdout = stdout
        for raw in stdin:
            line = raw.decode("utf-8", "replace")
            if line.strip() and not self.handle(line):
                break
        self._end_search()
        return 0

    def handle(self, line: str) -> bool:
        """Carry out one command line; False for ``quit``."""
        try:
            command: Command = parse_command(line)
            if isinstance(command, Quit):
                return False
            self._handlers[type(command)](command)
        except (ProtocolError, ValueError) as error:
            self._send(error_info(str(error)))
        return True

    def _send(self, *responses: Response) -> None:
        text = "".join(format_response(response) + "\n" for response in responses)
        with self._output:
            self._write(text)

    def _write(self, text: str) -> None:
        """Write and flush; the caller holds the output lock."""
        try:
            self._stdout.write(text)
            self._stdout.flush()
        except (OSError, ValueError):  # the host has gone; the end of input follows
            pass

    def _unsupported(self, what: str) -> Callable[[Any], None]:
        def refuse(_: Any) -> None:
            raise ProtocolError(f"{what} is not supported by this engine")
        return refuse

    # -- commands --------------------------------------------------------------------------
    def _query(self, command: Query) -> None:
        value = self.answer(self.position, command.item) if self.answer is not None else None
        if value is None:
            raise ProtocolError(f"query {command.item} is not supported by this engine")
        self._send(QueryResponse(value))

    def _handshake(self, done: UciOk | UgiOk) -> None:
        ids = [Id("name", self.name)] + ([Id("author", self.author)] if self.author else [])
        self._send(*ids, *self.option_specs, done)

    def _set_option(self, command: SetOption) -> None:
        spec = next((s for s in self.option_specs if s.name.lower() == command.name.lower()), None)
        if spec is None:
            known = ", ".join(s.name for s in self.option_specs)
            raise ProtocolError(f"setoption: unknown option {command.name!r}; the options are {known}")
        text = command.value or ""
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
        if spec.name == "UCI_Variant":
            self.position = self.new_position(str(value), None)
            self.variant = str(value)
        self.values[spec.name] = value

    def _new_game(self, _: UciNewGame | UgiNewGame) -> None:
        self.position = self.new_position(self.variant, None)

    def _position(self, command: Position) -> None:
        try:
            position = self.new_position(self.variant, command.fen)
        except ValueError as error:
            raise ProtocolError(f"position: {error}") from None
        for number, move in enumerate(command.moves, start=1):
            try:
                self.play(position, move)
            except ValueError as error:
                self.position = position
                kept = f"after move {number - 1}" if number > 1 else "before it"
                raise ProtocolError(f"position: move {number} of {len(command.moves)}, {move!r}: {error}; "
                                    f"kept the position {kept}") from None
        self.position = position

    def _go(self, command: Go) -> None:
        white = self.turn(self.position) if self.turn is not None else True
        with self._output:
            if self._busy:
                raise ProtocolError("go: a search is already running; send stop first")
            self._busy = True
        self._stop = threading.Event()
        job = SearchJob(self.position, command.limit, self.variant, dict(self.values), time.monotonic(),
                        white_to_move=white, _stop=self._stop, _emit=lambda info: self._send(info))
        self._thread = threading.Thread(target=self._run, args=(job,), name="search", daemon=True)
        self._thread.start()

    def _run(self, job: SearchJob[P]) -> None:
        """The search thread: exactly one ``bestmove``, after every ``info`` of this search."""
        move: str | None = None
        try:
            move = self.search(job)
        except Exception as error:  # noqa: BLE001  (a bug in the search must not cost the bestmove)
            traceback.print_exc(file=sys.stderr)
            self._send(error_info(f"internal error in the search: {type(error).__name__}: {error}"))
        if job.limit.infinite:
            job._stop.wait()
        text = format_response(BestMove(move)) + "\n"
        with self._output:
            self._busy = False
            self._write(text)

    def _end_search(self) -> None:
        """Stop the running search and wait until its ``bestmove`` is out."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()


def serve(search: Callable[[SearchJob[P]], str | None], *, name: str,
          new_position: Callable[[str, str | None], P], play: Callable[[P, str], object],
          variants: Sequence[str] = ("dipole",), author: str = "", options: Iterable[OptionSpec] = (),
          turn: Callable[[P], bool] | None = None, answer: Callable[[P, str], str | None] | None = None) -> int:
    """Run an :class:`EngineLoop` on this process's stdin and stdout; the exit status."""
    loop = EngineLoop(search, name=name, new_position=new_position, play=play, variants=variants,
                      author=author, options=options, turn=turn, answer=answer)
    return loop.run(sys.stdin.buffer, sys.stdout)
