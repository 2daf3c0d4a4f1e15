"""Round trip of the SOQL printer: ``parse(to_soql(parse(text))) == parse(text)``.

ASTs are compared with source positions and ``Value.raw`` (the literal's spelling) left out;
see :func:`shape`. Printed queries must also return the same records as the original text,
on the generated org (``gen_org``) and on the hand-built fixture org of tests/unit/query.
"""

from __future__ import annotations

import datetime as dt
import importlib.util
import inspect
import re
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from crmtui.query import QueryError, QueryResult, execute_soql, run
from crmtui.query.soql import ast
from crmtui.query.soql.dates import N_LITERALS, SIMPLE_LITERALS
from crmtui.query.soql.parser import parse
from crmtui.query.soql.printer import UnprintableQuery, to_soql
from crmtui.value_class import FrozenValue
from tests.unit.query import conftest as unit_org
from tests.unit.query import test_upstream_shapes as upstream_shapes

from .model import FIELDS, render
from .strategies import ROWS, aggregate_queries, count_queries, select_queries

SETTINGS: dict[str, Any] = dict(
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
#: The date relative literals are computed from in the generated-org tests.
TODAY = dt.date(2024, 2, 15)
BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_query.py"
#: AST fields that say where or how something was written, not what it means.
_SPELLING_FIELDS = frozenset({"line", "column", "object_line", "object_column", "raw"})


def shape(node: Any) -> Any:
    """The AST as nested tuples without positions or raw spellings; numbers keep their type."""
    if isinstance(node, FrozenValue):
        kept = (name for name in node.FIELDS if name not in _SPELLING_FIELDS)
        return (type(node).__name__, tuple((name, shape(getattr(node, name))) for name in kept))
    if isinstance(node, tuple):
        return tuple(shape(item) for item in node)
    if isinstance(node, int | float):
        return (type(node).__name__, node)  # 1 == 1.0 == True, but they are not the same
    return node


def check_round_trip(text: str) -> str:
    """Assert both round-trip properties for ``text``; returns the printed query."""
    tree = parse(text)
    printed = to_soql(tree)
    assert shape(parse(printed)) == shape(tree), f"{text!r}\nprinted as\n{printed!r}"
    assert to_soql(parse(printed)) == printed, printed
    return printed


def same_outcome(execute: Callable[[str], QueryResult], text: str, printed: str) -> QueryResult:
    """Run both texts; they must give the same records and totalSize. Returns the original's."""
    original = execute(text)
    again = execute(printed)
    assert again.records == original.records, printed
    assert again.total_size == original.total_size, printed
    return original


# ------------------------------------------------------------------ helper and printer ------


def test_shape_ignores_positions_and_spelling_only() -> None:
    a = parse("SELECT Id FROM Case WHERE Status = 'New' AND IsEscalated = true")
    b = parse("select  Id\n from Case\twhere Status='New' and IsEscalated=TRUE")
    assert a != b and shape(a) == shape(b)
    assert shape(parse("SELECT Id FROM Case WHERE X = 1")) != shape(
        parse("SELECT Id FROM Case WHERE X = 1.0")
    )
    assert shape(parse("SELECT Id FROM Case WHERE X LIKE '\\%'")) != shape(
        parse("SELECT Id FROM Case WHERE X LIKE '%'")
    )


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        (
            "select id, count(Id) n from Case c where c.Status <> 'New' group by id "
            "having count(Id) > +1 order by id asc nulls last limit 5 offset 2 for view",
            "SELECT id, count(Id) n FROM Case c WHERE c.Status != 'New' GROUP BY id "
            "HAVING count(Id) > 1 ORDER BY id NULLS LAST LIMIT 5 OFFSET 2",
        ),
        (
            "SELECT Id FROM Case WHERE ((A = 1.50 AND B = .5) OR NOT (C = null)) AND "
            "NOT (D = true OR E = False)",
            "SELECT Id FROM Case WHERE ((A = 1.5 AND B = 0.5) OR NOT C = NULL) AND "
            "NOT (D = TRUE OR E = FALSE)",
        ),
        (
            "SELECT Id FROM Case WHERE S IN ('a\\'b', 'c\\\\d', '50\\%', 'x\ny', "
            "'\\N\\t\\\"é') AND T LIKE '_\\_%'",
            "SELECT Id FROM Case WHERE S IN ('a\\'b', 'c\\\\d', '50\\%', 'x\\ny', '\\n\\t\"é') "
            "AND T LIKE '_\\_%'",
        ),
        (
            "SELECT Id FROM Case WHERE D >= 2024-01-01T10:30:00.5+05:30 AND E = 2024-02-29 "
            "AND F = last_n_days: 007 AND G IN (today, Next_Week)",
            "SELECT Id FROM Case WHERE D >= 2024-01-01T05:00:00.500Z AND E = 2024-02-29 "
            "AND F = LAST_N_DAYS:7 AND G IN (TODAY, NEXT_WEEK)",
        ),
        (
            "SELECT Id, (SELECT Id FROM Contacts ORDER BY Name DESC) FROM Account WHERE "
            "Id NOT IN (SELECT AccountId FROM Case WHERE CALENDAR_YEAR(CreatedDate) = 2024)",
            "SELECT Id, (SELECT Id FROM Contacts ORDER BY Name DESC) FROM Account WHERE "
            "Id NOT IN (SELECT AccountId FROM Case WHERE CALENDAR_YEAR(CreatedDate) = 2024)",
        ),
        (
            "SELECT COUNT() FROM Case WHERE X = 0.0000001 AND Y = 10000000000000000000000.0",
            "SELECT COUNT() FROM Case WHERE X = 0.0000001 AND Y = 10000000000000000000000.0",
        ),
    ],
)
def test_canonical_text(text: str, canonical: str) -> None:
    assert to_soql(parse(text)) == canonical
    assert check_round_trip(text) == canonical


