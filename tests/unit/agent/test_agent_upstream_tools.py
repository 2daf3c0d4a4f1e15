"""Upstream's helper tools over an injected query runner: query shapes and post-processing."""

from __future__ import annotations

import ast

import pytest

from crmtui.agent.execution import Observation
from crmtui.agent.tool_specs import UPSTREAM_TOOLS
from crmtui.agent.upstream_tools import TOOL_FUNCTIONS, call_upstream_tool


class Runner:
    """Records query texts and answers with canned rows (first matching prefix wins)."""

    def __init__(self, answers: dict[str, list[dict]] | None = None) -> None:
        self.answers = answers or {}
        self.queries: list[str] = []

    def __call__(self, text: str) -> Observation:
        self.queries.append(text)
        for prefix, rows in self.answers.items():
            if text.startswith(prefix):
                return Observation(str(rows), "soql", len(rows), 1.0, records=rows)
        return Observation(
            "INVALID_FIELD: nope", "soql", None, 1.0, "INVALID_FIELD", "INVALID_FIELD: nope"
        )


def call(name: str, runner: Runner | None = None, **args) -> str:
    return call_upstream_tool(name, args, runner or Runner())


def test_every_spec_has_an_implementation() -> None:
    names = [t["function"]["name"] for t in UPSTREAM_TOOLS]
    assert len(names) == 25 and len(set(names)) == 25
    assert set(names) - {"respond"} == set(TOOL_FUNCTIONS)


@pytest.mark.parametrize(
    ("period", "year", "start", "end"),
    [
        ("Winter", 2023, "2023-12-01T00:00:00Z", "2024-03-01T00:00:00Z"),
        ("spring", 2024, "2024-03-01T00:00:00Z", "2024-06-01T00:00:00Z"),
        ("Autumn", 2021, "2021-09-01T00:00:00Z", "2021-12-01T00:00:00Z"),
        ("Q1", 2022, "2022-01-01T00:00:00Z", "2022-04-01T00:00:00Z"),
        ("Q4", 2022, "2022-10-01T00:00:00Z", "2023-01-01T00:00:00Z"),
        ("December", 2020, "2020-12-01T00:00:00Z", "2021-01-01T00:00:00Z"),
        ("February", 2024, "2024-02-01T00:00:00Z", "2024-03-01T00:00:00Z"),
    ],
)
def test_get_period(period: str, year: int, start: str, end: str) -> None:
    assert ast.literal_eval(call("get_period", period_name=period, year=year)) == {
        "start_date": start,
        "end_date": end,
    }


def test_get_period_rejects_unknown_names() -> None:
    assert call("get_period", period_name="Monsoon", year=2020).startswith("Error: unknown period")


@pytest.mark.parametrize(
    ("period", "n", "expected"),
    [
        ("day", 3, "2024-05-23T10:00:00Z"),
        ("week", 2, "2024-05-12T10:00:00Z"),
        ("month", 3, "2024-02-26T10:00:00Z"),
        ("quarter", 2, "2023-11-26T10:00:00Z"),
    ],
)
def test_get_start_date(period: str, n: int, expected: str) -> None:
    out = call("get_start_date", end_date="2024-05-26T10:00:00Z", period=period, interval_count=n)
    assert out == expected


def test_month_shift_clamps_day() -> None:
    out = call("get_start_date", end_date="2024-05-31T00:00:00Z", period="month", interval_count=3)
    assert out == "2024-02-29T00:00:00Z"


def test_bad_date_is_an_error_string_and_runs_no_query() -> None:
    runner = Runner()
    out = call("get_agent_handled_cases_by_period", runner, start_date="2024-01-01", end_date="x")
    assert out.startswith("Error: start_date must look like YYYY-MM-DDTHH:MM:SSZ")
    assert runner.queries == []


def test_handled_cases_query_shape_and_counts() -> None:
    rows = [{"NewValue__c": "005A"}, {"NewValue__c": "005B"}, {"NewValue__c": "005A"}]
    runner = Runner({"SELECT NewValue__c": rows})
    out = call(
        "get_agent_handled_cases_by_period",
        runner,
        start_date="2024-01-01T00:00:00Z",
        end_date="2024-04-01T00:00:00Z",
    )
    assert ast.literal_eval(out) == {"005A": 2, "005B": 1}
    assert runner.queries == [
        "SELECT NewValue__c, CreatedDate FROM CaseHistory__c WHERE CreatedDate >= "
        "2024-01-01T00:00:00Z AND CreatedDate <= 2024-04-01T00:00:00Z "
        "AND Field__c = 'Owner Assignment'"
    ]


def test_get_cases_filters_and_requires_one() -> None:
    runner = Runner({"SELECT OwnerId": [{"OwnerId": "005A"}]})
    call(
        "get_cases",
        runner,
        end_date="2024-04-01T00:00:00Z",
        agent_ids=["005A", "005B"],
        statuses=["Closed"],
    )
    assert runner.queries == [
        "SELECT OwnerId, CreatedDate, ClosedDate, AccountId FROM Case WHERE "
        "CreatedDate < 2024-04-01T00:00:00Z AND OwnerId IN ('005A', '005B') AND Status = 'Closed'"
    ]
    assert call("get_cases") == "Error: get_cases needs at least one filter"


