"""Connect Four as a game plug-in of the dipole-engine host: the rules (:mod:`.rules`) behind the
gameplug interface, and an engine for it on ``protocol.loop`` (:mod:`.engine`).

``GAME`` is what the entry point ``connect-four`` in the group ``gameplug.games`` names
(``pyproject.toml``), so that, once this package is installed, every host command and page offers
Connect Four.
"""

from .rules import GAME, ConnectFour, ConnectFourState

__all__ = ["GAME", "ConnectFour", "ConnectFourState"]