def test_printer_renders_single_nodes() -> None:
    where = parse("SELECT Id FROM Case WHERE NOT (A = 'x' OR B.C < 2024-01-01)").where
    assert where is not None
    assert to_soql(where) == "NOT (A = 'x' OR B.C < 2024-01-01)"
    order = parse("SELECT Id FROM Case ORDER BY DAY_ONLY(CreatedDate) DESC NULLS FIRST").order_by
    assert to_soql(order[0]) == "DAY_ONLY(CreatedDate) DESC NULLS FIRST"


def test_includes_keeps_its_values(fixture_org: Any) -> None:
    text = "SELECT Id FROM Case WHERE Subject INCLUDES ('a;b', 'c') OR Status EXCLUDES ('d')"
    printed = check_round_trip(text)
    assert printed == text
    errors = []
    for query in (text, " ".join(text.lower().split())):
        with pytest.raises(QueryError) as caught:
            execute_soql(fixture_org, query)
        errors.append((caught.value.code, caught.value.message))
    assert errors[0] == errors[1] and errors[0][0] == "INVALID_QUERY_FILTER_OPERATOR"


def test_nodes_the_parser_never_builds_raise_typed_errors() -> None:
    where = parse("SELECT Id FROM Case WHERE A IN ('x') AND B INCLUDES ('y')").where
    assert isinstance(where, ast.And)
    in_list, includes = where.items
    assert isinstance(in_list, ast.InList) and isinstance(includes, ast.Includes)
    bad = [
        in_list.replaced(values=()),
        includes.replaced(values=()),
        ast.Or((in_list,)),
        in_list.values[0].replaced(kind="blob"),
        "SELECT Id FROM Case",
    ]
    for node in bad:
        with pytest.raises(UnprintableQuery, match="cannot print"):
            to_soql(node)  # type: ignore[arg-type]


@pytest.mark.parametrize("gap", ["(", "( ", "(\n  "])
def test_child_subquery_position_is_its_parenthesis(gap: str) -> None:
    tree = parse(f"SELECT Id, {gap}SELECT Id FROM Contacts) FROM Account")
    item = tree.select[1]
    assert isinstance(item, ast.SelectSubquery)
    assert (item.line, item.column) == (1, 12)


