"""How fast the protocol codec reads and writes the lines a host and an engine exchange most.

Prints microseconds per call for parsing and formatting a typical ``info`` line, ``bestmove``,
a ``go`` with clocks and a ``position`` with a 60-move game.  Run: ``python benchmarks/codec_bench.py``.
"""

from __future__ import annotations

import timeit

from protocol import format_command, format_response, parse_command, parse_response

INFO = (
    "info depth 12 seldepth 19 score cp -31 nodes 1234567 nps 104000 time 11870 hashfull 318 "
    "pv e1-e3 d8-d6 c1xe3 d6-d4 e3-e5 d4xd2 pass d2-off:1"
)
BESTMOVE = "bestmove e1-e3"
GO = "go wtime 61234 btime 59876 winc 1000 binc 1000"
POSITION = "position startpos moves " + " ".join(["c1-c3", "d8-d6"] * 30)


def per_call_us(function: object, argument: object, number: int = 20000) -> float:
    best = min(timeit.repeat(lambda: function(argument), number=number, repeat=5))  # type: ignore[operator]
    return best / number * 1e6


def main() -> None:
    rows = [
        ("parse_response(info)", per_call_us(parse_response, INFO)),
        ("format_response(info)", per_call_us(format_response, parse_response(INFO))),
        ("parse_response(bestmove)", per_call_us(parse_response, BESTMOVE)),
        ("parse_command(go clocks)", per_call_us(parse_command, GO)),
        ("format_command(go clocks)", per_call_us(format_command, parse_command(GO))),
        ("parse_command(position, 60 moves)", per_call_us(parse_command, POSITION, 5000)),
        ("format_command(position, 60 moves)", per_call_us(format_command, parse_command(POSITION), 5000)),
    ]
    for name, micros in rows:
        print(f"{name:40s} {micros:8.2f} us/call")


if __name__ == "__main__":
    main()
