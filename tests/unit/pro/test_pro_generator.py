"""The CRMArena-Pro generator: 27 objects in each org type's shape, referential integrity,
determinism, the latent patterns the sales tasks measure, and the planted defects."""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from fractions import Fraction

import pytest

from crmtui.errors import ConfigError
from crmtui.org.generator import GeneratedOrg
from crmtui.org.generator.ids import is_valid_id
from crmtui.org.generator.pro import BANT_POOL, QUALIFIED_SHARE, generate_pro
from crmtui.org.generator.pro.config import PRO_SCALES, pro_schema
from crmtui.org.generator.pro.team import STATE_TERRITORY, TERRITORIES
from crmtui.org.pro_tasks import NONE_SHARE
from crmtui.org.solvers.pro import activity_priority, pro_index, quote_policy, wrong_stage
from crmtui.org.solvers.pro.quotes import parse_rules, violations
from crmtui.org.solvers.pro.vocab import BANT_FACTORS, SUBJECT_STAGE

SALES = ("Opportunity", "Lead", "Quote", "Task", "VoiceCallTranscript__c", "Territory2")


def _fingerprint(org: GeneratedOrg) -> str:
    return hashlib.sha256(json.dumps(org.tables, sort_keys=True).encode()).hexdigest()


def test_every_object_of_the_schema_has_rows_with_its_exact_columns(pro_org: GeneratedOrg) -> None:
    schema = pro_schema(pro_org.truth["pro"]["org_type"])
    assert list(pro_org.tables) == schema.object_names
    assert len(schema) == 27
    for obj in schema:
        rows = pro_org.tables[obj.name]
        assert rows, obj.name
        for row in rows:
            assert set(row) == set(obj.field_names), obj.name


def test_ids_are_unique_valid_and_carry_their_objects_prefix(pro_org: GeneratedOrg) -> None:
    schema = pro_schema(pro_org.truth["pro"]["org_type"])
    seen: set[str] = set()
    for obj in schema:
        assert obj.key_prefix, obj.name
        for row in pro_org.tables[obj.name]:
            assert is_valid_id(str(row["Id"]), prefix=obj.key_prefix), (obj.name, row["Id"])
            assert str(row["Id"]).lower() not in seen
            seen.add(str(row["Id"]).lower())


def test_every_lookup_points_at_an_existing_record(pro_org: GeneratedOrg) -> None:
    schema = pro_schema(pro_org.truth["pro"]["org_type"])
    ids = {obj.name: {str(r["Id"]) for r in pro_org.tables[obj.name]} for obj in schema}
    checked = 0
    for obj in schema:
        for field in obj.references:
            targets = ids[str(field.reference_to)]
            for row in pro_org.tables[obj.name]:
                value = row.get(field.name)
                if value:
                    checked += 1
                    assert value in targets, (obj.name, field.name, value)
    assert checked > 20_000
    # RelatedToId is typed as text (it may point at a case or an opportunity): check it too.
    cases = ids["Case"] | ids["Opportunity"]
    assert all(r["RelatedToId"] in cases for r in pro_org.tables["EmailMessage"])


def test_b2b_accounts_are_businesses_and_b2c_accounts_are_people(
    b2b: GeneratedOrg, b2c: GeneratedOrg
) -> None:
    business = b2b.tables["Account"][0]
    assert business["Industry"] and int(str(business["NumberOfEmployees"])) > 0
    assert b2b.tables["Contact"][0]["FirstName"] and b2b.tables["Contact"][0]["Email"]
    person = b2c.tables["Account"][0]
    assert person["Name"] == f"{person['FirstName']} {person['LastName']}"
    assert "@" in str(person["PersonEmail"])
    assert set(b2c.tables["Contact"][0]) == {"Id", "AccountId"}
    assert "CompanySignedDate" in b2b.tables["Contract"][0]
    assert "CompanySignedDate" not in b2c.tables["Contract"][0]
    assert b2b.tables["VoiceCallTranscript__c"][0]["TranscriptBody__c"]
    assert b2c.tables["VoiceCallTranscript__c"][0]["Body__c"]
    # The same customers in both orgs: Account and Contact Ids are the CRMArena sample's.
    assert [a["Id"] for a in b2b.tables["Account"]] == [a["Id"] for a in b2c.tables["Account"]]


