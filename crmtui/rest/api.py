"""The read-only Salesforce REST API over an org, as a pure request -> reply function.

:class:`RestApi` knows Salesforce's URL shapes and nothing about sockets: the HTTP server
(:mod:`crmtui.rest.server`) hands it a method, a path, the query parameters and the headers,
and writes back the :class:`Reply`. Results come from the query engine unchanged (it already
shapes records the way the REST API does); errors are Salesforce's JSON list with its status.

Routes under ``/services/data/vXX.X/``::

    GET  query?q=SOQL           first batch, nextRecordsUrl when more   (queryAll: the same)
    GET  query/<locator>-<n>    the next batch (simple-salesforce's query_more)
    GET  search?q=SOSL          {"searchRecords": [...]}
    GET  sobjects               describeGlobal
    GET  sobjects/X             the object's summary
    GET  sobjects/X/describe    the object's fields and child relationships
    GET  sobjects/X/<Id>        one record, every field (``?fields=A,B`` for some)
    GET  limits                 API limits (requests counted since start)
    GET  /services/data/        the API versions (no session needed, as on Salesforce)

Any other method answers 403 ``INSUFFICIENT_ACCESS_OR_READONLY``; a missing or wrong session
401 ``INVALID_SESSION_ID``.
"""

from __future__ import annotations

import datetime as dt
import hmac
import itertools
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from crmtui.query import QueryError, execute_soql, run
from crmtui.query.wire import with_api_version
from crmtui.rest import describe
from crmtui.rest.cursors import CursorStore, page_size_from, split_locator
from crmtui.rest.errors import (
    INVALID_QUERY_LOCATOR,
    INVALID_SESSION_ID,
    READ_ONLY,
    READ_ONLY_MESSAGE,
    SESSION_MESSAGE,
    UNKNOWN_EXCEPTION,
    ApiError,
    from_query_error,
    not_found,
    unknown_exception_message,
)

#: API versions answered (Salesforce keeps old versions alive; clients pick one).
VERSIONS = tuple(f"{n}.0" for n in range(31, 63))
LATEST = VERSIONS[-1]
DAILY_REQUESTS = 15000

_VERSION_RE = re.compile(r"^v(\d+\.\d)$")
_ID_RE = re.compile(r"^[A-Za-z0-9]{15}(?:[A-Za-z0-9]{3})?$")
_RELEASES = {59: "Winter '24", 60: "Spring '24", 61: "Summer '24", 62: "Winter '25"}


@dataclass
class Reply:
    """What to send back.

    Attributes:
        status: HTTP status.
        body: The JSON body (a dict or list).
        endpoint: Route name for the request log (``query``, ``search``, ...).
        query: The SOQL/SOSL text involved, if any.
        rows: Records in the body, when it carries records.
        total: ``totalSize`` of a query.
        error_code: Salesforce error code of an error reply.
    """

    status: int
    body: Any
    endpoint: str
    query: str | None = None
    rows: int | None = None
    total: int | None = None
    error_code: str | None = None
    extra_headers: dict[str, str] = field(default_factory=dict)


def _release(version: str) -> str:
    major = int(version.split(".")[0])
    return _RELEASES.get(major, f"API {version}")


