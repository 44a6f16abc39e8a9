"""The engine client driving the real Stockfish as a plain UCI chess engine.

Stockfish (Debian's ``stockfish`` package, /usr/games/stockfish; ``.ci/run`` installs it) knows
UCI and nothing of what protocol/SPEC.md adds: it answers ``Unknown command`` to anything else
(a ``query``, ``ugi``) and ``No such option`` to an option it did not declare.  These tests
record every line of whole sessions through the client's log and check that nothing of the
kind is ever written, that the options a variant needs reach it (``UCI_Chess960``), that its
moves (castling written as it writes it in each mode) are read by the chess rules, and that
every field of its ``info`` lines is read.  Searches are bounded by depth, nodes or a few
hundred milliseconds.
"""

from __future__ import annotations

import os
import subprocess
from collections import Counter

import pytest
from chess_support import UCI_COMMANDS, stockfish

import gameplug
from gameplug_chess.state import chess960_start
from protocol import EngineClient, EngineError, Info, Limit, ProtocolError, format_response, parse_response

__all__ = ["stockfish"]  # (a fixture)
pytestmark = pytest.mark.build  # the compiled client: CI runs these on both builds

UCI_GO_WORDS = {"wtime", "btime", "winc", "binc", "movestogo", "movetime", "depth", "nodes", "mate"}
UCI_GO_FLAGS = {"infinite", "ponder", "searchmoves"}
COMPLAINTS = ("Unknown command", "No such option")
"""What Stockfish writes for a command or an option it does not know (checked below)."""

# White castles kingside and mates: Rf1 checks the king on f3, whose squares are all covered.
# Chess writes the castling e1g1, Chess960 (UCI_Chess960) e1h1, king takes rook.
CASTLE_MATE = "4R3/7b/5N2/8/8/1B3k2/7P/4K2R w K - 0 1"
CASTLING = {"chess": "e1g1", "chess960": "e1h1"}


class Session:
    """A client of Stockfish whose log keeps every line: ``written`` (by the host) and ``read``."""

    def __init__(self, path: str) -> None:
        self.lines: list[tuple[str, str]] = []
        self.client = EngineClient([path], log=lambda direction, line: self.lines.append((direction, line)))

    @property
    def written(self) -> list[str]:
        return [line for direction, line in self.lines if direction == ">"]

    @property
    def read(self) -> list[str]:
        return [line for direction, line in self.lines if direction == "<"]

    def check(self) -> None:
        """Stockfish knew every line written, and every line it wrote but its banner is read
        whole (no field of an info line skipped)."""
        for line in self.written:
            words = line.split()
            assert words[0] in UCI_COMMANDS, line
            if words[0] == "go":
                for word in words[1:]:
                    assert word in UCI_GO_WORDS | UCI_GO_FLAGS or word.isdigit() or _is_move(word), line
            if words[0] == "setoption":
                assert line.split(" value ")[0].removeprefix("setoption name ") in self.client.options, line
        for line in self.read:
            assert not line.startswith(COMPLAINTS), f"Stockfish did not know what it was sent: {line!r}"
            if not line.strip() or line.startswith("Stockfish "):  # its banner and a blank line
                continue
            response = parse_response(line)
            if isinstance(response, Info):
                assert Counter(format_response(response).split()) == Counter(line.split()), f"not read whole: {line!r}"


def _is_move(word: str) -> bool:
    return len(word) in (4, 5) and word[0] in "abcdefgh" and word[1] in "12345678"


def _threads(pid: int | None) -> int:
    return len(os.listdir(f"/proc/{pid}/task"))


def test_stockfish_answers_what_it_does_not_know_as_the_checks_expect(stockfish: str) -> None:
    """The control: SPEC.md's commands and an undeclared option draw Stockfish's complaints,
    so a session without any sent none of them."""
    written = "query gameover\nugi\nsetoption name UCI_Variant value chess\nquit\n"
    output = subprocess.run([stockfish], input=written, capture_output=True, text=True, timeout=30).stdout
    complaints = [line for line in output.splitlines() if line.startswith(COMPLAINTS)]
    assert len(complaints) == 3, output
    assert "query" in complaints[0] and "ugi" in complaints[1] and "UCI_Variant" in complaints[2]


