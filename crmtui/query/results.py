""":class:`QueryResult`: records shaped like the Salesforce REST API via simple_salesforce.

A value class (:mod:`crmtui.value_class`), not a dataclass: ``crmtui query`` loads it
for every query, and ``dataclasses`` costs more than a small query.
"""

from __future__ import annotations

from typing import Any, Literal

from crmtui.value_class import ValueClass

API_VERSION = "v60.0"


def record_url(sobject: str, record_id: str) -> str:
    """The ``attributes.url`` Salesforce gives a record."""
    return f"/services/data/{API_VERSION}/sobjects/{sobject}/{record_id}"


def record_id_of(record: dict[str, Any]) -> str | None:
    """A result record's Id: its ``Id`` field, else the last part of ``attributes.url``.

    Salesforce puts every record's URL in its attributes whether or not the query selected
    ``Id``; aggregate rows (``AggregateResult``) have none.
    """
    record_id = record.get("Id")
    if isinstance(record_id, str) and record_id:
        return record_id
    attributes = record.get("attributes")
    url = attributes.get("url") if isinstance(attributes, dict) else None
    if isinstance(url, str) and "/sobjects/" in url:
        return url.rsplit("/", 1)[-1] or None
    return None


def _walk(record: dict[str, Any], dotted: str) -> Any:
    value: Any = record
    for part in dotted.split("."):
        if not isinstance(value, dict):
            return None
        value = value.get(part)
    if isinstance(value, dict) and "records" in value:
        # A child relationship: its records without their attributes.
        return [{k: v for k, v in child.items() if k != "attributes"} for child in value["records"]]
    return value


class QueryResult(ValueClass):
    """The result of a SOQL or SOSL query.

    Attributes:
        kind: ``soql`` or ``sosl``.
        records: Salesforce-shaped records (with ``attributes``).
        total_size: ``totalSize`` (for ``SELECT COUNT()`` the count, with no records).
        done: Always True (everything is returned at once, like ``query_all``).
        columns: Dotted column names for table display.
        elapsed_ms: Execution time.
        compile_ms: Parse + compile time (near zero on a cache hit).
        sql: The compiled SQL text (for debugging).
        object: The main sObject (None for SOSL across objects).
        is_count: Whether this is a ``SELECT COUNT()`` result (count only in total_size).
    """

    FIELDS = (
        "kind",
        "records",
        "total_size",
        "done",
        "columns",
        "elapsed_ms",
        "compile_ms",
        "sql",
        "object",
        "is_count",
    )

    kind: Literal["soql", "sosl"]
    records: list[dict[str, Any]]
    total_size: int
    done: bool
    columns: list[str]
    elapsed_ms: float
    compile_ms: float
    sql: str
    object: str | None
    is_count: bool

    def __init__(
        self,
        kind: Literal["soql", "sosl"],
        records: list[dict[str, Any]],
        total_size: int,
        done: bool = True,
        columns: list[str] | None = None,
        elapsed_ms: float = 0.0,
        compile_ms: float = 0.0,
        sql: str = "",
        object: str | None = None,  # noqa: A002 - the sObject, as Salesforce names it
        is_count: bool = False,
    ) -> None:
        self.kind = kind
        self.records = records
        self.total_size = total_size
        self.done = done
        self.columns = [] if columns is None else columns
        self.elapsed_ms = elapsed_ms
        self.compile_ms = compile_ms
        self.sql = sql
        self.object = object
        self.is_count = is_count

    def to_salesforce(self) -> dict[str, Any]:
        """The JSON body simple_salesforce returns (``query_all`` / ``search``)."""
        if self.kind == "sosl":
            return {"searchRecords": self.records}
        return {"totalSize": self.total_size, "done": self.done, "records": self.records}

    def flat_rows(self, limit: int | None = None) -> list[list[Any]]:
        """One list per record, values in :attr:`columns` order (dotted paths walked).

        A child-relationship column holds the list of child records (attributes dropped).

        Args:
            limit: Only the first ``limit`` records (None: all).
        """
        records = self.records if limit is None else self.records[:limit]
        return [[_walk(rec, col) for col in self.columns] for rec in records]
