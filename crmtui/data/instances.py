"""CRMArena instances (one benchmark row each) and ordered sets of them.

A row has the Hugging Face shape ``{idx, answer, task, metadata: {required, optional},
reward_metric, query}``; CRMArena-Pro rows add ``persona`` and carry ``answer`` as a list.
:meth:`Instance.from_row` validates a row and :meth:`Instance.to_row` gives it back unchanged,
so recordings and exports can store exactly what the benchmark shipped.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Iterator, Mapping
from types import MappingProxyType
from typing import Any

from crmtui.data.tasktypes import resolve_task_type, sort_key
from crmtui.errors import DatasetError, TaskNotFound
from crmtui.limits import idx_range_problem
from crmtui.value_class import FrozenValue

# Field order of the HF rows, so to_row() round-trips key order too.
_ROW_FIELDS = ("idx", "answer", "task", "persona", "metadata", "reward_metric", "query")

# "- Today's date: 2020-06-15" (NED, TII, ...) and "## Today's date: 2023-12-21" (HTU, TCU).
_TODAY = re.compile(r"^[ \t]*(?:-|#+)[ \t]*Today[’']s date:[ \t]*(\S+)", re.MULTILINE)

# "- Contact Id interacting: 003..." / "- Case Id to be considered is: 500...": a label that
# ends in "Id", any words, a colon, then a 15- or 18-character Salesforce Id.
_CONTEXT_ID = re.compile(
    r"^[ \t]*(?:-|#+)?[ \t]*(?P<label>[A-Za-z_ ]*?\bId)\b[^:\n]*:[ \t]*"
    r"(?P<id>[A-Za-z0-9]{18}|[A-Za-z0-9]{15})\b",
    re.MULTILINE,
)


class RowError(DatasetError):
    """A row of a task source is invalid.

    Names the row's ``idx`` when it has a usable one, otherwise its 1-based position in the
    source (``row #3``), plus the offending field.

    Attributes:
        row: 1-based position of the row in its source, when known.
    """

    def __init__(
        self,
        message: str,
        *,
        idx: object = None,
        field: str | None = None,
        row: int | None = None,
    ) -> None:
        super().__init__(message, idx=idx, field=field)
        self.row = row
        if idx is None and row is not None:
            where = f"row #{row}" + (f", field {field!r}" if field is not None else "")
            self.args = (f"{where}: {message}",)


class Metadata(FrozenValue):
    """The row's ``metadata``: task context that belongs in the system prompt.

    Attributes:
        required: Always shown to the agent (policies, today's date, context Ids).
        optional: Domain details, shown in upstream's ``aided`` evaluation mode.
    """

    FIELDS = ("required", "optional")

    required: str
    optional: str

    def __init__(self, required: str = "", optional: str = "") -> None:
        self._set(required=required, optional=optional)


class Instance(FrozenValue):
    """One benchmark instance.

    Attributes:
        idx: Unique id of the row in its source.
        task: Task code, e.g. ``handle_time`` (see :mod:`crmtui.data.tasktypes`).
        query: The user message.
        answer: Gold answer: a string or ``None`` (CRMArena), a list (CRMArena-Pro).
        metadata: Prompt context.
        reward_metric: ``exact_match``, ``fuzzy_match``, ``privacy_rejection``, ...
        persona: The simulated user's persona (CRMArena-Pro rows only).
        extra: Any further fields of the row, kept so :meth:`to_row` round-trips.
    """

    FIELDS = ("idx", "task", "query", "answer", "metadata", "reward_metric", "persona", "extra")
    #: Neither compared, hashed nor shown.
    UNCOMPARED = ("extra",)

    idx: int
    task: str
    query: str
    answer: str | list[str | None] | None
    metadata: Metadata
    reward_metric: str
    persona: str | None
    extra: Mapping[str, Any]

    def __init__(
        self,
        idx: int,
        task: str,
        query: str,
        answer: str | list[str | None] | None,
        metadata: Metadata,
        reward_metric: str,
        persona: str | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> None:
        self._set(
            idx=idx,
            task=task,
            query=query,
            answer=answer,
            metadata=metadata,
            reward_metric=reward_metric,
            persona=persona,
            extra=MappingProxyType({}) if extra is None else extra,
        )

    def __hash__(self) -> int:
        # Without the answer (a CRMArena-Pro answer is a list): instances stay usable as keys.
        return hash(
            (self.idx, self.task, self.query, self.metadata, self.reward_metric, self.persona)
        )

    @classmethod
    def from_row(cls, row: Mapping[str, Any], *, position: int | None = None) -> Instance:
        """Validate a row in the HF shape and build an instance.

        Args:
            row: The row.
            position: 1-based position of the row in its source, named in errors when the
                row has no usable ``idx``.

        Raises:
            RowError: A field is missing or has the wrong type; the error names the row's
                idx (or position) and the field.
        """
        if not isinstance(row, Mapping):
            raise RowError(f"expected an object, got {type(row).__name__}", row=position)
        raw_idx = row.get("idx")
        if raw_idx is None:
            raise RowError("missing idx", field="idx", row=position)
        if isinstance(raw_idx, bool) or not isinstance(raw_idx, int):
            raise RowError(f"idx must be an integer, got {raw_idx!r}", field="idx", row=position)
        problem = idx_range_problem(raw_idx)
        if problem is not None:
            raise RowError(problem, field="idx", row=position)
        idx = raw_idx

        def bad(name: str, message: str) -> RowError:
            return RowError(message, idx=idx, field=name, row=position)

        task = row.get("task")
        if not isinstance(task, str) or not task.strip():
            raise bad("task", "missing task" if task is None else f"bad task {task!r}")
        query = row.get("query")
        if query is None:
            raise bad("query", "missing query")
        if not isinstance(query, str):
            raise bad("query", f"query must be a string, got {type(query).__name__}")
        if not query.strip():
            raise bad("query", "empty query")
        metric = row.get("reward_metric")
        if not isinstance(metric, str) or not metric:
            raise bad(
                "reward_metric",
                "missing reward_metric" if metric is None else f"bad reward_metric {metric!r}",
            )
        persona = row.get("persona")
        if persona is not None and not isinstance(persona, str):
            raise bad("persona", f"persona must be a string, got {type(persona).__name__}")
        metadata = _metadata(row.get("metadata"), bad)
        answer = _answer(row.get("answer"), bad)
        if _TODAY.search(metadata.required) and _parse_today(metadata.required) is None:
            raise bad("metadata", 'the "Today\'s date" line is not a YYYY-MM-DD date')
        extra = {k: v for k, v in row.items() if k not in _ROW_FIELDS}
        return cls(
            idx=idx,
            task=task,
            query=query,
            answer=answer,
            metadata=metadata,
            reward_metric=metric,
            persona=persona,
            extra=MappingProxyType(extra),
        )

    @property
    def today(self) -> dt.date | None:
        """The "Today's date" the task is set on, from ``metadata.required``."""
        return _parse_today(self.metadata.required)

    @property
    def context_ids(self) -> dict[str, str]:
        """Record Ids that ``metadata.required`` points the agent at.

        E.g. ``{"Contact Id": "003Ws000004Fo3qIAC"}`` for a NED row or ``{"Case Id": ...}``
        for a PVI row; empty for most task types.
        """
        return {
            m.group("label").strip(): m.group("id")
            for m in _CONTEXT_ID.finditer(self.metadata.required)
        }

    @property
    def gold_answers(self) -> list[str]:
        """The gold answer as a list of strings; ``None`` becomes ``"None"`` as upstream does."""
        if self.answer is None:
            return ["None"]
        if isinstance(self.answer, str):
            return [self.answer]
        return ["None" if a is None else a for a in self.answer]

    def to_row(self) -> dict[str, Any]:
        """The HF row this instance came from, with the same keys in the same order."""
        values: dict[str, Any] = {
            "idx": self.idx,
            "answer": list(self.answer) if isinstance(self.answer, list) else self.answer,
            "task": self.task,
            "persona": self.persona,
            "metadata": {"required": self.metadata.required, "optional": self.metadata.optional},
            "reward_metric": self.reward_metric,
            "query": self.query,
        }
        if self.persona is None:
            del values["persona"]
        values.update(self.extra)
        return values


def _metadata(value: object, bad: Any) -> Metadata:
    if value is None:
        raise bad("metadata", "missing metadata")
    if not isinstance(value, Mapping):
        raise bad("metadata", f"metadata must be a mapping, got {type(value).__name__}")
    parts = {}
    for key in ("required", "optional"):
        part = value.get(key)
        # A null part is what Arrow fills in for a key that some rows lack.
        if part is None:
            part = ""
        if not isinstance(part, str):
            raise bad("metadata", f"metadata.{key} must be a string, got {type(part).__name__}")
        parts[key] = part
    return Metadata(**parts)


def _answer(value: object, bad: Any) -> str | list[str | None] | None:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, list | tuple):
        items = list(value)
        for item in items:
            if item is not None and not isinstance(item, str):
                raise bad("answer", f"answer list items must be strings, got {item!r}")
        return items
    raise bad("answer", f"answer must be a string, null or a list, got {type(value).__name__}")


def _parse_today(required: str) -> dt.date | None:
    match = _TODAY.search(required)
    if match is None:
        return None
    try:
        return dt.date.fromisoformat(match.group(1))
    except ValueError:
        return None


class TaskSet:
    """Instances ordered by idx, with the description of where they came from.

    Attributes:
        source: Human description of the source, e.g. a path or ``hf:Salesforce/CRMArena``.
    """

    def __init__(self, instances: Iterable[Instance], source: str = "") -> None:
        items = list(instances)
        by_idx: dict[int, Instance] = {}
        for inst in items:
            if inst.idx in by_idx:
                raise DatasetError("duplicate idx", idx=inst.idx, field="idx")
            by_idx[inst.idx] = inst
        self._by_idx = dict(sorted(by_idx.items()))
        self.source = source

    @classmethod
    def from_rows(cls, rows: Iterable[Mapping[str, Any]], source: str = "") -> TaskSet:
        """Validate rows (see :meth:`Instance.from_row`) and build a set.

        Raises:
            RowError: A row is invalid or repeats an earlier row's idx.
        """
        instances = []
        seen: dict[int, int] = {}
        for position, row in enumerate(rows, start=1):
            inst = Instance.from_row(row, position=position)
            if inst.idx in seen:
                raise RowError(
                    f"duplicate idx (rows #{seen[inst.idx]} and #{position})",
                    idx=inst.idx,
                    field="idx",
                )
            seen[inst.idx] = position
            instances.append(inst)
        return cls(instances, source)

    def __len__(self) -> int:
        return len(self._by_idx)

    def __iter__(self) -> Iterator[Instance]:
        return iter(self._by_idx.values())

    def __contains__(self, idx: object) -> bool:
        return idx in self._by_idx

    def __repr__(self) -> str:
        return f"TaskSet({len(self)} instances from {self.source or 'memory'})"

    @property
    def idxs(self) -> list[int]:
        """All idx values, ascending."""
        return list(self._by_idx)

    @property
    def task_codes(self) -> list[str]:
        """Task codes present, in leaderboard order (other codes after, by name)."""
        return sorted({inst.task for inst in self}, key=sort_key)

    def get(self, idx: int) -> Instance:
        """The instance with this idx.

        Raises:
            TaskNotFound: No such idx; the message gives the source and the idx range.
        """
        try:
            return self._by_idx[idx]
        except KeyError:
            span = f" (idx {self.idxs[0]}–{self.idxs[-1]})" if self._by_idx else ""
            where = f" in {self.source}" if self.source else ""
            raise TaskNotFound(f"no instance with idx {idx}{where}{span}") from None

    def filter(self, task: str | None = None) -> TaskSet:
        """The instances of one task type (code or abbreviation; ``None`` keeps all).

        Raises:
            ConfigError: ``task`` is not a known task type nor present in this set.
        """
        if task is None:
            return self
        code = resolve_task_type(task, self.task_codes)
        return TaskSet((inst for inst in self if inst.task == code), self.source)

    def counts(self) -> dict[str, int]:
        """Number of instances per task code, in leaderboard order."""
        totals: dict[str, int] = {}
        for inst in self:
            totals[inst.task] = totals.get(inst.task, 0) + 1
        return {code: totals[code] for code in sorted(totals, key=sort_key)}