def test_a_whole_life_writes_only_uci_that_stockfish_knows(stockfish: str) -> None:
    """Handshake, options (Hash, Threads, Ponder), a new game, a search under each kind of
    limit, ponder with ponderhit and with stop, an infinite search stopped, quit: every line is
    UCI Stockfish knows, every move it answers is legal, and ``bestmove ... ponder`` is read."""
    session = Session(stockfish)
    client = session.client
    client.start()
    threads = _threads(client.pid)
    client.set_options({"Hash": 16, "Threads": 2, "Ponder": True})
    assert _threads(client.pid) == threads + 1  # a second search thread: Threads took effect
    with pytest.raises(EngineError, match="has no option 'UCI_Variant'"):
        client.set_options({"Hash": 16, "UCI_Variant": "chess"})  # nothing of it is written
    client.new_game()
    state = gameplug.variant("chess").start()
    moves: list[str] = []

    def play(text: str | None) -> None:
        assert text is not None
        state.play(state.read_move(text))
        moves.append(text)

    limits = [
        Limit(wtime=2000, btime=2000, winc=20, binc=20, movestogo=30),
        Limit(depth=4, searchmoves=("a7a6", "h7h6")),
        Limit(movetime=150),
        Limit(depth=6),
        Limit(nodes=5000),
        Limit(wtime=2000, btime=2000, winc=20, binc=20),
    ]
    ponders = []
    for limit in limits:
        result = client.go(limit, timeout=30, position=(None, moves))
        play(result.bestmove)
        ponders.append(result.ponder)
    assert moves[1] in ("a7a6", "h7h6")
    # Ponder is on: each bestmove names the reply it expects (but a searchmoves search's may not).
    assert all(ponders[2:]), ponders
    predicted = ponders[-1]
    assert predicted is not None and state.read_move(predicted) in state.legal_moves()

    client.ponder(Limit(wtime=2000, btime=2000, depth=5), (None, [*moves, predicted]))
    result = client.ponderhit(timeout=30)
    play(predicted)
    play(result.bestmove)
    client.ponder(Limit(movetime=500), (None, [*moves, state.move_text(state.legal_moves()[0])]))
    client.stop_pondering(timeout=10)
    result = client.go(Limit(), timeout=10, position=(None, moves), stop_after=0.2)
    play(result.bestmove)
    client.stop()  # idle: harmless

    client.new_game()
    result = client.go(Limit(mate=1), timeout=30, position=(CASTLE_MATE, ()))
    assert result.bestmove == "e1g1" and result.scored is not None and result.scored.score_mate == 1
    assert client.quit() == 0

    session.check()
    written = " ".join(session.written).split()
    assert set(written) >= UCI_GO_WORDS | UCI_GO_FLAGS
    assert {"ponderhit", "stop", "ucinewgame", "quit"} <= set(written)
    assert not any("UCI_Variant" in line for line in session.written)


@pytest.mark.parametrize("variant", ["chess", "chess960"])
def test_castling_is_written_as_stockfish_writes_it_in_each_mode(stockfish: str, variant: str) -> None:
    """The variant's engine options (none for chess, ``UCI_Chess960 true`` for Chess960) go
    through :meth:`EngineClient.set_options`; Stockfish then mates by castling in that mode's
    notation, which the rules read, and reads it back in a ``moves`` list (after it, Black is
    mated: ``bestmove (none)``).  In Chess960 a game from another start is played on."""
    session = Session(stockfish)
    client = session.client
    client.start()
    client.set_options(gameplug.variant(variant).engine_options)
    client.new_game()
    result = client.go(Limit(depth=3), timeout=30, position=(CASTLE_MATE, ()))
    state = gameplug.variant(variant).read_position(CASTLE_MATE)
    assert result.bestmove == CASTLING[variant]
    state.play(state.read_move(result.bestmove))
    assert state.outcome().over and state.outcome().reason == "White mates"
    result = client.go(Limit(depth=3), timeout=30, position=(CASTLE_MATE, (CASTLING[variant],)))
    assert result.bestmove is None

    if variant == "chess960":
        start = chess960_start(959)  # rkrnnqbb: the king on b1
        fen = start.position_text()
        moves: list[str] = []
        for _ in range(8):
            result = client.go(Limit(nodes=3000), timeout=30, position=(fen, moves))
            assert result.bestmove is not None
            start.play(start.read_move(result.bestmove))
            moves.append(result.bestmove)
    client.quit()
    session.check()
    setoptions = [line for line in session.written if line.startswith("setoption")]
    assert setoptions == (["setoption name UCI_Chess960 value true"] if variant == "chess960" else [])


@pytest.mark.slow
def test_every_field_of_stockfishs_info_lines_is_read(stockfish: str) -> None:
    """An analysis of 3.5 s (Stockfish names its current move from 3 s on) with two lines and
    win/draw/loss chances: every field of every info line is read (checked token by token),
    and the ones a host shows are there."""
    session = Session(stockfish)
    client = session.client
    client.start()
    client.set_options({"MultiPV": 2, "UCI_ShowWDL": True})
    infos: list[Info] = []
    result = client.go(Limit(), timeout=10, on_info=infos.append, position=(None, ("e2e4",)), stop_after=3.5)
    state = gameplug.variant("chess").start()
    state.play(state.read_move("e2e4"))
    assert result.bestmove is not None and state.read_move(result.bestmove) in state.legal_moves()
    scored = [info for info in infos if info.score_cp is not None or info.score_mate is not None]
    assert {info.multipv for info in scored} == {1, 2}
    assert all(info.wdl is not None and sum(info.wdl) == 1000 for info in scored)
    assert all(info.nps is not None and info.hashfull is not None and info.seldepth is not None for info in scored)
    assert all(state.read_move(info.pv[0]) in state.legal_moves() for info in scored)
    assert any(info.currmove is not None and info.currmovenumber is not None for info in infos)
    client.quit()
    session.check()


def test_the_checks_catch_a_field_left_unread() -> None:
    """The check of reading whole fails on a field the codec would skip."""
    line = "info depth 3 refutation e2e4 e7e5 nodes 10"
    assert Counter(format_response(parse_response(line)).split()) != Counter(line.split())
    with pytest.raises(ProtocolError):
        parse_response("info depth 3 wdl 1 2")
