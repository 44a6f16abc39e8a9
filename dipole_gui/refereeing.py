"""A page's game in the hands of the arbiter's referee, and the referee's news brought back.

The page's games are refereed by the arbiter's own referee (:func:`arbiter.play.referee.play_game`),
run on the game's thread (:class:`~dipole_gui.seats.GameTable`), with a human as one more kind of seat
(:class:`~arbiter.play.referee.HumanSeat`): the referee plays the moves a game declares forced
(Dipole's pass), keeps the clocks (a human's flag falls while it waits), asks the engines, checks every move and ends the game with the
arbiter's terminations, a human's resignation included (:class:`~arbiter.play.referee.GameControl`).
The session only mirrors the game: a :class:`Watcher` hands each ply with the clocks, each
``info`` line and each incident from the table's thread to the event loop, where they become the
session's moves, ``thinking`` messages and the result.  Each refereed game carries the
session's ``generation`` when it was handed over; :func:`abandon` bumps it, so the abandoned
game's late news is dropped.
"""

from __future__ import annotations

import copy
import dataclasses
import datetime
import time
from concurrent.futures import Future
from typing import TYPE_CHECKING

import gameplug
from arbiter.board import side_letter
from arbiter.errors import ArbiterError
from arbiter.live.searchline import white_score
from arbiter.play.referee import GameControl, GameJob, HumanSeat, RefereeSettings, Seat, WatchedGame
from arbiter.play.timecontrol import Clock
from arbiter.records.game import BLACK_WINS, DECISIVE, GameRecord, MoveRecord, MoveSource, Termination
from gameplug import Side
from protocol import Info
from protocol.client import EngineError

from .analysislines import carries_line, line_notation, move_arrow
from .limits import LimitReached
from .pagestate import thinking_message
from .seats import GameTable

if TYPE_CHECKING:
    from .session import Session

HUMAN_NAME = "Human"
GAME_NUMBER = 1  # a page's game in its record (the PGN's Round)
EVENT = "dipole-gui"
STALL_TIMEOUT = 120.0  # longest wait for a depth-limited move

FAILURES = {  # how an engine that lost by failing is said to have failed (the referee's terminations)
    Termination.CRASH: "crashed",
    Termination.STALL: "stalled",
    Termination.HANDSHAKE: "failed to start",
    Termination.PROTOCOL_VIOLATION: "broke the protocol",
}


async def open_table(session: Session) -> bool:
    """Start the game's thread and its engines (with a permit of the server's limits); when
    refused or on failure say so and leave the game without them."""
    generation = session.generation
    engines = {
        color: dataclasses.replace(
            session.config.engines[engine], limits=session.tc.limits(session.config.engines[engine].limits)
        )
        for color, engine in session.players.items()
        if engine is not None
    }
    permit = None
    if engines:
        try:
            permit = session.config.jobs.take(session.client, "the game")
        except LimitReached as refusal:
            session.players = {Side.FIRST: None, Side.SECOND: None}
            session.error(str(refusal))
            session.push_state()
            return False
        session.game_permit = permit
    settings = RefereeSettings(stall_timeout=STALL_TIMEOUT, event=EVENT, site=EVENT, date=today())
    table = GameTable(engines, session.variant, settings)
    session.table = table
    try:
        await table.start()
    except (EngineError, ArbiterError) as error:
        table.close()
        if permit is not None:
            permit.release()
        if generation == session.generation:
            session.table = None
            session.game_permit = None
            session.players = {Side.FIRST: None, Side.SECOND: None}
            session.error(f"the engine could not start: {error}")
            session.push_state()
        return False
    if generation != session.generation or session.closed:
        table.close()
        if permit is not None:
            permit.release()
        return False
    return True


def hand_over(session: Session) -> None:
    """Hand the game as it stands to the arbiter's referee, on the table's thread."""
    table = session.table
    assert table is not None
    abandon(session)
    generation = session.generation
    control = GameControl()
    session.control = control
    seats: dict[Side, Seat] = {
        side: table.slots.get(side) or HumanSeat(HUMAN_NAME, session.tc.limits(None)) for side in Side
    }
    job = GameJob(GAME_NUMBER, seats[Side.FIRST].spec, seats[Side.SECOND].spec, session.opening(), session.variant)
    watcher = Watcher(session, generation)
    clocks = {color: copy.copy(clock) for color, clock in session.clocks.items()}
    future = table.play(job, seats, control, watcher, watcher.incident, tuple(session.records), clocks)
    session.turn_started = time.monotonic()
    future.add_done_callback(
        lambda done: session.loop.call_soon_threadsafe(_refereed, session, generation, done, watcher)
    )


def abandon(session: Session) -> None:
    """Abandon the refereed game (its engines stay): its late news is dropped."""
    land(session)
    session.generation += 1
    if session.control is not None:
        session.control.abandon()
        session.control = None


def land(session: Session) -> None:
    """The human's move waited for is played, or will never be: the page may go on."""
    if session.landed is not None and not session.landed.done():
        session.landed.set_result(None)
    session.landed = None


