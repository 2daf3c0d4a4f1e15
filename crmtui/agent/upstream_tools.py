"""Upstream CRMArena's 25 helper tools, reimplemented over our query engine.

Each tool builds the same SOQL/SOSL shape upstream sends to Salesforce (including its date
window conventions: ``CreatedDate < end`` for Case, ``<= end`` for CaseHistory and issue counts;
Winter = Dec 1 of the named year to Mar 1 of the next), runs it through the injected executor
and post-processes rows in Python. Results are returned as ``str()`` of a Python value, and
bad arguments as a string starting ``Error:``, as upstream does.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
from collections import Counter, defaultdict
from collections.abc import Callable
from typing import Any

from crmtui.agent.execution import Observation

__all__ = ["TOOL_FUNCTIONS", "ToolFailure", "call_upstream_tool"]

Run = Callable[[str], Observation]

_DT_FORMAT = "%Y-%m-%dT%H:%M:%SZ"
_SF_FORMAT = "%Y-%m-%dT%H:%M:%S.%f%z"
_MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
_SEASONS = {"spring": (3, 6), "summer": (6, 9), "fall": (9, 12), "autumn": (9, 12)}


class ToolFailure(Exception):
    """Bad arguments or a failed query inside a tool; reported to the model as ``Error: ...``."""


def _rows(run: Run, query: str) -> list[dict[str, Any]]:
    obs = run(query)
    if not obs.ok:
        raise ToolFailure(obs.error or obs.text)
    return list(obs.records or [])


def _quote(value: Any) -> str:
    return "'" + str(value).replace("\\", "\\\\").replace("'", "\\'") + "'"


def _in_list(values: Any, name: str) -> str:
    if not isinstance(values, list) or not values:
        raise ToolFailure(f"{name} must be a non-empty list")
    return "(" + ", ".join(_quote(v) for v in values) + ")"


def _check_dt(value: Any, name: str) -> str:
    try:
        dt.datetime.strptime(str(value), _DT_FORMAT)
    except ValueError:
        raise ToolFailure(f"{name} must look like YYYY-MM-DDTHH:MM:SSZ, got {value!r}") from None
    return str(value)


def _parse_sf(value: Any) -> dt.datetime:
    text = str(value)
    try:
        return dt.datetime.strptime(text, _SF_FORMAT)
    except ValueError:
        try:
            return dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            raise ToolFailure(f"cannot read the date {text!r}") from None


def _argbest(counts: dict[str, float], pick: Callable[..., float]) -> list[str]:
    if not counts:
        return []
    best = pick(counts.values())
    return [k for k, v in counts.items() if v == best]


def _owner_counts(cases: Any) -> dict[str, int]:
    if not isinstance(cases, list):
        raise ToolFailure("subset_cases must be a list of cases with OwnerId")
    return dict(Counter(c.get("OwnerId") for c in cases if isinstance(c, dict)))


def get_agents_with_max_cases(run: Run, subset_cases: Any) -> list[str]:
    """Return the agent (OwnerId) values that own the most cases in a list of cases."""
    return _argbest(_owner_counts(subset_cases), max)


def get_agents_with_min_cases(run: Run, subset_cases: Any) -> list[str]:
    """Return the agent (OwnerId) values that own the fewest cases in a list of cases."""
    return _argbest(_owner_counts(subset_cases), min)


def calculate_average_handle_time(run: Run, cases: Any) -> dict[str, float]:
    """Average handle time in minutes per OwnerId, from cases with CreatedDate and ClosedDate."""
    minutes: dict[str, list[float]] = defaultdict(list)
    for case in cases or []:
        if not case.get("ClosedDate") or not case.get("CreatedDate"):
            continue
        delta = _parse_sf(case["ClosedDate"]) - _parse_sf(case["CreatedDate"])
        minutes[case.get("OwnerId")].append(delta.total_seconds() / 60)
    return {k: sum(v) / len(v) for k, v in minutes.items()}


def _shift_months(value: dt.datetime, months: int) -> dt.datetime:
    total = value.year * 12 + value.month - 1 - months
    year, month = divmod(total, 12)
    day = min(value.day, calendar.monthrange(year, month + 1)[1])
    return value.replace(year=year, month=month + 1, day=day)


def get_start_date(run: Run, end_date: str, period: str, interval_count: int) -> str:
    """The datetime a number of periods before an end datetime."""
    end = dt.datetime.strptime(_check_dt(end_date, "end_date"), _DT_FORMAT)
    n = int(interval_count)
    unit = str(period).lower()
    if unit == "day":
        start = end - dt.timedelta(days=n)
    elif unit == "week":
        start = end - dt.timedelta(weeks=n)
    elif unit == "month":
        start = _shift_months(end, n)
    elif unit == "quarter":
        start = _shift_months(end, 3 * n)
    else:
        raise ToolFailure(f"period must be day, week, month or quarter, got {period!r}")
    return start.strftime(_DT_FORMAT)


def get_period(run: Run, period_name: str, year: int) -> dict[str, str]:
    """Start and (exclusive) end datetimes of a month, quarter (Q1-Q4) or season in a year.

    Winter starts on December 1 of the given year and ends on March 1 of the next.
    """
    name, y = str(period_name).strip().lower(), int(year)

    def span(start: tuple[int, int], end: tuple[int, int]) -> dict[str, str]:
        return {
            "start_date": dt.datetime(start[0], start[1], 1).strftime(_DT_FORMAT),
            "end_date": dt.datetime(end[0], end[1], 1).strftime(_DT_FORMAT),
        }

    if name in _MONTHS:
        m = _MONTHS[name]
        return span((y, m), (y + m // 12, m % 12 + 1))
    if re.fullmatch(r"q[1-4]", name):
        q = int(name[1])
        first = 3 * (q - 1) + 1
        return span((y, first), (y + (first + 3) // 13, (first + 2) % 12 + 1))
    if name in _SEASONS:
        start, end = _SEASONS[name]
        return span((y, start), (y, end))
    if name == "winter":
        return span((y, 12), (y + 1, 3))
    raise ToolFailure(f"unknown period {period_name!r}: use a month, Q1-Q4 or a season")


def _counts(rows: list[dict[str, Any]], key: str) -> dict[str, int]:
    return dict(Counter(r.get(key) for r in rows if r.get(key) is not None))


def get_agent_handled_cases_by_period(run: Run, start_date: str, end_date: str) -> dict[str, int]:
    """Number of cases assigned to each agent between two datetimes."""
    s, e = _check_dt(start_date, "start_date"), _check_dt(end_date, "end_date")
    rows = _rows(
        run,
        f"SELECT NewValue__c, CreatedDate FROM CaseHistory__c WHERE CreatedDate >= {s} "
        f"AND CreatedDate <= {e} AND Field__c = 'Owner Assignment'",
    )
    return _counts(rows, "NewValue__c")


def get_qualified_agent_ids_by_case_count(
    run: Run, agent_handled_cases: dict[str, Any], n_cases: int
) -> list[str]:
    """Agents whose handled case count is greater than n_cases."""
    return [k for k, v in (agent_handled_cases or {}).items() if int(v) > int(n_cases)]


def get_cases(
    run: Run,
    start_date: str | None = None,
    end_date: str | None = None,
    agent_ids: list[str] | None = None,
    case_ids: list[str] | None = None,
    order_item_ids: list[str] | None = None,
    issue_ids: list[str] | None = None,
    statuses: list[str] | None = None,
) -> list[dict[str, Any]]:
    """Cases (OwnerId, CreatedDate, ClosedDate, AccountId) matching the given filters.

    At least one filter is needed; the window is ``CreatedDate >= start AND < end``.
    """
    clauses = []
    if start_date:
        clauses.append(f"CreatedDate >= {_check_dt(start_date, 'start_date')}")
    if end_date:
        clauses.append(f"CreatedDate < {_check_dt(end_date, 'end_date')}")
    for field, values, name in (
        ("OwnerId", agent_ids, "agent_ids"),
        ("Id", case_ids, "case_ids"),
        ("OrderItemId__c", order_item_ids, "order_item_ids"),
        ("IssueId__c", issue_ids, "issue_ids"),
        ("Status", statuses, "statuses"),
    ):
        if values:
            values = values if isinstance(values, list) else [values]
            if len(values) == 1:
                clauses.append(f"{field} = {_quote(values[0])}")
            else:
                clauses.append(f"{field} IN {_in_list(values, name)}")
    if not clauses:
        raise ToolFailure("get_cases needs at least one filter")
    return _rows(
        run,
        "SELECT OwnerId, CreatedDate, ClosedDate, AccountId FROM Case WHERE "
        + " AND ".join(clauses),
    )


def get_non_transferred_case_ids(run: Run, start_date: str, end_date: str) -> list[str]:
    """Ids of cases assigned exactly once (never transferred) between two datetimes."""
    s, e = _check_dt(start_date, "start_date"), _check_dt(end_date, "end_date")
    rows = _rows(
        run,
        "SELECT CaseId__c FROM CaseHistory__c WHERE Field__c = 'Owner Assignment' "
        f"AND CreatedDate >= {s} AND CreatedDate <= {e} GROUP BY CaseId__c HAVING COUNT(Id) = 1",
    )
    return [r["CaseId__c"] for r in rows if r.get("CaseId__c")]


def get_agent_transferred_cases_by_period(
    run: Run, start_date: str, end_date: str, qualified_agent_ids: list[str] | None = None
) -> dict[str, int]:
    """Number of cases each qualified agent transferred away between two datetimes."""
    s, e = _check_dt(start_date, "start_date"), _check_dt(end_date, "end_date")
    rows = _rows(
        run,
        "SELECT OldValue__c, CreatedDate FROM CaseHistory__c WHERE Field__c = 'Owner Assignment' "
        f"AND OldValue__c != NULL AND CreatedDate >= {s} AND CreatedDate <= {e}",
    )
    counts = _counts(rows, "OldValue__c")
    if qualified_agent_ids:
        counts = {k: v for k, v in counts.items() if k in set(qualified_agent_ids)}
    return counts


def get_shipping_state(run: Run, cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Add the account's ShippingState to each case (cases need AccountId)."""
    ids = sorted({c["AccountId"] for c in cases or [] if c.get("AccountId")})
    if not ids:
        return []
    rows = _rows(run, f"SELECT Id, ShippingState FROM Account WHERE Id IN {_in_list(ids, 'cases')}")
    state = {r["Id"]: r.get("ShippingState") for r in rows}
    return [{**c, "ShippingState": state.get(c.get("AccountId"))} for c in cases]


