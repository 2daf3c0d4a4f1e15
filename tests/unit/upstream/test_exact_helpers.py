"""crmtui's faithful helper tools give upstream's own helpers' output, argument for argument.

Upstream's ``crm_sandbox/env/functions.py`` (the NAACL snapshot; HEAD's data helpers are the
same code) is imported from ../shared (skipped when absent) and run with crmtui's
:class:`UpstreamConnector` as its ``sf_connector``; crmtui's :func:`call_exact_tool` runs the
same call. Every text the model would see must be equal, for good and bad arguments alike.
"""

from __future__ import annotations

import importlib.util
import sys
from typing import Any

import pytest

from crmtui.agent.upstream_connector import UpstreamConnector
from crmtui.agent.upstream_exact import EXACT_TOOLS, call_exact_tool
from crmtui.org.sample import open_org_or_sample

CASE = "500Ws000006ua8KIAQ"
CONTACT = "003Ws000004aLikIAE"
ACCOUNT = "001Ws000002Mx8iIAC"
PRODUCTS = ["01tWs000005rmxCIAQ", "01tWs000005rmx8IAA"]
W = {"start_date": "2021-01-01T00:00:00Z", "end_date": "2021-06-30T00:00:00Z"}
CASES = [
    {"OwnerId": "005A", "CreatedDate": "2021-02-01T10:00:00.000+0000",
     "ClosedDate": "2021-02-01T12:30:00.000+0000", "AccountId": ACCOUNT, "ShippingState": "CA"},
    {"OwnerId": "005B", "CreatedDate": "2021-03-05T10:00:00.000+0000",
     "ClosedDate": "2021-03-07T11:00:00.000+0000", "AccountId": ACCOUNT, "ShippingState": None},
    {"OwnerId": "005A", "CreatedDate": "2021-03-09T08:00:00.000+0000",
     "ClosedDate": "2021-03-09T09:15:00.000+0000", "AccountId": ACCOUNT, "ShippingState": "NY"},
]  # fmt: skip

CALLS: list[tuple[str, Any]] = [
    ("get_agents_with_max_cases", {"subset_cases": CASES}),
    ("get_agents_with_min_cases", {"subset_cases": CASES}),
    ("get_agents_with_max_cases", {"subset_cases": [{"Id": 1}]}),
    ("get_agents_with_min_cases", {"subset_cases": "x"}),
    ("calculate_average_handle_time", {"cases": CASES}),
    (
        "calculate_average_handle_time",
        {"cases": [{"CreatedDate": "2021", "ClosedDate": "x", "OwnerId": "a"}]},
    ),  # fmt: skip
    (
        "get_start_date",
        {"end_date": "2024-03-31T00:00:00Z", "period": "month", "interval_count": 1},
    ),
    (
        "get_start_date",
        {"end_date": "2024-05-31T00:00:00Z", "period": "quarter", "interval_count": 1},
    ),
    ("get_start_date", {"end_date": "2024-05-31T00:00:00Z", "period": "week", "interval_count": 3}),
    ("get_start_date", {"end_date": "2024-05-31", "period": "day", "interval_count": 3}),
    ("get_start_date", {"end_date": "2024-05-31T00:00:00Z", "period": "year", "interval_count": 3}),
    (
        "get_start_date",
        {"end_date": "2024-05-31T00:00:00Z", "period": "day", "interval_count": 2.0},
    ),
    ("get_period", {"period_name": "Winter", "year": 2021}),
    ("get_period", {"period_name": "Q4", "year": 2022}),
    ("get_period", {"period_name": "February", "year": 2024}),
    ("get_period", {"period_name": "winter", "year": 2021}),
    ("get_period", {"period_name": "Fall", "year": "2021"}),
    ("get_period", {"period_name": "Winter", "year": 9999}),
    ("get_agent_handled_cases_by_period", W),
    (
        "get_agent_handled_cases_by_period",
        {"start_date": "2030-01-01T00:00:00Z", "end_date": "2030-02-01T00:00:00Z"},
    ),  # fmt: skip
    ("get_agent_handled_cases_by_period", {"start_date": "2021-01-01", "end_date": "x"}),
    (
        "get_qualified_agent_ids_by_case_count",
        {"agent_handled_cases": {"a": 3, "b": 1}, "n_cases": 1},
    ),  # fmt: skip
    ("get_qualified_agent_ids_by_case_count", {"agent_handled_cases": {"a": "3"}, "n_cases": 1}),
    ("get_cases", {**W, "statuses": ["Closed"]}),
    (
        "get_cases",
        {
            "agent_ids": ["005Ws000003wN0VIAU", "005Ws000003wN0IIAU"],
            "start_date": "2020-01-01T00:00:00Z",
            "end_date": "2020-03-01T00:00:00Z",
        },
    ),  # fmt: skip
    ("get_cases", {"case_ids": [CASE]}),
    ("get_cases", {}),
    ("get_cases", {"start_date": "2021-01-01"}),
    ("get_cases", {"issue_ids": "a1M"}),
    ("get_non_transferred_case_ids", W),
    ("get_agent_transferred_cases_by_period", W),
    ("get_agent_transferred_cases_by_period", {**W, "qualified_agent_ids": ["005Ws000003wN0VIAU"]}),
    ("get_agent_transferred_cases_by_period", {**W, "qualified_agent_ids": "x"}),
    ("get_agent_transferred_cases_by_period", {**W, "qualified_agent_ids": None}),
    ("get_shipping_state", {"cases": [dict(c) for c in CASES[:2]]}),
    ("get_shipping_state", {"cases": [{"AccountId": ACCOUNT}]}),
    ("get_shipping_state", {"cases": [{"Id": 1}]}),
    ("calculate_region_average_closure_times", {"cases": CASES}),
    ("calculate_region_average_closure_times", {"cases": []}),
    ("get_order_item_ids_by_product", {"product_id": PRODUCTS[0]}),
    ("get_order_item_ids_by_product", {"product_id": ""}),
    ("get_issue_counts", {**W, "order_item_ids": ["802Ws000005blhxIAA", "802Ws000005bli1IAA"]}),
    (
        "get_issue_counts",
        {
            "start_date": "2021-01-01",
            "end_date": "2021-02-01",
            "order_item_ids": ["802Ws000005blhxIAA"],
        },
    ),  # a query error, quoted
    ("find_id_with_max_value", {"values_by_id": {"a": 2, "b": 2.0, "c": 1}}),
    ("find_id_with_min_value", {"values_by_id": {}}),
    ("find_id_with_min_value", {"values_by_id": {"a": "1"}}),
    ("get_account_id_by_contact_id", {"contact_id": CONTACT}),
    ("get_account_id_by_contact_id", {"contact_id": "003000000000000AAA"}),
    (
        "get_purchase_history",
        {
            "account_id": ACCOUNT,
            "purchase_date": "2019-07-21T00:00:00Z",
            "related_product_ids": PRODUCTS,
        },
    ),  # fmt: skip
    (
        "get_purchase_history",
        {"account_id": ACCOUNT, "purchase_date": "2019-07-21", "related_product_ids": PRODUCTS},
    ),  # fmt: skip
    ("get_month_to_case_count", {"cases": CASES}),
    ("search_knowledge_articles", {"search_term": "refund"}),
    ("search_knowledge_articles", {"search_term": "  "}),
    ("search_products", {"search_term": "yoga"}),
    ("get_issues", {}),
    ("get_livechat_transcript_by_case_id", {"case_id": CASE}),
    ("get_email_messages_by_case_id", {"case_id": CASE}),
    ("get_email_messages_by_case_id", {"case_id": 5}),
    # ToolEnv's own errors: Python's texts for bad keyword arguments
    ("get_period", {"period_name": "Q1"}),
    ("get_issues", {"limit": 3}),
    ("get_issues", {"sf_connector": 1}),
    ("get_issues", ["x"]),
    ("no_such_tool", {}),
]


