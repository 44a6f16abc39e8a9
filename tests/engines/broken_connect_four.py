"""A Connect Four engine broken in one way, for the tests of ``dipole-arbiter check-engine`` on a
game plug-in: the example plug-in's protocol and rules, playing the first legal column, except
that once a column is full it answers that column, which is illegal."""

from __future__ import annotations

from connect_four_plug import GAME
from connect_four_plug.rules import FILES, HEIGHT, ConnectFourState

from gameplug.serve import serve_game
from protocol.loop import SearchJob


def search(job: SearchJob[ConnectFourState]) -> str | None:
    state = job.position
    moves = state.legal_moves()
    full = [column for column, height in enumerate(state.heights) if height == HEIGHT]
    if moves and full:
        return FILES[full[0]]
    return state.move_text(moves[0]) if moves else None


if __name__ == "__main__":
    raise SystemExit(serve_game(GAME, search, name="Broken Connect Four"))
