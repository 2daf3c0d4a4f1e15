"""AST -> :class:`~crmtui.query.soql.plan.CompiledQuery` (SQLite SQL + bound parameters).

Parent paths become LEFT JOINs on the parent's Id (INNER JOINs when the WHERE clause
requires the parent, so SQLite can start from the parent side); WHERE, ORDER BY, LIMIT and
OFFSET are pushed into SQL; each child subquery becomes one extra query over all parent ids.
"""

from __future__ import annotations

import datetime as dt
import itertools
from typing import Any

from crmtui.data.schema import Schema, SObject
from crmtui.query.errors import (
    CUSTOM_RELATIONSHIP_HINT,
    INVALID_FIELD,
    INVALID_TYPE,
    MALFORMED_QUERY,
    QueryError,
)
from crmtui.query.soql import ast
from crmtui.query.soql.clauses import group_by_sql, limit_sql
from crmtui.query.soql.conditions import CondCompiler, required_parents
from crmtui.query.soql.expressions import Expr, compile_operand
from crmtui.query.soql.plan import ChildPlan, CompiledQuery, Output
from crmtui.query.soql.resolve import Resolved, Scope, quote
from crmtui.query.soql.selection import expand_fields, is_aggregate_call, lookup_object
from crmtui.query.soql.shaping import bind
from crmtui.query.soql.values import NOCASE_KINDS, converter, is_identity, select_sql


