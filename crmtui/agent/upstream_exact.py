"""Upstream's helper tools, reproduced output for output (``--preset naacl|head``).

:mod:`crmtui.agent.upstream_tools` is crmtui's reading of upstream's 24 data helpers (lenient
arguments, plain values). This module is the faithful one: each function has upstream's
name and signature (so Python's own ``TypeError`` for a missing or unknown argument reads the
same), validates its arguments in upstream's order with upstream's ``Error: ...`` texts,
sends the same query text (whitespace included, so a query error quotes the same line) through
an :class:`~crmtui.agent.upstream_connector.UpstreamConnector`, and returns the same Python
value, whose ``str()`` is what the model sees: a ``defaultdict(<class 'int'>, {...})`` from
``get_agent_handled_cases_by_period``, ``get_purchase_history``'s list of
``{'Product2Id': ...}`` dicts, a query error string passed through as the result, ``None``
from ``find_id_with_max_value`` on an empty mapping, and so on. The code is crmtui's own; the
behaviour (upstream's crm_sandbox/env/functions.py) is upstream's, read from its NAACL and
HEAD snapshots, whose data
helpers are identical.

:func:`call_exact_tool` is ToolEnv's dispatch: an unknown name is ``Unknown action <name>``,
an exception raised by the call itself (bad arguments) is ``Error: <exception text>``.
"""

from __future__ import annotations

import calendar
import datetime as dt
from collections import defaultdict
from collections.abc import Callable, Mapping
from typing import Any

from crmtui.agent.upstream_tools import TOOL_FUNCTIONS

__all__ = ["EXACT_TOOLS", "call_exact_tool"]

_DT = "%Y-%m-%dT%H:%M:%SZ"
_SF_DT = "%Y-%m-%dT%H:%M:%S.%f%z"
_INDENT = "\n" + " " * 12
#: The module upstream's helpers live in: Python names it in one TypeError text.
_UPSTREAM_MODULE = "crm_sandbox.env.functions"


def _query(*lines: str) -> str:
    """A query laid out as upstream's triple-quoted f-strings are (12-space indent)."""
    return _INDENT + _INDENT.join(lines) + "\n" + " " * 8


def _unexpected(exc: Exception) -> str:
    return f"Error: An unexpected error occurred - {exc}"


def _parses(value: str, fmt: str) -> bool:
    try:
        dt.datetime.strptime(value, fmt)
    except ValueError:
        return False
    return True


def _count_owners(subset_cases: Any) -> dict[str, int] | str:
    if not isinstance(subset_cases, list):
        return "Error: Input 'subset_cases' must be a list"
    counts: dict[str, int] = {}
    for index, record in enumerate(subset_cases):
        if not isinstance(record, dict):
            return f"Error: Item at index {index} in subset_cases is not a dictionary"
        if "OwnerId" not in record:
            return f"Error: 'OwnerId' not found in case record at index {index}"
        owner = record["OwnerId"]
        if not isinstance(owner, str):
            return f"Error: 'OwnerId' at index {index} is not a string"
        counts[owner] = counts.get(owner, 0) + 1
    return counts


def get_agents_with_max_cases(subset_cases, sf_connector=None):  # type: ignore[no-untyped-def]
    """Agents owning the most cases of a list."""
    try:
        counts = _count_owners(subset_cases)
        if isinstance(counts, str) or not counts:
            return counts or []
        best = max(counts.values())
        return [agent for agent, n in counts.items() if n == best]
    except Exception as exc:  # noqa: BLE001 - upstream's catch-all, reproduced
        return _unexpected(exc)


def get_agents_with_min_cases(subset_cases, sf_connector=None):  # type: ignore[no-untyped-def]
    """Agents owning the fewest cases of a list."""
    try:
        counts = _count_owners(subset_cases)
        if isinstance(counts, str) or not counts:
            return counts or []
        least = min(counts.values())
        return [agent for agent, n in counts.items() if n == least]
    except Exception as exc:  # noqa: BLE001
        return _unexpected(exc)