def calculate_region_average_closure_times(
    run: Run, cases: list[dict[str, Any]]
) -> dict[str, float]:
    """Average closure time in seconds per ShippingState."""
    seconds: dict[str, list[float]] = defaultdict(list)
    for case in cases or []:
        if case.get("ClosedDate") and case.get("CreatedDate") and case.get("ShippingState"):
            delta = _parse_sf(case["ClosedDate"]) - _parse_sf(case["CreatedDate"])
            seconds[case["ShippingState"]].append(delta.total_seconds())
    return {k: sum(v) / len(v) for k, v in seconds.items()}


def get_order_item_ids_by_product(run: Run, product_id: str) -> list[str]:
    """Ids of the order items for a product."""
    rows = _rows(run, f"SELECT Id FROM OrderItem WHERE Product2Id = {_quote(product_id)}")
    return [r["Id"] for r in rows]


def get_issue_counts(
    run: Run, start_date: str, end_date: str, order_item_ids: list[str]
) -> dict[str, int]:
    """Number of cases per issue for some order items between two datetimes."""
    s, e = _check_dt(start_date, "start_date"), _check_dt(end_date, "end_date")
    rows = _rows(
        run,
        "SELECT IssueId__c, COUNT(Id) IssueCount FROM Case WHERE OrderItemId__c IN "
        f"{_in_list(order_item_ids, 'order_item_ids')} AND CreatedDate >= {s} "
        f"AND CreatedDate <= {e} GROUP BY IssueId__c ORDER BY COUNT(Id) DESC",
    )
    return {r.get("IssueId__c"): int(float(r.get("IssueCount") or 0)) for r in rows}


