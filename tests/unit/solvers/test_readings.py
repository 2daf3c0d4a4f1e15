"""The independent readings on hand-made orgs: each careless shortcut answers what a solver
taking it would, the careful reading what the task's definition says, and an instance whose
words fit several answers is undecidable."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from crmtui.org.readings import OrgRows, hit, read_instance
from crmtui.org.task_stats import check_targets, task_stats

A, B, C = "005A", "005B", "005C"
JAN = {"start": "2022-01-01T00:00:00Z", "end": "2022-02-01T00:00:00Z"}


def _case(cid, created, closed=None, *, owner=A, issue="I1", item="oi1", account="acc1"):
    return {
        "Id": cid,
        "OwnerId": owner,
        "Status": "Closed" if closed else "Working",
        "CreatedDate": created,
        "ClosedDate": closed,
        "AccountId": account,
        "IssueId__c": issue,
        "OrderItemId__c": item,
    }


def _assign(hid, case, when, new, old=None):
    return {
        "Id": hid,
        "CaseId__c": case,
        "CreatedDate": when,
        "Field__c": "Owner Assignment",
        "NewValue__c": new,
        "OldValue__c": old,
    }


def _read(tables, task, params, context=None, query="", required=""):
    solution = {"params": params, "context": context or {}}
    return read_instance(OrgRows.from_tables(tables), task, solution, query, required)


def test_handle_time_with_transferred_cases_kept_names_another_agent():
    # A is fastest on the cases it kept (1 h), but owns a transferred case of 50 h; B: 3 h.
    tables = {
        "Case": [
            _case("c1", "2022-01-03T10:00:01Z", "2022-01-03T11:00:01Z"),
            _case("c2", "2022-01-04T10:00:01Z", "2022-01-04T11:00:01Z"),
            _case("c3", "2022-01-05T10:00:01Z", "2022-01-07T12:00:01Z"),
            _case("c4", "2022-01-06T10:00:01Z", "2022-01-06T13:00:01Z", owner=B),
        ],
        "CaseHistory__c": [
            _assign("h1", "c1", "2022-01-03T10:01:01Z", A),
            _assign("h2", "c2", "2022-01-04T10:01:01Z", A),
            _assign("h3", "c3", "2022-01-05T10:01:01Z", B),
            _assign("h4", "c3", "2022-01-05T12:01:01Z", A, B),
            _assign("h5", "c4", "2022-01-06T10:01:01Z", B),
        ],
    }
    reading = _read(tables, "handle_time", {**JAN, "n_cases": 0, "mode": "min"})
    assert reading.careful == (A,)
    assert reading.shortcuts == {"keep_transferred": (B,), "no_case_filter": (A,)}


def test_transfer_count_without_the_case_filter_names_the_triage_agent():
    # A opened one case and passed on three it received; B opened three and passed on two.
    rows = [_assign(f"f{i}", f"b{i}", f"2022-01-0{i + 1}T09:00:01Z", B) for i in range(3)]
    rows.append(_assign("fa", "a0", "2022-01-05T09:00:01Z", A))
    rows += [_assign(f"t{i}", f"b{i}", f"2022-01-1{i}T09:00:01Z", C, B) for i in range(2)]
    rows += [_assign(f"u{i}", f"x{i}", f"2022-01-2{i}T09:00:01Z", C, A) for i in range(3)]
    reading = _read(
        {"CaseHistory__c": rows}, "transfer_count", {**JAN, "n_cases": 1, "mode": "max"}
    )
    assert reading.careful == (B,)
    # Only B opened more than one case; counting its rows names it too (3 received, 0 else).
    assert reading.shortcuts == {"no_case_filter": (A,), "every_row": (B,)}


ROUTING = "Apply the policy.\n## Given Case\n- Case Subject: {}\n- Case Description: {}"


@pytest.fixture
def routing_tables():
    # A and C tie on closed cases of I1; on product P2, C has closed more; on P1, A has.
    return {
        "Case": [
            _case("r1", "2021-01-01T10:00:01Z", "2021-01-02T10:00:01Z", item="i1"),
            _case("r2", "2021-01-03T10:00:01Z", "2021-01-04T10:00:01Z", owner=C, item="i2"),
        ],
        "OrderItem": [
            {"Id": "i1", "OrderId": "o1", "Product2Id": "P1"},
            {"Id": "i2", "OrderId": "o2", "Product2Id": "P2"},
        ],
        "Order": [
            {"Id": "o1", "AccountId": "acc1", "EffectiveDate": "2021-01-01", "Status": "Activated"},
            {"Id": "o2", "AccountId": "acc2", "EffectiveDate": "2021-01-01", "Status": "Activated"},
        ],
        "Contact": [{"Id": "003000000000002AAA", "AccountId": "acc2"}],
        "Product2": [
            {"Id": "P1", "Name": "Women's Trail Jacket", "Description": "x"},
            {"Id": "P2", "Name": "Men's Trail Jacket", "Description": "x"},
        ],
    }


def test_routing_rule_one_alone_takes_the_first_id_and_is_wrong(routing_tables):
    query = ROUTING.format("Zip broke on my Men's Trail Jacket", "It broke.")
    reading = _read(
        routing_tables, "case_routing", {"issue_id": "I1", "product_id": "P2"}, query=query
    )
    assert reading.careful == (C,)
    assert reading.shortcuts == {"rule_1": (A,)}
    assert reading.is_undecidable() is False


def test_routing_text_that_fits_two_products_is_undecidable_unless_the_customer_decides(
    routing_tables,
):
    query = ROUTING.format("Zip broke on my trail jacket", "It broke.")
    params = {"issue_id": "I1", "product_id": "P2"}
    context = {"mention": "trail jacket"}
    loose = _read(routing_tables, "case_routing", params, context, query)
    assert loose.is_undecidable()  # P1 routes to A, P2 to C
    line = "- The new case comes from contact 003000000000002AAA.\n"
    named = _read(routing_tables, "case_routing", params, context, query, line)
    assert named.is_undecidable() is False  # that customer ordered P2 only
    absent = _read(routing_tables, "case_routing", params, {"mention": "rain shell"}, query)
    assert absent.is_undecidable()  # the recorded mention is not in the text


def test_top_issue_and_peak_month_all_time_versus_in_the_period():
    cases = [_case(f"a{i}", f"2021-0{i + 1}-10T10:00:01Z", issue="I2") for i in range(5)]
    cases += [_case(f"b{i}", f"2022-01-1{i}T10:00:01Z", issue="I1") for i in range(2)]
    tables = {"Case": cases, "OrderItem": [{"Id": "oi1", "OrderId": "o", "Product2Id": "P"}]}
    issue = _read(tables, "top_issue_identification", {"product_id": "P", **JAN})
    assert issue.careful == ("I1",)
    assert issue.shortcuts["all_time_issue"] == ("I2",)
    quiet = _read(tables, "top_issue_identification", {"product_id": "P", **_month(3, 2022)})
    assert quiet.careful == () and quiet.shortcuts["all_time_issue"] == ()
    trend = _read(tables, "monthly_trend_analysis", {"product_id": "P", **JAN})
    assert trend.careful == ("January",)
    # All-time, January (3 cases) beats the others; every month has one case otherwise.
    assert trend.shortcuts["all_time_month"] == ("January",)


def _month(month: int, year: int) -> dict[str, str]:
    end = f"{year + (month == 12)}-{month % 12 + 1:02d}-01T00:00:00Z"
    return {"start": f"{year}-{month:02d}-01T00:00:00Z", "end": end}


def test_peak_month_shortcut_looks_only_at_the_windows_months():
    cases = [_case(f"j{i}", f"2021-07-{i + 1:02d}T10:00:01Z") for i in range(5)]
    cases += [_case(f"f{i}", f"2021-02-{i + 1:02d}T10:00:01Z") for i in range(2)]
    cases += [_case(f"m{i}", f"2022-03-{i + 1:02d}T10:00:01Z") for i in range(3)]
    cases.append(_case("f9", "2022-02-09T10:00:01Z"))
    tables = {"Case": cases, "OrderItem": [{"Id": "oi1", "OrderId": "o", "Product2Id": "P"}]}
    params = {"product_id": "P", "start": "2022-01-01T00:00:00Z", "end": "2022-04-01T00:00:00Z"}
    reading = _read(tables, "monthly_trend_analysis", params)
    assert reading.careful == ("March",)
    assert reading.shortcuts == {
        "all_time_month": ("July",),
        "all_time_month_in_window": ("February", "March"),  # 3 each: a coin toss
        # July, the all-time peak, has no case in the window: the window's own answer.
        "peak_if_in_window": ("March",),
    }
    assert hit(reading.shortcuts["all_time_month_in_window"], "March") == 0.5


@pytest.fixture
def purchases():
    def order(oid, day, status="Activated"):
        return {"Id": oid, "AccountId": "acc", "EffectiveDate": day, "Status": status}

    return {
        "Contact": [{"Id": "003C", "AccountId": "acc"}],
        "Order": [order("o1", "2022-01-31"), order("o2", "2022-02-02"), order("o3", "2022-03-03")],
        "OrderItem": [
            {"Id": "x1", "OrderId": "o1", "Product2Id": "J1"},
            {"Id": "x2", "OrderId": "o2", "Product2Id": "J2"},
            {"Id": "x3", "OrderId": "o3", "Product2Id": "J2"},
        ],
        "Product2": [
            {"Id": "J1", "Name": "Women's Trail Jacket", "Description": "With reflective trim."},
            {"Id": "J2", "Name": "Men's Rain Jacket", "Description": "A waterproof shell."},
        ],
    }


def test_named_entity_month_as_30_days_and_same_noun_near_the_day(purchases):
    # Today 2022-03-02: a month ago is 2022-02-02; 30 days ago is 2022-01-31.
    params = {"contact_id": "003C", "purchase_date": "2022-02-02", "product_ids": ["J2"]}
    context = {"today": "2022-03-02", "phrase": "waterproof jacket", "interval": ["month", 1]}
    reading = _read(purchases, "named_entity_disambiguation", params, context)
    assert reading.careful == ("J2",)
    assert reading.shortcuts["month_30_days"] == ()  # nothing waterproof on 2022-01-31
    # Both jackets were bought within three days of the day asked about.
    assert reading.shortcuts["noun_3_days"] == ("J1", "J2")
    assert hit(reading.shortcuts["noun_3_days"], "J2") == 0.5
    week = {**context, "interval": ["week", 1], "today": "2022-02-09"}
    assert (
        "month_30_days"
        not in _read(purchases, "named_entity_disambiguation", params, week).shortcuts
    )


def test_named_entity_words_that_fit_two_purchases_that_day_are_undecidable(purchases):
    purchases["OrderItem"].append({"Id": "x4", "OrderId": "o2", "Product2Id": "J1"})
    params = {"contact_id": "003C", "purchase_date": "2022-02-02", "product_ids": ["J1", "J2"]}
    context = {"today": "2022-02-09", "phrase": "jacket", "interval": ["week", 1]}
    assert _read(purchases, "named_entity_disambiguation", params, context).is_undecidable()
    context["phrase"] = "reflective jacket"
    reading = _read(purchases, "named_entity_disambiguation", params, context)
    assert reading.careful == ("J1",) and not reading.is_undecidable()


def test_policy_shortcut_names_the_first_policy_discussed():
    reading = _read(
        {},
        "policy_violation_identification",
        {"case_id": "500X"},
        {"policies": ["ka0REFUND", "ka0DISCOUNT"]},
    )
    assert reading.careful is None
    assert reading.shortcuts["topic_policy"] == ("ka0REFUND",)
    assert hit(reading.shortcuts["topic_policy"], "ka0DISCOUNT") == 0.0
    assert hit(reading.shortcuts["topic_policy"], None) == 0.0


def test_stats_report_shares_and_the_targets_flag_a_shortcut_over_40_percent():
    tables = {
        "Case": [_case(f"c{i}", f"2022-01-1{i}T10:00:01Z", issue="I1") for i in range(3)],
        "OrderItem": [{"Id": "oi1", "OrderId": "o", "Product2Id": "P"}],
    }
    instances = [
        SimpleNamespace(idx=0, task="top_issue_identification", answer="I1", query=""),
        SimpleNamespace(idx=1, task="top_issue_identification", answer=None, query=""),
    ]
    solutions = {
        "0": {"solver": "top_issue", "params": {"product_id": "P", **JAN}},
        "1": {"solver": "top_issue", "params": {"product_id": "P", **_month(6, 2022)}},
    }
    (stats,) = task_stats(instances, solutions, rows=OrgRows.from_tables(tables))
    assert stats.careful_share == 1.0 and stats.undecidable_share == 0.0
    assert stats.shortcuts == {
        "all_time_issue": {"share": 1.0, "n": 2},
        "most_common": {"share": 0.5, "n": 2},  # I1 and None once each
    }
    failed = [c.target for c in check_targets([stats]) if not c.ok and "shortcut" in c.target]
    assert failed == [
        "shortcut: all-time top issue (None without a case in the period)",
        "shortcut: always the type's most common answer",
    ]


def test_peak_month_if_the_window_has_its_cases_wins_only_where_the_peak_is_the_answer():
    # All-time, July leads (5). A window holding two July cases and three in August: the
    # careless reading keeps July because the window has July cases; the answer is August.
    cases = [_case(f"j{i}", f"2021-07-{i + 1:02d}T10:00:01Z") for i in range(3)]
    cases += [_case(f"k{i}", f"2022-07-{i + 1:02d}T10:00:01Z") for i in range(2)]
    cases += [_case(f"a{i}", f"2022-08-{i + 1:02d}T10:00:01Z") for i in range(3)]
    tables = {"Case": cases, "OrderItem": [{"Id": "oi1", "OrderId": "o", "Product2Id": "P"}]}
    params = {"product_id": "P", "start": "2022-06-01T00:00:00Z", "end": "2022-09-01T00:00:00Z"}
    reading = _read(tables, "monthly_trend_analysis", params)
    assert reading.careful == ("August",)
    assert reading.shortcuts["peak_if_in_window"] == ("July",)


def test_named_entity_words_that_fit_a_purchase_two_days_off_defeat_a_loose_date(purchases):
    # Both jackets are waterproof now: a loose reading of the day cannot tell them apart.
    purchases["Product2"][0]["Description"] = "A waterproof shell with reflective trim."
    params = {"contact_id": "003C", "purchase_date": "2022-02-02", "product_ids": ["J1", "J2"]}
    context = {"today": "2022-02-09", "phrase": "waterproof jacket", "interval": ["week", 1]}
    reading = _read(purchases, "named_entity_disambiguation", params, context)
    assert reading.careful == ("J2",) and not reading.is_undecidable()
    assert reading.shortcuts["fit_3_days"] == ("J1", "J2")
    assert hit(reading.shortcuts["fit_3_days"], "J2") == 0.5


def test_best_region_with_open_cases_counted_until_today_rules_out_the_fastest_state():
    # acc1 (CA) closes in an hour but has a case still open; acc2 (NV) takes three hours.
    cases = [
        _case("q1", "2022-01-03T10:00:01Z", "2022-01-03T11:00:01Z"),
        _case("q2", "2022-01-04T10:00:01Z"),
        _case("q3", "2022-01-05T10:00:01Z", "2022-01-05T13:00:01Z", account="acc2"),
    ]
    tables = {
        "Case": cases,
        "Account": [{"Id": "acc1", "ShippingState": "CA"}, {"Id": "acc2", "ShippingState": "NV"}],
    }
    reading = _read(tables, "best_region_identification", JAN, {"today": "2022-03-01"})
    assert reading.careful == ("CA",)
    assert reading.shortcuts == {"open_until_today": ("NV",)}


def test_most_common_answer_is_measured_over_the_type_and_held_to_40_percent():
    tables = {"Case": [], "OrderItem": []}
    instances = [
        SimpleNamespace(idx=i, task="top_issue_identification", answer=a, query="")
        for i, a in enumerate(["I1", "I1", "I1", "I2", None])
    ]
    solutions = {
        str(i): {"solver": "top_issue", "params": {"product_id": "P", **JAN}} for i in range(5)
    }
    (stats,) = task_stats(instances, solutions, rows=OrgRows.from_tables(tables))
    assert stats.shortcuts["most_common"] == {"share": 0.6, "n": 5}
    failed = [c.target for c in check_targets([stats]) if not c.ok and "common" in c.target]
    assert failed == ["shortcut: always the type's most common answer"]


def test_new_shortcuts_are_read_on_crmarena_orgs_only():
    """CRMArena-Pro's builder budgets every shortcut its readings report; the #32 shortcuts
    of the CRMArena sample are not part of the Pro task sets' calibration."""
    from crmtui.org.readings.pro_rows import ProRows

    rows = OrgRows.from_tables({"Case": [], "CaseHistory__c": []})
    rows.pro = ProRows.from_tables({})
    reading = read_instance(
        rows, "transfer_count", {"params": {**JAN, "n_cases": 0, "mode": "max"}}
    )
    assert reading is not None and set(reading.shortcuts) == {"no_case_filter"}
