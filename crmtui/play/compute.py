"""The compute tool: group the rows of a table and aggregate a number or a duration.

A human's scratch paper for questions such as "which agent has the longest average handle
time" (average of ClosedDate - CreatedDate per OwnerId) that SOQL cannot answer without
date arithmetic. SOQL stays Salesforce's: the rows come from an ordinary query (the browser
view's SOQL without paging, or the console query as typed) and the arithmetic happens here.

:func:`aggregate` is pure (columns and rows in, a small table out); :func:`run_compute` runs
the full-row query through the engine first and is what the UI calls from a worker.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from itertools import repeat
from typing import Any

from crmtui.errors import CrmtuiError
from crmtui.scoring.families import MONTHS

AGGREGATES = ("count", "sum", "avg", "min", "max", "median")
#: Seconds per unit of a duration measure.
UNITS = {"seconds": 1, "minutes": 60, "hours": 3600, "days": 86400}
#: The label a result's group column carries when no group column is chosen.
ALL_ROWS = "(all rows)"
#: Date buckets a group may use, as Salesforce's report builder offers them:
#: ``month(CreatedDate)`` groups by calendar month (``2023-04``), ``month_in_year(...)`` by
#: the month's name whatever its year (``04 April``: "Calendar Month in Year", for questions
#: that tell months apart by name over a period longer than a year).
BUCKETS = ("month", "year", "day", "month_in_year")


def group_column(name: str) -> tuple[str, str | None]:
    """The column and date bucket a group names: ``month(CreatedDate)`` -> (CreatedDate, month).

    A plain column name has no bucket.
    """
    text = name.strip()
    if text.endswith(")") and "(" in text:
        bucket, _, inner = text[:-1].partition("(")
        if bucket.strip().lower() in BUCKETS:
            return inner.strip(), bucket.strip().lower()
    return text, None


def bucket_value(value: Any, bucket: str | None) -> Any:
    """A group key in its date bucket: ``2023-04-17T09:00:00.000+0000`` -> ``2023-04``."""
    if bucket is None or value is None or value == "":
        return value
    if isinstance(value, datetime | date):
        value = value.isoformat()
    text = str(value)
    size = {"year": 4, "month": 7, "day": 10, "month_in_year": 7}[bucket]
    if len(text) < size or not text[:4].isdigit():
        raise ComputeError(f"{value!r} is not a date: it cannot be grouped by {bucket}")
    if bucket == "month_in_year":
        month = int(text[5:7])
        return f"{month:02d} {MONTHS[month - 1]}"  # the number first: keys sort by month
    return text[:size]


class ComputeError(CrmtuiError):
    """A compute request names an unknown column or cannot aggregate the values it found."""


@dataclass(frozen=True)
class ComputeSpec:
    """What to compute over a table.

    Attributes:
        aggregate: One of :data:`AGGREGATES`.
        group_by: The column whose values form the groups (None: one group of all rows);
            ``month(Column)`` groups a date column by calendar month (see :data:`BUCKETS`).
        group_by2: A second grouping inside the first (rows of a two-level summary
            report), or None.
        field: A numeric column to aggregate (``count`` without a field counts rows).
        start: With ``end``: aggregate the duration ``end - start`` of two date/datetime
            columns instead of a field.
        end: The later date/datetime column of a duration.
        unit: The duration's unit, one of :data:`UNITS`.
    """

    aggregate: str
    group_by: str | None = None
    field: str | None = None
    start: str | None = None
    end: str | None = None
    unit: str = "hours"
    group_by2: str | None = None

    @property
    def groups(self) -> list[str]:
        """The group columns as named (``month(CreatedDate)`` kept), outer first."""
        return [g for g in (self.group_by, self.group_by2) if g]

    @property
    def is_duration(self) -> bool:
        """Whether the measure is the duration between two date columns."""
        return self.start is not None or self.end is not None

    @property
    def measure_label(self) -> str:
        """The measure as a person reads it: ``Quantity``, ``ClosedDate - CreatedDate (hours)``."""
        if self.is_duration:
            return f"{self.end} - {self.start} ({self.unit})"
        return self.field or "rows"

    @property
    def value_label(self) -> str:
        """The result's value column: ``avg(ClosedDate - CreatedDate (hours))``."""
        return f"{self.aggregate}({self.measure_label})"

    def columns_needed(self) -> list[str]:
        """The input columns the computation reads, in a stable order, without repeats."""
        groups = [group_column(g)[0] for g in self.groups]
        names = [*groups, self.field, self.start, self.end]
        return list(dict.fromkeys(name for name in names if name))

    def check(self, columns: Sequence[str] | None = None) -> None:
        """Raise :class:`ComputeError` unless the spec is complete (and fits ``columns``)."""
        if self.aggregate not in AGGREGATES:
            raise ComputeError(
                f"unknown aggregate {self.aggregate!r}; use one of {', '.join(AGGREGATES)}"
            )
        if self.is_duration:
            if not self.start or not self.end:
                raise ComputeError("a duration needs both a start and an end column")
            if self.field:
                raise ComputeError("choose a field or a duration, not both")
            if self.unit not in UNITS:
                raise ComputeError(f"unknown unit {self.unit!r}; use one of {', '.join(UNITS)}")
        elif self.field is None and self.aggregate != "count":
            raise ComputeError(f"{self.aggregate} needs a numeric field or a duration")
        if self.group_by2 and not self.group_by:
            raise ComputeError("a second grouping needs a first one")
        if columns is not None:
            known = {c.lower(): c for c in columns}
            for name in self.columns_needed():
                if name.lower() not in known:
                    raise ComputeError(
                        f"the table has no column {name!r} (columns: {', '.join(columns)})"
                    )

    def to_dict(self) -> dict[str, Any]:
        """The spec as recorded in a ``compute`` event (``group_by2`` only when set)."""
        data: dict[str, Any] = {
            "aggregate": self.aggregate,
            "group_by": self.group_by,
            "field": self.field,
            "start": self.start,
            "end": self.end,
            "unit": self.unit if self.is_duration else None,
        }
        if self.group_by2:
            data["group_by2"] = self.group_by2
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ComputeSpec:
        """The spec recorded by :meth:`to_dict`."""
        return cls(
            aggregate=data["aggregate"],
            group_by=data.get("group_by"),
            field=data.get("field"),
            start=data.get("start"),
            end=data.get("end"),
            unit=data.get("unit") or "hours",
            group_by2=data.get("group_by2"),
        )