def test_query_errors_surface_as_error_strings() -> None:
    assert call("get_issues") == "Error: INVALID_FIELD: nope"


def test_quotes_in_ids_are_escaped() -> None:
    runner = Runner({"SELECT AccountId": [{"AccountId": "001X"}]})
    assert call("get_account_id_by_contact_id", runner, contact_id="003' OR Id != '") == "001X"
    assert (
        runner.queries[0]
        == "SELECT AccountId FROM Contact WHERE Id = '003\\' OR Id != \\'' LIMIT 1"
    )


def test_argmax_argmin_and_counts() -> None:
    values = {"a": 3, "b": 5, "c": 5}
    assert call("find_id_with_max_value", values_by_id=values) == "['b', 'c']"
    assert call("find_id_with_min_value", values_by_id=values) == "['a']"
    assert call("find_id_with_max_value", values_by_id={}) == "None"
    cases = [{"OwnerId": "x"}, {"OwnerId": "y"}, {"OwnerId": "x"}]
    assert call("get_agents_with_max_cases", subset_cases=cases) == "['x']"
    assert call("get_agents_with_min_cases", subset_cases=cases) == "['y']"
    assert (
        call(
            "get_qualified_agent_ids_by_case_count", agent_handled_cases={"x": 2, "y": 1}, n_cases=1
        )
        == "['x']"
    )


def test_handle_time_and_region_closure() -> None:
    cases = [
        {
            "OwnerId": "x",
            "CreatedDate": "2024-01-01T00:00:00.000+0000",
            "ClosedDate": "2024-01-01T01:00:00.000+0000",
            "ShippingState": "CA",
        },
        {
            "OwnerId": "x",
            "CreatedDate": "2024-01-02T00:00:00.000+0000",
            "ClosedDate": "2024-01-02T00:30:00.000+0000",
            "ShippingState": "CA",
        },
        {
            "OwnerId": "y",
            "CreatedDate": "2024-02-01T00:00:00.000+0000",
            "ClosedDate": None,
            "ShippingState": "NY",
        },
    ]
    assert ast.literal_eval(call("calculate_average_handle_time", cases=cases)) == {"x": 45.0}
    assert ast.literal_eval(call("calculate_region_average_closure_times", cases=cases)) == {
        "CA": 2700.0
    }
    assert ast.literal_eval(call("get_month_to_case_count", cases=cases)) == {
        "January": 2,
        "February": 1,
    }


def test_shipping_state_joins_accounts() -> None:
    runner = Runner({"SELECT Id, ShippingState": [{"Id": "001A", "ShippingState": "TX"}]})
    out = call("get_shipping_state", runner, cases=[{"AccountId": "001A"}, {"AccountId": "001B"}])
    assert ast.literal_eval(out) == [
        {"AccountId": "001A", "ShippingState": "TX"},
        {"AccountId": "001B", "ShippingState": None},
    ]
    assert runner.queries == ["SELECT Id, ShippingState FROM Account WHERE Id IN ('001A', '001B')"]


def test_knowledge_search_is_sosl_and_renames_answer() -> None:
    rows = [{"Id": "ka0A", "Title": "Reset", "FAQ_Answer__c": "Hold the button."}]
    runner = Runner({"FIND": rows})
    out = call("search_knowledge_articles", runner, search_term="reset {device}")
    assert ast.literal_eval(out) == [
        {"Id": "ka0A", "Title": "Reset", "Content": "Hold the button."}
    ]
    assert runner.queries[0].startswith(
        "FIND {reset  device} IN ALL FIELDS RETURNING Knowledge__kav("
    )
    assert "PublishStatus='Online' AND Language='en_US'" in runner.queries[0]


def test_issue_counts_and_purchase_history_shapes() -> None:
    runner = Runner(
        {
            "SELECT IssueId__c": [{"IssueId__c": "a1MA", "IssueCount": 4}],
            "SELECT Product2Id": [{"Product2Id": "01tA"}],
        }
    )
    out = call(
        "get_issue_counts",
        runner,
        start_date="2024-01-01T00:00:00Z",
        end_date="2024-02-01T00:00:00Z",
        order_item_ids=["802A"],
    )
    assert ast.literal_eval(out) == {"a1MA": 4}
    assert "GROUP BY IssueId__c ORDER BY COUNT(Id) DESC" in runner.queries[0]
    out = call(
        "get_purchase_history",
        runner,
        account_id="001A",
        purchase_date="2024-03-05T00:00:00Z",
        related_product_ids=["01tA", "01tB"],
    )
    assert out == "['01tA']"
    assert "OrderItem.Order.EffectiveDate = 2024-03-05 AND" in runner.queries[1]


def test_unknown_tool_and_bad_arguments() -> None:
    assert call("drop_tables") == "Unknown action drop_tables"
    assert call("get_period", period_name="Q1").startswith("Error: TypeError")
