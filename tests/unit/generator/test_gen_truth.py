"""``truth`` agrees with the tables: answers are in their articles, breaches are real."""

from __future__ import annotations

import json
import re
from datetime import datetime

from crmtui.org.generator import COMPANY, GeneratedOrg
from crmtui.org.generator.config import SCALES


def _texts(org: GeneratedOrg, evidence: list[str]) -> str:
    emails = {e["Id"]: e for e in org.tables["EmailMessage"]}
    chats = {c["Id"]: c for c in org.tables["LiveChatTranscript"]}
    parts = [emails[i]["TextBody"] if i in emails else chats[i]["Body"] for i in evidence]
    return "\n".join(parts)


def test_truth_has_the_agreed_keys(small_org: GeneratedOrg) -> None:
    assert set(small_org.truth) == {"company", "kqa", "pvi", "ncr", "products", "data_end"}
    assert small_org.truth["company"] == COMPANY
    json.dumps(small_org.truth)  # plain JSON data, so the task builder can store it


def test_kqa_answers_are_stated_in_their_article(small_org: GeneratedOrg) -> None:
    articles = {k["Id"]: k for k in small_org.tables["Knowledge__kav"]}
    kqa = small_org.truth["kqa"]
    assert len(kqa) >= 3 * 10
    assert len({q["question"] for q in kqa}) == len(kqa)
    for entry in kqa:
        body = articles[entry["article_id"]]["FAQ_Answer__c"].lower()
        answer = entry["answer"].lower()
        # Short answers are quoted; "No, ..." answers paraphrase a stated rule.
        assert answer in body or answer.split(", ", 1)[-1] in body, entry


def test_pvi_mixes_breaches_and_clean_cases(small_org: GeneratedOrg) -> None:
    pvi = small_org.truth["pvi"]
    assert len(pvi) == SCALES["small"].pvi_cases
    breaches = [p for p in pvi if p["article_id"] is not None]
    assert 0.6 <= len(breaches) / len(pvi) <= 0.8
    policies = {
        k["Id"] for k in small_org.tables["Knowledge__kav"] if k["Title"].startswith("Policy:")
    }
    assert {p["article_id"] for p in breaches} <= policies
    assert len({p["article_id"] for p in breaches}) >= 8
    cases = {c["Id"]: c for c in small_org.tables["Case"]}
    owner_of = {e["Id"]: e["ParentId"] for e in small_org.tables["EmailMessage"]}
    owner_of |= {c["Id"]: c["CaseId"] for c in small_org.tables["LiveChatTranscript"]}
    assert len({p["case_id"] for p in pvi}) == len(pvi)
    for entry in pvi:
        assert cases[entry["case_id"]]["Status"] == "Closed"
        assert entry["evidence_ids"]
        assert all(owner_of[i] == entry["case_id"] for i in entry["evidence_ids"])


def test_planted_money_and_discount_breaches_break_the_stated_limits(
    small_org: GeneratedOrg,
) -> None:
    titles = {k["Id"]: k["Title"] for k in small_org.tables["Knowledge__kav"]}
    refund = next(i for i, t in titles.items() if t == "Policy: Refund Approval Limits")
    discount = next(i for i, t in titles.items() if t == "Policy: Goodwill Discount Limits")
    checked = 0
    for entry in small_org.truth["pvi"]:
        text = _texts(small_org, entry["evidence_ids"])
        if entry["article_id"] == refund:
            amount = re.search(r"approved a full refund of \$(\d+)", text)
            assert amount and int(amount.group(1)) > 150
            checked += 1
        elif entry["article_id"] == discount:
            percent = re.search(r"code for (\d+)% off", text)
            assert percent and int(percent.group(1)) > 15
            checked += 1
        elif entry["article_id"] is None:
            for found in re.findall(r"code for (\d+)% off", text):
                assert int(found) <= 15
    assert checked >= 2


def test_ncr_texts_are_new_and_name_their_product(small_org: GeneratedOrg) -> None:
    ncr = small_org.truth["ncr"]
    assert len(ncr) >= 3 * 10
    existing = {(c["Subject"], c["Description"]) for c in small_org.tables["Case"]}
    issues = {i["Id"] for i in small_org.tables["Issue__c"]}
    names = {p["Id"]: p["Name"] for p in small_org.tables["Product2"]}
    for entry in ncr:
        assert (entry["subject"], entry["description"]) not in existing
        assert entry["issue_id"] in issues
        name = names[entry["product_id"]]
        assert name in entry["subject"] or name in entry["description"]


def test_products_truth_matches_product_rows(small_org: GeneratedOrg) -> None:
    products = small_org.truth["products"]
    rows = {p["Id"]: p["Name"] for p in small_org.tables["Product2"]}
    assert set(products) == set(rows)
    for product_id, info in products.items():
        assert info["name"] == rows[product_id]
        assert info["keywords"]
        for keyword in info["keywords"]:
            assert keyword == keyword.lower()
            assert keyword in info["name"].lower()


def test_company_is_ours(small_org: GeneratedOrg) -> None:
    blob = json.dumps(small_org.tables)
    assert "Shoes & Clothings" not in blob
    assert COMPANY in blob


def _order_gap_days(org: GeneratedOrg) -> dict[str, int]:
    """Case Id -> days between the purchase behind the case and the case."""
    items = {i["Id"]: i for i in org.tables["OrderItem"]}
    orders = {o["Id"]: o for o in org.tables["Order"]}
    gaps = {}
    for case in org.tables["Case"]:
        bought = orders[items[case["OrderItemId__c"]]["OrderId"]]["EffectiveDate"]
        created = datetime.strptime(case["CreatedDate"][:10], "%Y-%m-%d")
        gaps[case["Id"]] = (created - datetime.strptime(bought, "%Y-%m-%d")).days
    return gaps


STATED_DAYS = re.compile(r"(?:got|bought|ordered) the .+? (\d+) days ago")


def test_stated_purchase_days_agree_with_the_order_date(small_org: GeneratedOrg) -> None:
    gaps = _order_gap_days(small_org)
    checked = 0
    for case in small_org.tables["Case"]:
        for stated in STATED_DAYS.findall(case["Description"]):
            assert int(stated) == gaps[case["Id"]]
            checked += 1
    for entry in small_org.truth["pvi"]:
        text = _texts(small_org, entry["evidence_ids"])
        for stated in STATED_DAYS.findall(text):
            assert int(stated) == gaps[entry["case_id"]]
            checked += 1
        months = re.search(r"I received them (\d+) months ago", text)
        if months:
            assert int(months.group(1)) == max(1, gaps[entry["case_id"]] // 30)
            assert (int(months.group(1)) > 6) == (entry["article_id"] is not None)
    assert checked >= 10


def test_safety_escalations_leave_the_case_high_priority(small_org: GeneratedOrg) -> None:
    cases = {c["Id"]: c for c in small_org.tables["Case"]}
    escalated = [
        entry
        for entry in small_org.truth["pvi"]
        if "escalated this to our Product Safety team" in _texts(small_org, entry["evidence_ids"])
    ]
    assert escalated
    for entry in escalated:
        assert entry["article_id"] is None
        assert cases[entry["case_id"]]["Priority"] == "High"
