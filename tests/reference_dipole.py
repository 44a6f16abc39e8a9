"""An independent, deliberately naive Dipole move generator, written straight from the rules.

It shares nothing with dipole_engine.rules.dipole but square naming, and serves to cross-check
the fast table-driven generator on many positions.
"""

from __future__ import annotations

from dipole_engine.rules import DipoleBoard

DIRECTIONS = [(df, dr) for df in (-1, 0, 1) for dr in (-1, 0, 1) if (df, dr) != (0, 0)]


def reference_moves(board: DipoleBoard) -> set[str]:
    """The move texts of every legal move, computed from first principles."""
    geom = board.geometry
    grid = {(geom.file_of(sq), geom.rank_of(sq)): v for sq, v in enumerate(board.cells) if v}
    me = board.turn
    if not any(v * me > 0 for v in grid.values()) or not any(v * me < 0 for v in grid.values()):
        return set()
    moves: set[str] = set()
    for (file, rank), value in grid.items():
        height = value * me
        if height <= 0:
            continue
        origin = geom.name(geom.square(file, rank))
        for k in range(1, height + 1):
            for df, dr in DIRECTIONS:
                forward = dr == me  # White's forward is up the board (rank grows)
                tf, tr = file + df * k, rank + dr * k
                if not (0 <= tf < geom.width and 0 <= tr < geom.height):
                    if forward:
                        moves.add(f"{origin}-off:{k}")
                    continue
                if (tf + tr) % 2:
                    continue  # a light square: only straight moves of odd length end there
                target = geom.name(geom.square(tf, tr))
                occupant = grid.get((tf, tr), 0) * me
                if occupant == 0 and forward:
                    moves.add(f"{origin}-{target}")
                elif occupant > 0 and forward:
                    moves.add(f"{origin}+{target}")
                elif occupant < 0 and -occupant <= k:
                    moves.add(f"{origin}x{target}")
    return moves or {"pass"}
