"""OpenAI function specs for the tool-call strategy's two toolsets.

* ``query``: ``soql_query``, ``sosl_search`` and ``respond`` (free-form queries; the prompt
  carries the schema).
* ``upstream``: upstream's 25 helper tools (24 data helpers + ``respond``), described in our
  own words with upstream's names and argument names.
"""

from __future__ import annotations

from typing import Any

__all__ = ["QUERY_TOOLS", "TOOLSETS", "UPSTREAM_TOOLS", "function_spec"]

_STR = {"type": "string"}
_STR_LIST = {"type": "array", "items": {"type": "string"}}
_CASES = {"type": "array", "items": {"type": "object"}}
_DT = {"type": "string", "description": "A datetime like 2024-01-31T00:00:00Z."}


def function_spec(
    name: str, description: str, properties: dict[str, Any], required: list[str] | None = None
) -> dict[str, Any]:
    """One ``{"type": "function", "function": {...}}`` entry."""
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": properties,
                "required": list(properties) if required is None else required,
            },
        },
    }


RESPOND = function_spec(
    "respond",
    "Give the final answer to the user. The content must be only the answer.",
    {"content": {"type": "string", "description": "The answer, or None if nothing matches."}},
)

QUERY_TOOLS: list[dict[str, Any]] = [
    function_spec(
        "soql_query",
        "Run one SOQL query against the Salesforce instance and return the rows.",
        {"query": {"type": "string", "description": "A SOQL SELECT statement."}},
    ),
    function_spec(
        "sosl_search",
        "Run one SOSL search (FIND {...} IN ... RETURNING ...) and return the matches.",
        {"query": {"type": "string", "description": "A SOSL FIND statement."}},
    ),
    RESPOND,
]

UPSTREAM_TOOLS: list[dict[str, Any]] = [
    function_spec(
        "get_agents_with_max_cases",
        "Return the agent (OwnerId) values that own the most cases in a list of cases.",
        {"subset_cases": _CASES},
    ),
    function_spec(
        "get_agents_with_min_cases",
        "Return the agent (OwnerId) values that own the fewest cases in a list of cases.",
        {"subset_cases": _CASES},
    ),
    function_spec(
        "calculate_average_handle_time",
        "Average handle time in minutes per OwnerId, from cases with CreatedDate and ClosedDate.",
        {"cases": _CASES},
    ),
    function_spec(
        "get_start_date",
        "The datetime a number of periods before an end datetime.",
        {
            "end_date": _DT,
            "period": {"type": "string", "enum": ["day", "week", "month", "quarter"]},
            "interval_count": {"type": "integer"},
        },
    ),
    function_spec(
        "get_period",
        "Start and (exclusive) end datetimes of a month, quarter (Q1-Q4) or season in a year; "
        "Winter starts on December 1 of the given year.",
        {"period_name": _STR, "year": {"type": "integer"}},
    ),
    function_spec(
        "get_agent_handled_cases_by_period",
        "Number of cases assigned to each agent between two datetimes.",
        {"start_date": _DT, "end_date": _DT},
    ),
    function_spec(
        "get_qualified_agent_ids_by_case_count",
        "Agents whose handled case count is greater than n_cases.",
        {"agent_handled_cases": {"type": "object"}, "n_cases": {"type": "integer"}},
    ),
    function_spec(
        "get_cases",
        "Cases (OwnerId, CreatedDate, ClosedDate, AccountId) matching the given filters; at "
        "least one filter is needed.",
        {
            "start_date": _DT,
            "end_date": _DT,
            "agent_ids": _STR_LIST,
            "case_ids": _STR_LIST,
            "order_item_ids": _STR_LIST,
            "issue_ids": _STR_LIST,
            "statuses": _STR_LIST,
        },
        required=[],
    ),
    function_spec(
        "get_non_transferred_case_ids",
        "Ids of cases assigned exactly once (never transferred) between two datetimes.",
        {"start_date": _DT, "end_date": _DT},
    ),
    function_spec(
        "get_agent_transferred_cases_by_period",
        "Number of cases each qualified agent transferred away between two datetimes.",
        {"start_date": _DT, "end_date": _DT, "qualified_agent_ids": _STR_LIST},
    ),
    function_spec(
        "get_shipping_state",
        "Add the account's ShippingState to each case (cases need AccountId).",
        {"cases": _CASES},
    ),
    function_spec(
        "calculate_region_average_closure_times",
        "Average closure time in seconds per ShippingState.",
        {"cases": _CASES},
    ),
    function_spec(
        "get_order_item_ids_by_product",
        "Ids of the order items for a product.",
        {"product_id": _STR},
    ),
    function_spec(
        "get_issue_counts",
        "Number of cases per issue for some order items between two datetimes.",
        {"start_date": _DT, "end_date": _DT, "order_item_ids": _STR_LIST},
    ),
    function_spec(
        "find_id_with_max_value",
        "Keys with the largest value in a mapping.",
        {"values_by_id": {"type": "object"}},
    ),
    function_spec(
        "find_id_with_min_value",
        "Keys with the smallest value in a mapping.",
        {"values_by_id": {"type": "object"}},
    ),
    function_spec(
        "get_account_id_by_contact_id",
        "The AccountId of a contact.",
        {"contact_id": _STR},
    ),
    function_spec(
        "get_purchase_history",
        "Products among related_product_ids that the account bought on a date.",
        {
            "account_id": _STR,
            "purchase_date": {"type": "string", "description": "YYYY-MM-DD"},
            "related_product_ids": _STR_LIST,
        },
    ),
    function_spec(
        "get_month_to_case_count",
        "Number of cases per month name, from cases with CreatedDate.",
        {"cases": _CASES},
    ),
    function_spec(
        "search_knowledge_articles",
        "Search published knowledge articles; returns Id, Title and Content.",
        {"search_term": _STR},
    ),
    function_spec("search_products", "Search products; returns their Ids.", {"search_term": _STR}),
    function_spec("get_issues", "All issues with their Id and Name.", {}),
    RESPOND,
    function_spec(
        "get_livechat_transcript_by_case_id",
        "Live chat transcripts (Body, EndTime) of a case.",
        {"case_id": _STR},
    ),
    function_spec(
        "get_email_messages_by_case_id",
        "Email messages (Subject, TextBody, FromAddress, ToAddress, MessageDate) of a case.",
        {"case_id": _STR},
    ),
]

TOOLSETS: dict[str, list[dict[str, Any]]] = {"query": QUERY_TOOLS, "upstream": UPSTREAM_TOOLS}


def with_answer_tool(tools: list[dict[str, Any]], answer: str) -> list[dict[str, Any]]:
    """``tools`` with the ``respond`` function renamed ``answer`` (``submit`` in the paper's
    code)."""
    if answer == "respond":
        return tools
    renamed = []
    for tool in tools:
        if tool["function"]["name"] == "respond":
            tool = {**tool, "function": {**tool["function"], "name": answer}}
        renamed.append(tool)
    return renamed