def test_long_number_literal_reads_back_as_the_same_double() -> None:
    digits = "9" * 30 + ".0"  # beyond a double's precision: printed by value
    printed = check_round_trip(f"SELECT Id FROM Case WHERE X > +{digits}")
    assert printed.endswith("> 1" + "0" * 30 + ".0")


def test_number_literals_past_forty_digits_are_refused() -> None:
    # 400 digits would read as float infinity; 5,000 would pass Python's int() limit.
    for digits in ("9" * 400 + ".0", "1" + "0" * 5000):
        with pytest.raises(QueryError, match="NUMBER_OUTSIDE_VALID_RANGE: Number outside valid"):
            parse(f"SELECT Id FROM Case WHERE X > {digits}")


# ------------------------------------------------------------------- literal properties ----


@st.composite
def spelled_strings(draw: Any, text: str) -> tuple[str, str]:
    """A SOQL literal for ``text`` with randomly chosen escapes (all decode to ``text``).

    Returns (literal, expected LIKE pattern): ``\\%``/``\\_`` are literal characters in
    the pattern, plain ``%``/``_`` wildcards.
    """
    body, pattern = [], []
    for ch in text:
        options = {
            "'": ["\\'"],
            "\\": ["\\\\"],
            '"': ['"', '\\"'],
            "\n": ["\n", "\\n", "\\N"],
            "\t": ["\t", "\\t", "\\T"],
            "\r": ["\r", "\\r"],
            "\b": ["\b", "\\b"],
            "\f": ["\f", "\\F"],
            "%": ["%", "\\%"],
            "_": ["_", "\\_"],
        }.get(ch, [ch])
        spelled = draw(st.sampled_from(options))
        body.append(spelled)
        pattern.append("\\\\" if ch == "\\" else spelled if spelled in ("\\%", "\\_") else ch)
    return "'" + "".join(body) + "'", "".join(pattern)


@settings(max_examples=300, **SETTINGS)
@given(data=st.data(), text=st.text(max_size=12), like=st.booleans())
def test_string_literals_round_trip(data: Any, text: str, like: bool) -> None:
    literal, pattern = data.draw(spelled_strings(text))
    op = "LIKE" if like else "="
    query = f"SELECT Id FROM Case WHERE Subject {op} {literal} OR Status IN ({literal}, 'x')"
    tree = parse(query)
    value = tree.where.items[0].value  # type: ignore[union-attr]
    assert (value.value, value.like_pattern) == (text, pattern)
    check_round_trip(query)


@st.composite
def number_literals(draw: Any) -> str:
    """Integer and decimal spellings: signs, leading/trailing dots, leading zeros."""
    whole = draw(st.integers(0, 10**20))
    frac = draw(st.text("0123456789", max_size=20))
    form = draw(st.sampled_from(["int", "dot", "frac", "dotfrac"]))
    sign = draw(st.sampled_from(["", "", "-", "+"]))
    zeros = "0" * draw(st.integers(0, 2))
    body = {
        "int": f"{zeros}{whole}",
        "dot": f"{whole}.",
        "frac": f"{whole}.{frac or '0'}",
        "dotfrac": f".{frac or '5'}",
    }[form]
    return sign + body


@settings(max_examples=200, **SETTINGS)
@given(number=number_literals() | st.floats(allow_nan=False, allow_infinity=False).map(repr))
def test_number_literals_round_trip(number: str) -> None:
    query = f"SELECT Id FROM OrderItem WHERE Quantity > {number}"
    try:
        parse(query)
    except QueryError:
        # repr() of a float may use exponent notation, which SOQL does not have.
        assert "e" in number
        return
    check_round_trip(query)


# -------------------------------------------------------------- queries over gen_org -------


@settings(max_examples=150, **SETTINGS)
@given(query=select_queries() | aggregate_queries() | count_queries())
def test_model_queries_round_trip(gen_org: Any, query: Any) -> None:
    text = render(query)
    printed = check_round_trip(text)
    same_outcome(lambda t: run(gen_org, t, today=TODAY), text, printed)