@pytest.fixture(scope="module")
def upstream_functions() -> Any:
    from tests.conftest import SHARED

    path = SHARED / "upstream-harness-naacl" / "crm_sandbox" / "env" / "functions.py"
    if not path.is_file():
        pytest.skip("../shared/crmarena/upstream-harness-naacl is not present")
    pytest.importorskip("simple_salesforce")
    pytest.importorskip("dateutil")
    spec = importlib.util.spec_from_file_location("crm_sandbox.env.functions", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["crm_sandbox.env.functions"] = module
    try:
        spec.loader.exec_module(module)
    finally:
        sys.modules.pop("crm_sandbox.env.functions", None)
    return module


def _upstream_call(functions: Any, name: str, arguments: Any, connector: Any) -> str:
    """ToolEnv.step's dispatch, as upstream writes it (env.py)."""
    if not hasattr(functions, name):
        return f"Unknown action {name}"
    try:
        observation = getattr(functions, name)(**arguments, sf_connector=connector)
    except Exception as exc:  # noqa: BLE001
        observation = f"Error: {exc}"
    return str(observation)


@pytest.mark.parametrize(
    ("name", "arguments"), CALLS, ids=[f"{i}-{c[0]}" for i, c in enumerate(CALLS)]
)
def test_helper_output_equals_upstream(upstream_functions: Any, name: str, arguments: Any) -> None:
    import copy

    org = open_org_or_sample(None)
    theirs = _upstream_call(
        upstream_functions, name, copy.deepcopy(arguments), UpstreamConnector(org)
    )
    ours = call_exact_tool(name, copy.deepcopy(arguments), UpstreamConnector(org))
    assert ours == theirs


def test_every_upstream_helper_is_reproduced(upstream_functions: Any) -> None:
    helpers = {
        name
        for name, value in vars(upstream_functions).items()
        if callable(value) and getattr(value, "__info__", None) and name not in (
            "submit", "respond", "issue_soql_query", "issue_sosl_query")
    }  # fmt: skip
    assert helpers == set(EXACT_TOOLS)
    assert {name for name, _ in CALLS} >= set(EXACT_TOOLS)
