"""``truth`` agrees with the tables: answers are in their articles, breaches are real."""

from __future__ import annotations

import json
import re
from collections import Counter
from datetime import datetime

from crmtui.org.generator import COMPANY, GeneratedOrg
from crmtui.org.generator.config import SCALES
from crmtui.org.generator.scenarios import SHIPPING_DAYS


def _texts(org: GeneratedOrg, evidence: list[str]) -> str:
    emails = {e["Id"]: e for e in org.tables["EmailMessage"]}
    chats = {c["Id"]: c for c in org.tables["LiveChatTranscript"]}
    parts = [emails[i]["TextBody"] if i in emails else chats[i]["Body"] for i in evidence]
    return "\n".join(parts)


def test_truth_has_the_agreed_keys(small_org: GeneratedOrg) -> None:
    assert set(small_org.truth) == {"company", "kqa", "pvi", "ncr", "products", "data_end"}
    assert small_org.truth["company"] == COMPANY
    json.dumps(small_org.truth)  # plain JSON data, so the task builder can store it


_FILLER = {"no", "yes", "it", "them", "the", "a", "an", "is", "are", "in", "of", "to", "be"}


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9$%]+", text.lower())) - _FILLER


def test_kqa_answers_come_from_their_article(small_org: GeneratedOrg) -> None:
    articles = {k["Id"]: k for k in small_org.tables["Knowledge__kav"]}
    kqa = small_org.truth["kqa"]
    assert len(kqa) >= 3 * 10
    assert len({q["question"] for q in kqa}) == len(kqa)
    kinds = Counter(entry["kind"] for entry in kqa)
    assert set(kinds) == {"policy", "faq", "category", "product", "reading"}
    for entry in kqa:
        body = articles[entry["article_id"]]["FAQ_Answer__c"].lower()
        if entry["kind"] == "reading":
            # The answer applies the article's rule; the rule itself is in the article.
            assert entry["basis"].lower() in body, entry
            continue
        # Stated facts: the answer's words are the article's (answers may rephrase a little).
        words = _words(entry["answer"])
        assert len(words & _words(body)) >= 0.7 * len(words), entry


def test_product_materials_fit_the_product(small_org: GeneratedOrg) -> None:
    from crmtui.org.generator.knowledge_facts import MATERIALS

    for entry in small_org.truth["kqa"]:
        if entry["question"].endswith(" made of?"):
            name = entry["question"].removeprefix("What is the ").removesuffix(" made of?")
            bases = [base for base in MATERIALS if name.endswith(base)]
            assert bases and entry["answer"] in MATERIALS[bases[0]], entry


def test_reading_questions_fall_on_both_sides_of_each_rule(small_org: GeneratedOrg) -> None:
    reading = [e for e in small_org.truth["kqa"] if e["kind"] == "reading"]
    yes = sum(e["answer"].startswith("Yes") for e in reading)
    no = sum(e["answer"].startswith("No") for e in reading)
    assert yes >= 5 and no >= 5


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


def _amount(pattern: str, text: str) -> float:
    found = re.search(pattern, text)
    assert found, (pattern, text)
    return float(next(g for g in found.groups() if g))


# policy -> (does the conversation break the stated rule?) read from its text alone
RULES = {
    "refund_cap": lambda t: _amount(r"\$(\d+\.\d\d)", t) > 150 and "supervisor" not in t,
    "discount_cap": lambda t: _amount(r"(\d+)% (?:off|discount)", t) > 15,
    "expedited": lambda t: (
        "expedited" in t.split("delivery estimate")[-1].split("past the")[-1]
        and _amount(r"now (\d+) days past the estimated|been here (\d+) days ago according", t) <= 7
    ),
    "price_adjust": lambda t: (
        "too late" not in t
        and "only possible" not in t
        and _amount(r"bought the .+? (\d+) days ago and now|since I bought it (\d+) days ago", t)
        > 14
    ),
}


def _exchanges(org: GeneratedOrg, entry: dict) -> list[tuple[str, str]]:
    """(policy key, text of its exchange) for each request of a planted conversation; every
    exchange is checked to be in the conversation the org holds."""
    text = _texts(org, entry["evidence_ids"])
    pairs = []
    for key, (ask, reply) in zip(entry["policies"], entry["exchanges"], strict=True):
        assert ask in text and reply in text, (entry, text)
        pairs.append((key, f"{ask}\n{reply}"))
    return pairs


