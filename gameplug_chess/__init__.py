"""Chess and Chess960 as a gameplug game, with python-chess's rules (an optional extra).

The entry point ``chess = "gameplug_chess:GAME"`` (group ``gameplug.games``) names :data:`GAME`.
python-chess is not a dependency of the project: without it this import fails with one line
saying how to install it, and the registry names the plug-in as broken while the other games
work.  It is looked for here, not imported: :mod:`gameplug_chess.state` imports it when a
position is made.  python-chess is GPL-3.0; so are the piece images it ships, which the board
picture uses.
"""

from importlib.util import find_spec

if find_spec("chess") is None:
    raise ImportError("chess needs python-chess: pip install -e '.[chess]'")

from .game import GAME, ChessGame

__all__ = ["GAME", "ChessGame"]