class _Compiler:
    """Compiles one top-level query (and its subqueries) for a schema and a date."""

    def __init__(self, schema: Schema, today: dt.date) -> None:
        self.schema = schema
        self.today = today
        self.counter = itertools.count()

    # -- shared pieces -----------------------------------------------------------------

    def _where(
        self,
        scope: Scope,
        cond: ast.Condition | None,
        having: bool = False,
        grouped: set[str] | None = None,
    ) -> tuple[str, list[Any]]:
        if cond is None:
            return "", []
        cc = CondCompiler(scope, self.today, having, self._semi_join)
        if having:
            cc.grouped = frozenset(grouped or ())
        sql = cc.compile(cond)
        if not having:
            scope.inner |= required_parents(scope, cond)
        return sql, cc.params

    def _semi_join(self, query: ast.Query, left: Expr) -> tuple[str, list[Any]]:
        obj = lookup_object(self.schema, query.object, query.object_line, query.object_column)
        if len(query.select) != 1 or not isinstance(query.select[0], ast.SelectField):
            raise QueryError(
                MALFORMED_QUERY,
                "A semi join subquery must select exactly one Id or lookup field, e.g. "
                "Id IN (SELECT AccountId FROM Case WHERE ...)",
                line=query.line,
                column=query.column,
            )
        if query.group_by or query.having or query.order_by or query.offset is not None:
            raise QueryError(
                MALFORMED_QUERY,
                "GROUP BY, HAVING, ORDER BY and OFFSET are not allowed in a semi join subquery",
                line=query.line,
                column=query.column,
            )
        scope = Scope(self.schema, obj, self.counter, query.alias)
        path = query.select[0].path
        res = scope.resolve(path)
        if res.kind not in ("id", "reference"):
            raise QueryError(
                MALFORMED_QUERY,
                f"A semi join subquery must select an Id or lookup field; {res.dotted} is of "
                f"type {res.kind}",
                line=path.line,
                column=path.column,
            )
        where, params = self._where(scope, query.where)
        conds = [f"{res.sql} IS NOT NULL"] + ([where] if where else [])
        sql = f"SELECT {res.sql} FROM {scope.from_sql()} WHERE {' AND '.join(conds)}"
        if query.limit is not None:
            sql += " LIMIT ?"
            params.append(query.limit)
        return sql, params

    def _order(self, scope: Scope, query: ast.Query, aggregate: bool, grouped: set[str]) -> str:
        parts = []
        for item in query.order_by:
            expr = compile_operand(scope, item.expr, allow_aggregate=aggregate)
            if aggregate and not expr.aggregate and expr.key not in grouped:
                raise QueryError(
                    MALFORMED_QUERY,
                    f"Ordered field must be grouped or aggregated: {expr.name}",
                    line=item.expr.line,
                    column=item.expr.column,
                )
            sql = expr.sql
            if expr.kind in NOCASE_KINDS:
                sql += " COLLATE NOCASE"
            nulls_first = item.nulls_first
            if nulls_first is None:
                nulls_first = not item.descending  # Salesforce's defaults
            sql += " DESC" if item.descending else " ASC"
            sql += " NULLS FIRST" if nulls_first else " NULLS LAST"
            parts.append(sql)
        return " ORDER BY " + ", ".join(parts) if parts else ""

    def _group_exprs(self, scope: Scope, query: ast.Query) -> list[Expr]:
        exprs = []
        for item in query.group_by:
            expr = compile_operand(scope, item, allow_aggregate=False)
            if expr.kind == "datetime" and isinstance(item, ast.FieldPath):
                # Salesforce refuses to group by datetime fields; date functions work.
                raise QueryError(
                    INVALID_FIELD,
                    f"field '{expr.name}' can not be grouped in a query call",
                    hint=f"Group by a date function instead, e.g. GROUP BY DAY_ONLY({item.text})",
                    hint_sep=". ",
                    line=item.line,
                    column=item.column,
                )
            exprs.append(expr)
        return exprs

    # -- top level ---------------------------------------------------------------------

    def compile(self, query: ast.Query) -> CompiledQuery:
        obj = lookup_object(self.schema, query.object, query.object_line, query.object_column)
        select = expand_fields(query, obj)
        counts = [
            i
            for i in select
            if isinstance(i, ast.SelectFunc) and i.call.upper == "COUNT" and i.call.arg is None
        ]
        scope = Scope(self.schema, obj, self.counter, query.alias)
        if query.having is not None and not query.group_by:
            raise QueryError(MALFORMED_QUERY, "HAVING can only be used with GROUP BY")
        if counts:
            if len(select) != 1:
                raise QueryError(
                    MALFORMED_QUERY,
                    "COUNT() must be the only element in the SELECT list; use COUNT(Id) "
                    "to count alongside other fields",
                    line=counts[0].call.line,
                    column=counts[0].call.column,
                )
            return self._count(scope, query)
        if query.group_by or any(is_aggregate_call(i) for i in select):
            return self._aggregate(scope, query, select)
        return self._records(scope, query, select)

    def _count(self, scope: Scope, query: ast.Query) -> CompiledQuery:
        where, params = self._where(scope, query.where)
        group = ""
        if query.group_by:
            exprs = self._group_exprs(scope, query)
            group = " GROUP BY " + ", ".join(e.sql for e in exprs)
            having, having_params = self._where(
                scope, query.having, having=True, grouped={e.key for e in exprs}
            )
            if having:
                group += f" HAVING {having}"
                params += having_params
        limit = limit_sql(query, params)
        inner = f"SELECT 1 FROM {scope.from_sql()}" + (f" WHERE {where}" if where else "")
        if group or limit:
            sql = f"SELECT COUNT(*) FROM ({inner}{group}{limit})"
        else:
            sql = f"SELECT COUNT(*) FROM {scope.from_sql()}" + (f" WHERE {where}" if where else "")
        return CompiledQuery("count", scope.obj.name, sql, tuple(params), (), ())

    def _aggregate(
        self, scope: Scope, query: ast.Query, select: tuple[ast.SelectItem, ...]
    ) -> CompiledQuery:
        group_exprs = self._group_exprs(scope, query)
        grouped = {e.key for e in group_exprs}
        outputs: list[Output] = []
        columns: list[str] = []
        sql_cols: list[str] = []
        expr_index = 0
        for item in select:
            if isinstance(item, ast.SelectSubquery):
                raise QueryError(
                    MALFORMED_QUERY,
                    "Child subqueries are not allowed in aggregate queries",
                    line=item.line,
                    column=item.column,
                )
            operand = item.path if isinstance(item, ast.SelectField) else item.call
            expr = compile_operand(scope, operand, allow_aggregate=True)
            if not expr.aggregate and expr.key not in grouped:
                raise QueryError(
                    MALFORMED_QUERY,
                    f"Field must be grouped or aggregated: {expr.name}",
                    line=operand.line,
                    column=operand.column,
                )
            if isinstance(item, ast.SelectField):
                key = expr.name  # a grouped parent field appears under its own name
            elif item.alias:
                key = item.alias
            else:
                key = f"expr{expr_index}"
                expr_index += 1
            conv = converter(expr.kind)
            outputs.append(Output(key, (), (), (), len(sql_cols), conv, is_identity(conv)))
            columns.append(key)
            sql_cols.append(expr.sql)
        where, params = self._where(scope, query.where)
        having, having_params = self._where(scope, query.having, having=True, grouped=grouped)
        order = self._order(scope, query, True, grouped)
        sql = f"SELECT {', '.join(sql_cols)} FROM {scope.from_sql()}"
        if where:
            sql += f" WHERE {where}"
        tail = f" HAVING {having}" if having else ""
        params += having_params
        tail += order + limit_sql(query, params)
        sql += group_by_sql(scope, group_exprs, sql + tail) + tail
        return CompiledQuery(
            "aggregate",
            scope.obj.name,
            sql,
            tuple(params),
            tuple(outputs),
            tuple(columns),
            bind(None, outputs),
        )

    def _field_outputs(
        self, scope: Scope, select: tuple[ast.SelectItem, ...], allow_children: bool
    ) -> tuple[list[Any], list[str], list[str]]:
        """Outputs/child placeholders, dotted columns and SQL select columns (Id first)."""
        sql_cols = [scope.column("Id")]
        items: list[Any] = []
        columns: list[str] = []
        seen: set[str] = set()
        parent_ids: dict[tuple[str, ...], int] = {}
        pending: list[tuple[Resolved, int]] = []
        for item in select:
            if isinstance(item, ast.SelectSubquery):
                if not allow_children:
                    raise QueryError(
                        MALFORMED_QUERY,
                        "Nesting of child subqueries is not supported",
                        line=item.line,
                        column=item.column,
                    )
                items.append(item)
                columns.append(item.query.object)
                continue
            if isinstance(item, ast.SelectFunc):
                name = item.call.upper
                message = (
                    f"{item.call.text} is only allowed in aggregate queries: add "
                    f"GROUP BY {item.call.text}"
                    if name not in ("TYPEOF",)
                    else "TYPEOF is not supported"
                )
                raise QueryError(
                    MALFORMED_QUERY, message, line=item.call.line, column=item.call.column
                )
            res = scope.resolve(item.path)
            if res.dotted.lower() in seen:
                raise QueryError(
                    MALFORMED_QUERY,
                    f"duplicate field selected: {res.dotted}",
                    line=item.path.line,
                    column=item.path.column,
                )
            seen.add(res.dotted.lower())
            value_sql, conv = select_sql(res.kind, res.sql)
            if value_sql == sql_cols[0]:
                # The record's own Id is already column 0: one string per row less to fetch.
                pending.append((res, len(items), 0, conv))
            else:
                pending.append((res, len(items), len(sql_cols), conv))
                sql_cols.append(value_sql)
            items.append(None)
            columns.append(res.dotted)
        for res, pos, col, conv in pending:
            id_cols = []
            for depth in range(len(res.rel_names)):
                key = res.rel_names[: depth + 1]
                if key not in parent_ids:
                    parent_ids[key] = len(sql_cols)
                    sql_cols.append(res.rel_id_sql[depth])
                id_cols.append(parent_ids[key])
            items[pos] = Output(
                res.field.name,
                res.rel_names,
                res.rel_types,
                tuple(id_cols),
                col,
                conv,
                is_identity(conv),
            )
        return items, columns, sql_cols

    def _records(
        self, scope: Scope, query: ast.Query, select: tuple[ast.SelectItem, ...]
    ) -> CompiledQuery:
        items, columns, sql_cols = self._field_outputs(scope, select, allow_children=True)
        for i, item in enumerate(items):
            if isinstance(item, ast.SelectSubquery):
                items[i] = self._child(scope.obj, item)
        where, params = self._where(scope, query.where)
        order = self._order(scope, query, False, set())
        sql = f"SELECT {', '.join(sql_cols)} FROM {scope.from_sql()}"
        if where:
            sql += f" WHERE {where}"
        sql += order + limit_sql(query, params)
        return CompiledQuery(
            "records",
            scope.obj.name,
            sql,
            tuple(params),
            tuple(items),
            tuple(columns),
            bind(scope.obj.name, items),
            tuple(i for i in items if isinstance(i, ChildPlan)),
        )

    def _child(self, parent: SObject, item: ast.SelectSubquery) -> ChildPlan:
        query = item.query
        rel = self.schema.child_relationship(parent.name, query.object)
        if rel is None:
            raise QueryError(
                INVALID_TYPE,
                f"Didn't understand relationship '{query.object}' in FROM part of query "
                "call. " + CUSTOM_RELATIONSHIP_HINT,
                line=query.object_line,
                column=query.object_column,
            )
        child = self.schema.require(rel.child)
        scope = Scope(self.schema, child, self.counter, query.alias)
        select = expand_fields(query, child)
        if any(isinstance(i, ast.SelectFunc) for i in select) or query.group_by:
            raise QueryError(
                MALFORMED_QUERY,
                "Aggregate functions and GROUP BY are not allowed in child subqueries",
                line=query.line,
                column=query.column,
            )
        outputs, _, sql_cols = self._field_outputs(scope, select, allow_children=False)
        fk = scope.column(rel.field)
        sql_cols.insert(0, fk)
        where, where_params = self._where(scope, query.where)
        params: list[Any] = [*where_params]
        cond = f"{fk} IN (SELECT value FROM json_each(?))" + (f" AND {where}" if where else "")
        order = self._order(scope, query, False, set())
        base = f"SELECT {', '.join(sql_cols)} FROM {scope.from_sql()} WHERE {cond}"
        if query.limit is None and query.offset is None:
            sql = base + order
        else:
            # LIMIT/OFFSET apply per parent record, as in Salesforce.
            window = order[len(" ORDER BY ") :] if order else f"{scope.root}.rowid"
            inner = (
                f"SELECT {', '.join(sql_cols)}, ROW_NUMBER() OVER (PARTITION BY {fk} "
                f"ORDER BY {window}) AS _rn FROM {scope.from_sql()} WHERE {cond}"
            )
            lo = query.offset or 0
            hi = lo + query.limit if query.limit is not None else None
            sql = f"SELECT * FROM ({inner}) WHERE _rn > ?"
            if hi is not None:
                sql += " AND _rn <= ?"
            sql += " ORDER BY _rn"
            params += [lo] + ([hi] if hi is not None else [])
        return ChildPlan(
            rel.name,
            child.name,
            sql,
            tuple(params),
            tuple(outputs),
            bind(child.name, outputs),
        )


def compile_query(query: ast.Query, schema: Schema, today: dt.date) -> CompiledQuery:
    """Compile a parsed query against ``schema`` with relative dates anchored at ``today``.

    Raises:
        QueryError: For anything Salesforce would reject.
    """
    return _Compiler(schema, today).compile(query)


__all__ = ["compile_query", "quote"]
