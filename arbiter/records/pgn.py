"""Game records in PGN: writing them crash-safely, and reading them back.

The format is described in ``arbiter/NOTATION.md``.  Writing: :func:`format_game` turns a
:class:`GameRecord` into the text of one game; :class:`PgnWriter` appends whole games to a
file, each with a single ``write`` (so the file only ever holds whole games), and a thread of
its own puts them on disk (``fsync``) without holding up the games.  Reading: :func:`read_pgn` splits a file into :class:`PgnGame` values (tags, moves with
their comments and line numbers, the result) and raises :class:`PgnSyntaxError` naming the
line of the first thing it cannot read.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
import threading
import time
from dataclasses import dataclass, field

import gameplug
from gameplug import GameError, Side

from ..errors import ArbiterError
from ..files import read_text
from .game import RESULTS, GameRecord, MoveRecord, MoveSource, Termination, first_mover

LINE_WIDTH = 79


class PgnSyntaxError(ArbiterError):
    """A PGN file that cannot be read; the message names the file and the line."""


def _quote(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _comment(text: str) -> str:
    return "{" + text.replace("}", ")").replace("{", "(") + "}"


def record_tags(record: GameRecord) -> list[tuple[str, str]]:
    """The tag pairs of a game, in the order they are written."""
    tags = [
        ("Event", record.event),
        ("Site", record.site),
        ("Date", record.date),
        ("Round", str(record.number)),
        ("White", record.white),
        ("Black", record.black),
        ("Result", record.result),
        ("Variant", record.variant),
    ]
    if record.fen is not None:
        tags += [("SetUp", "1"), ("FEN", record.fen)]
    if record.white_tc == record.black_tc:
        tags.append(("TimeControl", record.white_tc))
    else:
        tags += [("WhiteTimeControl", record.white_tc), ("BlackTimeControl", record.black_tc)]
    tags += [("Termination", record.termination.tag), ("PlyCount", str(record.plies))]
    if record.opening:
        tags.append(("Opening", record.opening))
    return tags


@functools.lru_cache(maxsize=64)
def own_notation(variant: str) -> bool:
    """Whether ``variant``'s game writes its records in a notation of its own (chess's SAN), not
    in its protocol text (Dipole's): only such records are replayed to be written or read.
    False for a variant no installed game has (its texts are kept as they are)."""
    try:
        state = gameplug.variant(variant).start()
    except GameError:
        return False
    return type(state).notation is not gameplug.State.notation


def _converted(record: GameRecord, texts: list[str], to_notation: bool) -> list[str]:
    """``texts``, the moves of ``record``, from protocol text to the game's notation
    (``to_notation``) or back; a move that does not read, and every one after it, is kept as
    it is."""
    game = gameplug.variant(record.variant)
    try:
        state = game.start() if record.fen is None else game.read_position(record.fen)
        for index, text in enumerate(texts):
            move = state.read_move(text) if to_notation else state.read_notation(text)
            texts[index] = state.notation(move) if to_notation else state.move_text(move)
            state.play(move)
    except GameError:
        pass
    return texts


def format_game(record: GameRecord, nodes: bool = False) -> str:
    """The PGN text of one game, ending with a blank line; with ``nodes``, each engine move's
    comment gives its search's nodes as fastchess writes them (``n=10432``)."""
    head = "".join([f"[{name} {_quote(value)}]\n" for name, value in record_tags(record)])
    # The movetext's tokens (move numbers, moves, comments); no comment of a move needs
    # escaping (digits, signs, "M", "/", "s", "book", "forced").
    tokens: list[str] = []
    add = tokens.append
    black = first_mover(record.variant, record.fen) is Side.SECOND
    texts = [move.text for move in record.moves]
    if own_notation(record.variant):
        texts = _converted(record, texts, to_notation=True)
    number = 1
    if black and record.moves:
        add("1...")
    for move, text in zip(record.moves, texts):
        if black:
            number += 1
        else:
            add(f"{number}.")
        black = not black
        add(text)
        if comment := move.comment(nodes):
            add("{" + comment + "}")
    if record.reason:
        add(_comment(record.reason))
    add(record.result)
    # Wrapped at LINE_WIDTH, a space between two tokens.
    lines: list[str] = []
    line: list[str] = []
    width = -1  # of the tokens in line, with a space before each
    for token in tokens:
        width += 1 + len(token)
        if width > LINE_WIDTH and line:
            lines.append(" ".join(line))
            line = []
            width = len(token)
        line.append(token)
    lines.append(" ".join(line))
    return head + "\n" + "\n".join(lines) + "\n\n"


SYNC_INTERVAL = 0.2
"""Seconds from one fsync of a PGN file to the next, at least: what a power cut (not a crash
of the arbiter, which loses nothing) may take from the disk's copy of the newest games."""


class PgnWriter:
    """Appends whole games to a PGN file, safe against crashes and across threads.

    Each game is one ``os.write`` on a file opened for appending: once :meth:`write` returns,
    the game is in the file whatever becomes of the arbiter (even SIGKILL), and the file never
    ends inside a game.  Getting it onto the disk (``fsync``, against a power cut) is the job of
    a flusher thread, so that a game's end does not wait the milliseconds of an fsync (tens of
    them on a busy disk: more than a whole game of fast engines): it syncs once games are
    waiting, all that were written meanwhile in one ``fsync``, at most one fsync every
    :data:`SYNC_INTERVAL` (fast games end hundreds of times a second, and each fsync costs the
    machine a journal commit), and :meth:`close` returns only once everything written is on
    disk (without waiting out the interval).  An fsync that fails is raised by the next
    :meth:`write` or by :meth:`close`.  After :meth:`seal` (called when the arbiter is
    interrupted) nothing more is written, and a write in progress is finished first.
    """

    def __init__(self, path: str, nodes: bool = False) -> None:
        self.path = path
        self.nodes = nodes  # each engine move's nodes in its comment (fastchess's nodes=true)
        try:
            self._fd: int | None = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            self._sync_fd = os.dup(self._fd)  # the flusher's own: sealing closes _fd under it
        except OSError as error:
            raise ArbiterError(f"PGN file {path}: {error.strerror or error}") from None
        self._lock = threading.Lock()
        self._waiting = threading.Condition(threading.Lock())  # guards the three fields below
        self._unsynced = False  # written since the flusher's last fsync began
        self._closing = False
        self._sync_error: OSError | None = None
        # Started by the first write: until then the arbiter has no thread of its own, and so
        # may fork its game processes (arbiter.pools.processes).
        self._flusher: threading.Thread | None = None

    def write(self, record: GameRecord) -> bool:
        """Append ``record``; False (and nothing written) once the writer is sealed."""
        data = format_game(record, self.nodes).encode("utf-8")
        with self._lock:
            if self._fd is None:
                return False
            self._raise_sync_error()
            size = os.fstat(self._fd).st_size
            view = memoryview(data)
            try:
                while view:
                    view = view[os.write(self._fd, view) :]
            except OSError as error:  # e.g. the disk is full: take back what part was written
                try:
                    os.ftruncate(self._fd, size)
                except OSError:
                    pass
                raise ArbiterError(f"PGN file {self.path}: {error.strerror or error}") from None
            if self._flusher is None:
                self._flusher = threading.Thread(target=self._flush, daemon=True, name="pgn-fsync")
                self._flusher.start()
            with self._waiting:
                if not self._unsynced:  # else the flusher has yet to sync: no need to wake it
                    self._unsynced = True
                    self._waiting.notify()
            return True

    def _raise_sync_error(self) -> None:
        with self._waiting:
            error, self._sync_error = self._sync_error, None
        if error is not None:
            raise ArbiterError(f"PGN file {self.path}: {error.strerror or error}")

    def _flush(self) -> None:
        """The flusher: fsync whenever games were written since the last one, not sooner than
        :data:`SYNC_INTERVAL` after it unless :meth:`seal` asks; after that last fsync, close its
        descriptor."""
        last = float("-inf")  # when the last fsync began
        while True:
            with self._waiting:
                self._waiting.wait_for(lambda: self._unsynced or self._closing)
                pause = last + SYNC_INTERVAL - time.monotonic()
                if pause > 0:
                    self._waiting.wait_for(lambda: self._closing, timeout=pause)
                if not self._unsynced:
                    break
                self._unsynced = False
            last = time.monotonic()
            try:
                os.fsync(self._sync_fd)
            except OSError as error:
                with self._waiting:
                    self._sync_error = error
        os.close(self._sync_fd)

    def seal(self, timeout: float = 5.0) -> bool:
        """Let a write in progress finish, then refuse every later one, close the file, and wait
        (at most ``timeout`` seconds in all) until what was written is on disk; whether it is."""
        deadline = time.monotonic() + timeout
        acquired = self._lock.acquire(timeout=timeout)
        try:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None
                if self._flusher is None:  # nothing written: nothing to sync
                    os.close(self._sync_fd)
                with self._waiting:
                    self._closing = True
                    self._waiting.notify()
        finally:
            if acquired:
                self._lock.release()
        flusher = self._flusher
        if flusher is not None:
            flusher.join(timeout=max(0.0, deadline - time.monotonic()))
        return acquired and (flusher is None or not flusher.is_alive())

    def close(self, timeout: float = 120.0) -> None:
        """:meth:`seal`, waiting up to ``timeout`` seconds for the disk (an fsync can take
        seconds on a busy one), then raise an fsync that failed, or one still not done."""
        if not self.seal(timeout):
            raise ArbiterError(
                f"PGN file {self.path}: every game is in the file, but the disk had not confirmed "
                f"them (fsync) after {timeout:g} s"
            )
        self._raise_sync_error()


# -- reading ---------------------------------------------------------------------------------


@dataclass
class PgnMove:
    """A move token as read: its text, the line it is on, and the comments that follow it."""

    text: str
    line: int
    comments: list[str] = field(default_factory=list)


@dataclass
class PgnGame:
    """One game as read from a file: ``index`` counts games from 1, ``line`` is its first line."""

    index: int
    line: int
    tags: dict[str, str] = field(default_factory=dict)
    moves: list[PgnMove] = field(default_factory=list)
    leading_comments: list[str] = field(default_factory=list)
    result: str | None = None
    result_line: int = 0

    @property
    def variant(self) -> str:
        """The ``Variant`` tag; a record without one is Dipole's (the project's first game)."""
        return self.tags.get("Variant", "dipole")

    def label(self) -> str:
        """``game 3 (round 5: alpha vs beta)`` for reports."""
        who = f"{self.tags.get('White', '?')} vs {self.tags.get('Black', '?')}"
        round_ = self.tags.get("Round")
        return f"game {self.index} ({'round ' + round_ + ': ' if round_ else ''}{who}, line {self.line})"

    def reason(self) -> str:
        """The closing comment (the sentence that explains the result), or ''."""
        if self.moves:
            comments = self.moves[-1].comments
            return comments[-1] if len(comments) > 1 else ""
        return self.leading_comments[-1] if self.leading_comments else ""

    def to_record(self) -> GameRecord:
        """The game as a GameRecord (termination from the tag; move annotations parsed back;
        moves in a game's own notation read as its protocol texts, as far as they are legal)."""
        tags = self.tags
        termination = Termination.from_tag(tags.get("Termination", "normal")) or Termination.NORMAL
        time_control = tags.get("TimeControl")
        record = GameRecord(
            number=int(tags["Round"]) if _ROUND.fullmatch(tags.get("Round", "")) else self.index,
            white=tags.get("White", "?"),
            black=tags.get("Black", "?"),
            variant=self.variant,
            fen=tags.get("FEN") if tags.get("SetUp", "1" if "FEN" in tags else "0") == "1" else None,
            moves=tuple(parse_move_comment(m.text, m.comments[0] if m.comments else "") for m in self.moves),
            result=self.result or tags.get("Result", "*"),
            termination=termination,
            reason=self.reason(),
            white_tc=tags.get("WhiteTimeControl", time_control or "-"),
            black_tc=tags.get("BlackTimeControl", time_control or "-"),
            opening=tags.get("Opening", ""),
            event=tags.get("Event", "?"),
            site=tags.get("Site", "?"),
            date=tags.get("Date", "????.??.??"),
        )
        if not own_notation(record.variant):
            return record
        texts = _converted(record, [move.text for move in record.moves], to_notation=False)
        moves = tuple(dataclasses.replace(move, text=text) for move, text in zip(record.moves, texts))
        return dataclasses.replace(record, moves=moves)


_MOVE_COMMENT = re.compile(
    r"(?:(?P<score>[+-](?:M(?P<mate>[0-9]+)|(?P<pawns>[0-9]+\.[0-9]+)))(?:/(?P<depth>[0-9]+))?)?"
    r"\s*(?:(?P<time>[0-9]+(?:\.[0-9]+)?)s)?"
    r"(?:,?\s*n=(?P<nodes>[0-9]{1,19}))?"
)


def parse_move_comment(text: str, comment: str) -> MoveRecord:
    """A MoveRecord from a move and its comment (``+0.35/7 0.520s``, ``book``, ``forced``; with
    its nodes as fastchess writes them: ``+0.35/7 0.520s, n=10432``)."""
    comment = comment.strip()
    if comment in ("book", "forced"):
        return MoveRecord(text, MoveSource(comment))
    match = _MOVE_COMMENT.fullmatch(comment)
    if match is None or not comment:
        return MoveRecord(text)
    sign = -1 if (match.group("score") or "+").startswith("-") else 1
    mate = match.group("mate")
    pawns = match.group("pawns")
    return MoveRecord(
        text,
        score_cp=round(sign * float(pawns) * 100) if pawns else None,
        score_mate=sign * int(mate) if mate else None,
        depth=int(match.group("depth")) if match.group("depth") else None,
        time=float(match.group("time")) if match.group("time") else None,
        nodes=int(match.group("nodes")) if match.group("nodes") else None,
    )


_ROUND = re.compile(r"[0-9]{1,9}")  # a game number; any other Round (``1.2``, ``?``, ``-``) numbers by position
_TAG = re.compile(r'\[\s*([A-Za-z0-9_]+)\s+"((?:[^"\\]|\\.)*)"\s*\]')
_MOVE_NUMBER = re.compile(r"[0-9]+\.+")
_SYMBOL_END = re.compile(r"[\s{}()\[\];]")
_NAG = re.compile(r"\$[0-9]+")
_UNESCAPE = re.compile(r"\\(.)")


class _Reader:
    """A single pass over the text, tracking the line number of every token."""

    def __init__(self, text: str, name: str) -> None:
        self.text = text
        self.name = name
        self.pos = 0
        self.line = 1
        self.games: list[PgnGame] = []
        self.game: PgnGame | None = None
        self.in_movetext = False

    def fail(self, message: str, line: int | None = None) -> PgnSyntaxError:
        return PgnSyntaxError(f"{self.name} line {line or self.line}: {message}")

    def current(self) -> PgnGame:
        if self.game is None:
            self.game = PgnGame(index=len(self.games) + 1, line=self.line)
        return self.game

    def finish(self, result: str) -> None:
        game = self.current()
        game.result = result
        game.result_line = self.line
        self.games.append(game)
        self.game = None
        self.in_movetext = False

    def skip_to_line_end(self) -> None:
        end = self.text.find("\n", self.pos)
        self.pos = len(self.text) if end < 0 else end

    def read(self) -> list[PgnGame]:
        text = self.text
        while self.pos < len(text):
            char = text[self.pos]
            if char == "\n":
                self.line += 1
                self.pos += 1
            elif char.isspace():
                self.pos += 1
            elif (char == "%" and (self.pos == 0 or text[self.pos - 1] == "\n")) or char == ";":
                self.skip_to_line_end()
            elif char == "[":
                self.read_tag()
            elif char == "{":
                self.read_comment()
            elif char == "(":
                self.skip_variation()
            elif char in ")]}":
                raise self.fail(f"unexpected {char!r}")
            else:
                self.read_symbol()
        if self.game is not None:
            where = self.game.moves[-1].line if self.game.moves else self.game.line
            raise self.fail(f"{self.game.label()} has no result (1-0, 0-1, 1/2-1/2 or *) at its end", where)
        return self.games

    def read_tag(self) -> None:
        end = self.text.find("\n", self.pos)
        end = len(self.text) if end < 0 else end
        match = _TAG.match(self.text, self.pos, end)
        if match is None:
            raise self.fail(f'malformed tag pair {self.text[self.pos : end].strip()!r}; expected [Name "value"]')
        if self.in_movetext:
            raise self.fail(
                f"tag pair {match.group(0)!r} inside the moves of {self.current().label()}, whose result is missing"
            )
        game = self.current()
        game.tags[match.group(1)] = _UNESCAPE.sub(r"\1", match.group(2))
        self.pos = match.end()

    def read_comment(self) -> None:
        start_line = self.line
        end = self.text.find("}", self.pos)
        if end < 0:
            raise self.fail("comment opened with '{' is never closed", start_line)
        body = self.text[self.pos + 1 : end]
        self.line += body.count("\n")
        self.pos = end + 1
        game = self.current()
        self.in_movetext = True
        comment = " ".join(body.split())
        (game.moves[-1].comments if game.moves else game.leading_comments).append(comment)

    def skip_variation(self) -> None:
        start_line = self.line
        depth = 0
        while self.pos < len(self.text):
            char = self.text[self.pos]
            if char == "{":
                end = self.text.find("}", self.pos)
                if end < 0:
                    raise self.fail("comment opened with '{' is never closed", self.line)
                self.line += self.text.count("\n", self.pos, end)
                self.pos = end
            elif char == "\n":
                self.line += 1
            elif char == "(":
                depth += 1
            elif char == ")":
                depth -= 1
                if depth == 0:
                    self.pos += 1
                    return
            self.pos += 1
        raise self.fail("variation opened with '(' is never closed", start_line)

    def read_symbol(self) -> None:
        match = _SYMBOL_END.search(self.text, self.pos)
        end = match.start() if match else len(self.text)
        token = self.text[self.pos : end]
        self.pos = end
        if token in RESULTS:
            self.finish(token)
            return
        self.in_movetext = True
        number = _MOVE_NUMBER.match(token)
        if number is not None:
            token = token[number.end() :]
            if not token:
                return
        if _NAG.fullmatch(token):
            return
        token = token.rstrip("!?")
        if not token:
            raise self.fail(f"unexpected annotation {self.text[self.pos - 1]!r}")
        self.current().moves.append(PgnMove(token, self.line))


def read_pgn(text: str, name: str = "<pgn>") -> list[PgnGame]:
    """Every game in ``text``; raises PgnSyntaxError (``name line N: ...``) if it is malformed."""
    return _Reader(text, name).read()


def read_pgn_file(path: str) -> list[PgnGame]:
    """Every game in the file at ``path``; ArbiterError (one line) for an empty file, which is
    no record of anything (the commands that take event databases too get here with it)."""
    text = read_text(path, "PGN file")
    if not text:
        raise ArbiterError(f"{path} is empty: neither an event database nor a PGN file")
    return read_pgn(text, path)
