"""AST -> canonical SOQL text: the inverse of :func:`crmtui.query.soql.parser.parse`.

For every query the parser accepts, ``parse(to_soql(parse(text)))`` equals ``parse(text)``
once source positions and ``Value.raw`` (the literal as the user typed it) are set aside,
and ``to_soql`` is a fixed point of its own output. The canonical form:

* keywords upper-case (``SELECT``, ``WHERE``, ``NOT IN``, ``NULLS LAST``, ``TRUE``,
  ``NULL``, date literals such as ``LAST_N_DAYS:7``), single spaces, ``", "`` between
  list items, and ``!=`` for ``<>``;
* identifiers (objects, fields, relationship paths, function names, aliases) exactly as
  the AST holds them: the parser keeps the user's spelling and so does the printer;
* strings re-escaped from their LIKE pattern, so ``'\\%'`` (a literal percent sign) and
  ``'%'`` (a wildcard) stay distinct; quotes, backslashes and control characters are
  escaped, any other character (unicode included) is written as itself;
* numbers by value (``+5`` -> ``5``, ``1.50`` -> ``1.5``, never exponent notation), dates
  ``YYYY-MM-DD``, datetimes in UTC as ``YYYY-MM-DDTHH:MM:SS[.mmm]Z``;
* AND/OR operands that are themselves AND/OR, and NOT operands that are AND/OR, in
  parentheses (the grammar refuses unbracketed mixes), nothing else parenthesised;
* ``ASC`` left out (it is the default), ``NULLS FIRST``/``NULLS LAST`` only when written.

One thing the parser reads is not printed because the AST does not keep it: ``FOR VIEW``
/ ``FOR REFERENCE`` / ``FOR UPDATE`` (dropped by the parser: they change nothing offline, so
the printed query means the same).
"""

from __future__ import annotations

import datetime as dt
import math
from decimal import Decimal

from crmtui.errors import CrmtuiError
from crmtui.query.soql import ast

#: Characters a string literal cannot hold as themselves, and their SOQL escapes.
_ESCAPES = {"'": "\\'", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}

Node = (
    ast.Query
    | ast.Compare
    | ast.Like
    | ast.InList
    | ast.InQuery
    | ast.Includes
    | ast.And
    | ast.Or
    | ast.Not
    | ast.FieldPath
    | ast.FuncCall
    | ast.Value
    | ast.SelectField
    | ast.SelectFunc
    | ast.SelectSubquery
    | ast.OrderItem
)


class UnprintableQuery(CrmtuiError):
    """The AST holds something that has no SOQL text (or lost the text it came from)."""


def to_soql(node: Node) -> str:
    """Render an AST node (normally a whole :class:`~crmtui.query.soql.ast.Query`) as SOQL.

    Args:
        node: A query, condition, operand, literal, select item or ORDER BY key, as built
            by :func:`crmtui.query.soql.parser.parse`.

    Returns:
        Canonical SOQL text for the node (see the module docstring for the form).

    Raises:
        UnprintableQuery: For nodes the parser never builds: ``IN``/``INCLUDES`` without
            values, ``AND``/``OR`` of fewer than two conditions, literals of an unknown
            kind, or an object that is not an AST node.
    """
    if isinstance(node, ast.Query):
        return _query(node)
    if isinstance(node, ast.FieldPath | ast.FuncCall):
        return _operand(node)
    if isinstance(node, ast.Value):
        return _value(node)
    if isinstance(node, ast.SelectField | ast.SelectFunc | ast.SelectSubquery):
        return _select_item(node)
    if isinstance(node, ast.OrderItem):
        return _order_item(node)
    if isinstance(node, ast.Compare | ast.Like | ast.InList | ast.InQuery | ast.Includes):
        return _condition(node)
    if isinstance(node, ast.And | ast.Or | ast.Not):
        return _condition(node)
    raise UnprintableQuery(f"cannot print {type(node).__name__!s} as SOQL: not a SOQL AST node")


# -- statements ----------------------------------------------------------------------------


def _query(query: ast.Query) -> str:
    source = f"FROM {query.object}" + (f" {query.alias}" if query.alias else "")
    parts = ["SELECT " + ", ".join(_select_item(item) for item in query.select), source]
    if query.where is not None:
        parts.append("WHERE " + _condition(query.where))
    if query.group_by:
        parts.append("GROUP BY " + ", ".join(_operand(op) for op in query.group_by))
    if query.having is not None:
        parts.append("HAVING " + _condition(query.having))
    if query.order_by:
        parts.append("ORDER BY " + ", ".join(_order_item(item) for item in query.order_by))
    if query.limit is not None:
        parts.append(f"LIMIT {query.limit}")
    if query.offset is not None:
        parts.append(f"OFFSET {query.offset}")
    return " ".join(parts)


def _select_item(item: ast.SelectItem) -> str:
    if isinstance(item, ast.SelectField):
        return _operand(item.path)
    if isinstance(item, ast.SelectFunc):
        return _operand(item.call) + (f" {item.alias}" if item.alias else "")
    return f"({_query(item.query)})"


def _order_item(item: ast.OrderItem) -> str:
    text = _operand(item.expr)
    if item.descending:
        text += " DESC"
    if item.nulls_first is not None:
        text += " NULLS FIRST" if item.nulls_first else " NULLS LAST"
    return text


