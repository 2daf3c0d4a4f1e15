"""Value classes without :mod:`dataclasses`, for what a fast start creates.

Importing ``dataclasses`` (it loads ``inspect``, ``ast`` and ``dis``) and generating the
methods of the five classes a query needs took a quarter of a stored plan's whole run by
``crmtui query``; generating each dataclass's methods costs part of a cold ``crmtui play``
too (docs/performance.md). These classes keep what the dataclasses gave: equality
over the compared fields, a field-by-field ``repr``, and for the frozen ones a hash and no
assignment. Each class writes its own ``__init__``. (``dataclasses.replace`` and
``dataclasses.fields`` do not apply: :meth:`ValueClass.replaced` and :attr:`ValueClass.FIELDS`
stand for them.)
"""

from __future__ import annotations

from typing import Any, ClassVar


class ValueClass:
    """Equality and ``repr`` over :attr:`FIELDS` (less :attr:`UNCOMPARED`); like a dataclass.

    As a dataclass with ``eq=True``, an instance is unhashable unless the class is frozen
    (:class:`FrozenValue`).
    """

    #: The fields, in order (what ``repr`` shows and, less UNCOMPARED, what ``==`` compares).
    FIELDS: ClassVar[tuple[str, ...]] = ()
    #: Fields left out of equality, hashing and ``repr`` (a generated function, say).
    UNCOMPARED: ClassVar[tuple[str, ...]] = ()

    __hash__ = None  # type: ignore[assignment]  # mutable and compared by value

    def _compared(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self.FIELDS if name not in self.UNCOMPARED)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._compared() == other._compared()  # type: ignore[attr-defined]

    def replaced(self, **changes: Any) -> Any:
        """A copy with ``changes`` (what ``dataclasses.replace`` did)."""
        values = {name: getattr(self, name) for name in self.FIELDS}
        unknown = changes.keys() - values.keys()
        if unknown:
            raise TypeError(f"{type(self).__name__} has no field {sorted(unknown)[0]!r}")
        return self.__class__(**{**values, **changes})

    def __repr__(self) -> str:
        shown = ", ".join(
            f"{name}={getattr(self, name)!r}" for name in self.FIELDS if name not in self.UNCOMPARED
        )
        return f"{self.__class__.__qualname__}({shown})"


class FrozenValue(ValueClass):
    """A :class:`ValueClass` whose fields cannot change after ``__init__``: hashable."""

    def _set(self, **values: Any) -> None:
        """Set the fields (from ``__init__`` only)."""
        self.__dict__.update(values)

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(self._compared())

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"cannot assign to field {name!r} of a frozen {type(self).__name__}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r} of a frozen {type(self).__name__}")
