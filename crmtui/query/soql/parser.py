"""Text -> :class:`~crmtui.query.soql.ast.Query`: the ``soql.lark`` grammar's LALR parser.

The parser runs from tables lark built (:mod:`.lalr`, :mod:`.tables`; lark itself is not
loaded), and :class:`_ToAst` turns its tree into AST nodes the way a lark ``Transformer``
did: bottom-up, children first, left to right. Every failure becomes a
:class:`QueryError` (``MALFORMED_QUERY`` with the offending token and its position).
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from typing import Any

from crmtui.query.boundary import translate
from crmtui.query.errors import MALFORMED_QUERY, NUMBER_OUTSIDE_VALID_RANGE, QueryError
from crmtui.query.soql import ast, lalr
from crmtui.query.soql.clauses import MAX_LIMIT, MAX_OFFSET
from crmtui.query.soql.dates import (
    DATE_RANGE_HINT,
    N_LITERALS,
    SIMPLE_LITERALS,
    in_valid_range,
    parse_datetime_literal,
)
from crmtui.query.soql.lalr import Token, Tree
from crmtui.query.soql.literals import decode_string, string_list

#: The SOQL grammar, beside this module (``scripts/gen_soql_tables.py`` builds the tables).
GRAMMAR = Path(__file__).with_name("soql.lark")
#: Salesforce's default limit on the length of a SOQL statement.
MAX_QUERY_LENGTH = 100_000
#: Parentheses nested deeper than this are refused before parsing (keeps the tree
#: transformer and the compiler far from Python's recursion limit, and the generated SQL
#: within SQLite's parser stack).
MAX_NESTING = 64
#: Longest number literal (digits, leading zeros aside): Salesforce's doubles carry 18
#: significant digits; Python's 4,300-digit int limit is never approached.
MAX_NUMBER_DIGITS = 40
#: Longest ``:n`` of a relative date literal (LAST_N_DAYS:1000000 already leaves 1700..4000).
MAX_DATE_N_DIGITS = 7

_FENCE = re.compile(r"```(?:[A-Za-z]+\b)?(.*?)```", re.DOTALL)


def unwrap_fence(text: str) -> str:
    """Unwrap a fenced code block the way upstream's ``preprocess_query`` does.

    When the text contains a ```` ``` ```` fence, keep the first fenced body (dropping a
    language tag such as ``sql``) and collapse whitespace runs to single spaces.
    """
    if "```" not in text:
        return text
    match = _FENCE.search(text)
    if match is None:
        return text
    return " ".join(match.group(1).split())


def _pos(token: Token) -> tuple[int, int]:
    return (token.line or 1, token.column or 1)


