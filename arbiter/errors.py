"""The one exception type the arbiter raises for bad user input (flags, files, configs).

Its ``str()`` is a single line saying what is wrong and where; the command line prints it as
``dipole-arbiter: error: <reason>`` and exits with status 2.
"""

from __future__ import annotations


class ArbiterError(ValueError):
    """Bad input to the arbiter: an engine spec, a time control, an openings or PGN file."""
