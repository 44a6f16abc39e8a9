"""``dipole_runtime.values.quick_init``: a frozen dataclass made in one write is the same value."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from dataclasses import dataclass, field

import pytest

from dipole_runtime.values import quick_init


@dataclass(frozen=True)
class Plain:
    name: str
    count: int = 0
    tags: list[str] = field(default_factory=list)
    total: int = -1

    def __post_init__(self) -> None:
        if self.total == -1:
            object.__setattr__(self, "total", self.count * 2)


@quick_init
@dataclass(frozen=True)
class Quick(Plain):
    """Plain's fields, defaults, factory and ``__post_init__``, made by quick_init's constructor."""


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [(("a",), {}), (("a", 3), {}), (("a",), {"tags": ["x"]}), ((), {"name": "b", "count": 2, "total": 7})],
)
def test_a_quick_value_is_the_value_its_dataclass_makes(args: tuple[object, ...], kwargs: dict[str, object]) -> None:
    """Positional and keyword arguments, defaults, a fresh default from each factory and
    ``__post_init__``: the same fields as the generated constructor gives, in the same order;
    equal, hashed, printed, pickled, copied and replaced alike, and frozen."""
    plain, quick = Plain(*args, **kwargs), Quick(*args, **kwargs)  # type: ignore[arg-type]
    assert dataclasses.asdict(quick) == dataclasses.asdict(plain)
    assert list(vars(quick)) == [spec.name for spec in dataclasses.fields(Quick)]
    assert repr(quick) == repr(plain).replace("Plain", "Quick")
    assert Quick("a").tags is not Quick("a").tags
    for copied in (pickle.loads(pickle.dumps(quick)), copy.copy(quick), copy.deepcopy(quick)):
        assert copied == quick
    assert dataclasses.asdict(dataclasses.replace(quick, count=5)) == dataclasses.asdict(
        dataclasses.replace(plain, count=5)
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        quick.count = 1  # type: ignore[misc]


def test_a_quick_value_refuses_what_its_dataclass_refuses() -> None:
    with pytest.raises(TypeError):
        Quick()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Quick("a", 1, [], 2, 3)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Quick("a", nothing=1)  # type: ignore[call-arg]


def test_only_a_frozen_dataclass_without_slots_is_taken() -> None:
    @dataclass
    class Thawed:
        name: str

    @dataclass(frozen=True, slots=True)
    class Slotted:
        name: str

    for cls in (Thawed, Slotted, int):
        with pytest.raises(TypeError, match="frozen dataclass without slots"):
            quick_init(cls)
