"""The protocol codec: every command and response reads and writes back canonically, bad lines
raise ProtocolError with one clear line, and random input never raises anything else."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol import (
    BestMove,
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
    SetOption,
    Stop,
    Uci,
    UciNewGame,
    UciOk,
    Ugi,
    UgiNewGame,
    UgiOk,
    error_info,
    format_command,
    format_response,
    parse_command,
    parse_response,
)

# (canonical line, value): every kind of command, with every go parameter.
COMMANDS = [
    ("uci", Uci()),
    ("ugi", Ugi()),
    ("isready", IsReady()),
    ("ucinewgame", UciNewGame()),
    ("uginewgame", UgiNewGame()),
    ("stop", Stop()),
    ("quit", Quit()),
    ("setoption name Hash value 32", SetOption("Hash", "32")),
    ("setoption name Clear Hash", SetOption("Clear Hash")),
    ("setoption name Book File value my book.txt", SetOption("Book File", "my book.txt")),
    ("setoption name Book File value", SetOption("Book File", "")),
    ("setoption name UCI_Variant value dipole-10s", SetOption("UCI_Variant", "dipole-10s")),
    ("position startpos", Position()),
    ("position startpos moves c1-c3 d8-d6 pass", Position(None, ("c1-c3", "d8-d6", "pass"))),
    ("position fen W:W12c1:B12d8", Position("W:W12c1:B12d8")),
    ("position fen W:W1d4:B2c5,2e5 moves pass", Position("W:W1d4:B2c5,2e5", ("pass",))),
    ("position fen x 7 7 moves a b", Position("x 7 7", ("a", "b"))),
    ("go infinite", Go(Limit(infinite=True))),
    (
        "go wtime 60000 btime 59000 winc 1000 binc 900 movestogo 40",
        Go(Limit(wtime=60000, btime=59000, winc=1000, binc=900, movestogo=40)),
    ),
    ("go wtime -20 btime 0", Go(Limit(wtime=-20, btime=0))),
    ("go movetime 200", Go(Limit(movetime=200))),
    ("go depth 6", Go(Limit(depth=6))),
    ("go nodes 100000", Go(Limit(nodes=100000))),
    ("go depth 3 nodes 500 infinite", Go(Limit(depth=3, nodes=500, infinite=True))),
    ("go mate 3", Go(Limit(mate=3))),
    ("go wtime 1000 btime 900 ponder", Go(Limit(wtime=1000, btime=900, ponder=True))),
    ("go infinite ponder", Go(Limit(ponder=True))),
    ("go depth 4 searchmoves e1-e3 c1-c3", Go(Limit(depth=4, searchmoves=("e1-e3", "c1-c3")))),
    ("ponderhit", PonderHit()),
    ("go perft 0", GoPerft(0)),
    ("go perft 4", GoPerft(4)),
    ("query gameover", Query("gameover")),
    ("query p1turn", Query("p1turn")),
    ("query result", Query("result")),
    ("query fen", Query("fen")),
    ("query moves", Query("moves")),
    ("query size", Query("size")),
    ("query startpos", Query("startpos")),
]

RESPONSES = [
    ("id name Dipole Engine 0.1.0", Id("name", "Dipole Engine 0.1.0")),
    ("id author The dipole-engine authors", Id("author", "The dipole-engine authors")),
    ("uciok", UciOk()),
    ("ugiok", UgiOk()),
    ("readyok", ReadyOk()),
    ("option name Hash type spin default 16 min 1 max 1024", OptionSpec("Hash", "spin", 16, 1, 1024)),
    ("option name Ponder type check default false", OptionSpec("Ponder", "check", False)),
    ("option name Ponder type check default true", OptionSpec("Ponder", "check", True)),
    (
        "option name UCI_Variant type combo default dipole var dipole var dipole-s",
        OptionSpec("UCI_Variant", "combo", "dipole", vars=("dipole", "dipole-s")),
    ),
    ("option name Clear Hash type button", OptionSpec("Clear Hash", "button")),
    ("option name Book File type string default <empty>", OptionSpec("Book File", "string", "")),
    ("option name Book File type string default a b", OptionSpec("Book File", "string", "a b")),
    ("bestmove e1-e3", BestMove("e1-e3")),
    ("bestmove pass", BestMove("pass")),
    ("bestmove (none)", BestMove(None)),
    ("bestmove e1-e3 ponder d8-d6", BestMove("e1-e3", "d8-d6")),
    (
        "info depth 5 seldepth 9 multipv 1 score cp -31 nodes 12345 nps 98000 time 126 hashfull 12 "
        "tbhits 0 cpuload 500 pv e1-e3 d8xe7 pass",
        Info(
            depth=5,
            seldepth=9,
            multipv=1,
            score_cp=-31,
            nodes=12345,
            nps=98000,
            time=126,
            hashfull=12,
            tbhits=0,
            cpuload=500,
            pv=("e1-e3", "d8xe7", "pass"),
        ),
    ),
    ("info depth 3 score mate -2 pv c7-off:3", Info(depth=3, score_mate=-2, pv=("c7-off:3",))),
    ("info score cp 20 lowerbound", Info(score_cp=20, score_bound="lower")),
    ("info score mate 4 upperbound", Info(score_mate=4, score_bound="upper")),
    (
        "info depth 9 score cp -23 lowerbound wdl 3 969 28 nodes 41 pv c7c5",
        Info(depth=9, score_cp=-23, score_bound="lower", wdl=(3, 969, 28), nodes=41, pv=("c7c5",)),
    ),
    ("info currmove e1-e3 currmovenumber 2", Info(currmove="e1-e3", currmovenumber=2)),
    ("info string error unknown command 'foo'", Info(string="error unknown command 'foo'")),
    ("info depth 2 pv a1-a2 string two parts", Info(depth=2, pv=("a1-a2",), string="two parts")),
    ("info string", Info(string="")),
    ("info", Info()),
    ("response true", QueryResponse("true")),
    ("response p2win", QueryResponse("p2win")),
    ("response e1-e3 e1-e5 pass", QueryResponse("e1-e3 e1-e5 pass")),
    ("response (none)", QueryResponse("(none)")),
    ("e1-e3 1234", PerftMove("e1-e3", 1234)),
    ("pass 0", PerftMove("pass", 0)),
    ("Nodes searched: 90132", PerftTotal(90132)),
]


@pytest.mark.parametrize("line,value", COMMANDS, ids=[line for line, _ in COMMANDS])
def test_every_command_round_trips(line: str, value: object) -> None:
    assert parse_command(line) == value
    assert format_command(value) == line  # type: ignore[arg-type]


@pytest.mark.parametrize("line,value", RESPONSES, ids=[line for line, _ in RESPONSES])
def test_every_response_round_trips(line: str, value: object) -> None:
    assert parse_response(line) == value
    assert format_response(value) == line  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "line,canonical",
    [
        ("  go   depth 3 \r\n", "go depth 3"),
        ("go p1time 1000 p2time 900 p1inc 10 p2inc 5", "go wtime 1000 btime 900 winc 10 binc 5"),
        ("go infinite depth 4", "go depth 4 infinite"),
        ("go", "go infinite"),
        ("go nodes 9 btime 5 wtime 6", "go wtime 6 btime 5 nodes 9"),
        ("position startpos moves", "position startpos"),
        ("setoption  name  Book   File value  a   b\t", "setoption name Book File value a b"),
        ("isready\r", "isready"),
    ],
)
def test_commands_are_written_canonically(line: str, canonical: str) -> None:
    assert format_command(parse_command(line)) == canonical


def test_a_bare_go_means_what_spec_says_search_until_stop() -> None:
    assert parse_command("go") == Go(Limit(infinite=True))
    assert parse_command("go").limit.infinite is True  # type: ignore[union-attr]
    assert Limit() == Limit(infinite=True)
    assert Limit(depth=3).infinite is False


def test_query_moves_answer_reads_as_its_moves() -> None:
    assert parse_response("response c1-c3 pass").words == ("c1-c3", "pass")  # type: ignore[union-attr]
    assert parse_response("response (none)").words == ()  # type: ignore[union-attr]


def test_ugi_clock_words_read_as_uci_and_write_back_on_request() -> None:
    command = parse_command("go p1time 1000 p2time 900 p1inc 10 p2inc 5 movestogo 3")
    assert command == Go(Limit(wtime=1000, btime=900, winc=10, binc=5, movestogo=3))
    assert format_command(command, ugi=True) == "go p1time 1000 p2time 900 p1inc 10 p2inc 5 movestogo 3"


@pytest.mark.parametrize(
    "line,canonical",
    [
        ("info nodes 5 depth 2 score cp 3 time 1 nps 5000", "info depth 2 score cp 3 nodes 5 nps 5000 time 1"),
        ("info depth 2 wdl 500 300 200 nodes 10", "info depth 2 wdl 500 300 200 nodes 10"),
        ("info score cp -44 wdl 1 923 76 upperbound nodes 9", "info score cp -44 upperbound wdl 1 923 76 nodes 9"),
        ("info depth 2 currline 1 a1-a2 b1-b2 nodes 10", "info depth 2 nodes 10"),  # unknown fields skipped
        ("info depth 2 refutation a1-a2 b1-b2 pv c1-c2", "info depth 2 pv c1-c2"),
        ("info depth 1 depth 2", "info depth 2"),
        ("info string   spaced   out ", "info string spaced out"),
        ("option name S type string default", "option name S type string default <empty>"),
        ("id   name  x  ", "id name x"),
        ("bestmove e1-e3\r\n", "bestmove e1-e3"),
    ],
)
def test_responses_are_written_canonically(line: str, canonical: str) -> None:
    assert format_response(parse_response(line)) == canonical


def test_error_info_is_one_line_with_its_reason() -> None:
    info = error_info("bad FEN:\n  missing field")
    assert format_response(info) == "info string error bad FEN: missing field"
    assert parse_response("info string error bad FEN: missing field").error == "bad FEN: missing field"
    assert parse_response("info string hello").error is None
    assert Info(depth=3).error is None


@pytest.mark.parametrize(
    "line,message",
    [
        ("", "empty command"),
        ("   \r\n", "empty command"),
        ("foo bar", "unknown command 'foo'"),
        ("Uci", "unknown command 'Uci'"),
        ("uci now", "'uci' takes no arguments"),
        ("isready 1", "'isready' takes no arguments"),
        ("setoption", "setoption: expected 'setoption name <name> [value <value>]'"),
        ("setoption Hash value 3", "setoption: expected"),
        ("setoption name value 3", "the option name is missing"),
        ("position", "position: expected 'position startpos|fen <FEN> [moves <move> ...]'"),
        ("position start", "expected 'startpos' or 'fen', found 'start'"),
        ("position startpos e1-e3", "expected 'moves' after 'startpos', found 'e1-e3'"),
        ("position fen", "the FEN is missing"),
        ("position fen moves e1-e3", "the FEN is missing"),
        ("go depth", "go: 'depth' needs a value"),
        ("go depth 0", "go depth: must be at least 1, found 0"),
        ("go depth x", "go depth: expected an integer, found 'x'"),
        ("go depth 3.5", "expected an integer, found '3.5'"),
        ("go depth ³", "expected an integer"),
        ("go depth 1234567890123456789", "out of range"),
        ("go movestogo 0", "must be at least 1"),
        ("go winc -1", "must be at least 0"),
        ("go ponder ponder", "go: 'ponder' is given twice"),
        ("go searchmoves", "go: 'searchmoves' needs at least one move"),
        ("go searchmoves e1-e3 depth 2 searchmoves c1-c3", "go: 'searchmoves' is given twice"),
        ("go mate 0", "go mate: must be at least 1, found 0"),
        ("go mate", "go: 'mate' needs a value"),
        ("ponderhit now", "'ponderhit' takes no arguments"),
        ("go depth 2 depth 3", "'depth' is given twice"),
        ("go wtime 1 p1time 2", "'wtime' is given twice"),
        ("go infinite infinite", "'infinite' is given twice"),
        ("go wtime 1 p2time 2", "do not mix UCI clock words"),
        ("go perft", "'go perft' takes exactly one argument"),
        ("go perft 3 depth 2", "'go perft' takes exactly one argument"),
        ("go perft -1", "go perft: must be at least 0"),
        ("query", "query: expected 'query gameover|p1turn|result|fen|moves|size|startpos'"),
        ("query time", "query: expected"),
    ],
)
def test_bad_commands_raise_one_clear_line(line: str, message: str) -> None:
    with pytest.raises(ProtocolError) as error:
        parse_command(line)
    text = str(error.value)
    assert message in text
    assert "\n" not in text


@pytest.mark.parametrize(
    "line,message",
    [
        ("", "empty response"),
        ("hello there world", "unknown response 'hello'"),
        ("uciok 1", "'uciok' takes no arguments"),
        ("bestmove", "bestmove: expected"),
        ("bestmove a b", "bestmove: expected"),
        ("info depth", "'depth' needs a value"),
        ("info depth -1", "must be at least 0"),
        ("info score 5", "expected 'score cp <centipawns>' or 'score mate <moves>'"),
        ("info score cp x", "info score cp: expected an integer"),
        ("info currmove", "'currmove' needs a move"),
        ("info score cp 5 wdl 3 969", "'wdl' needs three counts"),
        ("info depth 2 lowerbound", "'lowerbound' without a score before it"),
        ("info wdl 3 -969 28", "info wdl: must be at least 0"),
        ("option name X", "'type' is missing"),
        ("option name type spin", "the option name is missing"),
        ("option name X type colour", "type must be one of check, spin, combo, button, string"),
        ("option name X type spin default a", "expected an integer"),
        ("option name X type spin default 5 min 6", "outside min..max"),
        ("option name X type spin min 6 max 5", "min 6 is above max 5"),
        ("option name X type check default maybe", "must be 'true' or 'false'"),
        ("option name X type check min 1", "only a spin option has min and max"),
        ("option name X type string var a", "only a combo option has var values"),
        ("option name X type combo default c var a var b", "not one of the var values"),
        ("option name X type button default 1", "a button has no default"),
        ("option name X type spin default 1 default 2", "'default' is given twice"),
        ("option name X type spin foo", "unexpected 'foo'"),
        ("id", "id: expected"),
        ("response", "response: expected"),
        ("Nodes searched", "expected 'Nodes searched: <count>'"),
        ("e1-e3 ⁵", "expected an integer"),
    ],
)
def test_bad_responses_raise_one_clear_line(line: str, message: str) -> None:
    with pytest.raises(ProtocolError) as error:
        parse_response(line)
    assert message in str(error.value)
    assert "\n" not in str(error.value)


def test_long_garbage_is_shortened_in_the_message() -> None:
    with pytest.raises(ProtocolError) as error:
        parse_command("x" * 10_000)
    assert len(str(error.value)) < 100


def test_the_reader_makes_each_info_as_its_constructor_would() -> None:
    """What the reader makes of an info line equals, hashes and prints as the Info made by
    hand, every field it does not name at its default, and stays frozen."""
    line = (
        "info depth 3 seldepth 5 multipv 2 score mate -4 upperbound nodes 10 nps 20 time 30 hashfull 40 "
        "tbhits 50 cpuload 60 currmove e1-e3 currmovenumber 2 pv e1-e3 d8-d6 string two words"
    )
    made = Info(
        depth=3,
        seldepth=5,
        multipv=2,
        score_mate=-4,
        score_bound="upper",
        nodes=10,
        nps=20,
        time=30,
        hashfull=40,
        tbhits=50,
        cpuload=60,
        currmove="e1-e3",
        currmovenumber=2,
        pv=("e1-e3", "d8-d6"),
        string="two words",
    )
    read = parse_response(line)
    assert read == made and hash(read) == hash(made) and repr(read) == repr(made)
    assert parse_response("info") == Info() and parse_response("info depth 1").pv == ()
    with pytest.raises(dataclasses.FrozenInstanceError):
        read.depth = 4  # type: ignore[misc]


# The numbers a host sets for a move, each from the least the wire takes.
_MOVE_NUMBERS = {"wtime": -(10**12), "btime": -(10**12), "winc": 0, "binc": 0, "movestogo": 1, "movetime": 0}
_MOVE_NUMBERS |= {"depth": 1, "nodes": 1}


@settings(max_examples=300, deadline=None)
@given(st.fixed_dictionaries({}, optional={name: st.integers(low, 10**12) for name, low in _MOVE_NUMBERS.items()}))
def test_a_hosts_limit_of_a_move_reads_back_as_itself(numbers: dict[str, int]) -> None:
    """A move's Limit, with any of the numbers a host sets (none at all: ``infinite``), writes a
    ``go`` line that reads back as the same Limit, its numbers in the order of its fields; the
    Limit stays frozen."""
    limit = Limit(**numbers)
    assert limit.infinite is (not numbers) and limit.mate is None and limit.searchmoves == ()
    line = format_command(Go(limit))
    assert parse_command(line) == Go(limit)
    assert line.split()[1::2] == [name for name in _MOVE_NUMBERS if name in numbers] or line == "go infinite"
    with pytest.raises(dataclasses.FrozenInstanceError):
        limit.wtime = 4  # type: ignore[misc]


def test_a_limit_subclass_writes_the_same_go_line() -> None:
    """The ``go`` writer reads a Limit's fields from its dict at once, and a subclass's one by
    one (it may compute one): the same line either way."""

    class Tagged(Limit):
        pass

    fields = {"wtime": 1000, "btime": 2000, "depth": 7, "ponder": True, "searchmoves": ("a1-b2",)}
    line = format_command(Go(Limit(**fields)))  # type: ignore[arg-type]
    assert line == "go wtime 1000 btime 2000 depth 7 ponder searchmoves a1-b2"
    assert format_command(Go(Tagged(**fields))) == line  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "value,message",
    [
        (SetOption("a value b", "1"), "contains the keyword 'value'"),
        (SetOption("Hash", "a\nb"), "single spaces"),
        (SetOption("", "1"), "single spaces"),
        (Position("W:W1a1:B moves", ()), "contains the keyword 'moves'"),
        (Position(None, ("e1 e3",)), "one token"),
        (Position(None, ["e1-e3"]), "must be a tuple"),  # type: ignore[arg-type]
        (Go(Limit(depth=0)), "go depth: must be at least 1"),
        (Go(Limit(nodes=True)), "expected an integer"),  # type: ignore[arg-type]
        (Go(Limit(movetime=10**20)), "out of range"),
        (Go(Limit(infinite=1)), "infinite must be True or False"),  # type: ignore[arg-type]
        (GoPerft(-1), "must be at least 0"),
        (Query("time"), "query: item must be one of"),  # type: ignore[arg-type]
        ("uci", "not a command"),
    ],
)
def test_values_that_cannot_be_written_raise(value: object, message: str) -> None:
    with pytest.raises(ProtocolError) as error:
        format_command(value)  # type: ignore[arg-type]
    assert message in str(error.value)


@pytest.mark.parametrize(
    "value,message",
    [
        (Info(score_cp=1, score_mate=2), "either cp or mate"),
        (Info(score_bound="lower"), "score_bound without a score"),
        (Info(score_cp=1, score_bound="exact"), "must be 'lower' or 'upper'"),  # type: ignore[arg-type]
        (Info(pv=("a", "depth")), "is an info keyword"),
        (Info(pv=("a b",)), "one token"),
        (Info(depth=-1), "must be at least 0"),
        (Info(wdl=(1, 2)), "wdl must be a tuple of three counts"),  # type: ignore[arg-type]
        (Info(wdl=(1, -2, 3)), "info wdl: must be at least 0"),
        (Info(string="two\nlines"), "single spaces"),
        (BestMove(None, "e1-e3"), "has no ponder move"),
        (BestMove(""), "one token"),
        (OptionSpec("X", "spin", "16"), "expected an integer"),
        (OptionSpec("X", "check", 1), "must be True or False"),
        (OptionSpec("X", "string", "<empty>"), "cannot be written"),
        (OptionSpec("X", "string", "a var b"), "contains the keyword 'var'"),
        (OptionSpec("X", "combo", "c", vars=("a", "b")), "not one of the var values"),
        (OptionSpec("X", "check", min=1), "only a spin option has min and max"),
        (OptionSpec("X", "string", vars=("a",)), "only a combo option has var values"),
        (OptionSpec("X", "button", True), "a button has no default"),
        (OptionSpec("X type", "spin"), "contains the keyword 'type'"),
        (OptionSpec("X", "colour"), "type must be one of"),  # type: ignore[arg-type]
        (Id("na me", "x"), "one token"),
        (QueryResponse("a  b"), "single spaces"),
        (QueryResponse(""), "single spaces"),
        (PerftMove("info", 3), "is a response keyword"),
        (PerftMove("e1-e3", -3), "must be at least 0"),
        (PerftTotal(-1), "must be at least 0"),
        (Uci(), "not a response"),
    ],
)
def test_responses_that_cannot_be_written_raise(value: object, message: str) -> None:
    with pytest.raises(ProtocolError) as error:
        format_response(value)  # type: ignore[arg-type]
    assert message in str(error.value)


def test_non_text_input_raises_protocol_error() -> None:
    for bad in (None, b"uci", 3):
        with pytest.raises(ProtocolError):
            parse_command(bad)  # type: ignore[arg-type]
        with pytest.raises(ProtocolError):
            parse_response(bad)  # type: ignore[arg-type]


# -- fuzzing --------------------------------------------------------------------------------
WORDS = sorted(
    {
        "uci",
        "ugi",
        "isready",
        "setoption",
        "name",
        "value",
        "ucinewgame",
        "uginewgame",
        "position",
        "startpos",
        "fen",
        "moves",
        "go",
        "perft",
        "wtime",
        "btime",
        "winc",
        "binc",
        "movestogo",
        "movetime",
        "depth",
        "nodes",
        "infinite",
        "p1time",
        "p2time",
        "p1inc",
        "p2inc",
        "stop",
        "quit",
        "query",
        "gameover",
        "p1turn",
        "result",
        "id",
        "author",
        "uciok",
        "ugiok",
        "readyok",
        "option",
        "type",
        "spin",
        "check",
        "combo",
        "button",
        "string",
        "default",
        "min",
        "max",
        "var",
        "<empty>",
        "bestmove",
        "ponder",
        "(none)",
        "info",
        "seldepth",
        "multipv",
        "score",
        "cp",
        "mate",
        "lowerbound",
        "upperbound",
        "nps",
        "time",
        "hashfull",
        "tbhits",
        "cpuload",
        "currmove",
        "currmovenumber",
        "pv",
        "refutation",
        "currline",
        "response",
        "Nodes",
        "searched:",
        "true",
        "false",
        "e1-e3",
        "pass",
        "c7-off:3",
        "W:W12c1:B12d8",
        "0",
        "1",
        "-1",
        "7",
        "-0",
        "999999999999999999",
        "9999999999999999999",
        "3.5",
        "²",
        "",
    }
)
TOKEN = st.one_of(st.sampled_from(WORDS), st.integers(-(10**20), 10**20).map(str), st.text(max_size=6))
LINE = st.one_of(st.text(max_size=80), st.lists(TOKEN, max_size=14).map(" ".join))


def _check_round_trip(line: str, parse: object, write: object) -> None:
    try:
        value = parse(line)  # type: ignore[operator]
    except ProtocolError as error:
        assert "\n" not in str(error)
        return
    text = write(value)  # type: ignore[operator]
    assert parse(text) == value  # type: ignore[operator]
    assert write(parse(text)) == text  # type: ignore[operator]


@settings(max_examples=1500, deadline=None)
@given(LINE)
@pytest.mark.slow
def test_random_commands_parse_or_raise_protocol_error(line: str) -> None:
    _check_round_trip(line, parse_command, format_command)


@pytest.mark.slow
@settings(max_examples=1500, deadline=None)
@given(LINE)
def test_random_responses_parse_or_raise_protocol_error(line: str) -> None:
    _check_round_trip(line, parse_response, format_response)
