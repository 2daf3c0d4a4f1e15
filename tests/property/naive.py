"""A deliberately naive, independent evaluator of the generated SOQL structures.

It reads the same rows the org holds and applies Salesforce's documented semantics in plain
Python, with no SQL:

* text filters ignore case, Id/lookup filters do not; ``LIKE`` ignores case, ``%`` / ``_``;
* a comparison with a NULL field is false, except ``!=`` and ``NOT IN``, which are true;
  ``NOT`` is two-valued; ``= null`` / ``!= null`` test for NULL;
* numbers stored as text compare numerically; datetimes compare as instants;
* ORDER BY: ascending puts NULLs first, descending last, unless NULLS FIRST/LAST says
  otherwise; text sorts ignoring case;
* aggregates skip NULLs; SUM/AVG/MIN/MAX of nothing is NULL; COUNT() counts rows.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from collections.abc import Callable
from typing import Any

from .model import FIELDS, Agg, BoolC, Cmp, Cond, InC, LikeC, NotC, NullC, Query

Row = dict[str, str | None]


def kind_of(obj: str, name: str) -> str:
    """The kind of a field of the generated org."""
    return FIELDS[obj][name]


def _instant(text: str) -> dt.datetime:
    date, _, rest = text.partition("T")
    clock = rest[:8]
    zone = rest[8:].lstrip(".0123456789") or "Z"
    base = dt.datetime.fromisoformat(f"{date}T{clock}")
    if zone.upper() == "Z":
        return base.replace(tzinfo=dt.UTC)
    sign = 1 if zone[0] == "+" else -1
    digits = zone[1:].replace(":", "")
    offset = dt.timedelta(hours=int(digits[:2]), minutes=int(digits[2:4]))
    return (base - sign * offset).replace(tzinfo=dt.UTC)


def typed(kind: str, raw: str | None) -> Any:
    """A stored text value as the Python value used for comparisons."""
    if raw is None:
        return None
    if kind == "num":
        return float(raw)
    if kind == "bool":
        return raw.strip().lower() in {"1", "true"}
    if kind == "date":
        return raw[:10]
    if kind == "datetime":
        return _instant(raw)
    return raw


def output(kind: str, raw: str | None) -> Any:
    """A stored value the way the Salesforce API returns it."""
    if raw is None:
        return None
    if kind == "num":
        return float(raw)
    if kind == "bool":
        return typed(kind, raw)
    if kind == "date":
        return raw[:10]
    if kind == "datetime":
        return _instant(raw).strftime("%Y-%m-%dT%H:%M:%S.000+0000")
    return raw


def literal_value(kind: str, text: str) -> Any:
    """Decode a literal as rendered by the strategies."""
    if text.startswith("'"):
        body = text[1:-1]
        return re.sub(r"\\(.)", r"\1", body)
    lowered = text.lower()
    if lowered in {"true", "false"}:
        return lowered == "true"
    if kind == "datetime":
        return _instant(text)
    if kind == "date":
        return text
    return float(text)


def _same(kind: str, a: Any, b: Any) -> bool:
    if kind == "text":
        return str(a).lower() == str(b).lower()
    return bool(a == b)


def _like(pattern: str) -> re.Pattern[str]:
    out = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern):
            out.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        out.append(".*" if ch == "%" else "." if ch == "_" else re.escape(ch))
        i += 1
    return re.compile("".join(out), re.IGNORECASE | re.DOTALL)


def holds(obj: str, cond: Cond, row: Row) -> bool:
    """Whether ``row`` passes ``cond``."""
    if isinstance(cond, BoolC):
        results = (holds(obj, c, row) for c in cond.items)
        return all(results) if cond.op == "AND" else any(results)
    if isinstance(cond, NotC):
        return not holds(obj, cond.item, row)
    kind = kind_of(obj, cond.field)
    value = typed(kind, row.get(cond.field))
    if isinstance(cond, NullC):
        return (value is None) == cond.is_null
    if isinstance(cond, LikeC):
        if value is None:
            return False
        return _like(literal_value("text", cond.pattern)).fullmatch(str(value)) is not None
    if isinstance(cond, InC):
        if value is None:
            return cond.negated
        found = any(_same(kind, value, literal_value(kind, t)) for t in cond.literals)
        return found != cond.negated
    assert isinstance(cond, Cmp)
    if value is None:
        return cond.op == "!="
    lit = literal_value(kind, cond.literal)
    if cond.op == "=":
        return _same(kind, value, lit)
    if cond.op == "!=":
        return not _same(kind, value, lit)
    if kind == "text":
        value, lit = str(value).lower(), str(lit).lower()
    ops: dict[str, Callable[[Any, Any], bool]] = {
        "<": lambda a, b: a < b,
        "<=": lambda a, b: a <= b,
        ">": lambda a, b: a > b,
        ">=": lambda a, b: a >= b,
    }
    return ops[cond.op](value, lit)


def _sort_value(kind: str, raw: str | None) -> Any:
    value = typed(kind, raw)
    if kind == "text" and value is not None:
        return str(value).lower()
    return value


def _compare_rows(query: Query, a: Row, b: Row) -> int:
    for item in query.order_by:
        kind = kind_of(query.object, item.field)
        x, y = _sort_value(kind, a.get(item.field)), _sort_value(kind, b.get(item.field))
        if x is None and y is None:
            continue
        nulls_first = (not item.descending) if item.nulls is None else item.nulls == "FIRST"
        if x is None or y is None:
            return (-1 if x is None else 1) * (1 if nulls_first else -1)
        if x == y:
            continue
        result = -1 if x < y else 1
        return -result if item.descending else result
    return 0


def evaluate(query: Query, rows: list[Row]) -> tuple[int, list[dict[str, Any]]]:
    """Expected ``(totalSize, records without attributes)`` of a non-aggregate query."""
    kept = [r for r in rows if query.where is None or holds(query.object, query.where, r)]
    if query.order_by:
        kept.sort(key=functools.cmp_to_key(lambda a, b: _compare_rows(query, a, b)))
    start = query.offset or 0
    stop = None if query.limit is None else start + query.limit
    page = kept[start:stop]
    records = [{f: output(kind_of(query.object, f), r.get(f)) for f in query.fields} for r in page]
    return len(records), records


def _aggregate(obj: str, agg: Agg, rows: list[Row]) -> Any:
    if agg.arg is None:
        return len(rows)
    kind = kind_of(obj, agg.arg)
    present = [r[agg.arg] for r in rows if r.get(agg.arg) is not None]
    func = agg.func.upper()
    if func == "COUNT":
        return len(present)
    if not present:
        return None
    if func in {"SUM", "AVG"}:
        numbers = [float(v) for v in present if v is not None]
        return sum(numbers) if func == "SUM" else sum(numbers) / len(numbers)
    best = (min if func == "MIN" else max)(present, key=lambda v: typed(kind, v))
    return output(kind, best)


def evaluate_aggregate(query: Query, rows: list[Row]) -> list[dict[str, Any]]:
    """Expected records of an aggregate query (group order unspecified)."""
    kept = [r for r in rows if query.where is None or holds(query.object, query.where, r)]
    groups: dict[tuple[Any, ...], list[Row]] = {}
    if not query.group_by:
        groups[()] = kept
    for row in kept if query.group_by else []:
        key = tuple(typed(kind_of(query.object, g), row.get(g)) for g in query.group_by)
        groups.setdefault(key, []).append(row)
    records = []
    for members in groups.values():
        record: dict[str, Any] = {
            g: output(kind_of(query.object, g), members[0].get(g)) for g in query.group_by
        }
        unnamed = 0
        for agg in query.aggregates:
            name = agg.alias
            if name is None:
                name = f"expr{unnamed}"
                unnamed += 1
            record[name] = _aggregate(query.object, agg, members)
        records.append(record)
    return records