class _ToAst:
    """Build AST nodes from the parse tree: each tree's method gets its children's values.

    A method takes the values as arguments, except those named in :data:`WITH_META`, which
    take the tree (its ``line``/``column``: where its text starts) and the list of values.
    """

    #: The methods that are told where their tree starts.
    WITH_META = frozenset({"query", "sel_subquery"})

    def transform(self, tree: Tree) -> Any:
        """The value of ``tree``: its children's values first, left to right."""
        children = [self.transform(c) if isinstance(c, Tree) else c for c in tree.children]
        method = getattr(self, tree.data)
        if tree.data in self.WITH_META:
            return method(tree, children)
        return method(*children)

    def start(self, query: ast.Query) -> ast.Query:
        return query

    def query(self, meta: Any, items: list[Any]) -> ast.Query:
        fields: dict[str, Any] = {}
        select, (obj_token, alias) = items[0], items[1]
        for kind, value in items[2:]:
            if kind != "for_clause":
                fields[kind] = value
        line, column = _pos(obj_token)
        return ast.Query(
            select=tuple(select),
            object=str(obj_token),
            object_line=line,
            object_column=column,
            alias=alias,
            line=meta.line if not meta.empty else 1,
            column=meta.column if not meta.empty else 1,
            **fields,
        )

    def select_list(self, *items: ast.SelectItem) -> list[ast.SelectItem]:
        return list(items)

    def sel_field(self, path: ast.FieldPath) -> ast.SelectField:
        return ast.SelectField(path)

    def sel_func(self, call: ast.FuncCall, alias: str | None = None) -> ast.SelectFunc:
        return ast.SelectFunc(call, alias)

    def sel_subquery(self, meta: Any, items: list[ast.Query]) -> ast.SelectSubquery:
        # meta spans the "(" too, wherever it is ("( SELECT", "(\nSELECT").
        return ast.SelectSubquery(items[0], meta.line, meta.column)

    def alias(self, token: Token) -> str:
        return str(token)

    def object_ref(self, name: Token, alias: Token | None = None) -> tuple[Token, str | None]:
        return name, (str(alias) if alias is not None else None)

    def field_path(self, *names: Token) -> ast.FieldPath:
        line, column = _pos(names[0])
        return ast.FieldPath(tuple(str(n) for n in names), line, column)

    def func_call(self, name: Token, arg: ast.Operand | None = None) -> ast.FuncCall:
        line, column = _pos(name)
        return ast.FuncCall(str(name), arg, line, column)

    # -- conditions --------------------------------------------------------------------

    def where(self, cond: ast.Condition) -> tuple[str, ast.Condition]:
        return "where", cond

    def having(self, cond: ast.Condition) -> tuple[str, ast.Condition]:
        return "having", cond

    def and_(self, *items: ast.Condition) -> ast.And:
        return ast.And(tuple(items))

    def or_(self, *items: ast.Condition) -> ast.Or:
        return ast.Or(tuple(items))

    def not_(self, item: ast.Condition) -> ast.Not:
        return ast.Not(item)

    def paren(self, item: ast.Condition) -> ast.Condition:
        return item

    def compare(self, left: ast.Operand, op: Token, value: ast.Value) -> ast.Compare:
        return ast.Compare(left, "!=" if str(op) == "<>" else str(op), value)

    def like(self, left: ast.Operand, value: ast.Value) -> ast.Like:
        return ast.Like(left, value)

    def in_list(self, left: ast.Operand, values: list[ast.Value]) -> ast.InList:
        return ast.InList(left, tuple(values), negated=False)

    def not_in_list(self, left: ast.Operand, values: list[ast.Value]) -> ast.InList:
        return ast.InList(left, tuple(values), negated=True)

    def in_query(self, left: ast.Operand, query: ast.Query) -> ast.InQuery:
        return ast.InQuery(left, query, negated=False)

    def not_in_query(self, left: ast.Operand, query: ast.Query) -> ast.InQuery:
        return ast.InQuery(left, query, negated=True)

    def includes(self, left: ast.Operand, values: list[ast.Value]) -> ast.Includes:
        return ast.Includes(left, negated=False, values=tuple(values))

    def excludes(self, left: ast.Operand, values: list[ast.Value]) -> ast.Includes:
        return ast.Includes(left, negated=True, values=tuple(values))

    def value_list(self, *values: ast.Value) -> list[ast.Value]:
        return list(values)

    def in_strings(self, left: ast.Operand, token: Token) -> ast.InList:
        return ast.InList(left, string_list(token), negated=False)

    def not_in_strings(self, left: ast.Operand, token: Token) -> ast.InList:
        return ast.InList(left, string_list(token), negated=True)

    # -- literals ----------------------------------------------------------------------

    def string(self, token: Token) -> ast.Value:
        value, pattern = decode_string(token)
        return ast.Value("string", value, str(token), *_pos(token), like_pattern=pattern)

    def number(self, token: Token) -> ast.Value:
        text = str(token)
        if len(text.lstrip("+-0").replace(".", "")) > MAX_NUMBER_DIGITS:
            raise _out_of_range(token)
        number: int | float = float(text) if "." in text else int(text)
        if isinstance(number, int) and not -(2**63) <= number < 2**63:
            number = float(number)  # beyond SQLite's integers: compared as a double
        return ast.Value("number", number, text, *_pos(token))

    def datetime(self, token: Token) -> ast.Value:
        try:
            value = parse_datetime_literal(str(token))
        except ValueError as exc:
            raise _bad_literal(token, "datetime") from exc
        if not in_valid_range(value.date()):
            raise _bad_literal(token, "datetime", DATE_RANGE_HINT)
        return ast.Value("datetime", value, str(token), *_pos(token))

    def date(self, token: Token) -> ast.Value:
        try:
            value = dt.date.fromisoformat(str(token))
        except ValueError as exc:
            raise _bad_literal(token, "date") from exc
        if not in_valid_range(value):
            raise _bad_literal(token, "date", DATE_RANGE_HINT)
        return ast.Value("date", value, str(token), *_pos(token))

    def date_n(self, token: Token) -> ast.Value:
        name, _, n = str(token).partition(":")
        upper = name.upper()
        line, column = _pos(token)
        if upper not in N_LITERALS:
            raise QueryError(
                MALFORMED_QUERY, f"unexpected token: '{token}'", line=line, column=column
            )
        if len(n.strip().lstrip("0")) > MAX_DATE_N_DIGITS:  # beyond year 4000 anyway
            raise QueryError(
                MALFORMED_QUERY,
                f"date literal {_short(str(token))} is out of range: {DATE_RANGE_HINT}",
                line=line,
                column=column,
            )
        return ast.Value("date_literal", (upper, int(n.strip())), str(token), line, column)

    def word(self, token: Token) -> ast.Value:
        upper = str(token).upper()
        if upper in ("TRUE", "FALSE"):
            return ast.Value("boolean", upper == "TRUE", str(token), *_pos(token))
        if upper == "NULL":
            return ast.Value("null", None, str(token), *_pos(token))
        if upper in SIMPLE_LITERALS:
            return ast.Value("date_literal", (upper, None), str(token), *_pos(token))
        line, column = _pos(token)
        if upper in N_LITERALS:
            message = f"Date literal {upper} needs a number: {upper}:n, e.g. {upper}:7"
        else:
            message = (
                f"unexpected token: '{token}'. String values must be enclosed in single "
                f"quotes: '{token}'"
            )
        raise QueryError(MALFORMED_QUERY, message, line=line, column=column)

    # -- trailing clauses --------------------------------------------------------------

    def group_by(self, *items: ast.Operand) -> tuple[str, tuple[ast.Operand, ...]]:
        return "group_by", tuple(items)

    def order_by(self, *items: ast.OrderItem) -> tuple[str, tuple[ast.OrderItem, ...]]:
        return "order_by", tuple(items)

    def order_item(self, expr: ast.Operand, *rest: Any) -> ast.OrderItem:
        descending = False
        nulls_first: bool | None = None
        for part in rest:
            if isinstance(part, Token) and part.type == "DIRECTION":
                descending = str(part).upper() == "DESC"
            elif isinstance(part, bool):
                nulls_first = part
        return ast.OrderItem(expr, descending, nulls_first)

    def nulls(self, where: Token) -> bool:
        return str(where).upper() == "FIRST"

    def limit(self, token: Token) -> tuple[str, int]:
        if len(str(token).lstrip("0")) > MAX_NUMBER_DIGITS:
            raise QueryError(NUMBER_OUTSIDE_VALID_RANGE, f"LIMIT must be at most {MAX_LIMIT:,}")
        return "limit", int(token)

    def offset(self, token: Token) -> tuple[str, int]:
        if len(str(token).lstrip("0")) > MAX_NUMBER_DIGITS:
            raise QueryError(
                NUMBER_OUTSIDE_VALID_RANGE, f"Maximum SOQL offset allowed is {MAX_OFFSET}"
            )
        return "offset", int(token)

    def for_clause(self, *names: Token) -> tuple[str, None]:
        # FOR VIEW / FOR REFERENCE only update "last viewed" dates: nothing to do offline.
        for name in names:
            if str(name).upper() not in ("VIEW", "REFERENCE", "UPDATE"):
                line, column = _pos(name)
                raise QueryError(
                    MALFORMED_QUERY, f"unexpected token: '{name}'", line=line, column=column
                )
        return "for_clause", None