# A richer query strategy than strategies.py's: relationship paths, object aliases, child
# subqueries, semi/anti-joins, date literals and functions, odd string and number spellings,
# HAVING, NULLS FIRST/LAST, OFFSET, FOR VIEW, and keyword case / whitespace variations.

#: Extra (parent-path) fields per object, with their kinds.
PATHS: dict[str, dict[str, str]] = {
    "OrderItem": {
        "Order.Status": "text",
        "Order.EffectiveDate": "date",
        "Product2.Name": "text",
        "Product2.IsActive": "bool",
        "OrderItem.Product2.Description": "text",
    },
}
#: object -> (left field, subquery object, subquery field) for IN (SELECT ...).
SEMI_JOINS: dict[str, list[tuple[str, str, str]]] = {
    "Product2": [("Id", "OrderItem", "Product2Id")],
    "Order": [("Id", "OrderItem", "OrderId")],
    "OrderItem": [("OrderId", "Order", "Id"), ("Product2Id", "Product2", "Id")],
    "Case": [],
}
CHILDREN = {"Order": "OrderItems", "Product2": "OrderItems"}
DATE_FUNCS = [
    "CALENDAR_YEAR",
    "CALENDAR_QUARTER",
    "CALENDAR_MONTH",
    "DAY_IN_MONTH",
    "DAY_IN_WEEK",
    "DAY_IN_YEAR",
    "WEEK_IN_MONTH",
    "WEEK_IN_YEAR",
    "FISCAL_YEAR",
    "FISCAL_QUARTER",
    "FISCAL_MONTH",
]
#: Strings that need escapes (or are unusual) in a SOQL literal.
TRICKY = [
    "O'Brien Grill",
    "back\\slash",
    "new\nline",
    'tab\tand "quotes"',
    "ünïcødé ☃",
    "100% Juice",
]
SEPS = st.sampled_from([" ", " ", " ", "  ", "\n", "\n  ", "\t"])


def kinds(obj: str) -> dict[str, str]:
    """Every field of ``obj`` the strategy may use, with its kind."""
    return {**FIELDS[obj], **PATHS.get(obj, {})}


class Speller:
    """Draws keyword spellings (case) and separators (whitespace) for one query."""

    def __init__(self, draw: Any) -> None:
        self.draw = draw

    def kw(self, words: str) -> str:
        case = self.draw(st.sampled_from([str.upper, str.upper, str.lower, str.title]))
        return self.sep().join(case(w) for w in words.split())

    def sep(self) -> str:
        return self.draw(SEPS)


def _prefixed(prefix: str, obj: str, name: str) -> str:
    # An object-prefixed path (OrderItem.Product2.Name) takes no alias in front of it.
    return name if name.startswith(obj + ".") else prefix + name


def _real(obj: str, name: str) -> list[str]:
    return sorted({r[name] for r in ROWS[obj] if r.get(name) is not None}) or ["x"]


def _datetime_literal(draw: Any) -> str:
    instant = dt.datetime(2024, 1, 1) + dt.timedelta(minutes=draw(st.integers(0, 130_000)))
    zone = draw(st.sampled_from([0, 0, 60, -300, 330, 345, -720, 840]))
    local = instant + dt.timedelta(minutes=zone)
    text = local.strftime("%Y-%m-%dT%H:%M:%S")
    text += draw(st.sampled_from(["", "", ".5", ".25", ".123", ".000"]))
    if zone == 0 and draw(st.booleans()):
        return text + draw(st.sampled_from(["Z", "z"]))
    sign, minutes = ("-" if zone < 0 else "+"), abs(zone)
    colon = draw(st.sampled_from([":", ""]))
    return f"{text}{sign}{minutes // 60:02d}{colon}{minutes % 60:02d}"


def _date_literal(draw: Any, sp: Speller) -> str:
    if draw(st.booleans()):
        return sp.kw(draw(st.sampled_from(sorted(SIMPLE_LITERALS))))
    name = sp.kw(draw(st.sampled_from(sorted(N_LITERALS))))
    return f"{name}:{draw(st.sampled_from(['', ' ']))}{draw(st.integers(0, 120))}"


