"""The browser GUI: a local web app that plays, watches and analyses games with any engine.

The server runs the games, any installed one, through the game interface (:mod:`gameplug`), and
the engines (:class:`protocol.EngineClient`); the page (``dipole_gui/static``) only draws what the
server sends (the game's own picture of its board, its moves as it describes them) and sends back
clicks; the board's JSON and drawing come from :mod:`arbiter.board`.  Modules, bottom up:

- :mod:`.addresses` which host names are loopback, and the URLs a server prints;
- :mod:`.limits` the games and analyses running engines at once, per server and per client;
- :mod:`.config` what the server was started with (engines, token, limits), as the page sees it;
- :mod:`.timesetting` the time control the page chose;
- :mod:`.seats` one engine process per game seat, on its own long-lived thread;
- :mod:`.pagemessages` what a page may send (its limits, decoded) and the writer that sends to it;
- :mod:`.pagestate` what a page draws of its game: the ``state``, ``plies`` and ``thinking`` messages;
- :mod:`.analysis` one engine searching the position shown;
- :mod:`.refereeing` a page's game in the hands of the arbiter's referee, and its news brought back;
- :mod:`.pgnfiles` the PGN files a page opens, and the game it saves;
- :mod:`.pagerequests` what a page may ask of its game: a handler per message;
- :mod:`.session` one game on the server: position, history, players, clocks, its pages;
- :mod:`.games` the server's games by id, kept while their pages come and go;
- :mod:`.server` the Starlette app (routes, the WebSocket, the access token);
- :mod:`.cli` the ``dipole-gui`` command.
"""
