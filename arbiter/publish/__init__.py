"""``dipole-arbiter publish``: a static site of events (see :mod:`.site`); :mod:`.gamepage` makes a
game ready for its page.  Imports records, events, stats, report and board; nothing imports it
but the command line."""