def test_same_seed_same_tables_other_seed_other_tables(b2b: GeneratedOrg) -> None:
    again = generate_pro(seed=7, scale="small", org_type="b2b")
    assert _fingerprint(again) == _fingerprint(b2b)
    assert again.truth["pro"] == b2b.truth["pro"]
    other = generate_pro(seed=8, scale="small", org_type="b2b")
    assert _fingerprint(other) != _fingerprint(b2b)


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ConfigError, match="org type"):
        generate_pro(seed=7, scale="small", org_type="b2x")
    with pytest.raises(ConfigError, match="scales small and full"):
        generate_pro(seed=7, scale="stress", org_type="b2b")
    with pytest.raises(ConfigError, match="seed"):
        generate_pro(seed="7", scale="small", org_type="b2b")  # type: ignore[arg-type]


def test_territories_cover_every_state_once_with_two_reps_or_more(b2b: GeneratedOrg) -> None:
    states = [s for row in b2b.tables["Territory2"] for s in str(row["Description"]).split(",")]
    assert len(states) == len(set(states)) == 51
    members: dict[str, int] = defaultdict(int)
    for row in b2b.tables["UserTerritory2Association"]:
        members[str(row["Territory2Id"])] += 1
    assert len(members) == len(TERRITORIES) and min(members.values()) >= 2


def test_conversion_rates_differ_by_territory_and_rep(pro_org: GeneratedOrg) -> None:
    index = pro_index(pro_org.tables)
    by_rep: dict[str, list[bool]] = defaultdict(list)
    for lead in index.leads:
        by_rep[str(lead.owner_id)].append(lead.converted)
    rates = [Fraction(sum(v), len(v)) for v in by_rep.values() if len(v) >= 15]
    assert max(rates) - min(rates) > Fraction(1, 5)
    assert len(STATE_TERRITORY) == 51


def test_sales_cycles_differ_by_rep(pro_org: GeneratedOrg) -> None:
    index = pro_index(pro_org.tables)
    days: dict[str, list[int]] = defaultdict(list)
    for opp in index.opps.values():
        contract = index.contracts.get(opp.contract_id or "")
        if contract and opp.created is not None and contract["CustomerSignedDate"]:
            days[str(opp.owner_id)].append(
                (contract["CustomerSignedDate"] - opp.created.date()).days
            )
    means = [sum(v) / len(v) for v in days.values() if len(v) >= 5]
    assert max(means) > 1.8 * min(means)


def test_every_task_and_event_subject_names_a_stage_activity(pro_org: GeneratedOrg) -> None:
    for obj in ("Task", "Event"):
        assert {r["Subject"] for r in pro_org.tables[obj]} <= set(SUBJECT_STAGE)


def test_planted_defects_are_the_only_ones(pro_org: GeneratedOrg) -> None:
    """Wrong stages, off-stage tasks and broken quotes exist exactly where planted, and a
    broken quote breaks exactly one rule of its family."""
    index = pro_index(pro_org.tables)
    plants = pro_org.truth["pro"]["plants"]
    wrong = set(plants["wrong_stage"])
    for opp_id in index.opps:
        assert (wrong_stage(index, opp_id).answer is not None) == (opp_id in wrong), opp_id
    for opp_id in plants["activity_priority"]:
        assert len(activity_priority(index, opp_id).answer or []) >= 4
    rules = parse_rules(index)
    config, pricing = set(plants["invalid_config"]), set(plants["quote_approval"])
    for quote_id, quote in index.quotes.items():
        kinds = sorted(violations(rules, quote))
        if quote_id in config:
            assert len(kinds) == 1 and kinds[0] in ("quantity", "exclusive", "companion")
        elif quote_id in pricing:
            assert len(kinds) == 1 and kinds[0] in ("discount", "validity")
        else:
            assert kinds == [], quote_id
            assert quote_policy(index, quote_id).answer is None