def calculate_average_handle_time(cases, sf_connector=None):  # type: ignore[no-untyped-def]
    """Mean minutes from CreatedDate to ClosedDate per OwnerId."""
    try:
        if not isinstance(cases, list):
            return "Error: Input 'cases' must be a list"
        minutes: defaultdict[Any, list[float]] = defaultdict(list)
        for index, case in enumerate(cases):
            if not isinstance(case, dict):
                return f"Error: Item at index {index} in cases is not a dictionary"
            for key in ("CreatedDate", "ClosedDate", "OwnerId"):
                if key not in case:
                    return f"Error: '{key}' not found in case record at index {index}"
            try:
                opened = dt.datetime.strptime(case["CreatedDate"], _SF_DT)
                closed = dt.datetime.strptime(case["ClosedDate"], _SF_DT)
            except ValueError:
                return f"Error: Invalid date format at index {index}. Expected format: '{_SF_DT}'"
            if closed < opened:
                return f"Error: ClosedDate is earlier than CreatedDate at index {index}"
            minutes[case["OwnerId"]].append((closed - opened).total_seconds() / 60)
        return {agent: sum(times) / len(times) for agent, times in minutes.items() if times}
    except Exception as exc:  # noqa: BLE001
        return _unexpected(exc)


def _minus_months(when: dt.datetime, months: int) -> dt.datetime:
    """``when - relativedelta(months=months)``: the day clamped to the month's length."""
    index = when.year * 12 + when.month - 1 - months
    year, month = divmod(index, 12)
    day = min(when.day, calendar.monthrange(year, month + 1)[1])
    return when.replace(year=year, month=month + 1, day=day)


def get_start_date(end_date, period, interval_count, sf_connector=None):  # type: ignore[no-untyped-def]
    """The datetime ``interval_count`` periods before ``end_date``."""
    try:
        if not isinstance(end_date, str):
            return "Error: end_date must be a string"
        if not isinstance(period, str):
            return "Error: period must be a string"
        if not isinstance(interval_count, int):
            return "Error: interval_count must be an integer"
        if period not in ("day", "week", "month", "quarter"):
            return "Error: Invalid period. Must be 'day', 'week', 'month', or 'quarter'"
        try:
            end = dt.datetime.strptime(end_date, _DT)
        except ValueError:
            return "Error: Invalid end_date format. Expected format: 'YYYY-MM-DDTHH:MM:SSZ'"
        if interval_count < 0:
            return "Error: interval_count must be a non-negative integer"
        if period == "week":
            start = end - dt.timedelta(weeks=interval_count)
        elif period == "day":
            start = end - dt.timedelta(days=interval_count)
        else:
            start = _minus_months(end, interval_count * (3 if period == "quarter" else 1))
        return start.strftime(_DT)
    except Exception as exc:  # noqa: BLE001
        return _unexpected(exc)


_MONTH_NAMES = [calendar.month_name[i] for i in range(1, 13)]
_PERIOD_NAMES = [*_MONTH_NAMES, "Q1", "Q2", "Q3", "Q4", "Spring", "Summer", "Fall", "Winter"]
_SEASON_START = {"Spring": 3, "Summer": 6, "Fall": 9, "Winter": 12}