@dataclass(frozen=True)
class ComputeResult:
    """A computed table: one row per group.

    Attributes:
        columns: The group column's name, ``n`` (values aggregated) and the value column
            (``count`` results have no separate ``n``).
        rows: One list per group, ordered by group value (empty groups last).
        input_rows: Rows the computation read.
        skipped: Rows left out because a value they needed was empty.
    """

    columns: list[str]
    rows: list[list[Any]]
    input_rows: int
    skipped: int

    def summary(self) -> str:
        """One line: how many rows went in and how many groups came out."""
        skipped = f", {self.skipped:,} skipped (empty values)" if self.skipped else ""
        return f"{self.input_rows:,} rows in{skipped} → {len(self.rows):,} groups"


def _column_index(columns: Sequence[str], name: str) -> int:
    lowered = [c.lower() for c in columns]
    try:
        return lowered.index(name.lower())
    except ValueError:
        raise ComputeError(f"the table has no column {name!r}") from None


def parse_moment(value: Any) -> datetime | None:
    """A date or datetime value as an aware UTC datetime (None when empty).

    Accepts what the engine returns (``2020-01-06T20:53:00.000+0000``, ``2020-01-06``) and
    ``Z``-suffixed text; a date is its midnight (UTC).

    Raises:
        ComputeError: For a value that is not a date or datetime.
    """
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, date):
        moment = datetime(value.year, value.month, value.day)
    elif isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:
            raise ComputeError(f"{value!r} is not a date or date/time") from None
    else:
        raise ComputeError(f"{value!r} is not a date or date/time")
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def parse_number(value: Any) -> float | None:
    """A numeric value as a float (None when empty).

    Raises:
        ComputeError: For text that is not a number (or a checkbox value).
    """
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        raise ComputeError(f"{value!r} is a checkbox value, not a number")
    if isinstance(value, int | float):
        return float(value)
    try:
        return float(str(value))
    except ValueError:
        raise ComputeError(f"{value!r} is not a number") from None