def test_bant_plans_agree_with_what_the_calls_say(b2b: GeneratedOrg) -> None:
    calls = {
        str(r["Id"]): str(r["TranscriptBody__c"]) for r in b2b.tables["VoiceCallTranscript__c"]
    }
    leads = {str(r["Id"]): r for r in b2b.tables["Lead"]}
    bant = b2b.truth["pro"]["bant"]
    assert any(not e["failed"] for e in bant.values()) and any(e["failed"] for e in bant.values())
    unasked = 0
    for lead_id, entry in bant.items():
        text = "\n".join(calls[c] for c in entry["call_ids"])
        # A failing factor may never come up (the article counts it as not met); the others
        # are stated.
        asked = {"Budget": "budget", "Timeline": "hoping to buy", "Authority": "sign off"}
        if entry["unasked"] is not None:
            unasked += 1
            assert entry["unasked"] in entry["failed"]
        for factor, question in asked.items():
            assert (question in text) == (factor != entry["unasked"]), (lead_id, factor)
        if entry["unasked"] != "Budget":
            assert f"${entry['facts']['budget']:,}" in text
        if entry["unasked"] != "Timeline":
            assert f"{entry['facts']['months']} month" in text or "one month" in text
        # One failing factor, or two (about a tenth of the real file's answered rows), in
        # BANT order and never the same twice.
        assert len(entry["failed"]) <= 2
        assert entry["failed"] == sorted(set(entry["failed"]), key=BANT_FACTORS.index)
        assert leads[lead_id]["IsConverted"] == "0"
    assert unasked >= 1


def test_failing_bant_leads_leave_the_task_builder_room(pro_org: GeneratedOrg) -> None:
    """Issue #32: the leads that fail a BANT factor outnumber the answered lead-qualification
    questions by a fifth or more, at every scale, so the task builder can pass over those the
    strict-thresholds shortcut gets right instead of taking nearly every one."""
    answered = 1 - NONE_SHARE["lead_qualification"]
    for scale in PRO_SCALES.values():
        pool = round(scale.plants * BANT_POOL)
        qualified = sum(1 for n in range(pool) if n % 20 < 20 * QUALIFIED_SHARE)
        assert pool - qualified >= 1.2 * answered * scale.per_type, scale.name
    failing = sum(1 for entry in pro_org.truth["pro"]["bant"].values() if entry["failed"])
    assert failing >= 1.2 * answered * PRO_SCALES["small"].per_type


def test_nothing_done_is_dated_after_the_data_ends(pro_org: GeneratedOrg) -> None:
    """Completed work, meetings, quotes, calls, deals, leads and signatures all lie before the
    last day of the data; only planned tasks and expected close dates may lie after it."""
    end = pro_org.truth["pro"]["sales_end"]
    done = [t["ActivityDate"] for t in pro_org.tables["Task"] if t["Status"] != "Not Started"]
    dated = {
        "Task": done,
        "Event": [e["StartDateTime"] for e in pro_org.tables["Event"]],
        "Quote": [q["CreatedDate"] for q in pro_org.tables["Quote"]],
        "VoiceCallTranscript__c": [
            c["CreatedDate"] for c in pro_org.tables["VoiceCallTranscript__c"]
        ],
        "Opportunity": [o["CreatedDate"] for o in pro_org.tables["Opportunity"]],
        "Lead": [x["ConvertedDate"] or x["CreatedDate"] for x in pro_org.tables["Lead"]],
        "Contract": [c["CustomerSignedDate"] for c in pro_org.tables["Contract"]],
    }
    for obj, values in dated.items():
        assert max(str(v)[:10] for v in values) < end, obj