def _literal(draw: Any, sp: Speller, obj: str, name: str, kind: str) -> str:
    if kind in ("text", "id"):
        real_obj, real_name = (obj, name) if "." not in name else ("Product2", "Name")
        choice = 0 if kind == "id" else draw(st.integers(0, 2))
        if choice == 0:
            text = draw(st.sampled_from(_real(real_obj, real_name)))
        else:
            text = draw(st.sampled_from(TRICKY) if choice == 1 else st.text(max_size=8))
        return draw(spelled_strings(text))[0]
    if kind == "num":
        return draw(number_literals())
    if kind == "date":
        choice = draw(st.integers(0, 2))
        if choice == 0:
            return _date_literal(draw, sp)
        return (dt.date(2023, 12, 20) + dt.timedelta(days=draw(st.integers(0, 90)))).isoformat()
    if kind == "datetime":
        return _date_literal(draw, sp) if draw(st.booleans()) else _datetime_literal(draw)
    return sp.kw(draw(st.sampled_from(["TRUE", "FALSE"])))


def _leaf(draw: Any, sp: Speller, obj: str, prefix: str, semi: bool) -> str:
    name, kind = draw(st.sampled_from(sorted(kinds(obj).items())))
    field = _prefixed(prefix, obj, name)
    shape_ = draw(st.sampled_from(["cmp", "cmp", "null", "in", "like", "func", "semi"]))
    if shape_ == "semi" and semi and SEMI_JOINS[obj]:
        left, sub_obj, sub_field = draw(st.sampled_from(SEMI_JOINS[obj]))
        where = ""
        if draw(st.booleans()):
            where = f" {sp.kw('WHERE')} " + _condition(draw, sp, sub_obj, "", False, 1)
        op = sp.kw(draw(st.sampled_from(["IN", "NOT IN"])))
        inner = f"{sp.kw('SELECT')} {sub_field} {sp.kw('FROM')} {sub_obj}{where}"
        return f"{prefix}{left} {op} ({inner})"
    if shape_ == "null":
        return f"{field} {draw(st.sampled_from(['=', '!=', '<>']))} {sp.kw('NULL')}"
    if shape_ == "like" and kind == "text":
        text = draw(st.sampled_from(["%", "_", "%Juice", "a\\_b%"]) | st.text(max_size=6))
        return f"{field} {sp.kw('LIKE')} {draw(spelled_strings(text))[0]}"
    if shape_ == "in" and kind != "bool":
        values = [_literal(draw, sp, obj, name, kind) for _ in range(draw(st.integers(1, 3)))]
        values += [sp.kw("NULL")] if draw(st.booleans()) else []
        op = sp.kw(draw(st.sampled_from(["IN", "NOT IN"])))
        return f"{field} {op} ({f',{sp.sep()}'.join(values)})"
    if shape_ == "func" and kind in ("date", "datetime"):
        inner = field
        if kind == "datetime" and draw(st.booleans()):
            inner = f"convertTimezone({field})"
        if kind == "datetime" and draw(st.booleans()):
            day = (dt.date(2024, 1, 1) + dt.timedelta(days=draw(st.integers(0, 90)))).isoformat()
            return f"DAY_ONLY({inner}) {draw(st.sampled_from(['=', '>', '<=']))} {day}"
        func = draw(st.sampled_from(DATE_FUNCS + (["HOUR_IN_DAY"] if kind == "datetime" else [])))
        func = draw(st.sampled_from([func, func.lower()]))
        op = draw(st.sampled_from(["=", "!=", "<", "<=", ">", ">="]))
        return f"{func}({inner}) {op} {draw(st.integers(0, 2025))}"
    ops = ["=", "!=", "<>"] if kind in ("bool", "id") else ["=", "!=", "<>", "<", "<=", ">", ">="]
    op = draw(st.sampled_from(ops))
    return f"{field}{sp.sep()}{op}{sp.sep()}{_literal(draw, sp, obj, name, kind)}"


