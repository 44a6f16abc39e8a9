"""Games as values: the opening a game starts from, how it ended, each move with its annotation,
the whole record.

These are what the game runner returns, what the PGN writer writes and the reader gives back,
and what the statistics count.  They hold plain data only (move texts, not move objects), so
they are the same whichever game or variant was played.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

import gameplug
from dipole_runtime.values import quick_init

WHITE_WINS = "1-0"
BLACK_WINS = "0-1"
DRAW = "1/2-1/2"
UNFINISHED = "*"
RESULTS = (WHITE_WINS, BLACK_WINS, DRAW, UNFINISHED)
DECISIVE = (WHITE_WINS, BLACK_WINS)
SCORED = (WHITE_WINS, BLACK_WINS, DRAW)  # the results that count in the tallies (``*`` does not)


@dataclass(frozen=True)
class Opening:
    """A start position (``fen`` None: the variant's start) and book moves played from it."""

    fen: str | None
    moves: tuple[str, ...]
    source: str

    def state(self, variant: str) -> gameplug.State[Any]:
        """The position after the book moves, in ``variant`` of any installed game (checked:
        raises :class:`gameplug.GameError` when the position or a move does not hold)."""
        game = gameplug.variant(variant)
        state = game.start() if self.fen is None else game.read_position(self.fen)
        for text in self.moves:
            state.play(state.read_move(text))
        return state


START = Opening(None, (), "start position")


@functools.lru_cache(maxsize=64)
def first_mover(variant: str, fen: str | None) -> gameplug.Side:
    """The side to move at ``fen`` (None: the variant's start): who played a record's first
    move.  An event has a few start positions and many games, so each is read once."""
    game = gameplug.variant(variant)
    return (game.start() if fen is None else game.read_position(fen)).turn


class Termination(Enum):
    """Why a game ended.  ``tag`` is the PGN ``Termination`` value, ``label`` the summary's word."""

    NORMAL = ("normal", "normal")
    TIME_FORFEIT = ("time forfeit", "time forfeit")
    ILLEGAL_MOVE = ("illegal move", "illegal move")
    STALL = ("stalled connection", "stall")
    CRASH = ("abandoned", "crash")
    HANDSHAKE = ("abandoned", "failed start")
    ADJUDICATION = ("adjudication", "adjudication")  # the resign rule (arbiter/play/adjudication.py)
    RESIGNATION = ("resignation", "resignation")  # a player (a human seat) resigned
    PROTOCOL_VIOLATION = ("rules infraction", "protocol violation")
    UNTERMINATED = ("unterminated", "unterminated")

    def __init__(self, tag: str, label: str) -> None:
        self.tag = tag
        self.label = label

    @classmethod
    def from_tag(cls, tag: str) -> Termination | None:
        """The termination a PGN ``Termination`` tag names (``abandoned`` reads as a crash)."""
        for member in cls:
            if member.tag == tag:
                return member
        return None

    @property
    def mover_loses(self) -> bool:
        """True when only the side to move can have lost this way (it was thinking)."""
        return self in (Termination.TIME_FORFEIT, Termination.ILLEGAL_MOVE)


class MoveSource(Enum):
    ENGINE = "engine"  # chosen by an engine, with its score and the time it took
    BOOK = "book"  # part of the opening
    FORCED = "forced"  # the only legal move (a pass), played by the arbiter without asking


@quick_init
@dataclass(frozen=True)
class MoveRecord:
    """One ply: the rules' move text and what the mover said about it.

    ``score_cp`` is centipawns from the mover's view, ``score_mate`` moves to mate (negative:
    the mover is being mated); ``time`` is the seconds the arbiter charged for it; ``nodes`` the
    nodes its search reported last.
    """

    text: str
    source: MoveSource = MoveSource.ENGINE
    score_cp: int | None = None
    score_mate: int | None = None
    depth: int | None = None
    time: float | None = None
    nodes: int | None = None

    def comment(self, nodes: bool = False) -> str:
        """The PGN comment text: ``+0.35/7 0.520s``, ``-M3/9 0.100s``, ``book`` or ``forced``;
        with ``nodes``, the nodes as fastchess writes them too: ``+0.35/7 0.520s, n=10432``."""
        if self.source is not MoveSource.ENGINE:
            return str(self.source.value)  # mypy types .value of a narrowed enum as Any
        score = self.score_text()
        if score and self.depth is not None:  # (no score: no depth shown)
            score = f"{score}/{self.depth}"
        seconds = None if self.time is None else f"{self.time:.3f}s"
        parts = [" ".join(filter(None, [score, seconds]))]
        if nodes and self.nodes is not None:
            parts.append(f"n={self.nodes}")
        return ", ".join(filter(None, parts))

    def score_text(self) -> str:
        """The score in pawns as the PGN comments write it (``+0.35``, ``-M3``); empty without one."""
        if self.score_mate is not None:
            return f"{'+' if self.score_mate > 0 else '-'}M{abs(self.score_mate)}"
        if self.score_cp is not None:
            return f"{self.score_cp / 100:+.2f}"
        return ""


@dataclass(frozen=True)
class GameRecord:
    """One finished (or abandoned) game.

    ``fen`` is the start position when it is not the variant's standard start, else None;
    ``moves`` runs from there (opening moves included, marked as book).  ``reason`` is the
    human sentence for the result (``Black loses on time``); ``white_tc``/``black_tc`` are the
    PGN time-control texts of each side.
    """

    number: int
    white: str
    black: str
    variant: str
    fen: str | None
    moves: tuple[MoveRecord, ...]
    result: str
    termination: Termination
    reason: str
    white_tc: str = "-"
    black_tc: str = "-"
    opening: str = ""
    event: str = "?"
    site: str = "?"
    date: str = "????.??.??"

    @property
    def plies(self) -> int:
        return len(self.moves)

    def winner(self) -> str | None:
        """The winning engine's name, or None for a drawn or unfinished game."""
        if self.result == WHITE_WINS:
            return self.white
        if self.result == BLACK_WINS:
            return self.black
        return None

    def finished_line(self) -> str:
        """cutechess-cli's line: ``Finished game 7 (alpha vs beta): 1-0 {Black loses on time}``."""
        return f"Finished game {self.number} ({self.white} vs {self.black}): {self.result} {{{self.reason}}}"


@dataclass(frozen=True)
class GameOutcome:
    """A finished game without its moves: who played which colour, the result and why, and
    its length.  ``finished`` is when the event database recorded it (None for a game that
    does not come from one); two outcomes of the same game are equal whenever it was recorded."""

    number: int
    white: str
    black: str
    result: str
    termination: Termination
    reason: str
    plies: int
    finished: str | None = field(default=None, compare=False)

    @classmethod
    def of(cls, record: GameRecord) -> GameOutcome:
        return cls(
            record.number, record.white, record.black, record.result, record.termination, record.reason, record.plies
        )