def find_id_with_max_value(run: Run, values_by_id: dict[str, float]) -> list[str] | None:
    """Keys with the largest value in a mapping."""
    return _argbest(dict(values_by_id or {}), max) or None


def find_id_with_min_value(run: Run, values_by_id: dict[str, float]) -> list[str] | None:
    """Keys with the smallest value in a mapping."""
    return _argbest(dict(values_by_id or {}), min) or None


def get_account_id_by_contact_id(run: Run, contact_id: str) -> str | None:
    """The AccountId of a contact."""
    rows = _rows(run, f"SELECT AccountId FROM Contact WHERE Id = {_quote(contact_id)} LIMIT 1")
    return rows[0].get("AccountId") if rows else None


def get_purchase_history(
    run: Run, account_id: str, purchase_date: str, related_product_ids: list[str]
) -> list[str]:
    """Products among related_product_ids that the account bought on a date."""
    day = str(purchase_date)[:10]
    try:
        dt.date.fromisoformat(day)
    except ValueError:
        raise ToolFailure(
            f"purchase_date must start with YYYY-MM-DD, got {purchase_date!r}"
        ) from None
    rows = _rows(
        run,
        f"SELECT Product2Id FROM OrderItem WHERE OrderItem.Order.AccountId = {_quote(account_id)} "
        f"AND OrderItem.Order.EffectiveDate = {day} AND Product2Id IN "
        f"{_in_list(related_product_ids, 'related_product_ids')} "
        "AND OrderItem.Order.Status = 'Activated'",
    )
    return [r["Product2Id"] for r in rows]


