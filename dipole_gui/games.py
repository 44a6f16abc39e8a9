"""The server's games: each :class:`~dipole_gui.session.Session` by its id, the pages attached to it,
and when a game nobody looks at is dropped.

A page's WebSocket names the game it shows (``/ws?game=ID``, the id the page got in its
``hello`` and keeps in its URL); without an id, or with one that is not (or no longer) here, it
gets a new game, with one line saying why when it asked for one.  A game goes on while no page
is attached, as a refereed game does (the clocks run: a human who is away loses on time), and
is dropped, its engines killed, ``keep`` seconds after its last page went away unless a page
attaches again meanwhile (``keep`` 0: as soon as its last page goes).  So that pages that come
and go cannot pile up games, a client keeps at most :data:`KEPT_PER_CLIENT` games without a
page: beyond that its oldest such game is dropped at once.  Stopping the server drops them all.
"""

from __future__ import annotations

import asyncio

from .config import DEFAULT_KEEP, GuiConfig
from .pagemessages import Page, Send
from .session import Session

KEPT_PER_CLIENT = 8  # games without a page kept for one client address


class Games:
    """The games on the server (see the module docstring); used on the event loop only."""

    def __init__(self, config: GuiConfig, keep: float = DEFAULT_KEEP) -> None:
        self.config = config
        self.keep = keep
        self.games: dict[str, Session] = {}
        # The games without a page, oldest first, and the timer that drops each.
        self._unwatched: dict[str, asyncio.TimerHandle] = {}

    def attach(self, wanted: str | None, send: Send, client: str) -> tuple[Session, Page]:
        """Attach a page to the game ``wanted``, or to a new game when there is no such game."""
        session = self.games.get(wanted) if wanted else None
        notice = None
        if session is None:
            if wanted:
                notice = (
                    f"that game is no longer on the server (a game is dropped {self.keep:g} s after its "
                    f"last page went away, or when the server stops): here is a new one"
                )
            session = Session(self.config, client)
            self.games[session.id] = session
        timer = self._unwatched.pop(session.id, None)
        if timer is not None:
            timer.cancel()
        return session, session.attach(send, notice)

    def detach(self, session: Session, page: Page) -> None:
        """The page went away: with the game's last page, its countdown starts."""
        session.detach(page)
        if session.pages or session.closed:
            return
        if self.keep <= 0:
            self._drop(session)
            return
        self._unwatched[session.id] = asyncio.get_running_loop().call_later(self.keep, self._drop, session)
        kept = [self.games[game] for game in self._unwatched if self.games[game].client == session.client]
        for old in kept[:-KEPT_PER_CLIENT]:
            self._drop(old)

    def _drop(self, session: Session) -> None:
        timer = self._unwatched.pop(session.id, None)
        if timer is not None:
            timer.cancel()
        self.games.pop(session.id, None)
        session.close()

    def close(self) -> None:
        """Drop every game (the server stops)."""
        for timer in self._unwatched.values():
            timer.cancel()
        self._unwatched.clear()
        games, self.games = list(self.games.values()), {}
        for session in games:
            session.close()
