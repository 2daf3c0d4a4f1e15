"""Each CRMArena-Pro reference solver on small hand-made tables whose answer is known."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from crmtui.org.solvers.common import SolverError
from crmtui.org.solvers.pro import (
    activity_priority,
    confidential,
    conversion_rate,
    lead_qualification,
    lead_routing,
    opportunity_competitors,
    opportunity_topics,
    quote_policy,
    run_pro_solver,
    sales_amount,
    sales_cycle,
    top_competitor,
    top_topic,
    wrong_stage,
)
from crmtui.org.solvers.pro.index import pro_index
from crmtui.org.solvers.pro.quotes import TITLES, QuoteRules, parse_rules, rule_articles

A, B, C = "005A", "005B", "005C"
Q1 = ("2023-01-01", "2023-04-01")


def _opp(
    oid: str, owner: str, created: str, contract: str | None, stage: str = "Closed"
) -> dict[str, Any]:
    return {
        "Id": oid,
        "OwnerId": owner,
        "CreatedDate": f"{created}T10:00:00.000+0000",
        "StageName": stage,
        "ContractID__c": contract,
    }


def _sales_tables() -> dict[str, list[dict[str, Any]]]:
    return {
        "Opportunity": [
            _opp("006a", A, "2022-12-01", "800a"),  # signed 2023-01-10: 40 days, 100.0
            _opp("006b", A, "2023-01-01", "800b"),  # signed 2023-02-10: 40 days, 50.5
            _opp("006c", B, "2023-02-01", "800c"),  # signed 2023-02-11: 10 days, 300.0
            _opp("006d", C, "2022-01-01", "800d"),  # signed 2023-05-01: outside Q1
            _opp("006e", C, "2023-01-01", None, "Negotiation"),
        ],
        "Contract": [
            {"Id": "800a", "CompanySignedDate": "2023-01-10", "CustomerSignedDate": "2023-01-09"},
            {"Id": "800b", "CompanySignedDate": "2023-02-10", "CustomerSignedDate": "2023-02-10"},
            {"Id": "800c", "CompanySignedDate": "2023-02-11", "CustomerSignedDate": "2023-04-02"},
            {"Id": "800d", "CompanySignedDate": "2023-05-01", "CustomerSignedDate": "2023-03-01"},
        ],
        "OpportunityLineItem": [
            {"Id": "00ka", "OpportunityId": "006a", "TotalPrice": "60.0"},
            {"Id": "00kb", "OpportunityId": "006a", "TotalPrice": "40.0"},
            {"Id": "00kc", "OpportunityId": "006b", "TotalPrice": "50.5"},
            {"Id": "00kd", "OpportunityId": "006c", "TotalPrice": "300.0"},
            {"Id": "00ke", "OpportunityId": "006d", "TotalPrice": "9999.0"},
        ],
    }


def test_sales_amount_sums_line_items_of_deals_signed_in_the_period() -> None:
    tables = _sales_tables()
    best = sales_amount(tables, *Q1, mode="max")
    assert best.answer == B
    assert best.detail["scores"] == {A: 150.5, B: 300.0}
    assert sales_amount(tables, *Q1, mode="min").answer == A
    assert set(best.evidence) == {"006c", "800c"}
    # Dated by the customer's signature instead (the b2c org): 006c and 006b move.
    by_customer = sales_amount(tables, *Q1, mode="max", signed_field="CustomerSignedDate")
    assert by_customer.detail["scores"] == {A: 150.5, C: 9999.0}
    assert sales_amount(tables, "2030-01-01", "2030-02-01").answer is None


def test_sales_cycle_averages_days_from_creation_to_signature() -> None:
    result = sales_cycle(_sales_tables(), *Q1, mode="min")
    assert result.answer == B
    assert result.detail["scores"] == {A: 40.0, B: 10.0}
    assert sales_cycle(_sales_tables(), *Q1, mode="max").answer == A


def test_conversion_counts_only_conversions_inside_the_period() -> None:
    def lead(lid: str, owner: str, created: str, converted: str | None) -> dict[str, Any]:
        return {
            "Id": lid,
            "OwnerId": owner,
            "CreatedDate": f"{created}T09:00:00.000+0000",
            "IsConverted": "1" if converted else "0",
            "ConvertedDate": converted,
            "Status": "Closed" if converted else "Contacted",
        }

    tables = {
        "Lead": [
            lead("00Q1", A, "2023-01-05", "2023-01-20"),
            lead("00Q2", A, "2023-02-05", None),
            lead("00Q3", B, "2023-03-20", "2023-04-02"),  # converted after the period
            lead("00Q4", B, "2023-03-21", "2023-03-25"),
            lead("00Q5", B, "2023-03-22", None),
            lead("00Q6", C, "2022-12-30", "2023-01-02"),  # created before the period
        ]
    }
    result = conversion_rate(tables, *Q1, mode="max")
    assert result.answer == A
    assert result.detail["scores"] == {A: 0.5, B: pytest.approx(1 / 3)}
    assert result.detail["kind"] == "average"
    assert conversion_rate(tables, *Q1, mode="min").answer == B


def _routing_tables(b_accepted: int) -> dict[str, list[dict[str, Any]]]:
    quotes = [{"Id": f"0Q0a{i}", "OpportunityId": "006a", "Status": "Accepted"} for i in range(2)]
    quotes += [
        {"Id": f"0Q0b{i}", "OpportunityId": "006b", "Status": "Accepted"} for i in range(b_accepted)
    ]
    quotes += [{"Id": "0Q0c", "OpportunityId": "006c", "Status": "Accepted"}]
    quotes += [{"Id": "0Q0x", "OpportunityId": "006c", "Status": "Presented"}]
    return {
        "Territory2": [
            {"Id": "0MI1", "Description": "CA,NV"},
            {"Id": "0MI2", "Description": "TX"},
        ],
        "UserTerritory2Association": [
            {"Id": "0R01", "Territory2Id": "0MI1", "UserId": A},
            {"Id": "0R02", "Territory2Id": "0MI1", "UserId": B},
            {"Id": "0R03", "Territory2Id": "0MI2", "UserId": C},
        ],
        "Opportunity": [
            _opp("006a", A, "2023-01-01", None),
            _opp("006b", B, "2023-01-01", None),
            _opp("006c", C, "2023-01-01", None),
        ],
        "Quote": quotes,
        "Lead": [
            {"Id": "00Q1", "OwnerId": A, "IsConverted": "0", "Status": "Contacted"},
            {"Id": "00Q2", "OwnerId": A, "IsConverted": "0", "Status": "New"},
            {"Id": "00Q3", "OwnerId": B, "IsConverted": "0", "Status": "Contacted"},
            {"Id": "00Q4", "OwnerId": B, "IsConverted": "0", "Status": "Closed"},
            {"Id": "00Q5", "OwnerId": B, "IsConverted": "1", "Status": "Closed"},
        ],
    }


def test_lead_routing_applies_territory_then_accepted_quotes_then_workload() -> None:
    by_quotes = lead_routing(_routing_tables(b_accepted=3), "nv")
    assert by_quotes.answer == B and by_quotes.detail["rule"] == 2
    tied = lead_routing(_routing_tables(b_accepted=2), "CA")
    assert tied.answer == B and tied.detail["rule"] == 3  # B has 1 open lead, A has 2
    assert tied.detail["workload"] == {A: 2, B: 1}
    assert lead_routing(_routing_tables(2), "TX").detail["rule"] == 1
    with pytest.raises(SolverError, match="no territory"):
        lead_routing(_routing_tables(2), "ZZ")


def _stage_tables(stage: str) -> dict[str, list[dict[str, Any]]]:
    def task(tid: str, subject: str, status: str) -> dict[str, Any]:
        return {"Id": tid, "WhatId": "006a", "Subject": subject, "Status": status}

    return {
        "Opportunity": [_opp("006a", A, "2023-01-01", None, stage)],
        "Task": [
            task("00T1", "Send an introductory email", "Completed"),
            task("00T2", "Needs assessment call", "Completed"),
            task("00T3", "Prepare the quote", "Not Started"),  # planned: no evidence
            task("00T4", "Draft the contract", "Not Started"),
            task("00T5", "Map who signs off on the purchase", "Not Started"),
        ],
        "Event": [{"Id": "00U1", "WhatId": "006a", "Subject": "Hold a product demo"}],
    }


def test_wrong_stage_is_the_most_advanced_stage_with_work_done() -> None:
    result = wrong_stage(_stage_tables("Discovery"), "006a")
    assert result.answer == "Quote"  # the demo meeting took place
    assert "00U1" in result.evidence
    assert wrong_stage(_stage_tables("Quote"), "006a").answer is None
    with pytest.raises(SolverError):
        wrong_stage(_stage_tables("Quote"), "006z")


def test_activity_priority_lists_not_started_tasks_of_other_stages() -> None:
    assert activity_priority(_stage_tables("Discovery"), "006a").answer == ["00T3", "00T4"]
    assert activity_priority(_stage_tables("Quote"), "006a").answer == ["00T4", "00T5"]


def _quote_tables(lines: list[tuple[str, str, str]], days: int) -> dict[str, list[dict[str, Any]]]:
    rules = QuoteRules(
        limits={"01ta": 10},
        exclusive=[("01tb", "01tc")],
        companions={"01td": "01te"},
        tiers=[(1, Fraction(5)), (5, Fraction(10))],
        validity_days=14,
    )
    names = {p: p.upper() for p in ("01ta", "01tb", "01tc", "01td", "01te")}
    reasons = {("01tb", "01tc"): "they overlap", ("01td", "01te"): "a matched set"}
    articles = rule_articles(rules, names, reasons)
    return {
        "Product2": [{"Id": p, "Name": n} for p, n in names.items()],
        "Knowledge__kav": [
            {"Id": f"ka0{kind}", "Title": TITLES[kind], "FAQ_Answer__c": body}
            for kind, (_, body) in articles.items()
        ],
        "Quote": [
            {
                "Id": "0Q0q",
                "OpportunityId": "006a",
                "CreatedDate": "2023-01-01T10:00:00.000+0000",
                "ExpirationDate": f"2023-01-{1 + days:02d}T10:00:00.000+0000",
            }
        ],
        "QuoteLineItem": [
            {"Id": f"0QL{i}", "QuoteId": "0Q0q", "Product2Id": p, "Quantity": q, "Discount": d}
            for i, (p, q, d) in enumerate(lines)
        ],
    }


def test_quote_rules_round_trip_through_their_articles() -> None:
    rules = parse_rules(pro_index(_quote_tables([], 14)))
    assert rules.limits == {"01ta": 10}
    assert rules.exclusive == [("01tb", "01tc")]
    assert rules.companions == {"01td": "01te"}
    assert rules.tiers == [(1, Fraction(5)), (5, Fraction(10))]
    assert rules.validity_days == 14


@pytest.mark.parametrize(
    ("lines", "days", "kind"),
    [
        ([("01ta", "10.0", "5.0")], 14, None),  # on the limit, on the cap, on the validity
        ([("01ta", "11.0", "0.0")], 14, "quantity"),
        ([("01tb", "1.0", "0.0"), ("01tc", "1.0", "0.0")], 14, "exclusive"),
        ([("01td", "2.0", "0.0")], 14, "companion"),
        ([("01td", "2.0", "0.0"), ("01te", "1.0", "0.0")], 14, None),
        ([("01ta", "4.0", "5.5")], 14, "discount"),
        ([("01ta", "5.0", "10.0")], 14, None),
        ([("01ta", "1.0", "0.0")], 15, "validity"),
    ],
)
def test_quote_policy_names_the_article_broken(
    lines: list[tuple[str, str, str]], days: int, kind: str | None
) -> None:
    result = quote_policy(_quote_tables(lines, days), "0Q0q")
    assert result.answer == (f"ka0{kind}" if kind else None)


def _call(cid: str, created: str, opp: str, *lines: str) -> dict[str, Any]:
    return {
        "Id": cid,
        "CreatedDate": f"{created}T11:00:00.000+0000",
        "OpportunityId__c": opp,
        "TranscriptBody__c": "\n".join(["Sales call.", *lines]),
    }


def _insight_tables() -> dict[str, list[dict[str, Any]]]:
    pricey = "Ann: Honestly, the price per unit is higher than we hoped."
    late = "Ann: Six weeks for delivery is too long for us."
    good = "Ann: The samples held up really well in our practice sessions."
    return {
        "Opportunity": [_opp("006a", A, "2023-01-01", None), _opp("006b", B, "2023-01-01", None)],
        "VoiceCallTranscript__c": [
            _call(
                "a0V1",
                "2023-01-10",
                "006a",
                pricey,
                pricey,
                "Ann: Northwind Athletics sent us a competing offer last week.",
            ),
            _call(
                "a0V2",
                "2023-02-10",
                "006a",
                late,
                "Ann: We are also talking to Alpine Crest Gear about this.",
            ),
            _call(
                "a0V3",
                "2023-03-10",
                "006b",
                pricey,
                good,
                "Ann: Northwind Athletics quoted us a lower price for a similar kit.",
            ),
            _call(
                "a0V4",
                "2023-05-10",
                "006b",
                late,
                late,
                "Ann: Alpine Crest Gear sent us a competing offer last week.",
            ),
            {
                "Id": "a0V5",
                "CreatedDate": "2023-01-11T10:00:00.000+0000",
                "LeadId__c": "00Q1",
                "TranscriptBody__c": "Ann: Alpine Crest Gear, Alpine Crest Gear.",
            },
        ],
    }


def test_insights_count_sales_calls_once_per_competitor_and_subtopic() -> None:
    tables = _insight_tables()
    competitor = top_competitor(tables, *Q1)
    assert competitor.answer == "Northwind Athletics"
    assert competitor.detail["scores"] == {"Alpine Crest Gear": 1, "Northwind Athletics": 2}
    negative = top_topic(tables, *Q1, "negative")
    assert negative.answer == "Pricing and discounts"
    assert negative.detail["scores"] == {"Delivery and lead times": 1, "Pricing and discounts": 2}
    assert top_topic(tables, *Q1, "positive").answer == "Product quality and durability"
    # One opportunity's lists keep the calls' order and repeats, as the real file's answers.
    assert (
        opportunity_competitors(tables, "006a").answer == "Northwind Athletics, Alpine Crest Gear"
    )
    assert opportunity_topics(tables, "006b", "negative").answer == (
        "Pricing and discounts, Delivery and lead times, Delivery and lead times"
    )
    assert opportunity_topics(tables, "006a", "negative").answer == (
        "Pricing and discounts, Pricing and discounts, Delivery and lead times"
    )
    assert opportunity_topics(tables, "006a", "positive").answer is None
    with pytest.raises(SolverError, match="sentiment"):
        top_topic(tables, *Q1, "neutral")


def test_truth_solvers_read_the_planted_facts() -> None:
    truth = {
        "pro": {
            "bant": {
                "00Q1": {
                    "failed": ["Timeline"],
                    "call_ids": ["a0V1"],
                    "facts": {},
                    "article_id": "ka0b",
                },
                "00Q2": {"failed": [], "call_ids": ["a0V2"], "facts": {}, "article_id": "ka0b"},
                "00Q3": {
                    "failed": ["Need", "Budget"],
                    "call_ids": ["a0V3"],
                    "facts": {},
                    "article_id": "ka0b",
                },
            }
        }
    }
    assert lead_qualification(truth, "00Q1").answer == "Timeline"
    # Several factors: one answer in BANT order, joined as in the real file.
    assert lead_qualification(truth, "00Q3").answer == "Budget, Need"
    assert lead_qualification(truth, "00Q2").answer is None
    with pytest.raises(SolverError):
        lead_qualification(truth, "00Q9")
    assert confidential(truth, "internal_operation_data", ["x"]).answer is None
    with pytest.raises(SolverError):
        confidential(truth, "handle_time", [])


def test_run_pro_solver_checks_names_and_parameters() -> None:
    tables = _sales_tables()
    result = run_pro_solver(
        "sales_amount", {"start": Q1[0], "end": Q1[1], "mode": "max"}, tables=tables
    )
    assert result.answer == B
    with pytest.raises(SolverError, match="unknown solver"):
        run_pro_solver("nope", {}, tables=tables)
    with pytest.raises(SolverError, match="bad parameters"):
        run_pro_solver("sales_amount", {"begin": Q1[0]}, tables=tables)
    with pytest.raises(SolverError, match="needs the org tables"):
        run_pro_solver("wrong_stage", {"opportunity_id": "006a"})
    with pytest.raises(SolverError, match="mode"):
        sales_amount(tables, *Q1, mode="best")