def _plus_months(when: dt.datetime, months: int) -> dt.datetime:
    index = when.year * 12 + when.month - 1 + months
    return when.replace(year=index // 12, month=index % 12 + 1)


def get_period(period_name, year, sf_connector=None):  # type: ignore[no-untyped-def]
    """Start and end (exclusive) of a month, quarter or season of a year."""
    try:
        if not isinstance(period_name, str):
            return "Error: period_name must be a string"
        if not isinstance(year, int):
            return "Error: year must be an integer"
        if period_name not in _PERIOD_NAMES:
            return f"Error: Invalid period_name. Must be one of {', '.join(_PERIOD_NAMES)}"
        if year < 1 or year > 9999:
            return "Error: year must be between 1 and 9999"
        if "Q" in period_name:
            start = dt.datetime(year, 3 * int(period_name[1]) - 2, 1)
            end = _plus_months(start, 3)
        elif period_name in _SEASON_START:
            start = dt.datetime(year, _SEASON_START[period_name], 1)
            end = _plus_months(start, 3)
        else:
            start = dt.datetime(year, _MONTH_NAMES.index(period_name) + 1, 1)
            end = _plus_months(start, 1)
        return {"start_date": start.strftime(_DT), "end_date": end.strftime(_DT)}
    except Exception as exc:  # noqa: BLE001
        return _unexpected(exc)


def _both_dates_text(start_date: Any, end_date: Any) -> str | None:
    if not isinstance(start_date, str) or not isinstance(end_date, str):
        return "Error: start_date and end_date must be strings"
    return None


def get_agent_handled_cases_by_period(start_date, end_date, sf_connector=None):  # type: ignore[no-untyped-def]
    """Owner assignments per agent in a window: a defaultdict, printed as one."""
    try:
        problem = _both_dates_text(start_date, end_date)
        if problem:
            return problem
        if not (_parses(start_date, _DT) and _parses(end_date, _DT)):
            return "Error: Invalid date format. Use 'YYYY-MM-DDTHH:MM:SSZ'"
        text = _query(
            "SELECT NewValue__c, CreatedDate",
            "FROM CaseHistory__c",
            f"WHERE CreatedDate >= {start_date} AND CreatedDate <= {end_date} "
            "AND Field__c = 'Owner Assignment'",
        )
        result, status = sf_connector.run_query(text)
        if status == 0:
            return result
        if len(result) == 0:
            return {}
        handled: defaultdict[Any, int] = defaultdict(int)
        for record in result:
            handled[record.get("NewValue__c")] += 1
        return handled
    except Exception as exc:  # noqa: BLE001
        return _unexpected(exc)


def get_qualified_agent_ids_by_case_count(agent_handled_cases, n_cases, sf_connector=None):  # type: ignore[no-untyped-def]
    """Agents with more than ``n_cases`` cases."""
    try:
        if not isinstance(agent_handled_cases, dict):
            return "Error: agent_handled_cases must be a dictionary"
        if not isinstance(n_cases, int):
            return "Error: n_cases must be an integer"
        return [agent for agent, count in agent_handled_cases.items() if count > n_cases]
    except Exception as exc:  # noqa: BLE001
        return _unexpected(exc)


def _filter(field: str, values: list[Any]) -> str:
    # Upstream writes one value quoted and several as a Python tuple's repr.
    return f"{field} = '{values[0]}'" if len(values) == 1 else f"{field} IN {tuple(values)}"


def get_cases(  # type: ignore[no-untyped-def]
    start_date=None,
    end_date=None,
    agent_ids=None,
    case_ids=None,
    order_item_ids=None,
    issue_ids=None,
    statuses=None,
    sf_connector=None,
):
    """Cases (OwnerId, CreatedDate, ClosedDate, AccountId) matching the filters given."""
    try:
        conditions = []
        for value, bound, op in ((start_date, "start_date", ">="), (end_date, "end_date", "<")):
            if not value:
                continue
            if not isinstance(value, str):
                return f"Error: {bound} must be a string in Salesforce datetime format"
            if not _parses(value, _DT):
                return f"Error: {bound} must be in the format 'YYYY-MM-DDTHH:MM:SSZ'"
            conditions.append(f"CreatedDate {op} {value}")
        for values, name, field in (
            (agent_ids, "agent_ids", "OwnerId"),
            (case_ids, "case_ids", "Id"),
            (order_item_ids, "order_item_ids", "OrderItemId__c"),
            (issue_ids, "issue_ids", "IssueId__c"),
            (statuses, "statuses", "Status"),
        ):
            if not values:
                continue
            if not isinstance(values, list):
                return f"Error: {name} must be a list"
            conditions.append(_filter(field, values))
        if not conditions:
            return "Error: At least one filter criteria must be provided"
        head = _query("SELECT OwnerId, CreatedDate, ClosedDate, AccountId", "FROM Case")
        result, _ = sf_connector.run_query(f"{head} WHERE {' AND '.join(conditions)}")
        return result
    except Exception as exc:  # noqa: BLE001
        return _unexpected(exc)


def get_non_transferred_case_ids(start_date, end_date, sf_connector=None):  # type: ignore[no-untyped-def]
    """Cases assigned exactly once in a window."""
    try:
        problem = _both_dates_text(start_date, end_date)
        if problem:
            return problem
        if not (_parses(start_date, _DT) and _parses(end_date, _DT)):
            return "Error: start_date and end_date must be in the format 'YYYY-MM-DDTHH:MM:SSZ'"
        text = _query(
            "SELECT CaseId__c",
            "FROM CaseHistory__c",
            "WHERE Field__c = 'Owner Assignment'",
            f"AND CreatedDate >= {start_date} AND CreatedDate <= {end_date}",
            "GROUP BY CaseId__c",
            "HAVING COUNT(Id) = 1",
        )
        result, status = sf_connector.run_query(text)
        if status == 0:
            return result
        return [record["CaseId__c"] for record in result]
    except Exception as exc:  # noqa: BLE001
        return _unexpected(exc)


_NO_IDS: Any = object()


def get_agent_transferred_cases_by_period(  # type: ignore[no-untyped-def]
    start_date,
    end_date,
    qualified_agent_ids=_NO_IDS,
    sf_connector=None,
):
    """Transfers away from each (qualified) agent in a window."""
    if qualified_agent_ids is _NO_IDS:  # upstream's default: an (unmodified) empty list
        qualified_agent_ids = []
    try:
        problem = _both_dates_text(start_date, end_date)
        if problem:
            return problem
        if not isinstance(qualified_agent_ids, list):
            return "Error: qualified_agent_ids must be a list"
        if not (_parses(start_date, _DT) and _parses(end_date, _DT)):
            return "Error: start_date and end_date must be in the format 'YYYY-MM-DDTHH:MM:SSZ'"
        text = _query(
            "SELECT OldValue__c, CreatedDate",
            "FROM CaseHistory__c",
            "WHERE Field__c = 'Owner Assignment'",
            "AND OldValue__c != NULL",
            f"AND CreatedDate >= {start_date} AND CreatedDate <= {end_date}",
        )
        result, status = sf_connector.run_query(text)
        if status == 0:
            return result
        counts: defaultdict[Any, int] = defaultdict(int)
        for record in result:
            if "OldValue__c" not in record:
                continue
            agent = record["OldValue__c"]
            if qualified_agent_ids and agent not in qualified_agent_ids:
                continue
            counts[agent] += 1
        return dict(counts)
    except Exception as exc:  # noqa: BLE001
        return _unexpected(exc)


def get_shipping_state(cases, sf_connector=None):  # type: ignore[no-untyped-def]
    """The cases given, each with its account's ShippingState added (in place)."""
    try:
        if not isinstance(cases, list):
            return "Error: Input 'cases' must be a list"
        if not cases:
            return cases
        for case in cases:
            if not isinstance(case, dict):
                return "Error: Each case in 'cases' must be a dictionary"
            if "AccountId" not in case:
                return "Error: Each case dictionary must contain an 'AccountId' key"
        text = (
            _query("SELECT Id, ShippingState", "FROM Account")
            + " WHERE "
            + _filter("Id", [case["AccountId"] for case in cases])
        )
        result, status = sf_connector.run_query(text)
        if status == 0:
            return result
        states = {record["Id"]: record["ShippingState"] for record in result}
        for case in cases:
            case["ShippingState"] = states.get(case["AccountId"])
        return cases
    except Exception as exc:  # noqa: BLE001
        return _unexpected(exc)


def calculate_region_average_closure_times(cases, sf_connector=None):  # type: ignore[no-untyped-def]
    """Mean seconds from CreatedDate to ClosedDate per ShippingState."""
    try:
        if not isinstance(cases, list):
            return "Error: Input 'cases' must be a list"
        if not cases:
            return "Error: Input 'cases' is empty"
        seconds: defaultdict[Any, list[float]] = defaultdict(list)
        for case in cases:
            if not isinstance(case, dict):
                return "Error: Each case in 'cases' must be a dictionary"
            if not all(k in case for k in ("ShippingState", "CreatedDate", "ClosedDate")):
                return (
                    "Error: Each case dictionary must contain 'ShippingState', 'CreatedDate', "
                    "and 'ClosedDate' keys"
                )
            state = case["ShippingState"]
            if not state:
                continue
            try:
                opened = dt.datetime.strptime(case["CreatedDate"], _SF_DT)
                closed = dt.datetime.strptime(case["ClosedDate"], _SF_DT)
            except ValueError:
                return (
                    "Error: Invalid date format. Dates should be in the format "
                    "'YYYY-MM-DDTHH:MM:SSZ'"
                )
            seconds[state].append((closed - opened).total_seconds())
        return {state: sum(times) / len(times) for state, times in seconds.items()}
    except Exception as exc:  # noqa: BLE001
        return _unexpected(exc)


def get_order_item_ids_by_product(product_id, sf_connector=None):  # type: ignore[no-untyped-def]
    """Ids of a product's order items."""
    try:
        if not isinstance(product_id, str):
            return "Error: product_id must be a string"
        if not product_id:
            return "Error: product_id cannot be empty"
        text = _query("SELECT Id", "FROM OrderItem", f"WHERE Product2Id = '{product_id}'")
        result, status = sf_connector.run_query(text)
        if status == 0:
            return result
        return [record["Id"] for record in result]
    except Exception as exc:  # noqa: BLE001
        return _unexpected(exc)


def get_issue_counts(start_date, end_date, order_item_ids, sf_connector=None):  # type: ignore[no-untyped-def]
    """Cases per issue for some order items in a window (dates are not checked)."""
    try:
        problem = _both_dates_text(start_date, end_date)
        if problem:
            return problem
        if not isinstance(order_item_ids, list) or not order_item_ids:
            return "Error: order_item_ids must be a non-empty list"
        joined = "','".join(map(str, order_item_ids))
        text = _query(
            "SELECT IssueId__c, COUNT(Id) IssueCount",
            "FROM Case",
            f"WHERE OrderItemId__c IN ('{joined}')",
            f"AND CreatedDate >= {start_date}",
            f"AND CreatedDate <= {end_date}",
            "GROUP BY IssueId__c",
            "ORDER BY COUNT(Id) DESC",
        )
        result, status = sf_connector.run_query(text)
        if status == 0:
            return result
        return {record["IssueId__c"]: record["IssueCount"] for record in result}
    except Exception as exc:  # noqa: BLE001
        return _unexpected(exc)


def _extreme(values_by_id: Any, pick: Callable[..., Any]) -> Any:
    if not isinstance(values_by_id, dict):
        return "Error: Input must be a dictionary"
    if not values_by_id:
        return None
    if not all(isinstance(v, int | float) for v in values_by_id.values()):
        return "Error: All values in the dictionary must be numeric"
    best = pick(values_by_id.values())
    return [key for key, value in values_by_id.items() if value == best]


def find_id_with_max_value(values_by_id, sf_connector=None):  # type: ignore[no-untyped-def]
    """Keys holding the largest value."""
    try:
        return _extreme(values_by_id, max)
    except Exception as exc:  # noqa: BLE001
        return _unexpected(exc)


def find_id_with_min_value(values_by_id, sf_connector=None):  # type: ignore[no-untyped-def]
    """Keys holding the smallest value."""
    try:
        return _extreme(values_by_id, min)
    except Exception as exc:  # noqa: BLE001
        return _unexpected(exc)


def get_account_id_by_contact_id(contact_id: str, sf_connector=None):  # type: ignore[no-untyped-def]
    """A contact's AccountId (the empty result list when there is none)."""
    try:
        if not isinstance(contact_id, str):
            return "Error: contact_id must be a string"
        if not contact_id:
            return "Error: contact_id cannot be empty"
        text = _query("SELECT AccountId", "FROM Contact", f"WHERE Id = '{contact_id}'", "LIMIT 1")
        result, status = sf_connector.run_query(text)
        if status == 0:
            return result
        return result[0]["AccountId"] if len(result) > 0 else result
    except Exception as exc:  # noqa: BLE001
        return _unexpected(exc)


def get_purchase_history(account_id, purchase_date, related_product_ids, sf_connector=None):  # type: ignore[no-untyped-def]
    """Order items (``{'Product2Id': ...}`` rows) an account bought on a date."""
    try:
        if not isinstance(account_id, str):
            return "Error: account_id must be a string"
        if not isinstance(purchase_date, str):
            return "Error: purchase_date must be a string"
        if not isinstance(related_product_ids, list):
            return "Error: related_product_ids must be a list"
        if not all(isinstance(i, str) for i in related_product_ids):
            return "Error: All product IDs in related_product_ids must be strings"
        if not _parses(purchase_date, _DT):
            return "Error: purchase_date must be in 'YYYY-MM-DDTHH:MM:SSZ' format"
        joined = "','".join(related_product_ids)
        text = _query(
            "SELECT Product2Id",
            "FROM OrderItem",
            f"WHERE OrderItem.Order.AccountId = '{account_id}'",
            f"AND OrderItem.Order.EffectiveDate = {purchase_date.split('T')[0]}",
            f"AND Product2Id IN ('{joined}')",
            "AND OrderItem.Order.Status = 'Activated'",
        )
        result, _ = sf_connector.run_query(text)
        return result
    except Exception as exc:  # noqa: BLE001
        return _unexpected(exc)


def get_month_to_case_count(cases, sf_connector=None):  # type: ignore[no-untyped-def]
    """Cases per English month name of their CreatedDate."""
    try:
        if not isinstance(cases, list):
            return "Error: Input must be a list of dictionaries"
        counts: defaultdict[str, int] = defaultdict(int)
        for case in cases:
            if not isinstance(case, dict):
                return "Error: Each case must be a dictionary"
            if "CreatedDate" not in case:
                return "Error: Each case dictionary must contain a 'CreatedDate' key"
            try:
                created = dt.datetime.strptime(case["CreatedDate"], _SF_DT)
            except ValueError:
                return "Error: Invalid date format. Expected format: 'YYYY-MM-DDTHH:MM:SSZ'"
            counts[calendar.month_name[created.month]] += 1
        return dict(counts)
    except Exception as exc:  # noqa: BLE001
        return _unexpected(exc)


def _term_problem(search_term: Any) -> str | None:
    if not isinstance(search_term, str):
        return "Error: search_term must be a string"
    if not search_term.strip():
        return "Error: search_term cannot be empty"
    return None


def search_knowledge_articles(search_term, sf_connector=None):  # type: ignore[no-untyped-def]
    """SOSL over published English articles: Id, Title and Content of each."""
    try:
        problem = _term_problem(search_term)
        if problem:
            return problem
        text = (
            f"FIND {{{search_term}}} IN ALL FIELDS RETURNING Knowledge__kav(Id, Title, "
            "FAQ_Answer__c WHERE PublishStatus='Online' AND Language='en_US')"
        )
        result, status = sf_connector.run_query(text)
        if status == 0:
            return result
        return [
            {
                "Id": record.get("Id", ""),
                "Title": record.get("Title", ""),
                "Content": record.get("FAQ_Answer__c", ""),
            }
            for record in result
        ]
    except Exception as exc:  # noqa: BLE001
        return _unexpected(exc)


def search_products(search_term, sf_connector=None):  # type: ignore[no-untyped-def]
    """SOSL over products: their Ids."""
    try:
        problem = _term_problem(search_term)
        if problem:
            return problem
        text = f"FIND {{{search_term}}} IN ALL FIELDS RETURNING Product2(Id, Name, Description)"
        result, status = sf_connector.run_query(text)
        if status == 0:
            return result
        return [record["Id"] for record in result]
    except Exception as exc:  # noqa: BLE001
        return _unexpected(exc)


def get_issues(sf_connector=None):  # type: ignore[no-untyped-def]
    """Every issue's Id and Name."""
    try:
        result, _ = sf_connector.run_query(_query("SELECT Id, Name", "FROM Issue__c"))
        return result
    except Exception as exc:  # noqa: BLE001
        return _unexpected(exc)


def get_email_messages_by_case_id(case_id, sf_connector=None):  # type: ignore[no-untyped-def]
    """A case's email messages."""
    try:
        if not isinstance(case_id, str):
            return "Error: case_id must be a string"
        text = _query(
            "SELECT Subject, TextBody, FromAddress, ToAddress, MessageDate",
            "FROM EmailMessage",
            f"WHERE ParentId = '{case_id}'",
        )
        result, _ = sf_connector.run_query(text)
        return result
    except Exception as exc:  # noqa: BLE001
        return _unexpected(exc)


def get_livechat_transcript_by_case_id(case_id, sf_connector=None):  # type: ignore[no-untyped-def]
    """A case's live chat transcripts."""
    try:
        if not isinstance(case_id, str):
            return "Error: case_id must be a string"
        text = _query(
            "SELECT Body, EndTime", "FROM LiveChatTranscript", f"WHERE CaseId = '{case_id}'"
        )
        result, _ = sf_connector.run_query(text)
        return result
    except Exception as exc:  # noqa: BLE001
        return _unexpected(exc)


#: The same helpers, by the same names and in the same order, as crmtui's own versions
#: (:data:`crmtui.agent.upstream_tools.TOOL_FUNCTIONS`): only their behaviour differs.
EXACT_TOOLS: dict[str, Callable[..., Any]] = {name: globals()[name] for name in TOOL_FUNCTIONS}


def call_exact_tool(name: str, arguments: Any, connector: Any) -> str:
    """ToolEnv's step for a data helper: the text the model sees.

    Args:
        name: The tool the model called.
        arguments: The decoded JSON arguments (any JSON value, as upstream passes it on).
        connector: An :class:`~crmtui.agent.upstream_connector.UpstreamConnector`.
    """
    func = EXACT_TOOLS.get(name)
    if func is None:
        return f"Unknown action {name}"
    if not isinstance(arguments, Mapping):
        # Python's own text for ``f(**not_a_mapping)`` names the function with its module.
        kind = type(arguments).__name__
        return f"Error: {_UPSTREAM_MODULE}.{name}() argument after ** must be a mapping, not {kind}"
    if "sf_connector" in arguments:
        return (
            f"Error: {_UPSTREAM_MODULE}.{name}() got multiple values for keyword argument "
            "'sf_connector'"
        )
    try:
        value = func(**arguments, sf_connector=connector)
    except Exception as exc:  # noqa: BLE001 - ToolEnv's catch: "Error: <exception>"
        value = f"Error: {exc}"
    return str(value)
