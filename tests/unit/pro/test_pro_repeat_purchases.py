"""Issue #32 on CRMArena-Pro orgs: NED's "latest fitting purchase" and insight mining's dates.

Customers who bought twice within three days come back four to seven days later for the same
kinds of things in another make (``ScaleConfig.repeat_share``, set by the Pro generator only),
so the latest purchase a customer's words fit is seldom the one they ask about; the builder
budgets that shortcut like every other. Insight-mining rows carry no date, as the real ones
carry none, and ask about a named period that needs none.
"""

from __future__ import annotations

import random
import re
from collections import defaultdict
from dataclasses import replace
from datetime import date
from typing import Any

import pytest

import crmtui.org.generator.pro as pro_generator
from crmtui.org.generator import GeneratedOrg, generate
from crmtui.org.generator.config import scale_config
from crmtui.org.generator.pro import REPEAT_SHARE, generate_pro
from crmtui.org.pro_tasks import gather_pro_facts, shortcut_hits
from crmtui.org.pro_tasks.service import SERVICE_FACTORIES
from crmtui.org.readings import OrgRows, gold_key, hit, read_instance
from crmtui.org.readings.pro_rows import PRO_READING_FIELDS
from crmtui.org.task_stats import SHORTCUT_LIMIT

NED = "named_entity_disambiguation"


def _kinds(org: GeneratedOrg) -> dict[str, tuple[str, str]]:
    """Product Id -> (its kind, the last word of its name; the feature it is built with)."""
    kinds = {}
    for product in org.tables["Product2"]:
        built = re.search(r"built with (.+)\.$", str(product["Description"]))
        kinds[str(product["Id"])] = (
            str(product["Name"]).split()[-1].lower(),
            built.group(1) if built else "",
        )
    return kinds


def _repeated_share(org: GeneratedOrg) -> float:
    """Among the products of purchases made one to three days after another of the account's,
    the share of which the account buys another of the same kind and feature four to seven
    days later."""
    kinds = _kinds(org)
    items: dict[str, list[str]] = defaultdict(list)
    for item in org.tables["OrderItem"]:
        items[str(item["OrderId"])].append(str(item["Product2Id"]))
    orders: dict[str, list[tuple[date, str]]] = defaultdict(list)
    for order in org.tables["Order"]:
        day = date.fromisoformat(str(order["EffectiveDate"])[:10])
        orders[str(order["AccountId"])].append((day, str(order["Id"])))
    seen = repeated = 0
    for mine in orders.values():
        for day, order_id in mine:
            if not any(0 < (day - other).days <= 3 for other, _ in mine):
                continue
            later = {p for d, o in mine if 4 <= (d - day).days <= 7 for p in items[o]}
            for product in items[order_id]:
                seen += 1
                repeated += any(p != product and kinds[p] == kinds[product] for p in later)
    return repeated / seen


def test_repeats_give_close_purchases_a_later_one_of_their_kind_and_keep_the_volumes() -> None:
    plain_cfg = scale_config("small")
    plain = generate(7, "small", config=plain_cfg)
    repeated = generate(7, "small", config=replace(plain_cfg, repeat_share=REPEAT_SHARE))
    assert plain_cfg.repeat_share == 0  # CRMArena's orgs stay as they were
    assert _repeated_share(plain) == 0
    assert _repeated_share(repeated) >= 0.2
    for table in ("Order", "OrderItem"):
        assert len(repeated.tables[table]) == len(plain.tables[table])
    # The service data keeps its shape: every case still points at a purchase of its account.
    orders = {str(o["Id"]): str(o["AccountId"]) for o in repeated.tables["Order"]}
    order_of = {str(i["Id"]): str(i["OrderId"]) for i in repeated.tables["OrderItem"]}
    for case in repeated.tables["Case"]:
        if case.get("OrderItemId__c"):
            assert orders[order_of[str(case["OrderItemId__c"])]] == str(case["AccountId"])


def _latest_fitting_share(org: GeneratedOrg, draws: int = 120) -> float:
    """The latest-fitting shortcut's expected accuracy on answered NED questions as the
    sampler draws them, before any shortcut budget."""
    facts = gather_pro_facts(org)
    rows = OrgRows.from_tables(org.tables, {o: org.tables.get(o, []) for o in PRO_READING_FIELDS})
    rng = random.Random(32)
    sample = SERVICE_FACTORIES[NED](facts, rng)
    hits: list[float] = []
    seen: set[str] = set()
    for _ in range(40 * draws):
        candidate = sample(facts, rng, False)
        if candidate is None or candidate.query + candidate.required in seen:
            continue
        seen.add(candidate.query + candidate.required)
        hits.append(shortcut_hits(NED, candidate, rows)["latest_fitting"])
        if len(hits) == draws:
            break
    assert len(hits) == draws
    return sum(hits) / len(hits)


def test_repeat_purchases_defeat_the_latest_fitting_purchase(
    b2b: GeneratedOrg, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The data, before the budget: with repeats the latest purchase the words fit is the
    one asked about in under half the answered questions (0.475 on the small b2b org against
    0.575 without repeats; the full orgs: 0.41 against 0.54)."""
    with_repeats = _latest_fitting_share(b2b)
    monkeypatch.setattr(pro_generator, "REPEAT_SHARE", 0.0)
    without = _latest_fitting_share(generate_pro(seed=7, scale="small", org_type="b2b"))
    assert with_repeats < 0.5
    assert with_repeats <= without - 0.05


@pytest.mark.parametrize("flavour", ["b2b", "b2c"])
def test_latest_fitting_purchase_is_held_to_the_shortcut_budget(
    flavour: str, request: pytest.FixtureRequest
) -> None:
    """The builder budgets the shortcut: it passes at most the 40% `tasks stats` allows."""
    org: GeneratedOrg = request.getfixturevalue(flavour)
    built: Any = request.getfixturevalue(f"{flavour}_tasks")
    rows, solutions = built
    readings = OrgRows.from_tables(org.tables, org.tables)
    passed = []
    for row in rows:
        if row["task"] != NED:
            continue
        reading = read_instance(readings, NED, solutions[str(row["idx"])], row["query"])
        assert reading is not None
        passed.append(hit(reading.shortcuts["latest_fitting"], gold_key(row["answer"])))
    assert passed and sum(passed) <= SHORTCUT_LIMIT * len(passed) + 1e-9


@pytest.mark.parametrize("flavour", ["b2b", "b2c"])
def test_insight_rows_carry_no_date_and_name_their_period(
    flavour: str, request: pytest.FixtureRequest
) -> None:
    """As in the real file, no insight row states today's date; a period question names a
    month, quarter or season with its year, so the period needs no date to be read."""
    rows, solutions = request.getfixturevalue(f"{flavour}_tasks")
    insight = [r for r in rows if r["task"] == "sales_insight_mining"]
    assert insight
    periods = 0
    for row in insight:
        assert "today" not in row["metadata"]["required"].lower()
        solution = solutions[str(row["idx"])]
        assert "today" not in solution["context"] and "today" not in solution["facts"]
        period = solution["context"].get("period")
        if period is None:
            assert "Opportunity Id to be considered is" in row["metadata"]["required"]
            continue
        periods += 1
        assert period["kind"] == "named" and str(period["year"]) in row["query"]
    assert periods