def _condition(draw: Any, sp: Speller, obj: str, prefix: str, semi: bool, depth: int) -> str:
    roll = draw(st.integers(0, 5)) if depth < 3 else 0
    if roll <= 2:
        leaf = _leaf(draw, sp, obj, prefix, semi)
        return f"({leaf})" if draw(st.integers(0, 4)) == 0 else leaf
    if roll == 3:
        return f"{sp.kw('NOT')} ({_condition(draw, sp, obj, prefix, semi, depth + 1)})"
    joiner = f" {sp.kw(draw(st.sampled_from(['AND', 'OR'])))} "
    items = [
        _condition(draw, sp, obj, prefix, semi, depth + 1) for _ in range(draw(st.integers(2, 3)))
    ]
    return "(" + joiner.join(items) + ")"


def _order_by(draw: Any, sp: Speller, keys: list[str]) -> str:
    chosen = draw(st.lists(st.sampled_from(keys), min_size=1, max_size=2, unique=True))
    parts = []
    for key in chosen:
        part = key + draw(st.sampled_from(["", " " + sp.kw("ASC"), " " + sp.kw("DESC")]))
        nulls = draw(st.sampled_from(["", "", "NULLS FIRST", "NULLS LAST"]))
        parts.append(part + (" " + sp.kw(nulls) if nulls else ""))
    return f"{sp.kw('ORDER BY')} " + ", ".join(parts)


def _tail(draw: Any, sp: Speller) -> list[str]:
    parts = []
    if draw(st.booleans()):
        parts.append(f"{sp.kw('LIMIT')} {draw(st.integers(0, 40))}")
    if draw(st.booleans()):
        parts.append(f"{sp.kw('OFFSET')} {draw(st.integers(0, 30))}")
    if draw(st.integers(0, 4)) == 0:
        parts.append(f"{sp.kw('FOR')} {sp.kw(draw(st.sampled_from(['VIEW', 'REFERENCE'])))}")
    return parts


@st.composite
def rich_select_queries(draw: Any) -> str:
    """SELECT with parent paths, an optional child subquery, semi-joins, ORDER BY, ..."""
    sp = Speller(draw)
    obj = draw(st.sampled_from(sorted(FIELDS)))
    alias = draw(st.sampled_from(["", "", "t"]))
    prefix = draw(st.sampled_from(["", f"{alias}."])) if alias else ""
    names = sorted(kinds(obj))
    fields = draw(st.lists(st.sampled_from(names), min_size=1, max_size=4, unique=True))
    items = [_prefixed(prefix, obj, n) for n in fields]
    if obj in CHILDREN and draw(st.booleans()):
        sub = f"{sp.kw('SELECT')} Id, Quantity {sp.kw('FROM')} {CHILDREN[obj]}"
        if draw(st.booleans()):
            sub += f" {sp.kw('WHERE')} " + _condition(draw, sp, "OrderItem", "", False, 2)
        if draw(st.booleans()):
            sub += " " + _order_by(draw, sp, ["Quantity", "UnitPrice", "Id"])
        if draw(st.booleans()):
            sub += f" {sp.kw('LIMIT')} {draw(st.integers(1, 3))}"
        items.insert(draw(st.integers(0, len(items))), f"({sub})")
    parts = [f"{sp.kw('SELECT')} {', '.join(items)}", f"{sp.kw('FROM')} {obj} {alias}".rstrip()]
    if draw(st.booleans()):
        parts.append(f"{sp.kw('WHERE')} " + _condition(draw, sp, obj, prefix, True, 0))
    if draw(st.booleans()):
        parts.append(_order_by(draw, sp, [_prefixed(prefix, obj, n) for n in names]))
    return sp.sep().join(parts + _tail(draw, sp))