def _aggregate_values(kind: str, values: list[float]) -> float | int | None:
    if kind == "count":
        return len(values)
    if not values:
        return None
    if kind == "sum":
        return sum(values)
    if kind == "avg":
        return sum(values) / len(values)
    if kind == "min":
        return min(values)
    if kind == "max":
        return max(values)
    ordered = sorted(values)  # median
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2


def _group_sort_key(key: Any) -> tuple[int, Any]:
    # Empty groups last; numbers before text so mixed columns still sort.
    if key is None:
        return (2, "")
    if isinstance(key, int | float) and not isinstance(key, bool):
        return (0, key)
    return (1, str(key))


def _key(value: Any) -> Any:
    # A child-record list (a subquery column) cannot be a dict key: group by its text.
    cls = value.__class__
    return repr(value) if cls is list or cls is dict else value


def _numbers(pairs: Iterable[tuple[Any, Any]]) -> tuple[dict[Any, list[float]], int, int]:
    """Group ``(key, number)`` pairs; empty numbers are skipped. The hot loop of a compute."""
    groups: dict[Any, list[float]] = {}
    get = groups.get
    count = skipped = 0
    for key, value in pairs:
        count += 1
        if key.__class__ is list or key.__class__ is dict:
            key = _key(key)
        bucket = get(key)
        if bucket is None:
            bucket = groups[key] = []
        cls = value.__class__
        if cls is float or cls is int:  # what the engine returns for number fields
            bucket.append(value)
        elif value is None or value == "":
            skipped += 1
        else:
            bucket.append(parse_number(value))  # numeric text, or a ComputeError
    return groups, count, skipped


def _durations(
    triples: Iterable[tuple[Any, Any, Any]], scale: float
) -> tuple[dict[Any, list[float]], int, int]:
    """Group ``(key, start, end)`` triples into durations in ``scale`` seconds."""
    groups: dict[Any, list[float]] = {}
    get = groups.get
    count = skipped = 0
    for key, start_value, end_value in triples:
        count += 1
        key = _key(key)
        bucket = get(key)
        if bucket is None:
            bucket = groups[key] = []
        start, end = parse_moment(start_value), parse_moment(end_value)
        if start is None or end is None:
            skipped += 1
            continue
        bucket.append((end - start).total_seconds() / scale)
    return groups, count, skipped


def _counts(keys: Iterable[Any]) -> tuple[dict[Any, int], int]:
    counts: dict[Any, int] = {}
    get = counts.get
    total = 0
    for key in keys:
        total += 1
        key = _key(key)
        counts[key] = get(key, 0) + 1
    return counts, total