def _bad_literal(token: Token, kind: str, why: str = "") -> QueryError:
    line, column = _pos(token)
    message = f"invalid {kind} literal: '{token}'" + (f" ({why})" if why else "")
    return QueryError(MALFORMED_QUERY, message, line=line, column=column)


def _short(text: str, size: int = 40) -> str:
    return text if len(text) <= size else f"{text[: size - 1]}…"


def _out_of_range(token: Token) -> QueryError:
    line, column = _pos(token)
    return QueryError(
        NUMBER_OUTSIDE_VALID_RANGE,
        f"Number outside valid range: {_short(str(token))} (at most {MAX_NUMBER_DIGITS} digits)",
        line=line,
        column=column,
    )


def _nesting_depth(text: str) -> int:
    depth = deepest = 0
    in_string = False
    escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == "'":
                in_string = False
        elif ch == "'":
            in_string = True
        elif ch == "(":
            depth += 1
            deepest = max(deepest, depth)
        elif ch == ")":
            depth -= 1
    return deepest


def _syntax_error(text: str, exc: lalr.ParseFault) -> QueryError:
    line: int | None = exc.line
    column: int | None = exc.column
    if isinstance(line, int) and line < 1:
        line = column = None
    if re.search(r"\bTYPEOF\b", text, re.IGNORECASE):
        return QueryError(
            MALFORMED_QUERY,
            "TYPEOF is not supported by this org: polymorphic relationships are not "
            "modelled; select the lookup field's Id (e.g. OwnerId) or a parent path "
            "(e.g. Owner.FirstName) instead",
            line=line,
            column=column,
        )
    if isinstance(exc, lalr.UnexpectedCharacters):
        char = exc.char if exc.char != "\x00" else "\\0"
        return QueryError(MALFORMED_QUERY, f"unexpected token: '{char}'", line=line, column=column)
    token = exc.token  # type: ignore[attr-defined]  # the other fault: UnexpectedToken
    if token.type == "$END":
        # Point just past the last character, where more text was expected.
        body = text.rstrip()
        end_line = body.count("\n") + 1
        end_column = len(body) - (body.rfind("\n") + 1) + 1
        return QueryError(
            MALFORMED_QUERY, "unexpected token: <EOF>", line=end_line, column=end_column
        )
    return QueryError(MALFORMED_QUERY, f"unexpected token: '{token}'", line=line, column=column)


def parse(text: str) -> ast.Query:
    """Parse one SOQL statement.

    Raises:
        QueryError: ``MALFORMED_QUERY`` for anything that is not valid SOQL.
    """
    if len(text) > MAX_QUERY_LENGTH:
        raise QueryError(
            MALFORMED_QUERY,
            f"SOQL statements cannot be longer than {MAX_QUERY_LENGTH:,} characters.",
        )
    if not text.strip():
        raise QueryError(MALFORMED_QUERY, "empty query: expected SELECT ... FROM ...")
    if _nesting_depth(text) > MAX_NESTING:
        raise QueryError(
            MALFORMED_QUERY,
            f"query is nested too deeply (more than {MAX_NESTING} levels of parentheses)",
        )
    try:
        tree = lalr.parse(text)
    except lalr.ParseFault as exc:
        raise _syntax_error(text, exc) from None
    try:
        return _ToAst().transform(tree)
    except QueryError:
        raise
    except RecursionError:
        raise QueryError(MALFORMED_QUERY, "query is nested too deeply") from None
    except Exception as exc:  # noqa: BLE001 - a bug in a method: UNKNOWN_EXCEPTION, no trace
        raise translate(exc) from None
