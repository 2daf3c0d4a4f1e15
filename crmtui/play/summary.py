"""A summary of a list view (the compute tool's report) as the SOQL aggregate it equals.

Salesforce's report builder summarises a list: group rows by one or two fields (a related
record's field, or a date by calendar month), then count, sum, average, min or max. The
compute tool does that in Python over the view's rows (:mod:`crmtui.play.compute`); this
module writes the same summary as one SOQL aggregate query, recorded beside the compute
event so a person's report reads like a model's query, and checked in the tests to give the
same numbers through the engine.
"""

from __future__ import annotations

from typing import Any

from crmtui.play.compute import ComputeSpec, group_column
from crmtui.play.views import FilterError, TableView, condition_soql, field_at

#: The SOQL aggregate function per compute aggregate (median and durations have none).
SOQL_AGGREGATES = {"count": "COUNT", "sum": "SUM", "avg": "AVG", "min": "MIN", "max": "MAX"}


def _group_exprs(schema: Any, obj: Any, name: str) -> list[str]:
    """The GROUP BY expressions of one group: a field, or its date bucket's functions."""
    column, bucket = group_column(name)
    path, field = field_at(schema, obj, column)
    if bucket == "month":
        return [f"CALENDAR_YEAR({path})", f"CALENDAR_MONTH({path})"]
    if bucket == "year":
        return [f"CALENDAR_YEAR({path})"]
    if bucket == "month_in_year":
        return [f"CALENDAR_MONTH({path})"]
    if bucket == "day":
        return [f"DAY_ONLY({path})"] if field.type == "datetime" else [path]
    if field.type == "datetime":
        # SOQL cannot group by a datetime as such (the tool can, by the exact moment).
        raise FilterError(f"{path} is a date/time: SOQL groups it by day or month only")
    return [path]


def summary_soql(schema: Any, view: TableView, spec: ComputeSpec) -> str | None:
    """The SOQL aggregate query equal to ``spec`` over ``view`` (None when SOQL has none).

    Durations and medians cannot be written in SOQL, and neither can a searched view's
    summary (SOSL does not aggregate): those return None, and the recorded full-row query is
    the only equivalent.
    """
    if view.search or spec.is_duration or spec.aggregate not in SOQL_AGGREGATES:
        return None
    obj = schema.require(view.object)
    try:
        groups = [expr for name in spec.groups for expr in _group_exprs(schema, obj, name)]
        if spec.field:
            measure = f"{SOQL_AGGREGATES[spec.aggregate]}({field_at(schema, obj, spec.field)[0]})"
        else:
            measure = "COUNT(Id)"
        conditions = [condition_soql(obj, c, schema) for c in view.conditions]
    except FilterError:
        return None
    text = f"SELECT {', '.join([*groups, measure])} FROM {obj.name}"
    if conditions:
        text += " WHERE " + " AND ".join(conditions)
    if groups:
        text += " GROUP BY " + ", ".join(groups) + " ORDER BY " + ", ".join(groups)
    return text
