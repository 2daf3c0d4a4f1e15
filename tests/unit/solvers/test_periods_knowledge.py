"""Period arithmetic, the truth-based solvers and re-running solvers by name."""

from __future__ import annotations

from datetime import datetime

import pytest

from crmtui.errors import CrmtuiError
from crmtui.org.solvers import (
    SolverError,
    knowledge_qa,
    named_window,
    policy_violation,
    relative_window,
    run_solver,
)
from crmtui.org.solvers.periods import add_months, shift_back


@pytest.mark.parametrize(
    ("today", "unit", "count", "start"),
    [
        ("2024-03-31", "month", 1, datetime(2024, 2, 29)),  # leap-year clamp
        ("2023-05-31", "quarter", 1, datetime(2023, 2, 28)),
        ("2022-08-20", "quarter", 3, datetime(2021, 11, 20)),
        ("2021-01-10", "week", 2, datetime(2020, 12, 27)),
        ("2021-03-01", "day", 14, datetime(2021, 2, 15)),
        ("2021-09-22T17:45:00Z", "month", 2, datetime(2021, 7, 22)),  # end is midnight
        ("2024-02-29", "year", 1, datetime(2023, 2, 28)),  # twelve months, clamped
        ("2022-06-15", "day", 1, datetime(2022, 6, 14)),
    ],
)
def test_relative_window(today, unit, count, start):
    window = relative_window(today, unit, count)
    assert window.start == start
    assert window.end == datetime.fromisoformat(today[:10])


@pytest.mark.parametrize(
    ("name", "year", "start", "end"),
    [
        ("Winter", 2021, datetime(2021, 12, 1), datetime(2022, 3, 1)),
        ("Fall", 2022, datetime(2022, 9, 1), datetime(2022, 12, 1)),
        ("Autumn", 2022, datetime(2022, 9, 1), datetime(2022, 12, 1)),
        ("Q4", 2021, datetime(2021, 10, 1), datetime(2022, 1, 1)),
        ("Q1", 2020, datetime(2020, 1, 1), datetime(2020, 4, 1)),
        ("February", 2021, datetime(2021, 2, 1), datetime(2021, 3, 1)),
        ("December", 2023, datetime(2023, 12, 1), datetime(2024, 1, 1)),
    ],
)
def test_named_window(name, year, start, end):
    window = named_window(name, year)
    assert (window.start, window.end) == (start, end)


def test_month_arithmetic_clamps_and_wraps():
    assert add_months(datetime(2021, 1, 31), 1) == datetime(2021, 2, 28)
    assert add_months(datetime(2021, 1, 15), -13) == datetime(2019, 12, 15)
    assert shift_back(datetime(2020, 2, 29), "quarter", 4) == datetime(2019, 2, 28)


def test_bad_periods_are_typed_errors():
    with pytest.raises(SolverError, match="unknown period name 'Monsoon'"):
        named_window("Monsoon", 2021)
    with pytest.raises(SolverError, match="unknown period unit 'decade'"):
        relative_window("2021-01-01", "decade", 1)
    with pytest.raises(SolverError, match="not a date"):
        relative_window("yesterday", "day", 1)
    assert issubclass(SolverError, CrmtuiError)


TRUTH = {
    "kqa": [
        {"question": "How long is the return window?", "answer": "60 days", "article_id": "ka1"},
    ],
    "pvi": [
        {"case_id": "500a", "article_id": "ka2", "evidence_ids": ["02s1", "02s2"]},
        {"case_id": "500b", "article_id": None, "evidence_ids": []},
    ],
}


def test_knowledge_qa_and_policy_violation():
    qa = knowledge_qa(TRUTH, " How long is the return window? ")
    assert (qa.answer, qa.evidence) == ("60 days", ["ka1"])
    hit = policy_violation(TRUTH, "500a")
    assert (hit.answer, hit.evidence) == ("ka2", ["02s1", "02s2", "500a", "ka2"])
    assert policy_violation(TRUTH, "500b").answer is None
    with pytest.raises(SolverError, match="500z"):
        policy_violation(TRUTH, "500z")
    with pytest.raises(SolverError, match="no knowledge question"):
        knowledge_qa(TRUTH, "Who are you?")


def test_run_solver_dispatches_and_checks():
    assert run_solver("policy_violation", {"case_id": "500a"}, truth=TRUTH).answer == "ka2"
    window = named_window("Q1", 2021)
    tables = {"Case": [], "CaseHistory__c": []}
    params = {**window.as_params(), "n_cases": 0, "mode": "max"}
    assert run_solver("handle_time", params, tables=tables).answer is None
    with pytest.raises(SolverError, match="unknown solver"):
        run_solver("guess", {}, tables=tables)
    with pytest.raises(SolverError, match="needs the org tables"):
        run_solver("best_region", window.as_params())
    with pytest.raises(SolverError, match="bad parameters"):
        run_solver("best_region", {"begin": "2021-01-01"}, tables=tables)
