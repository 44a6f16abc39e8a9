"""The files the arbiter reads and writes, checked before any of them is touched.

Input files (configs, openings, PGN) are read whole but never more than a sane size, so a file
that never ends (``/dev/zero``, a pipe that keeps writing) is refused instead of filling the
memory; a UTF-8 byte-order mark is accepted, and a name ending in ``.xz`` is read through xz
(a game collection ships compressed: ``dipole_tuner/games``).  Output paths are checked together before
anything is written: none may be empty, a directory, an event database, the event's own
database, or the same file as another output.  An output file is replaced whole (written
beside it, then renamed), its text written as it is made, so a long one is never held whole.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence

from .errors import ArbiterError

MAX_INPUT_BYTES = 256 << 20
"""The largest config, openings or PGN file read (256 MB: millions of games)."""

SQLITE_MAGIC = b"SQLite format 3\x00"  # the first 16 bytes of every SQLite database file


def read_text(path: str, what: str, limit: int = MAX_INPUT_BYTES) -> str:
    """The text of the file at ``path`` (UTF-8, an optional byte-order mark dropped; through xz
    when the name ends in ``.xz``); one clear line naming ``what`` when it cannot be read, is
    not text, or is larger than ``limit`` (uncompressed)."""
    try:
        data = _read_xz(path, what, limit) if path.endswith(".xz") else _read_bytes(path, limit)
    except OSError as error:
        raise ArbiterError(f"{what} {path}: {error.strerror or error}") from None
    if len(data) > limit:
        raise ArbiterError(f"{what} {path}: larger than {limit >> 20} MB (or never ends); not read")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise ArbiterError(f"{what} {path}: not UTF-8 text ({error.reason} at byte {error.start})") from None


def _read_bytes(path: str, limit: int) -> bytes:
    with open(path, "rb") as handle:
        return handle.read(limit + 1)


def _read_xz(path: str, what: str, limit: int) -> bytes:
    import lzma  # only a compressed file needs it

    try:
        with lzma.open(path, "rb") as packed:
            return packed.read(limit + 1)
    except (lzma.LZMAError, EOFError) as error:  # not xz data, or cut short
        raise ArbiterError(f"{what} {path}: not whole xz-compressed data ({error})") from None


def replace_text(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` whole: :func:`replace_text_chunks` with one chunk."""
    replace_text_chunks(path, (text,))


def replace_text_chunks(path: str | os.PathLike[str], chunks: Iterable[str]) -> None:
    """Write the text ``chunks`` (UTF-8), in order, to ``path`` whole, as they come: written
    beside it, then renamed over it, so a reader sees the old file or the new one, never half
    of one.  Raises OSError, or whatever ``chunks`` raises; any failure leaves the old file as
    it was and no temporary file behind."""
    directory, name = os.path.split(os.path.abspath(path))
    temporary = os.path.join(directory, f".{name}.{os.getpid()}.tmp")
    try:
        with open(temporary, "w", encoding="utf-8") as handle:
            handle.writelines(chunks)
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


def is_sqlite_file(path: str) -> bool:
    """True when ``path`` is a file that starts like an SQLite database."""
    try:
        with open(path, "rb") as handle:
            return handle.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC
    except OSError:
        return False


def _same_file(first: str, second: str) -> bool:
    try:
        return os.path.samefile(first, second)
    except OSError:
        return os.path.realpath(first) == os.path.realpath(second)


def check_outputs(outputs: Sequence[tuple[str, str | None]], protected: Sequence[tuple[str, str]] = ()) -> None:
    """Refuse, before anything is written, output paths that would destroy data.

    ``outputs`` are (flag, path) pairs (a None path is not asked for; ``-`` is standard
    output); ``protected`` are (what, path) pairs of the files the command reads, such as the
    event database, which no output may replace.
    """
    given = [(flag, path) for flag, path in outputs if path is not None and path != "-"]
    for flag, path in given:
        if not path.strip():
            raise ArbiterError(f"{flag}: the file name is empty")
        if os.path.isdir(path):
            raise ArbiterError(f"{flag} {path}: is a directory")
        for what, kept in protected:
            if any(_same_file(path, kept + suffix) for suffix in ("", "-wal", "-shm", "-journal")):
                raise ArbiterError(f"{flag} {path}: that is {what}, which would be destroyed; give another file")
        if is_sqlite_file(path):
            raise ArbiterError(f"{flag} {path}: that file is an SQLite database (an event?); it is not overwritten")
    for index, (flag, path) in enumerate(given):
        for other_flag, other in given[index + 1 :]:
            if _same_file(path, other):
                raise ArbiterError(f"{flag} and {other_flag} name the same file ({path}); give two different files")


def check_log_directory(path: str | None, protected: Sequence[tuple[str, str]] = ()) -> None:
    """``--log DIR``: a name, and not a file (least of all one the command reads or writes)."""
    if path is None:
        return
    if not path.strip():
        raise ArbiterError("--log: the directory name is empty")
    if os.path.exists(path) and not os.path.isdir(path):
        raise ArbiterError(f"--log {path}: is a file, not a directory")
    for what, kept in protected:
        if _same_file(path, kept):
            raise ArbiterError(f"--log {path}: that is {what}")