#: object -> group keys (fields, parent paths, date functions) and aggregate calls.
GROUPS: dict[str, tuple[list[str], list[str]]] = {
    "Product2": (["Description", "IsActive"], ["COUNT(Id)", "COUNT_DISTINCT(Name)"]),
    "Order": (
        ["Status", "EffectiveDate", "CALENDAR_YEAR(EffectiveDate)"],
        ["COUNT(Id)", "MIN(EffectiveDate)", "MAX(EffectiveDate)"],
    ),
    "OrderItem": (
        ["OrderId", "Product2Id", "Order.Status", "Product2.Name"],
        ["COUNT(Id)", "SUM(Quantity)", "AVG(UnitPrice)", "MAX(UnitPrice)", "count(Quantity)"],
    ),
    "Case": (
        ["Status", "Priority", "OwnerId", "CALENDAR_MONTH(CreatedDate)", "DAY_ONLY(CreatedDate)"],
        ["COUNT(Id)", "MIN(CreatedDate)", "MAX(ClosedDate)", "COUNT_DISTINCT(Subject)"],
    ),
}


@st.composite
def rich_aggregate_queries(draw: Any) -> str:
    """GROUP BY (fields, parent paths, date functions) with HAVING, aliases, ORDER BY."""
    sp = Speller(draw)
    obj = draw(st.sampled_from(sorted(GROUPS)))
    keys, aggs = GROUPS[obj]
    group = draw(st.lists(st.sampled_from(keys), min_size=1, max_size=2, unique=True))
    calls = draw(st.lists(st.sampled_from(aggs), min_size=1, max_size=3, unique=True))
    items = group + [c + draw(st.sampled_from(["", f" a{i}"])) for i, c in enumerate(calls)]
    parts = [f"{sp.kw('SELECT')} {', '.join(items)}", f"{sp.kw('FROM')} {obj}"]
    if draw(st.booleans()):
        parts.append(f"{sp.kw('WHERE')} " + _condition(draw, sp, obj, "", True, 1))
    parts.append(f"{sp.kw('GROUP BY')} {', '.join(group)}")
    if draw(st.booleans()):
        numeric = [c for c in calls if not c.startswith(("MIN(", "MAX("))] or ["COUNT(Id)"]
        tests = [
            f"{draw(st.sampled_from(numeric))} {draw(st.sampled_from(['>', '>=', '<', '=']))} "
            f"{draw(st.integers(0, 4))}"
            for _ in range(draw(st.integers(1, 2)))
        ]
        joiner = f" {sp.kw(draw(st.sampled_from(['AND', 'OR'])))} "
        having = joiner.join(tests)
        if draw(st.booleans()):
            having = f"{sp.kw('NOT')} ({having})"
        parts.append(f"{sp.kw('HAVING')} {having}")
    if draw(st.booleans()):
        parts.append(_order_by(draw, sp, group + calls))
    return sp.sep().join(parts + _tail(draw, sp))


#: Constructs the rich strategies must reach (regexes over the canonical printed text).
CONSTRUCTS = {
    "child subquery": r"^SELECT (\S+, )*\(SELECT ",
    "semi-join": r" IN \(SELECT ",
    "anti-join": r" NOT IN \(SELECT ",
    "parent path": r"\bOrder\.(Status|EffectiveDate)\b",
    "object-prefixed path": r"OrderItem\.Product2\.Description",
    "object alias": r" FROM \w+ t\b",
    "date literal": r"\b(TODAY|YESTERDAY|TOMORROW|(THIS|LAST|NEXT)_\w+)\b",
    "date literal with n": r"\b[A-Z_]+:\d+\b",
    "date": r"\b\d{4}-\d\d-\d\d\b(?!T)",
    "datetime with milliseconds": r"\dT\d\d:\d\d:\d\d\.\d{3}Z",
    "date function": r"\b(CALENDAR|DAY|WEEK|FISCAL|HOUR)_\w+\(",
    "convertTimezone": r"convertTimezone\(",
    "escaped quote": r"\\'",
    "escaped backslash": r"\\\\",
    "escaped newline": r"\\n",
    "escaped wildcard": r"\\[%_]",
    "non-ASCII": r"[^\x00-\x7f]",
    "LIKE": r" LIKE '",
    "NOT IN list": r" NOT IN \('",
    "IN with NULL": r" IN \([^()]*NULL\)",
    "NOT (...)": r" NOT \(",
    "nested AND/OR": r"\((\S+ )+(AND|OR) ",
    "negative or fractional number": r"[<>=] -?\d*\.\d",
    "HAVING": r" HAVING ",
    "GROUP BY date function": r" GROUP BY (\S+, )*(CALENDAR_MONTH|DAY_ONLY|CALENDAR_YEAR)\(",
    "GROUP BY parent path": r" GROUP BY (\S+, )*Order\.Status",
    "aggregate alias": r"\) a\d\b",
    "ORDER BY ... DESC": r" DESC\b",
    "NULLS FIRST": r" NULLS FIRST\b",
    "NULLS LAST": r" NULLS LAST\b",
    "LIMIT": r" LIMIT \d+",
    "OFFSET": r" OFFSET \d+",
}


