"""Turn result rows into Salesforce-shaped records with a shaper generated per plan layout.

Interpreting the plan for every row (which key, which converter, which parent dict) costs
more than SQLite's own work for large results, so the layout is compiled once into a small
Python function: one dict display per record plus a few statements for parent and child
relationships. The generated source contains only integer indexes and fixed local names;
every key, type name, URL prefix and converter is bound as an argument (see `bind`), so no text
from a query or a schema is ever part of the code.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Callable, Sequence
from typing import Any

from crmtui.query.results import API_VERSION
from crmtui.query.soql.plan import ChildPlan, Output
from crmtui.query.soql.values import is_datetime

URL_PREFIX = f"/services/data/{API_VERSION}/sobjects/"
AGGREGATE_TYPE = "AggregateResult"

Children = Sequence[dict[Any, list[dict[str, Any]]]]
Shaper = Callable[[Sequence[tuple[Any, ...]], Children, Sequence[Any], Sequence[Any]], list[Any]]
#: ``shaper(rows, children=())`` -> records, with its constants bound (see :func:`bind`).
BoundShaper = Callable[..., list[dict[str, Any]]]


class _Layout:
    """Collects constants (``S``, locals ``s0...``) and converters (``C``, locals ``c0...``)."""

    def __init__(self) -> None:
        self.consts: list[Any] = []
        self.convs: list[Any] = []

    def const(self, value: Any) -> str:
        self.consts.append(value)
        return f"s{len(self.consts) - 1}"

    def value(self, out: Output) -> str:
        cell = f"r[{out.col}]"
        if out.identity:
            return cell
        self.convs.append(out.conv)
        call = f"c{len(self.convs) - 1}"
        if is_datetime(out.conv):
            # Stored datetimes are nearly always canonical already; checking that inline
            # (the test dates.normalise_stored_datetime starts with) costs a fraction of a
            # converter call per value.
            return (
                f"(v if (v := {cell}) is None or (v.__class__ is str and len(v) == 28 and "
                f"v[10] == 'T' and v[23:] == '+0000') else {call}(v))"
            )
        return f"(None if {cell} is None else {call}({cell}))"

    def attributes(self, sobject: str, id_cell: str) -> str:
        return (
            f"{{'attributes': {{'type': {self.const(sobject)}, "
            f"'url': f'{{{self.const(URL_PREFIX + sobject + '/')}}}{{{id_cell}}}'}}}}"
        )


def build(
    sobject: str | None, items: Sequence[Output | ChildPlan]
) -> tuple[Shaper, list[Any], list[Any]]:
    """A shaper for rows laid out as ``items`` describe.

    Args:
        sobject: The records' sObject (the record's Id in row column 0), or None for
            AggregateResult rows (no Id, no url).
        items: Outputs and child plans in select-list order.

    Returns:
        ``(shaper, consts, convs)``; call ``shaper(rows, children, consts, convs)`` where
        ``children[j]`` maps parent ids to child records for the j-th child plan.
    """
    lay = _Layout()
    if sobject is None:
        head = [f"'attributes': {{'type': {lay.const(AGGREGATE_TYPE)}}}"]
    else:
        head = [
            f"'attributes': {{'type': {lay.const(sobject)}, "
            f"'url': f'{{{lay.const(URL_PREFIX + sobject + '/')}}}{{r[0]}}'}}"
        ]
    body: list[str] = []
    parents: dict[tuple[str, ...], str] = {}
    child_index = 0
    for item in items:
        if isinstance(item, ChildPlan):
            key = lay.const(item.rel_name)
            body.append(f"k = X[{child_index}].get(r[0])")
            body.append(
                f"rec[{key}] = {{'totalSize': len(k), 'done': True, 'records': k}} if k else None"
            )
            child_index += 1
            continue
        if not item.rel_names:
            if body:
                body.append(f"rec[{lay.const(item.key)}] = {lay.value(item)}")
            else:
                head.append(f"{lay.const(item.key)}: {lay.value(item)}")
            continue
        holder = "rec"
        for depth, (name, typ, id_col) in enumerate(
            zip(item.rel_names, item.rel_types, item.rel_id_cols, strict=True)
        ):
            path = item.rel_names[: depth + 1]
            if path not in parents:
                var = f"p{len(parents)}"
                parents[path] = var
                new = lay.attributes(typ, f"r[{id_col}]")
                if holder == "rec":
                    body.append(
                        f"{var} = rec[{lay.const(name)}] = None if r[{id_col}] is None else {new}"
                    )
                else:
                    body.append(
                        f"{var} = None if {holder} is None or r[{id_col}] is None else {new}"
                    )
                    body.append(f"if {holder} is not None: {holder}[{lay.const(name)}] = {var}")
            holder = parents[path]
        body.append(f"if {holder} is not None: {holder}[{lay.const(item.key)}] = {lay.value(item)}")
    shaper = _compile(", ".join(head), tuple(body), len(lay.consts), len(lay.convs))
    return shaper, lay.consts, lay.convs


def _unpack(prefix: str, count: int, source: str) -> str:
    # Constants and converters become locals (closure cells in the comprehension): cheaper
    # per row than indexing the S / C lists.
    if not count:
        return ""
    return f"    {', '.join(f'{prefix}{i}' for i in range(count))}, = {source}\n"


@functools.lru_cache(maxsize=256)
def _compile(head: str, body: tuple[str, ...], n_consts: int, n_convs: int) -> Shaper:
    prelude = (
        "def shape(rows, X=(), S=(), C=()):\n"
        + _unpack("s", n_consts, "S")
        + _unpack("c", n_convs, "C")
    )
    if not body:
        source = f"{prelude}    return [{{{head}}} for r in rows]\n"
    else:
        lines = "\n".join(f"        {line}" for line in body)
        source = (
            f"{prelude}"
            "    out = []\n"
            "    for r in rows:\n"
            f"        rec = {{{head}}}\n"
            f"{lines}\n"
            "        out.append(rec)\n"
            "    return out\n"
        )
    namespace: dict[str, Any] = {}
    exec(source, namespace)  # noqa: S102 - integer-indexed source, see module docstring
    return namespace["shape"]  # type: ignore[no-any-return]


def bind(sobject: str | None, items: Sequence[Output | ChildPlan]) -> BoundShaper:
    """A shaper for one plan, called as ``shaper(rows)`` or ``shaper(rows, children)``.

    The generated code is shared by every plan with the same layout; each plan gets its own
    function object whose default arguments are its constants and converters, so a call is
    one plain Python call (no wrapper).
    """
    shaper, consts, convs = build(sobject, items)
    return types.FunctionType(shaper.__code__, shaper.__globals__, "shape", ((), consts, convs))


def shape(
    rows: Sequence[tuple[Any, ...]],
    sobject: str | None,
    items: Sequence[Output | ChildPlan],
    children: Children = (),
) -> list[dict[str, Any]]:
    """Salesforce records for ``rows`` (see :func:`build`; plans keep a :func:`bind` one)."""
    return bind(sobject, items)(rows, children)