def _operand(op: ast.Operand) -> str:
    if isinstance(op, ast.FieldPath):
        return ".".join(op.parts)
    inner = _operand(op.arg) if op.arg is not None else ""
    return f"{op.name}({inner})"


# -- conditions ----------------------------------------------------------------------------


def _condition(cond: ast.Condition) -> str:
    if isinstance(cond, ast.Compare):
        return f"{_operand(cond.left)} {cond.op} {_value(cond.value)}"
    if isinstance(cond, ast.Like):
        return f"{_operand(cond.left)} LIKE {_value(cond.value)}"
    if isinstance(cond, ast.InList):
        keyword = "NOT IN" if cond.negated else "IN"
        if not cond.values:
            raise UnprintableQuery(f"cannot print {_operand(cond.left)} {keyword} (): no values")
        values = ", ".join(_value(v) for v in cond.values)
        return f"{_operand(cond.left)} {keyword} ({values})"
    if isinstance(cond, ast.InQuery):
        keyword = "NOT IN" if cond.negated else "IN"
        return f"{_operand(cond.left)} {keyword} ({_query(cond.query)})"
    if isinstance(cond, ast.And | ast.Or):
        joiner = " AND " if isinstance(cond, ast.And) else " OR "
        if len(cond.items) < 2:
            # One item would print as that item alone and read back as a different tree.
            raise UnprintableQuery(f"cannot print{joiner}of {len(cond.items)} condition(s)")
        return joiner.join(_operand_of_connective(item) for item in cond.items)
    if isinstance(cond, ast.Not):
        return "NOT " + _operand_of_connective(cond.item)
    word = "EXCLUDES" if cond.negated else "INCLUDES"
    if not cond.values:
        raise UnprintableQuery(f"cannot print {_operand(cond.left)} {word} (): no values")
    return f"{_operand(cond.left)} {word} ({', '.join(_value(v) for v in cond.values)})"


def _operand_of_connective(cond: ast.Condition) -> str:
    # AND/OR take only "unary" operands in the grammar: comparisons, NOT ..., or (...).
    text = _condition(cond)
    return f"({text})" if isinstance(cond, ast.And | ast.Or) else text


# -- literals ------------------------------------------------------------------------------


def _value(value: ast.Value) -> str:
    kind = value.kind
    if kind == "string":
        pattern = value.like_pattern
        return _quote_pattern(pattern) if pattern is not None else _quote(str(value.value))
    if kind == "number":
        return _number(value)
    if kind == "datetime" and isinstance(value.value, dt.datetime):
        return _datetime(value.value)
    if kind == "date" and isinstance(value.value, dt.date):
        day = value.value
        return f"{day.year:04d}-{day.month:02d}-{day.day:02d}"
    if kind == "date_literal" and isinstance(value.value, tuple):
        name, n = value.value
        return str(name).upper() if n is None else f"{str(name).upper()}:{n}"
    if kind == "boolean":
        return "TRUE" if value.value else "FALSE"
    if kind == "null":
        return "NULL"
    raise UnprintableQuery(f"cannot print the {kind} literal {value.raw!r}: unknown literal kind")


def _quote(text: str) -> str:
    """A string literal whose decoded value is ``text`` (``%`` and ``_`` left as wildcards)."""
    return "'" + "".join("\\\\" if ch == "\\" else _ESCAPES.get(ch, ch) for ch in text) + "'"


def _quote_pattern(pattern: str) -> str:
    """A string literal whose LIKE pattern (escape character ``\\``) is ``pattern``.

    In a pattern a backslash only ever escapes the next character (``\\\\``, ``\\%``,
    ``\\_``): the same spelling is a valid escape in a SOQL literal, so it is copied.
    """
    out: list[str] = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern) and pattern[i + 1] in "\\%_":
            out.append(pattern[i : i + 2])
            i += 2
            continue
        out.append("\\\\" if ch == "\\" else _ESCAPES.get(ch, ch))
        i += 1
    return "'" + "".join(out) + "'"


def _number(value: ast.Value) -> str:
    number = value.value
    if isinstance(number, bool) or not isinstance(number, int | float):
        raise UnprintableQuery(f"cannot print the number literal {value.raw!r}: not a number")
    if isinstance(number, int):
        return str(number)
    if not math.isfinite(number):
        # A literal too large for a float (hundreds of digits) reads as infinity: its own
        # spelling is the only text that reads back as the same value.
        return value.raw.lstrip("+")
    # repr() is the shortest text that reads back as the same float; Decimal turns its
    # exponent form (1e-07, 1e+22) into plain digits, which is all the grammar accepts.
    text = format(Decimal(repr(number)), "f")
    return text if "." in text else text + ".0"


def _datetime(value: dt.datetime) -> str:
    stamp = value.astimezone(dt.UTC) if value.tzinfo is not None else value
    text = (
        f"{stamp.year:04d}-{stamp.month:02d}-{stamp.day:02d}T"
        f"{stamp.hour:02d}:{stamp.minute:02d}:{stamp.second:02d}"
    )
    if stamp.microsecond:
        # The grammar allows milliseconds only; the parser never builds finer values.
        text += f".{stamp.microsecond // 1000:03d}"
    return text + "Z"