def close_table(session: Session) -> None:
    """Kill the game's engines, end its thread and give back its permit."""
    if session.table is not None:
        session.table.close()
        session.table = None
    if session.game_permit is not None:
        session.game_permit.release()
        session.game_permit = None


def side_name(session: Session, side: Side) -> str:
    """What the session's game calls ``side`` ("White", "Red")."""
    return gameplug.variant(session.variant).game.side_name(side)


def today() -> str:
    return datetime.date.today().strftime("%Y.%m.%d")


class Watcher:
    """The referee's view of a page's game, on the table's thread: hands each ply with the
    clocks, each ``info`` line and each incident to the event loop (:class:`~arbiter.play.referee.GameWatcher`)."""

    def __init__(self, session: Session, generation: int) -> None:
        self.session = session
        self.generation = generation
        self.turn = Side.FIRST
        self.moves: list[MoveRecord] = []
        self.clocks: dict[Side, Clock] = {}
        self.incidents: list[str] = []  # the referee's lines about the engines (the last few)

    def open_game(
        self, job: GameJob, fen: str | None, moves: list[MoveRecord], clocks: dict[Side, Clock], turn: Side
    ) -> WatchedGame:
        self.moves, self.clocks, self.turn = moves, clocks, turn
        return self

    def clocks_now(self) -> dict[Side, Clock]:
        return {color: copy.copy(clock) for color, clock in self.clocks.items()}

    def moved(self, turn: Side) -> None:
        mover, self.turn = self.turn, turn
        self.session.loop.call_soon_threadsafe(
            _moved, self.session, self.generation, self.moves[-1], mover, self.clocks_now()
        )

    def info(self, info: Info) -> None:
        self.session.loop.call_soon_threadsafe(
            _thinking, self.session, self.generation, side_letter(self.turn), self.turn, info
        )

    def incident(self, line: str) -> None:
        self.incidents = [*self.incidents[-3:], line]


def _moved(session: Session, generation: int, record: MoveRecord, mover: Side, clocks: dict[Side, Clock]) -> None:
    """The referee played a ply (``mover``'s; ``clocks`` as they stand after it)."""
    if generation != session.generation or session.closed:
        return
    land(session)
    state = session.state
    move = state.read_move(record.text)
    forced = record.source is MoveSource.FORCED
    said = state.describe_move(move).label if forced else ""
    following = session.view == len(session.moves)
    state.play(move)
    session.moves.append(move)
    session.records.append(record)
    session.scores.append(white_score(record.score_cp, record.score_mate, mover))
    if following:
        session.view = len(session.moves)
    session.clocks = clocks
    session.turn_started = time.monotonic()
    if forced:
        session.post({"type": "notice", "message": f"{side_name(session, mover)} has no choice: {said}"})
    session.push_state()


def _refereed(session: Session, generation: int, done: Future[GameRecord], watcher: Watcher) -> None:
    """The refereed game is over: its result, and an engine's failure said on the page."""
    if generation != session.generation or session.closed or done.cancelled():
        return
    land(session)
    session.control = None
    failure = done.exception()
    if failure is not None:  # a fault of the referee itself: said, and the game left unfinished
        session.error(f"the game stopped: {failure}")
    else:
        record = done.result()
        session.result = (record.result, record.termination, record.reason)
        session.clocks = watcher.clocks_now()
        _report_failure(session, record, watcher.incidents)
    close_table(session)
    session.push_state()


def _report_failure(session: Session, record: GameRecord, incidents: list[str]) -> None:
    """One line on the page for an engine that lost by failing (the referee's details)."""
    loser = Side.FIRST if record.result == BLACK_WINS else Side.SECOND
    table = session.table
    slot = None if table is None else table.slots.get(loser)
    if slot is None or record.result not in DECISIVE:  # no loser: unfinished, or drawn by adjudication
        return
    if record.termination is Termination.ILLEGAL_MOVE:
        said = f"game {GAME_NUMBER}: {slot.spec.name} ({side_name(session, loser)}): "  # the referee's warning's prefix
        detail = incidents[-1].removeprefix(said) if incidents else record.reason
        session.error(f"engine {slot.spec.name!r} played an illegal move: {detail}")
    elif record.termination in FAILURES:
        session.error(
            f"the engine {slot.spec.name!r} {FAILURES[record.termination]}: {slot.failure}; the game so far is kept"
        )


def _thinking(session: Session, generation: int, source: str, mover: Side, info: Info) -> None:
    if generation != session.generation or session.closed:
        return
    if info.error is not None:
        session.post(
            {"type": "notice", "message": f"{session.player_name(mover)} reports an error: {info.error[:300]}"}
        )
    if not carries_line(info):
        return
    message = thinking_message(source, mover, info)
    message["ply"] = len(session.moves)
    message["arrow"] = move_arrow(session.state, info.pv[0]) if info.pv else None
    message["shown"] = line_notation(session.state, info.pv)
    session.post(message)