def test_rich_queries_round_trip(gen_org: Any) -> None:
    printed_texts: list[str] = []
    originals: list[str] = []

    @settings(max_examples=400, **SETTINGS)
    @given(text=rich_select_queries() | rich_aggregate_queries())
    def check(text: str) -> None:
        printed = check_round_trip(text)
        same_outcome(lambda t: run(gen_org, t, today=TODAY), text, printed)
        printed_texts.append(printed)
        originals.append(" ".join(text.upper().split()))

    check()
    # The strategies must keep reaching what they exist to cover.
    missing = [
        k for k, rx in CONSTRUCTS.items() if not any(re.search(rx, t) for t in printed_texts)
    ]
    assert not missing, missing
    assert any(" FOR VIEW" in t or " FOR REFERENCE" in t for t in originals)
    assert not any(" FOR " in t for t in printed_texts)  # dropped by the parser


# ------------------------------------------------ upstream shapes and the benchmark list ----


@pytest.fixture(scope="module")
def fixture_org(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """tests/unit/query's hand-built fixture org (every builtin object)."""
    from crmtui.data.schema import builtin_schema

    path = unit_org.build_org_file(tmp_path_factory.mktemp("rt") / "fixture.db", builtin_schema())
    return unit_org.FixtureOrg(path, builtin_schema())


UPSTREAM_TESTS = [
    name
    for name, func in inspect.getmembers(upstream_shapes, inspect.isfunction)
    if name.startswith("test_") and func.__module__ == upstream_shapes.__name__
]


@pytest.mark.parametrize("name", UPSTREAM_TESTS)
def test_upstream_shape_queries_round_trip(fixture_org: Any, name: str) -> None:
    # Run the upstream-shape test itself with a `q` that also round-trips every query it
    # issues and checks the printed query returns the same records; its own asserts still run.
    func = getattr(upstream_shapes, name)
    assert list(inspect.signature(func).parameters) == ["q"], f"{name} needs more than q"
    seen: list[str] = []

    def q(text: str) -> QueryResult:
        printed = check_round_trip(text)
        seen.append(text)
        return same_outcome(
            lambda t: execute_soql(fixture_org, t, today=unit_org.TODAY), text, printed
        )

    func(q)
    assert seen, f"{name} issued no query"


def _bench_module() -> Any:
    spec = importlib.util.spec_from_file_location("bench_query", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("bench_query", module)  # dataclasses look their module up here
    spec.loader.exec_module(module)
    return module


def test_benchmark_queries_round_trip(tmp_path: Path) -> None:
    from crmtui.org.build import build_org
    from crmtui.org.store import open_org

    path = tmp_path / "bench.db"
    build_org(path, seed=7, scale="small")
    conn = sqlite3.connect(path)
    try:
        queries, today = _bench_module().build_queries(conn)
    finally:
        conn.close()
    org = open_org(path)
    soql = [(name, text) for name, text, _sql in queries if not text.startswith("FIND")]
    assert len(soql) >= 30
    matched = 0
    for _name, text in soql:
        printed = check_round_trip(text)
        matched += same_outcome(lambda t: run(org, t, today=today), text, printed).total_size > 0
    assert matched >= len(soql) - 3  # compared on real rows, not on empty results
