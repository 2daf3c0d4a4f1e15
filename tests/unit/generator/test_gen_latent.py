"""The latent structure the nine task types measure is really present in the data."""

from __future__ import annotations

import math
import statistics
from collections import Counter, defaultdict
from datetime import datetime

import pytest

from crmtui.org.generator import GeneratedOrg

SEEDS = ["small_org", "small_org_seed11"]


def _hours(case: dict) -> float:
    created = datetime.strptime(case["CreatedDate"][:19], "%Y-%m-%dT%H:%M:%S")
    closed = datetime.strptime(case["ClosedDate"][:19], "%Y-%m-%dT%H:%M:%S")
    return (closed - created).total_seconds() / 3600


def _assignments(org: GeneratedOrg) -> dict[str, list[dict]]:
    out = defaultdict(list)
    for row in org.tables["CaseHistory__c"]:
        if row["Field__c"] == "Owner Assignment":
            out[row["CaseId__c"]].append(row)
    return out


def _product_of(org: GeneratedOrg) -> dict[str, str]:
    return {i["Id"]: i["Product2Id"] for i in org.tables["OrderItem"]}


def _residual_log_hours(org: GeneratedOrg, *, remove: tuple[str, ...]) -> list[tuple[dict, float]]:
    """Closed, non-transferred cases with log handle time minus the mean of each group in
    ``remove`` (e.g. owner, issue), so one latent factor can be measured without the others
    blurring it."""
    assigns = _assignments(org)
    state = {a["Id"]: a["ShippingState"] for a in org.tables["Account"]}
    rows = [
        ({**case, "State": state[case["AccountId"]]}, math.log(_hours(case)))
        for case in org.tables["Case"]
        if case["Status"] == "Closed" and len(assigns[case["Id"]]) == 1
    ]
    for key in remove:
        groups = defaultdict(list)
        for case, value in rows:
            groups[case[key]].append(value)
        means = {k: statistics.mean(v) for k, v in groups.items()}
        rows = [(case, value - means[case[key]]) for case, value in rows]
    return rows


def _spread_factor(rows: list[tuple[dict, float]], key: str, minimum: int) -> float:
    """exp(max - min) of the per-group mean residual: how many times faster the fastest is."""
    groups = defaultdict(list)
    for case, value in rows:
        groups[case[key]].append(value)
    means = sorted(statistics.mean(v) for v in groups.values() if len(v) >= minimum)
    assert len(means) >= 8
    return math.exp(means[-1] - means[0])


@pytest.mark.parametrize("name", SEEDS)
def test_some_states_close_cases_clearly_faster(name: str, request: pytest.FixtureRequest) -> None:
    org = request.getfixturevalue(name)
    rows = _residual_log_hours(org, remove=("OwnerId", "IssueId__c"))
    # Without regional factors this is about 1.2-1.5 at this size; with them, 3 or more.
    assert _spread_factor(rows, "State", minimum=10) > 2.5


@pytest.mark.parametrize("name", SEEDS)
def test_agents_differ_in_handle_time(name: str, request: pytest.FixtureRequest) -> None:
    org = request.getfixturevalue(name)
    rows = _residual_log_hours(org, remove=("State", "IssueId__c"))
    # Without per-agent speed and skill this is about 1.3-1.4; with them, above 2.
    assert _spread_factor(rows, "OwnerId", minimum=8) > 1.8


@pytest.mark.parametrize("name", SEEDS)
def test_some_agents_transfer_far_more_than_others(
    name: str, request: pytest.FixtureRequest
) -> None:
    org = request.getfixturevalue(name)
    held, away = Counter(), Counter()
    for rows in _assignments(org).values():
        held.update(r["NewValue__c"] for r in rows)
        away.update(r["OldValue__c"] for r in rows[1:])
    pooled = sum(away.values()) / sum(held.values())
    # Chi-square of per-agent transfer counts against one shared rate: about its degrees of
    # freedom if every agent transferred alike, several times that with real differences.
    chi2 = sum((away[a] - n * pooled) ** 2 / (n * pooled * (1 - pooled)) for a, n in held.items())
    assert chi2 > 3 * (len(held) - 1)


@pytest.mark.parametrize("name", SEEDS)
def test_issue_specialists_close_most_of_their_issue(
    name: str, request: pytest.FixtureRequest
) -> None:
    org = request.getfixturevalue(name)
    agents = len(org.tables["User"])
    closed_by = defaultdict(Counter)
    for case in org.tables["Case"]:
        if case["Status"] == "Closed":
            closed_by[case["IssueId__c"]][case["OwnerId"]] += 1
    for issue, counts in closed_by.items():
        if sum(counts.values()) >= 20:
            top = counts.most_common(1)[0][1]
            assert top >= 2.0 * sum(counts.values()) / agents, issue


@pytest.mark.parametrize("name", SEEDS)
def test_busy_products_have_a_peak_month_and_a_top_issue(
    name: str, request: pytest.FixtureRequest
) -> None:
    org = request.getfixturevalue(name)
    product_of = _product_of(org)
    months = defaultdict(Counter)
    issues = defaultdict(Counter)
    for case in org.tables["Case"]:
        product = product_of[case["OrderItemId__c"]]
        months[product][int(case["CreatedDate"][5:7])] += 1
        issues[product][case["IssueId__c"]] += 1
    busiest = sorted(months, key=lambda p: -sum(months[p].values()))[:5]
    for product in busiest:
        total = sum(months[product].values())
        assert months[product].most_common(1)[0][1] >= 2.5 * total / 12
        assert issues[product].most_common(1)[0][1] >= 0.35 * total


def test_cases_span_the_upstream_window(small_org: GeneratedOrg) -> None:
    created = sorted(c["CreatedDate"][:10] for c in small_org.tables["Case"])
    assert created[0].startswith("2020-01")
    assert created[-1].startswith("2024-05")
    assert small_org.truth["data_end"] == created[-1]
    years = Counter(day[:4] for day in created)
    assert set(years) == {"2020", "2021", "2022", "2023", "2024"}
