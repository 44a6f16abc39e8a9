"""The EPD book of benchmarks/chess_vs_fastchess.py: 101 common chess openings, 8 to 16 plies deep.

    python benchmarks/chess_openings.py          # writes benchmarks/chess_openings.epd

Each line below is a main line of a well-known opening (as in any opening manual; written here
from the common repertoire, no database or network used), played out with python-chess into the
position it reaches.  The book gives each position's four FEN fields and its name
(``id "...";``), which both the arbiter and fastchess read; both runners take the openings in
the same order (``order=sequential``), each twice, colours reversed.
"""

from __future__ import annotations

from pathlib import Path

import chess

BOOK = Path(__file__).resolve().parent / "chess_openings.epd"

LINES = [
    ("Ruy Lopez, Morphy Defence", "e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7"),
    ("Ruy Lopez, Berlin Defence", "e4 e5 Nf3 Nc6 Bb5 Nf6 O-O Nxe4 d4 Nd6"),
    ("Ruy Lopez, Closed", "e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7 Re1 b5 Bb3 d6"),
    ("Ruy Lopez, Exchange", "e4 e5 Nf3 Nc6 Bb5 a6 Bxc6 dxc6 O-O f6"),
    ("Ruy Lopez, Marshall Attack", "e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7 Re1 b5 Bb3 O-O c3 d5"),
    ("Italian, Giuoco Pianissimo", "e4 e5 Nf3 Nc6 Bc4 Bc5 c3 Nf6 d3 d6"),
    ("Italian, Two Knights", "e4 e5 Nf3 Nc6 Bc4 Nf6 d3 Be7 O-O O-O"),
    ("Scotch Game", "e4 e5 Nf3 Nc6 d4 exd4 Nxd4 Nf6 Nxc6 bxc6"),
    ("Scotch, Classical", "e4 e5 Nf3 Nc6 d4 exd4 Nxd4 Bc5 Be3 Qf6"),
    ("Petrov Defence", "e4 e5 Nf3 Nf6 Nxe5 d6 Nf3 Nxe4 d4 d5"),
    ("Four Knights, Spanish", "e4 e5 Nf3 Nc6 Nc3 Nf6 Bb5 Bb4 O-O O-O"),
    ("Vienna Game", "e4 e5 Nc3 Nf6 g3 d5 exd5 Nxd5 Bg2 Nxc3"),
    ("Philidor Defence", "e4 e5 Nf3 d6 d4 Nf6 Nc3 Nbd7 Bc4 Be7"),
    ("King's Gambit Declined", "e4 e5 f4 Bc5 Nf3 d6 c3 Nf6"),
    ("Sicilian, Najdorf", "e4 c5 Nf3 d6 d4 cxd4 Nxd4 Nf6 Nc3 a6 Be3 e5"),
    ("Sicilian, Najdorf 6.Bg5", "e4 c5 Nf3 d6 d4 cxd4 Nxd4 Nf6 Nc3 a6 Bg5 e6"),
    ("Sicilian, Dragon", "e4 c5 Nf3 d6 d4 cxd4 Nxd4 Nf6 Nc3 g6 Be3 Bg7 f3 O-O"),
    ("Sicilian, Classical", "e4 c5 Nf3 d6 d4 cxd4 Nxd4 Nf6 Nc3 Nc6 Bg5 e6"),
    ("Sicilian, Scheveningen", "e4 c5 Nf3 e6 d4 cxd4 Nxd4 Nf6 Nc3 d6 Be2 Be7"),
    ("Sicilian, Taimanov", "e4 c5 Nf3 e6 d4 cxd4 Nxd4 Nc6 Nc3 Qc7 Be2 a6"),
    ("Sicilian, Kan", "e4 c5 Nf3 e6 d4 cxd4 Nxd4 a6 Bd3 Nf6 O-O Qc7"),
    ("Sicilian, Sveshnikov", "e4 c5 Nf3 Nc6 d4 cxd4 Nxd4 Nf6 Nc3 e5 Ndb5 d6 Bg5 a6"),
    ("Sicilian, Accelerated Dragon", "e4 c5 Nf3 Nc6 d4 cxd4 Nxd4 g6 c4 Bg7 Be3 Nf6"),
    ("Sicilian, Rossolimo", "e4 c5 Nf3 Nc6 Bb5 g6 O-O Bg7 Re1 e5"),
    ("Sicilian, Moscow", "e4 c5 Nf3 d6 Bb5+ Bd7 Bxd7+ Qxd7 O-O Nc6"),
    ("Sicilian, Alapin", "e4 c5 c3 Nf6 e5 Nd5 d4 cxd4 Nf3 Nc6"),
    ("Sicilian, Closed", "e4 c5 Nc3 Nc6 g3 g6 Bg2 Bg7 d3 d6"),
    ("Sicilian, Four Knights", "e4 c5 Nf3 e6 d4 cxd4 Nxd4 Nf6 Nc3 Nc6 Nxc6 bxc6"),
    ("French, Winawer", "e4 e6 d4 d5 Nc3 Bb4 e5 c5 a3 Bxc3+ bxc3 Ne7"),
    ("French, Classical", "e4 e6 d4 d5 Nc3 Nf6 Bg5 Be7 e5 Nfd7 Bxe7 Qxe7"),
    ("French, Tarrasch", "e4 e6 d4 d5 Nd2 Nf6 e5 Nfd7 Bd3 c5 c3 Nc6"),
    ("French, Advance", "e4 e6 d4 d5 e5 c5 c3 Nc6 Nf3 Qb6"),
    ("French, Rubinstein", "e4 e6 d4 d5 Nc3 dxe4 Nxe4 Nd7 Nf3 Ngf6"),
    ("French, Exchange", "e4 e6 d4 d5 exd5 exd5 Nf3 Nf6 Bd3 Bd6"),
    ("Caro-Kann, Classical", "e4 c6 d4 d5 Nc3 dxe4 Nxe4 Bf5 Ng3 Bg6 h4 h6"),
    ("Caro-Kann, Advance", "e4 c6 d4 d5 e5 Bf5 Nf3 e6 Be2 c5"),
    ("Caro-Kann, Panov", "e4 c6 d4 d5 exd5 cxd5 c4 Nf6 Nc3 e6 Nf3 Be7"),
    ("Caro-Kann, Two Knights", "e4 c6 Nc3 d5 Nf3 Bg4 h3 Bxf3 Qxf3 e6"),
    ("Caro-Kann, Karpov", "e4 c6 d4 d5 Nd2 dxe4 Nxe4 Nd7 Nf3 Ngf6"),
    ("Pirc Defence", "e4 d6 d4 Nf6 Nc3 g6 Nf3 Bg7 Be2 O-O"),
    ("Modern Defence", "e4 g6 d4 Bg7 Nc3 d6 Be3 a6"),
    ("Alekhine, Modern", "e4 Nf6 e5 Nd5 d4 d6 Nf3 Bg4 Be2 e6"),
    ("Scandinavian, Main Line", "e4 d5 exd5 Qxd5 Nc3 Qa5 d4 Nf6 Nf3 c6"),
    ("Scandinavian, Modern", "e4 d5 exd5 Nf6 d4 Nxd5 Nf3 g6"),
    ("Queen's Gambit Declined, Orthodox", "d4 d5 c4 e6 Nc3 Nf6 Bg5 Be7 e3 O-O Nf3 Nbd7"),
    ("Queen's Gambit Declined, Exchange", "d4 d5 c4 e6 Nc3 Nf6 cxd5 exd5 Bg5 Be7 e3 c6"),
    ("Queen's Gambit Declined, Ragozin", "d4 d5 c4 e6 Nc3 Nf6 Nf3 Bb4 cxd5 exd5"),
    ("Queen's Gambit Declined, Tartakower", "d4 d5 c4 e6 Nc3 Nf6 Bg5 Be7 e3 O-O Nf3 h6 Bh4 b6"),
    ("Queen's Gambit Accepted", "d4 d5 c4 dxc4 Nf3 Nf6 e3 e6 Bxc4 c5 O-O a6"),
    ("Slav, Main Line", "d4 d5 c4 c6 Nf3 Nf6 Nc3 dxc4 a4 Bf5 e3 e6"),
    ("Slav, Exchange", "d4 d5 c4 c6 cxd5 cxd5 Nc3 Nf6 Bf4 Nc6"),
    ("Semi-Slav, Meran", "d4 d5 c4 c6 Nf3 Nf6 Nc3 e6 e3 Nbd7 Bd3 dxc4 Bxc4 b5"),
    ("Semi-Slav, Moscow", "d4 d5 c4 c6 Nf3 Nf6 Nc3 e6 Bg5 h6 Bh4 dxc4"),
    ("Tarrasch Defence", "d4 d5 c4 e6 Nc3 c5 cxd5 exd5 Nf3 Nc6 g3 Nf6"),
    ("Chigorin Defence", "d4 d5 c4 Nc6 Nf3 Bg4 cxd5 Bxf3 gxf3 Qxd5"),
    ("London System", "d4 d5 Nf3 Nf6 Bf4 e6 e3 c5 c3 Nc6"),
    ("Colle System", "d4 d5 Nf3 Nf6 e3 e6 Bd3 c5 c3 Nc6"),
    ("Nimzo-Indian, Rubinstein", "d4 Nf6 c4 e6 Nc3 Bb4 e3 O-O Bd3 d5 Nf3 c5"),
    ("Nimzo-Indian, Classical", "d4 Nf6 c4 e6 Nc3 Bb4 Qc2 O-O a3 Bxc3+ Qxc3 b6"),
    ("Nimzo-Indian, Samisch", "d4 Nf6 c4 e6 Nc3 Bb4 a3 Bxc3+ bxc3 c5 e3 Nc6"),
    ("Queen's Indian", "d4 Nf6 c4 e6 Nf3 b6 g3 Ba6 b3 Bb4+ Bd2 Be7"),
    ("Bogo-Indian", "d4 Nf6 c4 e6 Nf3 Bb4+ Bd2 Qe7 g3 Nc6"),
    ("Catalan, Open", "d4 Nf6 c4 e6 g3 d5 Bg2 dxc4 Nf3 Be7 O-O O-O"),
    ("Catalan, Closed", "d4 Nf6 c4 e6 g3 d5 Nf3 Be7 Bg2 O-O O-O Nbd7"),
    ("King's Indian, Classical", "d4 Nf6 c4 g6 Nc3 Bg7 e4 d6 Nf3 O-O Be2 e5 O-O Nc6"),
    ("King's Indian, Samisch", "d4 Nf6 c4 g6 Nc3 Bg7 e4 d6 f3 O-O Be3 e5"),
    ("King's Indian, Fianchetto", "d4 Nf6 c4 g6 Nf3 Bg7 g3 O-O Bg2 d6 O-O Nbd7"),
    ("King's Indian, Averbakh", "d4 Nf6 c4 g6 Nc3 Bg7 e4 d6 Be2 O-O Bg5 c5"),
    ("Grunfeld, Exchange", "d4 Nf6 c4 g6 Nc3 d5 cxd5 Nxd5 e4 Nxc3 bxc3 Bg7"),
    ("Grunfeld, Russian", "d4 Nf6 c4 g6 Nc3 d5 Nf3 Bg7 Qb3 dxc4 Qxc4 O-O"),
    ("Grunfeld, Fianchetto", "d4 Nf6 c4 g6 g3 d5 Bg2 Bg7 cxd5 Nxd5 Nf3 O-O"),
    ("Benoni, Modern", "d4 Nf6 c4 c5 d5 e6 Nc3 exd5 cxd5 d6 e4 g6"),
    ("Benko Gambit Declined", "d4 Nf6 c4 c5 d5 b5 Nf3 g6 cxb5 a6"),
    ("Dutch, Leningrad", "d4 f5 g3 Nf6 Bg2 g6 Nf3 Bg7 O-O O-O c4 d6"),
    ("Dutch, Stonewall", "d4 e6 c4 f5 g3 Nf6 Bg2 d5 Nf3 c6 O-O Bd6"),
    ("Dutch, Classical", "d4 f5 c4 Nf6 g3 e6 Bg2 Be7 Nf3 O-O O-O d6"),
    ("Trompowsky", "d4 Nf6 Bg5 e6 e4 h6 Bxf6 Qxf6 Nc3 d6"),
    ("Torre Attack", "d4 Nf6 Nf3 e6 Bg5 c5 e3 h6 Bh4 b6"),
    ("Old Indian", "d4 Nf6 c4 d6 Nc3 Nbd7 e4 e5 Nf3 c6"),
    ("English, Symmetrical", "c4 c5 Nc3 Nc6 g3 g6 Bg2 Bg7 Nf3 Nf6 O-O O-O"),
    ("English, Four Knights", "c4 e5 Nc3 Nf6 Nf3 Nc6 g3 d5 cxd5 Nxd5"),
    ("English, Reversed Sicilian", "c4 e5 Nc3 Nc6 g3 g6 Bg2 Bg7 d3 d6"),
    ("English, Anglo-Indian", "c4 Nf6 Nc3 e6 e4 d5 e5 d4"),
    ("English, Hedgehog", "c4 c5 Nf3 Nf6 Nc3 e6 g3 b6 Bg2 Bb7 O-O Be7"),
    ("English, Mikenas", "c4 Nf6 Nc3 e6 e4 c5 e5 Ng8 Nf3 Nc6"),
    ("Reti Opening", "Nf3 d5 c4 e6 g3 Nf6 Bg2 Be7 O-O O-O"),
    ("Reti, King's Indian Attack", "Nf3 d5 g3 Nf6 Bg2 c6 O-O Bg4 d3 Nbd7"),
    ("Reti, Neo-Catalan", "Nf3 Nf6 c4 e6 g3 d5 Bg2 dxc4 Qa4+ Nbd7"),
    ("King's Indian Attack vs French", "e4 e6 d3 d5 Nd2 Nf6 Ngf3 c5 g3 Nc6 Bg2 Be7"),
    ("Larsen's Opening", "b3 e5 Bb2 Nc6 e3 d5 Bb5 Bd6"),
    ("Bird's Opening", "f4 d5 Nf3 Nf6 e3 g6 Be2 Bg7 O-O O-O"),
    ("Catalan, Bogo", "d4 Nf6 c4 e6 g3 Bb4+ Bd2 Be7 Bg2 d5 Nf3 O-O"),
    ("Semi-Tarrasch", "d4 d5 c4 e6 Nc3 Nf6 Nf3 c5 cxd5 Nxd5 e4 Nxc3 bxc3 cxd4"),
    ("Vienna, Queen's Gambit", "d4 d5 c4 e6 Nc3 Nf6 Nf3 Bb4 Bg5 dxc4 e4 c5"),
    ("Sicilian, Richter-Rauzer", "e4 c5 Nf3 Nc6 d4 cxd4 Nxd4 Nf6 Nc3 d6 Bg5 e6 Qd2 a6"),
    ("Sicilian, Grand Prix", "e4 c5 Nc3 Nc6 f4 g6 Nf3 Bg7 Bc4 e6"),
    ("Giuoco Piano, Main Line", "e4 e5 Nf3 Nc6 Bc4 Bc5 c3 Nf6 d4 exd4 cxd4 Bb4+ Bd2 Bxd2+"),
    ("Ruy Lopez, Anti-Marshall", "e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7 Re1 b5 Bb3 O-O a4 Bb7"),
    ("Caro-Kann, Exchange", "e4 c6 d4 d5 exd5 cxd5 Bd3 Nc6 c3 Nf6 Bf4 Bg4"),
    ("Four Knights, Scotch", "e4 e5 Nf3 Nc6 Nc3 Nf6 d4 exd4 Nxd4 Bb4 Nxc6 bxc6"),
    ("Owen vs Queen's Pawn", "d4 e6 c4 b6 Nc3 Bb7 e4 Bb4 Bd3 f5"),
]


def epd_lines() -> list[str]:
    """The book's lines: each opening's position (four FEN fields) and its name."""
    lines = []
    for name, moves in LINES:
        board = chess.Board()
        for move in moves.split():
            board.push_san(move)
        if board.is_game_over():
            raise SystemExit(f"{name}: the game is over after {moves}")
        lines.append(board.epd(id=name))
    return lines


def main() -> None:
    BOOK.write_text("\n".join(epd_lines()) + "\n")
    print(f"{BOOK}: {len(LINES)} openings")


if __name__ == "__main__":
    main()
