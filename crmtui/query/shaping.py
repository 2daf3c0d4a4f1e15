"""Turn result rows into Salesforce-shaped records with a shaper generated per plan layout.

Interpreting the plan for every row (which key, which converter, which parent dict) costs
more than SQLite's own work for large results, so the layout is compiled once into a small
Python function: one dict display per record plus a few statements for parent and child
relationships. The generated source contains only integer indexes and fixed local names;
every key, type name, URL prefix and converter is passed in as an argument, so no text
from a query or a schema is ever part of the code.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from crmtui.query.plan import ChildPlan, Output
from crmtui.query.results import API_VERSION

URL_PREFIX = f"/services/data/{API_VERSION}/sobjects/"

Children = Sequence[dict[Any, list[dict[str, Any]]]]
Shaper = Callable[[Sequence[tuple[Any, ...]], Sequence[Any], Sequence[Any], Children], list[Any]]


class _Layout:
    """Collects constants (``S``) and converters (``C``) while emitting code lines."""

    def __init__(self) -> None:
        self.consts: list[Any] = []
        self.convs: list[Any] = []

    def const(self, value: Any) -> str:
        self.consts.append(value)
        return f"S[{len(self.consts) - 1}]"

    def value(self, out: Output) -> str:
        cell = f"r[{out.col}]"
        if out.identity:
            return cell
        self.convs.append(out.conv)
        return f"(None if {cell} is None else C[{len(self.convs) - 1}]({cell}))"

    def attributes(self, sobject: str, id_cell: str) -> str:
        return (
            f"{{'attributes': {{'type': {self.const(sobject)}, "
            f"'url': f'{{{self.const(URL_PREFIX + sobject + '/')}}}{{{id_cell}}}'}}}}"
        )


def build(sobject: str, items: Sequence[Output | ChildPlan]) -> tuple[Shaper, list[Any], list[Any]]:
    """A shaper for rows laid out as ``items`` describe (the record's Id in column 0).

    Returns:
        ``(shaper, consts, convs)``; call ``shaper(rows, consts, convs, children)`` where
        ``children[j]`` maps parent ids to child records for the j-th child plan.
    """
    lay = _Layout()
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
    return _compile(", ".join(head), tuple(body)), lay.consts, lay.convs


@functools.lru_cache(maxsize=256)
def _compile(head: str, body: tuple[str, ...]) -> Shaper:
    if not body:
        source = f"def shape(rows, S, C, X):\n    return [{{{head}}} for r in rows]\n"
    else:
        lines = "\n".join(f"        {line}" for line in body)
        source = (
            "def shape(rows, S, C, X):\n"
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


def shape(
    rows: Sequence[tuple[Any, ...]],
    sobject: str,
    items: Sequence[Output | ChildPlan],
    children: Children = (),
) -> list[dict[str, Any]]:
    """Salesforce records for ``rows`` (see :func:`build`)."""
    shaper, consts, convs = build(sobject, items)
    return shaper(rows, consts, convs, children)