def aggregate(
    columns: Sequence[str], rows: Iterable[Sequence[Any]], spec: ComputeSpec
) -> ComputeResult:
    """Group ``rows`` by ``spec.group_by`` and aggregate ``spec``'s measure per group.

    A row whose measure is empty (no value, or a duration with an empty end such as an open
    case's ClosedDate) is skipped and counted in :attr:`ComputeResult.skipped`; ``count``
    without a field counts every row.

    Raises:
        ComputeError: For an incomplete spec, an unknown column, or a value that is not a
            number (field) or a date (duration).
    """
    spec.check(columns)
    at = {name: _column_index(columns, name) for name in spec.columns_needed()}

    def column(name: str | None) -> Iterable[Any]:
        if name is None:
            return (ALL_ROWS for _ in rows_list)
        index = at[name]
        return (row[index] for row in rows_list)

    rows_list = rows if isinstance(rows, list | tuple) else list(rows)
    return _aggregate(
        spec,
        _group_keys(spec, [column(group_column(g)[0]) for g in spec.groups], len(rows_list)),
        column(spec.field) if spec.field else None,
        column(spec.start) if spec.is_duration else None,
        column(spec.end) if spec.is_duration else None,
    )


def _group_keys(spec: ComputeSpec, columns: list[Iterable[Any]], count: int) -> Iterable[Any]:
    """The group key of each row: a value, a date bucket, or a pair of them (two groups)."""
    if not columns:
        return (ALL_ROWS for _ in range(count))
    buckets = [group_column(g)[1] for g in spec.groups]
    if len(columns) == 1 and buckets[0] is None:
        return columns[0]
    # map() binds each column's own bucket now; a generator here would read ``bucket`` when
    # it runs, after the loop, so a date bucket before a plain group was lost (the raw
    # moments were grouped).
    keyed = [
        col if bucket is None else map(bucket_value, col, repeat(bucket))
        for col, bucket in zip(columns, buckets, strict=True)
    ]
    if len(keyed) == 1:
        return keyed[0]
    return (_Pair(tuple(_key(v) for v in pair)) for pair in zip(*keyed, strict=True))


class _Pair(tuple):  # type: ignore[type-arg]
    """The key of a two-level group (a tuple the result splits into two columns)."""

    __slots__ = ()


def _aggregate(
    spec: ComputeSpec,
    keys: Iterable[Any],
    values: Iterable[Any] | None,
    starts: Iterable[Any] | None,
    ends: Iterable[Any] | None,
) -> ComputeResult:
    """Aggregate column-wise inputs (parallel iterables) as ``spec`` says."""
    result = _aggregate_one(spec, keys, values, starts, ends)
    if not spec.group_by2:
        return result
    # Two groups: the pair key becomes two columns, ordered by the first then the second.
    rows = [[*row[0], *row[1:]] for row in result.rows]
    rows.sort(key=lambda r: (_group_sort_key(r[0]), _group_sort_key(r[1])))
    columns = [spec.group_by or ALL_ROWS, spec.group_by2, *result.columns[1:]]
    return ComputeResult(columns, rows, result.input_rows, result.skipped)


def _aggregate_one(
    spec: ComputeSpec,
    keys: Iterable[Any],
    values: Iterable[Any] | None,
    starts: Iterable[Any] | None,
    ends: Iterable[Any] | None,
) -> ComputeResult:
    group_name = spec.group_by or ALL_ROWS
    if spec.is_duration:
        assert starts is not None and ends is not None
        groups, input_rows, skipped = _durations(
            zip(keys, starts, ends, strict=True), UNITS[spec.unit]
        )
    elif values is not None:
        groups, input_rows, skipped = _numbers(zip(keys, values, strict=True))
    else:  # count rows
        counts, input_rows = _counts(keys)
        ordered = sorted(counts.items(), key=lambda item: _group_sort_key(item[0]))
        return ComputeResult([group_name, "count"], [[k, n] for k, n in ordered], input_rows, 0)
    ordered_groups = sorted(groups.items(), key=lambda item: _group_sort_key(item[0]))
    if spec.aggregate == "count":
        out = [[key, len(values)] for key, values in ordered_groups]
        return ComputeResult([group_name, spec.value_label], out, input_rows, skipped)
    out = [
        [key, len(values), _aggregate_values(spec.aggregate, values)]
        for key, values in ordered_groups
    ]
    return ComputeResult([group_name, "n", spec.value_label], out, input_rows, skipped)