class RestApi:
    """Salesforce's read endpoints over one org.

    Args:
        org: An opened org (``crmtui.org.Org``); each server thread queries it through its own
            read-only connection (the engine keeps one per thread).
        session_id: The token clients must send as ``Authorization: Bearer <id>``.
        today: The date relative date literals (``LAST_N_DAYS:30``) refer to; default: the
            real date, as on Salesforce.
        cursors: Where paged results are kept (a fresh store by default).
    """

    def __init__(
        self,
        org: Any,
        session_id: str,
        *,
        today: dt.date | None = None,
        cursors: CursorStore | None = None,
    ) -> None:
        self.org = org
        self.session_id = session_id
        self.today = today
        self.cursors = cursors if cursors is not None else CursorStore()
        self._served = itertools.count(1)
        self._count_lock = threading.Lock()
        self.requests_served = 0

    # -- entry point ---------------------------------------------------------------------
    def handle(
        self,
        method: str,
        path: str,
        params: Mapping[str, str],
        headers: Mapping[str, str],
    ) -> Reply:
        """Answer one request; never raises.

        Args:
            method: HTTP method.
            path: URL path without the query string (``/services/data/v59.0/query/``).
            params: Decoded query-string parameters (the last value of each name).
            headers: Request headers, names in any case.
        """
        with self._count_lock:
            self.requests_served = next(self._served)
        lowered = {k.lower(): v for k, v in headers.items()}
        parts = [p for p in path.split("/") if p]
        try:
            if parts[:2] != ["services", "data"]:
                raise not_found()
            if len(parts) == 2:
                return Reply(200, self._versions(), "versions")
            version_match = _VERSION_RE.match(parts[2])
            if version_match is None or version_match.group(1) not in VERSIONS:
                raise not_found()
            self._authorize(lowered.get("authorization"))
            if method.upper() not in ("GET", "HEAD"):
                raise ApiError(403, READ_ONLY, READ_ONLY_MESSAGE)
            return self._route(parts[2], parts[3:], params, lowered)
        except ApiError as exc:
            return Reply(
                exc.status,
                exc.body(),
                _endpoint_name(parts),
                query=params.get("q"),
                error_code=exc.code,
            )
        except QueryError as exc:  # pragma: no cover - routes convert with the query text
            return Reply(400, [{"errorCode": exc.code, "message": exc.message}], "query")
        except Exception as exc:  # noqa: BLE001 - a server bug is a 500, not a dead thread
            error = ApiError(500, UNKNOWN_EXCEPTION, unknown_exception_message(exc))
            return Reply(500, error.body(), _endpoint_name(parts), error_code=error.code)

    # -- pieces --------------------------------------------------------------------------
    def _authorize(self, header: str | None) -> None:
        scheme, _, token = (header or "").partition(" ")
        if scheme.lower() not in ("bearer", "oauth") or not hmac.compare_digest(
            token.strip().encode(), self.session_id.encode()
        ):
            raise ApiError(401, INVALID_SESSION_ID, SESSION_MESSAGE)

    def _versions(self) -> list[dict[str, str]]:
        return [
            {"label": _release(v), "url": f"/services/data/v{v}", "version": v} for v in VERSIONS
        ]

    def _route(
        self,
        version: str,
        rest: list[str],
        params: Mapping[str, str],
        headers: Mapping[str, str],
    ) -> Reply:
        if not rest:
            return Reply(200, self._resources(version), "resources")
        head, tail = rest[0], rest[1:]
        if head in ("query", "queryAll"):
            if tail:
                if len(tail) != 1:
                    raise not_found()
                return self._query_more(version, head, tail[0])
            return self._query(version, head, params.get("q"), headers)
        if head == "search" and not tail:
            return self._search(version, params.get("q"))
        if head == "sobjects":
            return self._sobjects(version, tail, params)
        if head == "limits" and not tail:
            return Reply(200, self._limits(), "limits")
        raise not_found()

    def _resources(self, version: str) -> dict[str, str]:
        base = f"/services/data/{version}"
        names = ("query", "queryAll", "search", "sobjects", "limits")
        return {name: f"{base}/{name}" for name in names}

    def _limits(self) -> dict[str, Any]:
        used = self.requests_served
        return {
            "DailyApiRequests": {"Max": DAILY_REQUESTS, "Remaining": DAILY_REQUESTS - used},
            "ConcurrentAsyncGetReportInstances": {"Max": 200, "Remaining": 200},
            "DataStorageMB": {"Max": 1024, "Remaining": 1024},
        }

    def _query(
        self, version: str, endpoint: str, text: str | None, headers: Mapping[str, str]
    ) -> Reply:
        if not text:
            raise ApiError(400, "MALFORMED_QUERY", "A query string has to be specified")
        try:
            # Salesforce does not unwrap a fenced block: it is a MALFORMED_QUERY there too.
            result = execute_soql(self.org, text, today=self.today, fences=False)
        except QueryError as exc:
            raise from_query_error(exc, text) from None
        size = page_size_from(headers.get("sforce-query-options"))
        records = result.records
        body: dict[str, Any] = {"totalSize": result.total_size, "done": True}
        if len(records) > size:
            locator = self.cursors.open(records, result.total_size, size, text)
            body["done"] = False
            body["nextRecordsUrl"] = f"/services/data/{version}/{endpoint}/{locator}-{size}"
            records = records[:size]
        body["records"] = with_api_version(records, version)
        return Reply(200, body, endpoint, query=text, rows=len(records), total=result.total_size)

    def _query_more(self, version: str, endpoint: str, identifier: str) -> Reply:
        parsed = split_locator(identifier)
        cursor = self.cursors.get(parsed[0]) if parsed else None
        if parsed is None or cursor is None:
            raise ApiError(400, INVALID_QUERY_LOCATOR, "invalid query locator")
        locator, offset = parsed
        if cursor.records is None:  # opened by another worker process: run it again here
            try:
                cursor.records = execute_soql(
                    self.org, cursor.text, today=self.today, fences=False
                ).records
            except QueryError as exc:
                raise from_query_error(exc, cursor.text) from None
            self.cursors.keep(locator, cursor)
        end = offset + cursor.page_size
        records = cursor.records[offset:end]
        body: dict[str, Any] = {"totalSize": cursor.total, "done": end >= len(cursor.records)}
        if not body["done"]:
            body["nextRecordsUrl"] = f"/services/data/{version}/{endpoint}/{locator}-{end}"
        body["records"] = with_api_version(records, version)
        return Reply(
            200, body, "query_more", query=cursor.text, rows=len(records), total=cursor.total
        )

    def _search(self, version: str, text: str | None) -> Reply:
        if not text:
            raise ApiError(400, "MALFORMED_SEARCH", "A search string has to be specified")
        if text.lstrip()[:4].upper() != "FIND":
            raise ApiError(
                400, "MALFORMED_SEARCH", "line 1:0 no viable alternative: a search starts with FIND"
            )
        try:
            result = run(self.org, text, today=self.today)
        except QueryError as exc:
            raise from_query_error(exc, text) from None
        body = {"searchRecords": with_api_version(result.records, version)}
        return Reply(200, body, "search", query=text, rows=len(result.records))

    def _sobjects(self, version: str, tail: list[str], params: Mapping[str, str]) -> Reply:
        schema = self.org.schema
        if not tail:
            return Reply(200, describe.describe_global(schema, version), "describe_global")
        obj = schema.get(tail[0])
        if obj is None or len(tail) > 2:
            raise not_found()
        if len(tail) == 1:
            body = {"objectDescribe": describe.object_summary(obj, version), "recentItems": []}
            return Reply(200, body, "sobject")
        if tail[1] == "describe":
            return Reply(200, describe.describe_object(schema, obj, version), "describe")
        return self._retrieve(version, obj, tail[1], params.get("fields"))

    def _retrieve(self, version: str, obj: Any, record_id: str, fields: str | None) -> Reply:
        if not _ID_RE.match(record_id):
            raise not_found(
                f"Provided external ID field does not exist or is not accessible: {record_id}"
            )
        names = [f.strip() for f in fields.split(",") if f.strip()] if fields else obj.field_names
        text = f"SELECT {', '.join(names)} FROM {obj.name} WHERE Id = '{record_id}'"
        try:
            result = execute_soql(self.org, text, today=self.today, fences=False)
        except QueryError as exc:
            raise from_query_error(exc, text) from None
        if not result.records:
            raise not_found()
        return Reply(
            200, with_api_version(result.records, version)[0], "retrieve", query=text, rows=1
        )


def _endpoint_name(parts: list[str]) -> str:
    if len(parts) <= 2:
        return "versions"
    if len(parts) == 3:
        return "resources"
    head = parts[3]
    if head in ("query", "queryAll"):
        return "query_more" if len(parts) > 4 else head
    if head == "sobjects":
        if len(parts) == 4:
            return "describe_global"
        if len(parts) == 6:
            return "describe" if parts[5] == "describe" else "retrieve"
        return "sobject"
    return head
