"""Frozen dataclasses whose constructor sets every field at once: :func:`quick_init`.

A frozen dataclass's generated ``__init__`` sets each field with its own call of
``object.__setattr__`` (the class's ``__setattr__`` refuses).  The values a host makes at every
ply (a search's :class:`~protocol.messages.Limit`, an engine's
:class:`~protocol.messages.BestMove`, each move's :class:`~arbiter.records.game.MoveRecord`)
would pay that call per field; :func:`quick_init`
gives such a class a constructor that writes the attributes' dict in one call, then runs
``__post_init__`` if the class has one::

    @quick_init
    @dataclass(frozen=True)
    class MoveRecord: ...
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["quick_init"]

T = TypeVar("T")


def quick_init(made: type[T]) -> type[T]:
    """The frozen dataclass ``made`` (no slots), its ``__init__`` writing the fields' dict in one
    call.

    The same class otherwise (fields, defaults and default factories, equality, hash, repr,
    pickling, :func:`dataclasses.replace`); keyword-only fields and slots are not supported.
    Worth it on the per-ply path: with the generated constructors of the limit, the engine's
    answer and the move's record (called by keyword), the referee spends 20,000 more
    instructions a ply against an engine that answers at once, 31% more than its 64,700
    (``benchmarks/ply_floor.py --loop play_game`` under callgrind, compiled build).
    """
    params = getattr(made, "__dataclass_params__", None)
    if params is None or not params.frozen or hasattr(made, "__slots__"):
        raise TypeError(f"{made.__name__}: quick_init takes a frozen dataclass without slots")
    namespace: dict[str, Any] = {"_set": object.__setattr__, "_absent": _ABSENT}
    parameters, values = [], []
    for spec in dataclasses.fields(made):  # type: ignore[arg-type]
        if spec.kw_only:
            raise TypeError(f"{made.__name__}.{spec.name}: quick_init takes no keyword-only field")
        name = spec.name
        if spec.default is not dataclasses.MISSING:
            namespace[f"_default_{name}"] = spec.default
            parameters.append(f"{name}=_default_{name}")
            values.append(f"{name!r}: {name}")
        elif spec.default_factory is not dataclasses.MISSING:
            namespace[f"_factory_{name}"] = spec.default_factory
            parameters.append(f"{name}=_absent")
            values.append(f"{name!r}: _factory_{name}() if {name} is _absent else {name}")
        else:
            parameters.append(name)
            values.append(f"{name!r}: {name}")
    lines = [
        f"def __init__(self, {', '.join(parameters)}):",
        f"    _set(self, '__dict__', {{{', '.join(values)}}})",
    ]
    if hasattr(made, "__post_init__"):
        lines.append("    self.__post_init__()")
    exec("\n".join(lines), namespace)  # (the source is made of the class's own field names)
    init: Callable[..., None] = namespace["__init__"]
    init.__qualname__ = f"{made.__qualname__}.__init__"
    init.__module__ = made.__module__
    made.__init__ = init  # type: ignore[method-assign]
    return made


class _Absent:
    """The default of a field with a default factory: the factory is called in its place."""

    def __repr__(self) -> str:
        return "<absent>"


_ABSENT = _Absent()
