"""Text from outside (an engine's output, a name on the command line) made safe to show.

Engines may write any bytes; what the arbiter shows of them on the console and writes into its
records must not carry control characters or terminal escape sequences.
"""

from __future__ import annotations

from .errors import ArbiterError


def visible(text: str) -> str:
    """``text`` with every character that is not printable (controls, escape sequences' ESC,
    line and paragraph separators, format characters) written as a Python escape (``\\x1b``)."""
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() else repr(char)[1:-1] for char in text)


def check_printable(text: str, what: str) -> str:
    """``text`` itself when it has no control character (a newline, an escape...); else one
    line naming ``what``.  Names, options and tags the arbiter writes into its records must
    keep each record on its lines."""
    if not text.isprintable():
        bad = next(char for char in text if not char.isprintable())
        raise ArbiterError(f"{what} '{visible(text)}' contains the control character {visible(bad)}; not allowed")
    return text