def test_each_policy_check_has_two_requests_and_at_most_one_breach(
    small_org: GeneratedOrg,
) -> None:
    policy_ids = {}
    for entry in small_org.truth["pvi"]:
        assert len(entry["policies"]) == 2 and len(set(entry["policies"])) == 2
        assert entry["policy"] == entry["policies"][0]
        assert entry["breached"] in (None, *entry["policies"])
        policy_ids.update(zip(entry["policies"], entry["policy_articles"], strict=True))
        expected = None if entry["breached"] is None else policy_ids[entry["breached"]]
        assert entry["article_id"] == expected
    # The policy the conversation is about (its first request) is the answer in a minority.
    outcomes = Counter(
        "first" if e["breached"] == e["policy"] else "none" if e["breached"] is None else "second"
        for e in small_org.truth["pvi"]
    )
    total = sum(outcomes.values())
    assert outcomes["first"] / total <= 0.4 and outcomes["second"] / total >= 0.3


def test_planted_breaches_are_decided_by_the_stated_numbers(small_org: GeneratedOrg) -> None:
    checked = 0
    for entry in small_org.truth["pvi"]:
        for key, text in _exchanges(small_org, entry):
            rule = RULES.get(key)
            if rule is None:
                continue
            assert rule(text) == (entry["breached"] == key), (entry, text)
            checked += 1
    assert checked >= 8


def test_ncr_texts_are_new_and_name_their_product(small_org: GeneratedOrg) -> None:
    ncr = small_org.truth["ncr"]
    assert len(ncr) >= 3 * 10
    existing = {c["Subject"] for c in small_org.tables["Case"]}
    issues = {i["Id"] for i in small_org.tables["Issue__c"]}
    products = small_org.truth["products"]
    for entry in ncr:
        assert entry["subject"] not in existing
        assert entry["issue_id"] in issues
        # The customer names the product, by its full name or more loosely; loosely only when
        # the customer (named in the entry) ordered no other product those words fit.
        words = entry["subject"].lower() + " " + entry["description"].lower()
        assert entry["mention"].lower() in words, entry
        name = products[entry["product_id"]]["name"]
        if entry["mention"] != name:
            assert "contact_id" in entry, entry
            tail = [w for w in entry["mention"].lower().split() if w != "new"]
            fits = {
                pid
                for pid, info in products.items()
                if info["name"].lower().split()[-len(tail) :] == tail
            }
            ordered = _ordered_by_contact(small_org, entry["contact_id"])
            assert fits & ordered == {entry["product_id"]}, entry
    assert any("contact_id" in e for e in ncr) and any("contact_id" not in e for e in ncr)


def _ordered_by_contact(org: GeneratedOrg, contact_id: str) -> set[str]:
    account = next(c["AccountId"] for c in org.tables["Contact"] if c["Id"] == contact_id)
    orders = {o["Id"] for o in org.tables["Order"] if o["AccountId"] == account}
    return {i["Product2Id"] for i in org.tables["OrderItem"] if i["OrderId"] in orders}


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
WARRANTY_MONTHS = re.compile(r"I received them (\d+) months ago|apart at the sole after (\d+)")


def test_stated_purchase_days_agree_with_the_order_date(small_org: GeneratedOrg) -> None:
    gaps = _order_gap_days(small_org)
    checked = 0
    for case in small_org.tables["Case"]:
        for stated in STATED_DAYS.findall(case["Description"]):
            assert int(stated) == gaps[case["Id"]]
            checked += 1
    for entry in small_org.truth["pvi"]:
        for key, text in _exchanges(small_org, entry):
            for stated in STATED_DAYS.findall(text):
                assert int(stated) == gaps[entry["case_id"]]
                checked += 1
            months = re.search(WARRANTY_MONTHS, text)
            if months:
                stated = int(next(g for g in months.groups() if g))
                # Delivery comes SHIPPING_DAYS after the purchase; the warranty runs 6 months.
                assert stated == (gaps[entry["case_id"]] - SHIPPING_DAYS) // 30
                replaced = "outside our warranty" not in text and "has run out" not in text
                assert (stated > 6 and replaced) == (entry["breached"] == key)
    assert checked >= 10


def test_safety_escalations_leave_the_case_high_priority(small_org: GeneratedOrg) -> None:
    cases = {c["Id"]: c for c in small_org.tables["Case"]}
    checked = 0
    for entry in small_org.truth["pvi"]:
        for key, text in _exchanges(small_org, entry):
            if key != "safety":
                continue
            checked += 1
            # Escalating is not enough: a replacement before the safety review breaks the policy.
            replaced = "replacement at no cost" in text or "ships to you today" in text
            assert replaced == (entry["breached"] == "safety")
            if not replaced:
                assert "Product Safety team" in text
                assert cases[entry["case_id"]]["Priority"] == "High"
    assert checked
