"""Playing one game between two seats, refereed by the arbiter: the one referee of the project.

:func:`play_game` takes a :class:`GameJob` (who plays which colour, from which opening) and two
seats, each an :class:`EngineSlot` (a running engine, reused from game to game) or a
:class:`HumanSeat` (a player whose moves the host submits), and returns the finished
:class:`GameRecord`.  The match and tournament pool, the cluster's workers and ``dipole-gui``
all play through it.  The arbiter alone decides everything:

- it keeps both clocks itself (monotonic time from writing ``go`` to reading ``bestmove``);
- it knows the game only through its plug-in (:mod:`gameplug`): it checks every move with the
  game's strict reader of protocol text, and asks the game after every ply whether it is over
  (a win, or a draw, with the game's own reason);
- it plays a move the game declares forced (Dipole's ``pass`` when no stack can move) itself,
  without asking the engine; every other move is the engine's, even when it is the only legal
  one (so in Impasse, which has no pass, the engine always moves: see ``arbiter/NOTATION.md``);
- it ends the game, with the right result and reason, when an engine plays an illegal or
  unreadable move (a ``bestmove`` line off the grammar is lost at once, the line quoted),
  overruns its time (by more than its margin), crashes, stalls (no answer by the deadline, nor
  within a short grace after ``stop``, or does not take a command within
  ``handshake_timeout``: then it is killed), or fails to start;
- a human's move is taken when the host submits it (:class:`GameControl`), checked and charged
  the same way; a human whose clock runs out while waiting loses on time at that moment;
- the host may end a game from outside (:class:`GameControl`): a resignation (recorded with the
  termination ``resignation``), or abandoning it (``*``, the record not meant to be kept);
- it listens: every ``info string error`` an engine writes is passed on as a warning naming
  the engine, and one written in answer to the set-up (a refused option or ``UCI_Variant``)
  stops the event with the engine's own reason (:class:`SetupError`).

A slot whose engine crashed or was killed is marked ``broken``; the caller decides whether to
restart it (``--recover``) or to stop the match.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from mypy_extensions import mypyc_attr

import gameplug
from gameplug import GameError, Side
from protocol import Limit
from protocol.client import (
    EngineClient,
    EngineCrashed,
    EngineError,
    EngineStalled,
    EngineTimeout,
    ProtocolViolation,
    SearchResult,
    UnreadableMove,
)
from protocol.codec import Info

from ..errors import ArbiterError
from ..records.game import (
    BLACK_WINS,
    DRAW,
    UNFINISHED,
    WHITE_WINS,
    GameRecord,
    MoveRecord,
    MoveSource,
    Opening,
    Termination,
)
from ..text import visible
from .adjudication import Adjudicator, DrawRule, ResignRule
from .engines import EngineSpec
from .timecontrol import TICK, Clock, SearchLimits, charged

MAX_RECORDED_NUMBER = 2**31 - 1
MAX_RECORDED_NODES = 2**63 - 1  # (what an event database's INTEGER holds)
SHOWN_MOVE = 200  # characters of an unreadable bestmove line a result sentence quotes

VARIANT_OPTION = "UCI_Variant"
PONDER_OPTION = "Ponder"

Notify = Callable[[str], None]


class WatchedGame(Protocol):
    """A game as a live view follows it: told of each ply and each ``info`` line."""

    def moved(self, turn: Side) -> None:
        """A ply was played (the last of the game's moves); ``turn`` is now to move."""

    def info(self, info: Info) -> None:
        """A search line of the side to move."""


class GameWatcher(Protocol):
    """Whoever shows games as they are played (:class:`arbiter.live.livefiles.LiveFiles` in the
    arbiter's process, :class:`arbiter.pools.cluster_live.LiveProxy` on a cluster's worker).
    ``moves`` and ``clocks`` are the game's own objects, which the watcher only reads."""

    def open_game(
        self, job: GameJob, fen: str | None, moves: list[MoveRecord], clocks: dict[Side, Clock], turn: Side
    ) -> WatchedGame:
        """A game starts; what it returns is told of the game's plies and lines."""


REASONS = {  # the result sentence of each way to lose that is not the rules' own (cutechess-cli's words)
    Termination.TIME_FORFEIT: "{side} loses on time",
    Termination.CRASH: "{side} disconnects",
    Termination.STALL: "{side}'s connection stalls",
    Termination.HANDSHAKE: "{side} fails to start",
    Termination.PROTOCOL_VIOLATION: "{side} violates the protocol",
    Termination.RESIGNATION: "{side} resigns",
}
ABANDONED = "game abandoned"  # the reason of a game the host abandoned (result *)
STOP_WRITE = 0.05
"""Seconds a host's thread (a server's event loop) may wait for an engine to take ``stop`` (or
for another thread's line to it to be written); an engine whose input has no room for it by
then has stopped reading, and is killed as stalled."""


class SetupError(ArbiterError):
    """An engine that runs but cannot be set up as the match asks; the match cannot go on."""


@mypyc_attr(native_class=False)  # pickled to game processes and workers (README: Builds)
@dataclass(frozen=True)
class GameJob:
    """One scheduled game: its number, the engines by colour, the opening, the variant."""

    number: int
    white: EngineSpec
    black: EngineSpec
    opening: Opening
    variant: str


@mypyc_attr(native_class=False)  # pickled to game processes and workers (README: Builds)
@dataclass(frozen=True)
class RefereeSettings:
    """How patient the arbiter is, and what it writes into every record.

    ``handshake_timeout`` bounds starting an engine, each ``isready``, and the engine's taking
    each command written to it (an engine that does not read its input stalls); ``stall_timeout``
    bounds a move when the mover has neither a clock nor a time per move; ``stop_grace`` is how
    long an engine that overran its time has, after ``stop``, to answer before it counts as
    stalled and is killed; ``quit_grace`` is how long ``quit`` may take before the kill.
    ``resign``, when set, adjudicates games the engines' scores say are lost, ``draw`` those
    they say are drawn; ``maxmoves`` (0: no limit) draws a game at ``2 * maxmoves`` plies.
    """

    handshake_timeout: float = 10.0
    stall_timeout: float = 60.0
    stop_grace: float = 1.0
    quit_grace: float = 1.0
    event: str = "?"
    site: str = "?"
    date: str = "????.??.??"
    resign: ResignRule | None = None
    draw: DrawRule | None = None
    maxmoves: int = 0


class EngineSlot:
    """One engine process for one spec, started on demand and reused from game to game.

    ``broken`` is set when the engine crashed or was killed (it must be restarted before it
    can play again); ``failure`` says why, in one line.  The reasons of the engine's error
    reports (``info string error <reason>``) wait in :meth:`take_errors` until collected.
    """

    def __init__(
        self, spec: EngineSpec, variant: str, settings: RefereeSettings, log: Callable[[str, str], None] | None = None
    ) -> None:
        self.spec = spec
        self.variant = variant
        self.settings = settings
        self.log = log
        self.client: EngineClient | None = None
        self.broken = False
        self.failure = ""
        # Whether the engine ponders: its spec asks for it and it has a Ponder option (set on);
        # ``no_ponder_said``: the referee has said once that it cannot.
        self.ponders = False
        self.no_ponder_said = False

    def take_errors(self) -> list[str]:
        """The reasons of the error lines the engine wrote since the last call."""
        client = self.client
        if client is None or not client.error_reports:  # the usual case, after every move
            return []
        return client.take_error_reports()

    @property
    def running(self) -> bool:
        return self.client is not None and self.client.alive

    def start(self) -> None:
        """Start the engine and handshake: ``uci``, the variant, the options.

        Raises EngineError when the engine fails, and :class:`SetupError` when it works but
        cannot be set up as asked (no such option, a bad value, the variant not offered).
        """
        self.discard()
        spec = self.spec
        if self.log is not None:
            self.log("#", f"starting {spec.name}: {' '.join(spec.command)}")
        client = EngineClient(
            list(spec.command),
            name=spec.name,
            cwd=spec.cwd,
            log=self.log,
            write_timeout=self.settings.handshake_timeout,
        )
        self.client = client
        self.take_errors()
        client.start(timeout=self.settings.handshake_timeout)
        if self.log is not None:
            self.log("#", f"started, pid {client.pid}")
        self.take_errors()  # reports during the handshake are not answers to the set-up
        variant = gameplug.variant(self.variant)
        told = variant.engine_variant  # None: the game tells engines nothing (chess)
        settings: list[tuple[str, str]] = [
            (name, value) for name, value in spec.options if told is None or name.lower() != VARIANT_OPTION.lower()
        ]
        if told is not None and VARIANT_OPTION in client.options:
            settings.insert(0, (VARIANT_OPTION, told))
        elif told is not None and variant != variant.game.variants[0]:  # an engine without it plays the default
            client.kill()
            raise SetupError(f"engine {spec.name!r} has no {VARIANT_OPTION} option, so it cannot play {self.variant}")
        settings[:0] = variant.engine_options.items()  # what else the variant needs an engine told (UCI_Chess960)
        self.ponders = spec.limits.ponder and any(name.lower() == PONDER_OPTION.lower() for name in client.options)
        if self.ponders and not any(name.lower() == PONDER_OPTION.lower() for name, _ in settings):
            settings.append((PONDER_OPTION, "true"))
        for name, value in settings:
            try:
                client.set_option(name, value)
                client.is_ready(timeout=self.settings.handshake_timeout)
            except (EngineCrashed, EngineTimeout, EngineStalled):
                raise
            except EngineError as error:  # the engine works; the request is wrong
                client.kill()
                raise SetupError(str(error)) from None
            errors = self.take_errors()
            if errors:  # the engine refused it, and says why
                client.kill()
                raise SetupError(f"engine {spec.name!r} refused 'setoption name {name} value {value}': {errors[0]}")
        self.broken = False
        self.failure = ""

    def new_game(self) -> None:
        """``ucinewgame`` and wait for ``readyok``.  Raises EngineError."""
        assert self.client is not None
        self.client.new_game(timeout=self.settings.handshake_timeout)

    def mark_broken(self, why: str) -> None:
        """Kill the engine now and remember why it can no longer play."""
        self.broken = True
        self.failure = why
        if self.client is not None:
            self.client.kill()

    def discard(self) -> None:
        """Kill whatever process this slot still holds (before a restart)."""
        if self.client is not None:
            self.client.kill()
            self.client = None

    def quit(self) -> None:
        """``quit``; kill the process group if it has not exited after ``quit_grace``."""
        if self.client is not None:
            try:
                self.client.quit(grace=self.settings.quit_grace)
            except EngineError:
                self.client.kill()
            self.client = None


class HumanSeat:
    """A player who is not an engine: its moves are what the host submits to the game's
    :class:`GameControl`.  ``spec`` gives its name and its limits in the record (only
    ``limits.clock`` and ``limits.margin`` bind a human); its command is empty."""

    def __init__(self, name: str, limits: SearchLimits) -> None:
        self.spec = EngineSpec(name, (), limits)


Seat = EngineSlot | HumanSeat


class GameControl:
    """The host's hold on one game while it is played, from any thread: the human seats' moves
    (:meth:`submit`), and ending the game from outside (:meth:`resign`, :meth:`abandon`).

    An end from outside is taken at the referee's next look: at once while a human is to move,
    and while an engine thinks by a ``stop`` (the engine's answer is then not played)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._moves: queue.SimpleQueue[tuple[int, str] | None] = queue.SimpleQueue()  # (C: one a game)
        self._ending: _GameOver | None = None
        self._thinking: EngineClient | None = None

    def submit(self, ply: int, text: str) -> None:
        """A human's move ``text`` as ply ``ply`` of the game (counted from the start position,
        book moves included): a move submitted for another ply than the one to play is dropped."""
        self._moves.put((ply, text))

    def resign(self, side: Side) -> None:
        """``side`` resigns (on either side's turn)."""
        self._end(_loss(side, Termination.RESIGNATION))

    def abandon(self) -> None:
        """End the game without a result (``*``): the host will not keep it."""
        self._end(_GameOver(UNFINISHED, Termination.UNTERMINATED, ABANDONED))

    @property
    def ended(self) -> bool:
        return self._ending is not None

    def _end(self, over: _GameOver) -> None:
        with self._lock:
            if self._ending is not None:
                return
            self._ending = over
            client = self._thinking
        self._moves.put(None)  # wakes a referee waiting for a human's move
        if client is not None:
            client.stop(write_timeout=STOP_WRITE)

    def _check(self) -> None:
        """Raise the end from outside, if there is one."""
        if self._ending is not None:
            raise self._ending

    def _think(self, client: EngineClient | None) -> None:
        """``client`` is about to search (None: the search is over); an end already asked for
        ends the game before the search starts."""
        with self._lock:
            self._thinking = client
        if client is not None:
            self._check()

    def _next_move(self, timeout: float | None) -> tuple[int, str] | None:
        """The next submitted move; None when woken by an end; queue.Empty after ``timeout``."""
        self._check()
        entry = self._moves.get(timeout=timeout)
        self._check()
        return entry


class _Terms:
    """What a side's limits and clock control make of each of its moves, read once a game: they
    are Python classes (pickled to game processes), whose every field compiled code reads
    through a lookup (a dozen a move); these are a compiled class's own."""

    def __init__(self, limits: SearchLimits, clock: Clock) -> None:
        control = clock.control  # (never replaced: a clock keeps its control)
        self.margin = limits.margin
        self.movetime = limits.movetime
        self.movetime_ms = _ms(limits.movetime) if limits.movetime is not None else None
        self.depth = limits.depth
        self.nodes = limits.nodes
        self.stopped_by_host = limits.stopped_by_host
        self.timed = limits.clock is not None or limits.movetime is not None  # a move can be late
        self.clocked = control is not None  # the clock runs: its fields go with each go
        self.increment_ms = _ms(control.increment) if control is not None else 0


@dataclass
class _Side:
    """One side of a game in progress: its seat, its clock, its colour, what its limits make
    of each move."""

    seat: Seat
    color: Side
    name: str  # what the game calls the side ("White")
    clock: Clock
    terms: _Terms
    on_info: Callable[[Info], None] | None = None  # what sees the side's engine's info lines, once made


class _GameOver(Exception):
    """Raised inside the move loop to end the game with a result.  ``loser`` is the side that
    lost, when one did; a reason left empty is the termination's sentence for it, which the
    referee words with the game's name of the side (a resignation from outside)."""

    def __init__(self, result: str, termination: Termination, reason: str, loser: Side | None = None) -> None:
        super().__init__(reason)
        self.result = result
        self.termination = termination
        self.reason = reason
        self.loser = loser


def _loss(side: Side, termination: Termination, reason: str = "") -> _GameOver:
    return _GameOver(BLACK_WINS if side == Side.FIRST else WHITE_WINS, termination, reason, side)


def _recordable(number: int | None) -> int | None:
    """An engine's score or depth as recorded: a number no record can hold (an engine may write
    any number of digits) is not recorded."""
    return number if number is not None and abs(number) <= MAX_RECORDED_NUMBER else None


def _ms(seconds: float) -> int:
    return max(0, round(seconds * 1000))  # (a clock holds whole milliseconds: 0.989 s is 989)


class _Game:
    """The state of one game while it is played (see :func:`play_game`)."""

    def __init__(
        self,
        job: GameJob,
        white: Seat,
        black: Seat,
        settings: RefereeSettings,
        notify: Notify,
        live: GameWatcher | None,
        control: GameControl | None,
        played: Sequence[MoveRecord],
        clocks: Mapping[Side, Clock] | None,
    ) -> None:
        self.job = job
        self.settings = settings
        self.notify = notify
        self.control = control
        self.state = state = job.opening.state(job.variant)
        side_name = gameplug.variant(job.variant).game.side_name
        self.sides: dict[Side, _Side] = {}
        for color, seat in ((Side.FIRST, white), (Side.SECOND, black)):
            limits = seat.spec.limits
            clock = clocks[color] if clocks is not None else Clock(limits.clock)
            self.sides[color] = _Side(seat, color, side_name(color), clock, _Terms(limits, clock))
        self.start_fen = job.opening.fen
        self.move_texts: list[str] = list(job.opening.moves)
        self.records: list[MoveRecord] = [MoveRecord(text, MoveSource.BOOK) for text in job.opening.moves]
        for record in played:  # plies played before this referee took the game over, kept as recorded
            state.play(state.read_move(record.text))
            self.move_texts.append(record.text)
            self.records.append(record)
        self.adjudicator = Adjudicator.of(settings.resign, settings.draw, settings.maxmoves, side_name)
        # The reply each pondering side's engine thinks on (a ``go ponder`` runs until its turn).
        self.predicted: dict[Side, str] = {}
        self.live = (
            None
            if live is None
            else live.open_game(
                job,
                self.start_fen,
                self.records,
                {color: side.clock for color, side in self.sides.items()},
                state.turn,
            )
        )

    def warn(self, side: _Side, message: str) -> None:
        self.notify(visible(f"game {self.job.number}: {side.seat.spec.name} ({side.name}): {message}"))

    def pass_on_errors(self, side: _Side, slot: EngineSlot) -> None:
        """Warn of each error report the engine wrote since the last look."""
        for reason in slot.take_errors():
            self.warn(side, f"the engine reports an error: {reason}")

    # -- starting ------------------------------------------------------------------------
    def prepare(self) -> None:
        """Start (if needed) and reset both engines; a failure loses the game for that side."""
        failed: list[_GameOver] = []
        for side in self.sides.values():
            try:
                self.prepare_side(side)
            except _GameOver as over:
                failed.append(over)
        if len(failed) == 2:
            raise _GameOver(UNFINISHED, Termination.HANDSHAKE, "Both engines fail to start")
        if failed:
            raise failed[0]

    def prepare_side(self, side: _Side) -> None:
        slot = side.seat
        if isinstance(slot, HumanSeat):
            return
        if slot.client is None or slot.broken or not slot.running:
            try:
                slot.start()
            except ProtocolViolation as violation:
                raise self.engine_lost(side, Termination.PROTOCOL_VIOLATION, str(violation)) from None
            except EngineError as error:
                raise self.engine_lost(side, Termination.HANDSHAKE, str(error)) from None
            if slot.spec.limits.ponder and not slot.ponders and not slot.no_ponder_said:
                slot.no_ponder_said = True
                self.warn(side, f"the engine has no {PONDER_OPTION} option, so it does not ponder")
        try:
            slot.new_game()
        except ProtocolViolation as violation:
            raise self.engine_lost(side, Termination.PROTOCOL_VIOLATION, str(violation)) from None
        except EngineCrashed as crash:
            raise self.engine_lost(side, Termination.CRASH, str(crash)) from None
        except EngineError as error:
            raise self.engine_lost(side, Termination.STALL, str(error)) from None
        finally:
            self.pass_on_errors(side, slot)

    def lost_on_time(self, side: _Side) -> _GameOver:
        return _loss(side.color, Termination.TIME_FORFEIT, REASONS[Termination.TIME_FORFEIT].format(side=side.name))

    def engine_lost(self, side: _Side, termination: Termination, detail: str) -> _GameOver:
        """``side``'s engine failed (``detail`` says how): kill it, warn, and lose the game."""
        assert isinstance(side.seat, EngineSlot)
        side.seat.mark_broken(detail)
        self.warn(side, detail)
        return _loss(side.color, termination, REASONS[termination].format(side=side.name))

    # -- playing ---------------------------------------------------------------------------
    def limit_for(self, side: _Side) -> tuple[Limit, float]:
        """The ``go`` parameters for ``side`` and the seconds it has before it stalls."""
        terms = side.terms
        clocked = terms.clocked
        deadline = side.clock.remaining + terms.margin + TICK if clocked else None
        if terms.movetime is not None:
            per_move = terms.movetime + terms.margin + TICK
            deadline = per_move if deadline is None else min(deadline, per_move)
        if terms.stopped_by_host:  # tc=inf alone: think until the arbiter's stop
            return Limit(infinite=True), self.settings.stall_timeout
        # Clock fields go only to a side that has a clock (one playing to a depth must not
        # start managing time because it sees its opponent's clock).
        white, black = self.sides[Side.FIRST], self.sides[Side.SECOND]
        white_clocked, black_clocked = clocked and white.terms.clocked, clocked and black.terms.clocked
        wtime = _ms(white.clock.remaining) if white_clocked else None
        btime = _ms(black.clock.remaining) if black_clocked else None
        winc = white.terms.increment_ms if white_clocked else None
        binc = black.terms.increment_ms if black_clocked else None
        movestogo = side.clock.moves_to_go if clocked else None
        # (Positional: an interpreted constructor takes them in half the time of keywords.)
        limit = Limit(wtime, btime, winc, binc, movestogo, terms.movetime_ms, terms.depth, terms.nodes)
        return limit, (self.settings.stall_timeout if deadline is None else deadline)

    def play_move(self, side: _Side, slot: EngineSlot) -> None:
        """Ask ``side``'s engine for a move, check it, charge the time, and play it.  An engine
        that pondered on the reply just played gets ``ponderhit`` instead of ``go`` (its clock
        runs from then); one that pondered on another reply is stopped first (the answer is
        discarded).  Then, if it names a predicted reply, it ponders on that."""
        client = slot.client
        assert client is not None
        limit, deadline = self.limit_for(side)
        terms = side.terms
        timed = terms.timed
        hit = False
        if slot.ponders:  # (only the referee starts ponder searches, and only for such an engine)
            predicted = self.predicted.pop(side.color, None)
            hit = predicted is not None and self.move_texts[-1:] == [predicted] and client.pondering
            if not hit:
                self.stop_pondering(side, slot)
        control = self.control
        on_info = side.on_info
        if on_info is None and (control is not None or self.live is not None):
            on_info = self.live.info if self.live is not None else None
            if control is not None:
                on_info = _stopping_when_ended(control, client, on_info)
            side.on_info = on_info  # the same for each of the side's moves (its client does not change in a game)
        if control is not None:
            control._think(client)
        # tc=inf alone: the move is what the engine found when stopped at the deadline, and it
        # has stop_grace from that stop, however late the busy arbiter sent it.
        stop_after, timeout = (deadline, self.settings.stop_grace) if terms.stopped_by_host else (None, deadline)
        try:
            if hit:
                answer = client.ponderhit(timeout=timeout, on_info=on_info, stop_after=stop_after)
            else:
                position = (self.start_fen, self.move_texts)
                answer = client.go(limit, timeout=timeout, on_info=on_info, position=position, stop_after=stop_after)
        except EngineError as error:
            if control is not None:  # the host ended the game: its stop or kill ended the search
                control._check()
            raise self.engine_failed(side, slot, error, timed) from None
        finally:
            if control is not None:
                control._think(None)
            self.pass_on_errors(side, slot)
        if control is not None:  # an answer to the host's stop is not played
            control._check()
        elapsed = answer.elapsed
        over_time = terms.movetime is not None and charged(elapsed) > terms.movetime + terms.margin
        if not side.clock.spend(elapsed, terms.margin) or over_time:
            raise self.lost_on_time(side)
        token = answer.bestmove
        state = self.state
        try:
            if token is None:
                raise GameError("the engine answered bestmove (none) but the game is not over")
            move = state.read_move(token)  # (the protocol's one spelling of a legal move, or refused)
        except GameError as illegal:
            shown = "(none)" if token is None else visible(token)
            self.warn(side, f"illegal move '{shown}': {illegal}")
            reason = f"{side.name} makes an illegal move: {shown}"
            raise _loss(side.color, Termination.ILLEGAL_MOVE, reason) from None
        state.play(move)
        self.move_texts.append(token)
        self.records.append(engine_move_record(token, answer))
        if self.live is not None:
            self.live.moved(state.turn)
        if self.adjudicator is not None:
            self.adjudicate(side.color, self.adjudicator)
        if slot.ponders and answer.ponder is not None and not state.outcome().over:
            self.start_pondering(side, slot, answer.ponder)

    def start_pondering(self, side: _Side, slot: EngineSlot, predicted: str) -> None:
        """``side`` just moved and predicts the reply ``predicted``: its engine ponders on it,
        told the clocks as they stand (its own charged for the move just played).  A predicted
        reply that is not a legal move is not pondered on (the game goes on)."""
        client = slot.client
        assert client is not None
        try:
            reply = self.state.move_text(self.state.read_move(predicted))
        except GameError as unplayable:
            self.warn(side, f"predicted reply {visible(predicted[:SHOWN_MOVE])!r} is not pondered on: {unplayable}")
            return
        limit, _ = self.limit_for(side)
        try:
            client.ponder(limit, (self.start_fen, [*self.move_texts, reply]))
        except EngineError as error:
            raise self.engine_failed(side, slot, error, timed=False) from None
        finally:
            self.pass_on_errors(side, slot)
        self.predicted[side.color] = reply

    def stop_pondering(self, side: _Side, slot: EngineSlot) -> None:
        """End ``side``'s ponder search, if one runs (the predicted reply was not played, or the
        game is over), and discard its answer; an engine that does not answer ``stop`` within
        the handshake timeout has stalled and loses."""
        self.predicted.pop(side.color, None)
        client = slot.client
        if client is None or not client.pondering:
            return
        try:
            client.stop_pondering(self.settings.handshake_timeout)
        except EngineError as error:
            raise self.engine_failed(side, slot, error, timed=False) from None
        finally:
            self.pass_on_errors(side, slot)

    def end_pondering(self) -> None:
        """The game is over: stop both engines' ponder searches.  One that fails is killed
        (marked broken, to be restarted for its next game); the result stands."""
        for side in self.sides.values():
            if isinstance(side.seat, EngineSlot):
                try:
                    self.stop_pondering(side, side.seat)
                except _GameOver:
                    pass  # engine_failed has killed it and said why

    def engine_failed(self, side: _Side, slot: EngineSlot, error: EngineError, timed: bool) -> _GameOver:
        """How ``side`` loses when talking to its engine failed with ``error``."""
        if isinstance(error, EngineTimeout):
            return self.overrun(side, slot, timed)
        if isinstance(error, EngineStalled):
            return self.engine_lost(side, Termination.STALL, str(error))
        if isinstance(error, ProtocolViolation):
            return self.engine_lost(side, Termination.PROTOCOL_VIOLATION, str(error))
        if isinstance(error, UnreadableMove):  # the engine is sound (its search ended) and stays running
            self.warn(side, str(error))
            reason = f"{side.name} makes an illegal move: {visible(error.line[:SHOWN_MOVE])}"
            return _loss(side.color, Termination.ILLEGAL_MOVE, reason)
        return self.engine_lost(side, Termination.CRASH, str(error))  # EngineCrashed, or any other failure

    def overrun(self, side: _Side, slot: EngineSlot, timed: bool) -> _GameOver:
        """No answer by the deadline: ``stop``, then a short grace for the late ``bestmove``.

        An engine that answers in the grace has lost on time and stays usable; one that does
        not (or has no clock to overrun) has stalled and is killed.
        """
        client = slot.client
        assert client is not None
        if timed:
            try:
                client.stop()
                client.is_ready(timeout=self.settings.stop_grace)
                return self.lost_on_time(side)
            except EngineStalled as error:
                return self.engine_lost(side, Termination.STALL, str(error))
            except EngineError:
                pass
        return self.engine_lost(side, Termination.STALL, "no answer in time; the engine was killed")

    def play_human_move(self, side: _Side, control: GameControl) -> None:
        """Wait for the human's move (the host submits it), on the human's clock: no move by the
        time the clock (plus margin) runs out loses on time then."""
        margin = side.seat.spec.limits.margin
        timed = side.clock.control is not None
        started = time.monotonic()
        while True:
            left = side.clock.remaining + margin + TICK - (time.monotonic() - started) if timed else None
            try:
                entry = control._next_move(None if left is None else max(0.0, left))
            except queue.Empty:
                side.clock.spend(time.monotonic() - started, margin)  # the flag falls: the clock shows the overrun
                raise self.lost_on_time(side) from None
            if entry is None or entry[0] != len(self.move_texts):
                continue  # a wake-up, or a move the host submitted for another ply
            try:
                move = self.state.read_move(entry[1])
            except GameError as error:  # the host checks moves first; one it let through is refused here
                self.warn(side, f"illegal move {visible(entry[1][:SHOWN_MOVE])!r} refused: {error}")
                continue
            break
        elapsed = time.monotonic() - started
        if not side.clock.spend(elapsed, margin):
            raise self.lost_on_time(side)
        self.state.play(move)
        text = entry[1]
        self.move_texts.append(text)
        self.records.append(MoveRecord(text, MoveSource.ENGINE, time=charged(elapsed)))
        if self.live is not None:
            self.live.moved(self.state.turn)
        if self.adjudicator is not None:
            self.adjudicate(side.color, self.adjudicator)

    def play_forced_move(self, side: _Side, move: Any) -> None:
        """Play ``move``, which the game declares forced (Dipole's pass), without asking ``side``."""
        if isinstance(side.seat, EngineSlot):
            self.stop_pondering(side, side.seat)
        text = self.state.move_text(move)
        self.state.play(move)
        self.move_texts.append(text)
        self.records.append(MoveRecord(text, MoveSource.FORCED))
        side.clock.credit_forced_move()
        if self.live is not None:
            self.live.moved(self.state.turn)
        if self.adjudicator is not None:
            self.adjudicate(side.color, self.adjudicator)

    def adjudicate(self, color: Side, adjudicator: Adjudicator) -> None:
        """``color`` has just moved: end the game if an adjudication rule says so (a move that
        won stays a normal win)."""
        verdict = adjudicator.observe(color, self.records[-1], len(self.records))
        if verdict is not None and not self.state.outcome().over:
            loser, reason = verdict
            if loser is None:
                raise _GameOver(DRAW, Termination.ADJUDICATION, reason)
            raise _loss(loser, Termination.ADJUDICATION, reason)

    def run(self) -> GameRecord:
        try:
            self.prepare()
            state = self.state
            while True:
                outcome = state.outcome()  # (history rules included: the game's to apply)
                if outcome.over:
                    raise _GameOver(outcome.result, Termination.NORMAL, outcome.reason)
                side = self.sides[state.turn]
                if self.control is not None:
                    self.control._check()
                forced = state.forced_move()
                if forced is not None:
                    self.play_forced_move(side, forced)
                elif isinstance(side.seat, HumanSeat):
                    assert self.control is not None, "a game with a human seat needs a GameControl"
                    self.play_human_move(side, self.control)
                else:
                    self.play_move(side, side.seat)
        except _GameOver as over:
            self.end_pondering()
            return self.record(over)

    def record(self, over: _GameOver) -> GameRecord:
        job = self.job
        reason = over.reason
        if not reason and over.loser is not None:  # an end from outside: worded with the side's name
            reason = REASONS[over.termination].format(side=self.sides[over.loser].name)
        return GameRecord(
            number=job.number,
            white=job.white.name,
            black=job.black.name,
            variant=job.variant,
            fen=self.start_fen,
            moves=tuple(self.records),
            result=over.result,
            termination=over.termination,
            reason=reason,
            white_tc=job.white.limits.describe(),
            black_tc=job.black.limits.describe(),
            opening=job.opening.source,
            event=self.settings.event,
            site=self.settings.site,
            date=self.settings.date,
        )


def engine_move_record(text: str, answer: SearchResult) -> MoveRecord:
    """The record of an engine's move ``text``: the last score it gave, its depth, its time, its
    nodes (a score, depth or count no record can hold is left out)."""
    last = answer.scored
    depth = last.depth if last is not None else None
    if depth is None:
        depth = answer.depth
    score_cp = _recordable(last.score_cp if last is not None else None)
    score_mate = _recordable(last.score_mate if last is not None else None)
    nodes = answer.nodes if answer.nodes is not None and answer.nodes <= MAX_RECORDED_NODES else None
    time = charged(answer.elapsed)  # (what its clock was charged, as fastchess records it)
    return MoveRecord(text, MoveSource.ENGINE, score_cp, score_mate, _recordable(depth), time, nodes)


def _stopping_when_ended(
    control: GameControl, client: EngineClient, watched: Callable[[Info], None] | None
) -> Callable[[Info], None]:
    """An ``info`` listener that also stops a search begun after the host ended the game."""

    def on_info(info: Info) -> None:
        if control.ended:
            client.stop()
        if watched is not None:
            watched(info)

    return on_info


def play_game(
    job: GameJob,
    white: Seat,
    black: Seat,
    settings: RefereeSettings,
    notify: Notify = lambda message: None,
    live: GameWatcher | None = None,
    *,
    control: GameControl | None = None,
    played: Sequence[MoveRecord] = (),
    clocks: Mapping[Side, Clock] | None = None,
) -> GameRecord:
    """Play ``job`` with the seats ``white`` and ``black`` and return its record.

    Never raises for anything an engine does; ``notify`` receives one line per incident
    (the details behind an illegal move, a crash or a stall).  ``live``, when given, is told
    of the game, each ply and each ``info`` line (see :mod:`arbiter.live.livefiles`); the caller tells
    it when the game is over.  ``control`` (needed when a seat is human) lets the host submit
    the humans' moves and end the game from outside.  A game taken over part-way (the GUI's
    take-back) starts after the opening with the plies ``played`` (kept as recorded) and the
    ``clocks`` as they stand (the referee charges them); by default each side's clock starts
    from its seat's time control.
    """
    return _Game(job, white, black, settings, notify, live, control, played, clocks).run()