def sort_rows(
    rows: Sequence[Sequence[Any]], column: int, descending: bool = False
) -> list[list[Any]]:
    """``rows`` ordered by ``column`` (empty values last either way)."""
    filled = [list(r) for r in rows if r[column] is not None]
    empty = [list(r) for r in rows if r[column] is None]
    filled.sort(key=lambda r: _group_sort_key(r[column]), reverse=descending)
    return filled + empty


@dataclass(frozen=True)
class ComputeRun:
    """A computation over the rows of a query, as the UI records it.

    Attributes:
        query: The full-row SOQL/SOSL that was run.
        spec: What was computed.
        result: The computed table.
        ms: Query plus computation time.
    """

    query: str
    spec: ComputeSpec
    result: ComputeResult
    ms: float


def run_compute(
    org: Any, query: str, spec: ComputeSpec, today: date | None = None, *, clock: Any = None
) -> ComputeRun:
    """Run ``query`` through the engine (all rows, no paging) and aggregate its rows.

    Blocking: the UI calls it from a worker thread.

    Raises:
        ComputeError: For a bad spec or values; :class:`~crmtui.query.QueryError` for a
            query the engine refuses.
    """
    from crmtui.query import read_columns, run

    tick = clock or time.perf_counter
    started = tick()
    needed = spec.columns_needed()

    def pick(columns: list[str]) -> list[str]:
        spec.check(columns)
        return [columns[_column_index(columns, name)] for name in needed]

    # A SOQL query is read column-wise: only the wanted columns' values, no record dicts
    # (most of the time of a 71,000-row computation went into building records).
    is_search = query.lstrip()[:4].upper() == "FIND"
    read = None if is_search else read_columns(org, query, pick, today=today)
    if read is not None:
        at = dict(zip(needed, read.values, strict=True))
        count = read.rows
    else:
        result = run(org, query, today=today)
        records = result.records
        names = pick(list(result.columns))
        at = {name: _values(records, path) for name, path in zip(needed, names, strict=True)}
        count = len(records)
    # The values and buckets hold no cycles: the collector is paused as the engine pauses
    # it (collections would cost as much as the work).
    paused = gc.isenabled()
    if paused:
        gc.disable()
    try:
        computed = _aggregate(
            spec,
            _group_keys(spec, [at[group_column(g)[0]] for g in spec.groups], count),
            at[spec.field] if spec.field else None,
            at[spec.start] if spec.is_duration else None,
            at[spec.end] if spec.is_duration else None,
        )
    finally:
        if paused:
            gc.enable()
    return ComputeRun(query, spec, computed, (tick() - started) * 1000)


def _values(records: list[dict[str, Any]], path: str) -> Iterable[Any]:
    """One column of Salesforce-shaped records (``Account.ShippingState`` walks parents)."""
    if "." not in path:
        return (record.get(path) for record in records)
    parts = path.split(".")

    def walk(record: dict[str, Any]) -> Any:
        value: Any = record
        for part in parts:
            value = value.get(part) if isinstance(value, dict) else None
        return value

    return (walk(record) for record in records)


def view_query(schema: Any, view: Any, spec: ComputeSpec) -> str:
    """The query that reads every row a browser table view shows, for ``spec``'s columns.

    The view's SOQL (filters and sort kept) without paging, selecting only the columns the
    computation needs; a searched view gives its SOSL (capped at 2,000 hits, as Salesforce
    caps them).
    """
    from crmtui.play.views import FilterError, field_at, search_sosl, table_soql

    obj = schema.require(view.object)
    columns = []
    for name in spec.columns_needed() or ["Id"]:
        try:
            columns.append(field_at(schema, obj, name)[0])
        except FilterError as exc:
            raise ComputeError(str(exc)) from None
    if view.search:
        return search_sosl(schema, view, columns) + " LIMIT 2000"
    return table_soql(schema, view, columns)
