"""Host names and addresses: which name loopback, what a ``Host`` header names, and the URLs a
server listening on every address (``--host 0.0.0.0`` or ``::``) can be reached at.

A name is loopback only when it is ``localhost`` or a literal loopback address (127.0.0.0/8,
``::1``), parsed by :mod:`ipaddress`: ``127.evil.example`` is a host name like any other, one a
foreign site may point at 127.0.0.1 (DNS rebinding).
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket

LOCALHOST = "localhost"
# Where a datagram socket is "connected" to learn the address the machine would send from: a
# documentation network (RFC 5737 / 3849); connecting a UDP socket sends nothing.
PROBES = ((socket.AF_INET, "192.0.2.1"), (socket.AF_INET6, "2001:db8::1"))


def is_loopback(name: str) -> bool:
    """Whether ``name`` (a host name or a literal address, IPv6 without brackets) is loopback."""
    if name.lower() == LOCALHOST:
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def host_name(header: str) -> str | None:
    """The name a ``Host`` header gives (``name``, ``name:port``, ``[v6]`` or ``[v6]:port``),
    without port or brackets; None when it is not of that shape."""
    if header.startswith("["):
        address, bracket, rest = header[1:].partition("]")
        if not bracket or (rest and not (rest.startswith(":") and rest[1:].isdigit())):
            return None
        return address
    name, colon, port = header.partition(":")
    if colon and not port.isdigit():
        return None  # a bare IPv6 address (not a valid Host) or a bad port
    return name


def loopback_host(header: str) -> bool:
    """Whether a ``Host`` header names this machine's loopback (any port)."""
    name = host_name(header)
    return name is not None and is_loopback(name)


def is_wildcard(host: str) -> bool:
    """Whether listening on ``host`` means every address of the machine."""
    try:
        return ipaddress.ip_address(host).is_unspecified
    except ValueError:
        return False


def reachable_addresses(wildcard: str) -> list[str]:
    """The addresses others may use to reach a server listening on every address of the family
    of ``wildcard`` (``0.0.0.0``; ``::`` listens on IPv6 only, as :func:`socket.create_server`
    makes it): the machine's own (its name's, and the one it would send from), found without
    sending anything; loopback and link-local ones are left out."""
    families = [socket.AF_INET6 if ":" in wildcard else socket.AF_INET]
    found: list[str] = []
    with contextlib.suppress(OSError):
        for kind, _, _, _, sockaddr in socket.getaddrinfo(socket.gethostname(), None):
            if kind in families:
                found.append(str(sockaddr[0]))
    for family, probe in PROBES:
        if family not in families:
            continue
        with contextlib.suppress(OSError), socket.socket(family, socket.SOCK_DGRAM) as udp:
            udp.connect((probe, 9))
            found.append(str(udp.getsockname()[0]))
    usable = []
    for address in found:
        parsed = ipaddress.ip_address(address.split("%")[0])
        if not (parsed.is_loopback or parsed.is_link_local or parsed.is_unspecified) and address not in usable:
            usable.append(address)
    return usable


def loopback_for(host: str) -> str:
    """The loopback address of ``host``'s family (where this machine reaches a wildcard)."""
    return "::1" if ":" in host else "127.0.0.1"


def url_host(address: str) -> str:
    """``address`` as the host part of a URL (an IPv6 address in brackets)."""
    return f"[{address}]" if ":" in address else address
