"""Reaching a Dask scheduler: the extra installed, an address that answers as Dask does.

:func:`require_distributed` says in one line that the ``cluster`` extra is missing.
:func:`probe_scheduler` fails within seconds, in one line, unless a Dask server may be answering
at an address: Dask's own client waits for ever on a server that stays silent, and reads a
garbled answer's bytes as sizes of memory to allocate.  :func:`quiet_dask_logging` keeps Dask's
log lines out of the arbiter's output (its failures are said in one line of ours).
"""

from __future__ import annotations

import logging
import socket
import struct
import time

from ..errors import ArbiterError

INSTALL_HINT = "--cluster needs Dask's distributed package: pip install 'dipole-engine[cluster]'"
CONNECT_TIMEOUT = 10.0  # seconds to reach the scheduler at the start (it may be starting itself)
ANSWER_TIMEOUT = 5.0  # seconds a server that accepted the connection has to greet us as Dask does
GREETING_LIMIT = 1 << 16  # bytes: Dask's greeting is a few dozen; a bigger claim is not Dask speaking


def require_distributed() -> None:
    """One clear line when the ``cluster`` extra is missing."""
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise ArbiterError(INSTALL_HINT) from None


def probe_scheduler(address: str) -> None:
    """Fail within seconds, in one line, unless a Dask server may be answering at ``address``.

    Dask's own client waits for ever on a server that accepts a connection and stays silent,
    and reads a garbled answer's bytes as sizes of memory to allocate.  A Dask server speaks
    first: 8 bytes, the length of its short greeting; that much is read here, under a timeout.
    (Over TLS the greeting comes after TLS's own handshake: only the settings are checked, and
    the client's timeout bounds the rest.)"""
    import distributed
    from distributed.comm.addressing import parse_address, parse_host_port

    scheme, location = parse_address(address)
    if scheme == "tls":
        if distributed.Security().get_connection_args("client").get("ssl_context") is None:
            raise ArbiterError(
                f"cannot reach the Dask scheduler at {address}: TLS is not configured here "
                f"(set Dask's distributed.comm.tls options ca-file, client.cert and client.key)"
            )
        return
    host, port = parse_host_port(location)
    deadline = time.monotonic() + CONNECT_TIMEOUT
    while True:
        try:
            connection = socket.create_connection((host, port), timeout=ANSWER_TIMEOUT)
            break
        except ConnectionRefusedError:  # the scheduler may be starting: as Dask does, try again for a while
            if time.monotonic() >= deadline:
                raise ArbiterError(
                    f"cannot reach the Dask scheduler at {address}: nothing listens there "
                    f"(connection refused for {CONNECT_TIMEOUT:g} s)"
                ) from None
            time.sleep(0.5)
        except OSError as error:
            raise ArbiterError(f"cannot reach the Dask scheduler at {address}: {error.strerror or error}") from None
    greeting = b""
    answer_by = time.monotonic() + ANSWER_TIMEOUT
    with connection:
        try:
            while len(greeting) < 8:
                connection.settimeout(max(0.01, answer_by - time.monotonic()))
                chunk = connection.recv(8 - len(greeting))
                if not chunk:
                    raise ArbiterError(f"{address} is not a Dask scheduler: it closed the connection without a word")
                greeting += chunk
        except TimeoutError:
            raise ArbiterError(
                f"{address} is not a Dask scheduler: it accepted the connection but said nothing "
                f"in {ANSWER_TIMEOUT:g} s"
            ) from None
        except OSError as error:
            raise ArbiterError(f"cannot reach the Dask scheduler at {address}: {error.strerror or error}") from None
    (size,) = struct.unpack("Q", greeting)
    if not 0 < size <= GREETING_LIMIT:
        raise ArbiterError(f"{address} is not a Dask scheduler: what it sends is not Dask's protocol")


def quiet_dask_logging() -> None:
    """Silence Dask's own log lines in the arbiter (a lost scheduler is reported in one line of
    ours, not in tracebacks); Dask gives some of its loggers their own level, so each is set."""
    names = [name for name in logging.root.manager.loggerDict if name.split(".")[0] in ("distributed", "tornado")]
    for name in ["distributed", "tornado", *names]:
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)
