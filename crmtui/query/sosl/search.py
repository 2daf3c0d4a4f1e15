"""Find the records of one object that match a SOSL search term, best first.

Two paths give the same answer:

* **FTS5** (crmtui-built orgs): the term becomes an FTS5 MATCH expression over the
  ``_fts_<Object>`` table (whole words, ``word*`` prefixes, phrases, AND / OR / NOT, column
  filters for the field groups) and rows come back in bm25 order. Wildcards FTS5 cannot express
  (a leading or middle ``*``, any ``?``) turn the FTS expression into a superset filter
  (``ab*`` for ``ab?d``) whose rows are then checked in Python.
* **Scan** (raw upstream files, which have no FTS tables): ``LIKE '%literal%'`` narrows the rows
  in SQLite (rows holding non-ASCII text always pass, since LIKE folds ASCII case only), then
  the same Python matcher decides, and rows keep table order.

Matching follows Salesforce: a term matches whole words case-insensitively; a word with
punctuation (``o'brien``, ``a.b@c.com``) is the phrase of its alphanumeric tokens.

Field groups (``IN ... FIELDS``), per object, over its searchable columns:

* ``ALL``: every searchable text column (string, textarea, email, phone, picklist);
* ``NAME``: the columns named in :data:`NAME_FIELDS` (Name, FirstName, LastName, Title,
  Subject), e.g. Case.Subject, Knowledge__kav.Title, Contact.FirstName/LastName;
* ``EMAIL``: email-typed columns; ``PHONE``: phone-typed columns.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Iterable, Sequence

from crmtui.data.schema import SObject
from crmtui.query.sosl.parser import And, AndNot, Or, Scope, Term, TermExpr, Token_, fold

#: Column names that make up the NAME FIELDS group on any object that has them.
NAME_FIELDS: frozenset[str] = frozenset({"name", "firstname", "lastname", "title", "subject"})
SEARCHABLE_TYPES: frozenset[str] = frozenset({"string", "textarea", "email", "phone", "picklist"})

_WORDS = re.compile(r"[^\W_]+")
_NON_ASCII = "*[^\x01-\x7f]*"


def quote_ident(name: str) -> str:
    """Quote an SQLite identifier."""
    return '"' + name.replace('"', '""') + '"'


def scope_columns(obj: SObject, columns: Iterable[str], scope: Scope) -> list[str]:
    """The columns of ``columns`` (searchable ones of ``obj``) that ``scope`` searches."""
    chosen = []
    for column in columns:
        definition = obj.field(column)
        ftype = definition.type if definition else "string"
        if (
            scope == "ALL"
            or (scope == "NAME" and column.lower() in NAME_FIELDS)
            or (scope == "EMAIL" and ftype == "email")
            or (scope == "PHONE" and ftype == "phone")
        ):
            chosen.append(column)
    return chosen


def searchable_columns(obj: SObject, table_columns: Iterable[str]) -> list[str]:
    """Searchable text columns of ``obj`` present in its table (for orgs without FTS)."""
    present = {c.lower(): c for c in table_columns}
    return [
        present[f.name.lower()]
        for f in obj.fields
        if f.type in SEARCHABLE_TYPES and f.name.lower() in present
    ]


# ------------------------------------------------------------------------ Python matcher --


def _token_test(token: Token_) -> Callable[[str], bool]:
    if token.is_exact:
        literal = token.literal
        return literal.__eq__
    if token.is_prefix:
        lead = token.parts[0]
        return lambda word: word.startswith(lead)
    pattern = "".join(".*" if p == "*" else "." if p == "?" else re.escape(p) for p in token.parts)
    return re.compile(pattern, re.DOTALL).fullmatch  # type: ignore[return-value]


def _term_test(term: Term) -> Callable[[list[str]], bool]:
    tests = [_token_test(t) for t in term.tokens]
    size = len(tests)

    def matches(words: list[str]) -> bool:
        for start in range(len(words) - size + 1):
            if all(test(words[start + i]) for i, test in enumerate(tests)):
                return True
        return False

    return matches


def compile_matcher(expr: TermExpr) -> Callable[[Sequence[str | None]], bool]:
    """A predicate over a record's scope column texts implementing the term's semantics.

    A word or phrase must occur in one column; AND / OR / AND NOT combine at record level.
    """

    def build(node: TermExpr) -> Callable[[list[list[str]], dict[int, bool]], bool]:
        if isinstance(node, Term):
            test = _term_test(node)
            key = id(node)

            def term_matches(columns: list[list[str]], memo: dict[int, bool]) -> bool:
                if key not in memo:
                    memo[key] = any(test(words) for words in columns)
                return memo[key]

            return term_matches
        left, right = build(node.left), build(node.right)
        if isinstance(node, And):
            return lambda c, m: left(c, m) and right(c, m)
        if isinstance(node, Or):
            return lambda c, m: left(c, m) or right(c, m)
        return lambda c, m: left(c, m) and not right(c, m)

    evaluate = build(expr)

    def matcher(texts: Sequence[str | None]) -> bool:
        columns = [_WORDS.findall(fold(t)) for t in texts if t]
        return evaluate(columns, {})

    return matcher


# --------------------------------------------------------------------------- FTS5 query --


def _fts_token(token: Token_) -> tuple[str, bool]:
    """FTS5 text for one token pattern and whether it is exact (not a superset)."""
    if token.is_exact:
        return f'"{token.literal}"', True
    if token.is_prefix:
        return f'"{token.parts[0]}" *', True
    if token.lead:
        return f'"{token.lead}" *', False
    return "", False


def fts_expression(expr: TermExpr) -> tuple[str | None, bool]:
    """Translate a term into an FTS5 expression.

    Returns:
        ``(expression, exact)``: the expression matches exactly the records the term does
        when ``exact``, else a superset to be checked in Python; None means "every row".
    """
    if isinstance(expr, Term):
        parts = [_fts_token(t) for t in expr.tokens]
        if all(exact for _, exact in parts):
            return " + ".join(text for text, _ in parts), True
        # A pattern FTS5 cannot express breaks the phrase: keep each expressible token alone.
        usable = [text for text, _ in parts if text]
        return (" AND ".join(usable) if usable else None), False
    left, left_exact = fts_expression(expr.left)
    right, right_exact = fts_expression(expr.right)
    exact = left_exact and right_exact
    if isinstance(expr, And):
        if left is None or right is None:
            return left or right, False
        return f"({left}) AND ({right})", exact
    if isinstance(expr, Or):
        if left is None or right is None:
            return None, False
        return f"({left}) OR ({right})", exact
    # AND NOT: only an exact right side may be subtracted from a superset safely.
    if left is not None and right is not None and right_exact:
        return f"({left}) NOT ({right})", exact
    return left, False


# ---------------------------------------------------------------------------- LIKE scan --


def _like_literal(token: Token_) -> str | None:
    chunks = [p for p in token.parts if p not in {"*", "?"}]
    return max(chunks, key=len) if chunks else None


def like_filter(expr: TermExpr, columns: list[str]) -> tuple[str | None, list[str]]:
    """An SQL condition selecting a superset of the matching rows (None: every row)."""
    if isinstance(expr, Term):
        clauses, params = [], []
        for token in expr.tokens:
            literal = _like_literal(token)
            if literal is None:
                continue
            escaped = literal.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            # LIKE folds ASCII case only: rows with any non-ASCII text pass to the Python check.
            clauses.append(
                "("
                + " OR ".join(
                    f"{quote_ident(c)} LIKE ? ESCAPE '\\' OR {quote_ident(c)} GLOB ?"
                    for c in columns
                )
                + ")"
            )
            params.extend([f"%{escaped}%", _NON_ASCII] * len(columns))
        return (" AND ".join(clauses) if clauses else None), params
    left, left_params = like_filter(expr.left, columns)
    if isinstance(expr, AndNot):
        return left, left_params
    right, right_params = like_filter(expr.right, columns)
    if isinstance(expr, And):
        if left is None or right is None:
            return (left, left_params) if right is None else (right, right_params)
        return f"({left}) AND ({right})", left_params + right_params
    if left is None or right is None:
        return None, []
    return f"({left}) OR ({right})", left_params + right_params


# ------------------------------------------------------------------------------- search --


def table_columns(conn: sqlite3.Connection, table: str) -> list[str]:
    """Column names of a table or FTS table."""
    cursor = conn.execute(f"SELECT * FROM {quote_ident(table)} LIMIT 0")
    return [d[0] for d in cursor.description]


def search_object(
    conn: sqlite3.Connection,
    fts_table: Callable[[str], str | None],
    obj: SObject,
    expr: TermExpr,
    scope: Scope,
    *,
    cap: int | None = None,
) -> list[str]:
    """Ids of ``obj``'s records matching ``expr`` within ``scope``, best match first.

    Args:
        conn: A connection to the org (read-only is enough).
        fts_table: Gives an object's FTS5 table name, or None (``Org.fts_table``).
        obj: The object searched.
        expr: The parsed search term.
        scope: Field group searched.
        cap: Stop after this many Ids (None: all of them).
    """
    fts = fts_table(obj.name)
    if fts is not None:
        columns = [c for c in table_columns(conn, fts) if c.lower() != "id"]
        chosen = scope_columns(obj, columns, scope)
        if not chosen:
            return []
        try:
            return _search_fts(conn, fts, obj.name, chosen, expr, cap)
        except sqlite3.OperationalError:
            pass  # an FTS table the tokenizer or content link cannot serve: scan instead
    columns = searchable_columns(obj, table_columns(conn, obj.name))
    chosen = scope_columns(obj, columns, scope)
    if not chosen:
        return []
    return _search_scan(conn, obj.name, chosen, expr, cap)


def _search_fts(
    conn: sqlite3.Connection,
    fts: str,
    raw_table: str,
    columns: list[str],
    expr: TermExpr,
    cap: int | None,
) -> list[str]:
    match, exact = fts_expression(expr)
    table = quote_ident(fts)
    if match is not None:
        colspec = "{" + " ".join(quote_ident(c) for c in columns) + "}"
        match = f"{colspec} : ({match})"
    if exact and match is not None:
        sql = f"SELECT Id FROM {table} WHERE {table} MATCH ? ORDER BY rank"
        if cap is not None:
            sql += f" LIMIT {int(cap)}"
        return [row[0] for row in conn.execute(sql, (match,))]
    if match is None:
        # Nothing FTS5 can narrow (leading wildcards): LIKE on the raw table narrows better
        # than reading every row through the index's content link.
        return _search_scan(conn, raw_table, columns, expr, cap)
    selected = ", ".join(["Id"] + [quote_ident(c) for c in columns])
    rows = conn.execute(
        f"SELECT {selected} FROM {table} WHERE {table} MATCH ? ORDER BY rank", (match,)
    )
    return _verified(rows, compile_matcher(expr), cap)


def _search_scan(
    conn: sqlite3.Connection, table: str, columns: list[str], expr: TermExpr, cap: int | None
) -> list[str]:
    condition, params = like_filter(expr, columns)
    selected = ", ".join(["Id"] + [quote_ident(c) for c in columns])
    sql = f"SELECT {selected} FROM {quote_ident(table)}"
    if condition is not None:
        sql += f" WHERE {condition}"
    sql += " ORDER BY rowid"
    return _verified(conn.execute(sql, params), compile_matcher(expr), cap)


def _verified(
    rows: Iterable[tuple[str | None, ...]],
    matcher: Callable[[Sequence[str | None]], bool],
    cap: int | None,
) -> list[str]:
    found: list[str] = []
    for row in rows:
        if row[0] is not None and matcher(row[1:]):
            found.append(row[0])
            if cap is not None and len(found) >= cap:
                break
    return found
