"""The engine protocol (protocol/SPEC.md): one codec for both sides, and the client hosts use.

Engines parse commands with :func:`parse_command` and write responses with
:func:`format_response`; hosts drive engine processes with :class:`EngineClient`.
"""

from .client import (
    EngineClient,
    EngineCrashed,
    EngineError,
    EngineStalled,
    EngineStartError,
    EngineTimeout,
    HandshakeError,
    ProtocolViolation,
    SearchResult,
    UnreadableMove,
    kill_all,
)
from .codec import (
    OPTION_TYPES,
    QUERY_ITEMS,
    BestMove,
    Command,
    Go,
    GoPerft,
    Id,
    Info,
    IsReady,
    Limit,
    OptionSpec,
    PerftMove,
    PerftTotal,
    PonderHit,
    Position,
    ProtocolError,
    Query,
    QueryResponse,
    Quit,
    ReadyOk,
    Response,
    SetOption,
    Stop,
    Uci,
    UciNewGame,
    UciOk,
    Ugi,
    UgiNewGame,
    UgiOk,
    error_info,
    format_command,
    format_response,
    parse_command,
    parse_int,
    parse_response,
)
from .transport import MemoryTransport, ProcessTransport, Transport

PROTOCOL_VERSION = "1.2"
"""The version of protocol/SPEC.md this package implements."""

__all__ = [
    "BestMove", "Command", "EngineClient", "EngineCrashed", "EngineError", "EngineStartError",
    "EngineTimeout", "Go", "GoPerft", "HandshakeError", "Id", "Info", "IsReady", "Limit",
    "MemoryTransport", "OPTION_TYPES", "OptionSpec", "PROTOCOL_VERSION", "PerftMove",
    "PerftTotal", "PonderHit", "Position", "ProcessTransport", "ProtocolError", "QUERY_ITEMS", "Query",
    "QueryResponse", "Quit", "ReadyOk", "Response", "SearchResult", "SetOption", "Stop",
    "Transport", "Uci", "UciNewGame", "UciOk", "Ugi", "UgiNewGame", "UgiOk", "error_info",
    "format_command", "format_response", "kill_all", "parse_command", "parse_int", "parse_response",
    "ProtocolViolation", "EngineStalled", "UnreadableMove",
]