def get_month_to_case_count(run: Run, cases: list[dict[str, Any]]) -> dict[str, int]:
    """Number of cases per month name, from cases with CreatedDate."""
    months = Counter(
        calendar.month_name[_parse_sf(c["CreatedDate"]).month]
        for c in cases or []
        if c.get("CreatedDate")
    )
    return dict(months)


def _search_term(term: Any) -> str:
    cleaned = re.sub(r"[{}]", " ", str(term or "")).strip()
    if not cleaned:
        raise ToolFailure("search_term must not be empty")
    return cleaned


def search_knowledge_articles(run: Run, search_term: str) -> list[dict[str, Any]]:
    """Search published knowledge articles; returns Id, Title and Content."""
    rows = _rows(
        run,
        f"FIND {{{_search_term(search_term)}}} IN ALL FIELDS RETURNING Knowledge__kav(Id, Title, "
        "FAQ_Answer__c WHERE PublishStatus='Online' AND Language='en_US')",
    )
    return [
        {"Id": r.get("Id"), "Title": r.get("Title"), "Content": r.get("FAQ_Answer__c")}
        for r in rows
    ]


def search_products(run: Run, search_term: str) -> list[str]:
    """Search products; returns their Ids."""
    rows = _rows(
        run,
        f"FIND {{{_search_term(search_term)}}} IN ALL FIELDS "
        "RETURNING Product2(Id, Name, Description)",
    )
    return [r["Id"] for r in rows]


def get_issues(run: Run) -> list[dict[str, Any]]:
    """All issues with their Id and Name."""
    return _rows(run, "SELECT Id, Name FROM Issue__c")


def get_livechat_transcript_by_case_id(run: Run, case_id: str) -> list[dict[str, Any]]:
    """Live chat transcripts (Body, EndTime) of a case."""
    return _rows(
        run, f"SELECT Body, EndTime FROM LiveChatTranscript WHERE CaseId = {_quote(case_id)}"
    )


def get_email_messages_by_case_id(run: Run, case_id: str) -> list[dict[str, Any]]:
    """Email messages (Subject, TextBody, FromAddress, ToAddress, MessageDate) of a case."""
    return _rows(
        run,
        "SELECT Subject, TextBody, FromAddress, ToAddress, MessageDate FROM EmailMessage "
        f"WHERE ParentId = {_quote(case_id)}",
    )


TOOL_FUNCTIONS: dict[str, Callable[..., Any]] = {
    f.__name__: f
    for f in (
        get_agents_with_max_cases,
        get_agents_with_min_cases,
        calculate_average_handle_time,
        get_start_date,
        get_period,
        get_agent_handled_cases_by_period,
        get_qualified_agent_ids_by_case_count,
        get_cases,
        get_non_transferred_case_ids,
        get_agent_transferred_cases_by_period,
        get_shipping_state,
        calculate_region_average_closure_times,
        get_order_item_ids_by_product,
        get_issue_counts,
        find_id_with_max_value,
        find_id_with_min_value,
        get_account_id_by_contact_id,
        get_purchase_history,
        get_month_to_case_count,
        search_knowledge_articles,
        search_products,
        get_issues,
        get_livechat_transcript_by_case_id,
        get_email_messages_by_case_id,
    )
}


def call_upstream_tool(name: str, arguments: dict[str, Any], run: Run) -> str:
    """Run helper tool ``name``; the result (or ``Error: ...``) as the text the model sees."""
    func = TOOL_FUNCTIONS.get(name)
    if func is None:
        return f"Unknown action {name}"
    try:
        return str(func(run, **arguments))
    except ToolFailure as exc:
        return f"Error: {exc}"
    except (TypeError, ValueError, KeyError, AttributeError) as exc:
        # Wrong/missing arguments or badly shaped rows passed in by the model.
        return f"Error: {type(exc).__name__}: {exc}"
