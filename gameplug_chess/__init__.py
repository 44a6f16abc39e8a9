"""Chess and Chess960 as a gameplug game, with python-chess's rules (an optional extra).

The entry point ``chess = "gameplug_chess:GAME"`` (group ``gameplug.games``) names :data:`GAME`.
python-chess is not a dependency of the project: without it this import fails with one line
saying how to install it, and the registry names the plug-in as broken while the other games
work.  python-chess is GPL-3.0; so are the piece images it ships, which the board picture uses.
"""

try:
    import chess  # noqa: F401  (only to say what is missing, in one line, when it is)
except ImportError as missing:
    raise ImportError("chess needs python-chess: pip install -e '.[chess]'") from missing

from .game import GAME, ChessGame, ChessState, chess960_start

__all__ = ["GAME", "ChessGame", "ChessState", "chess960_start"]
