"""The real executor adapter over crmtui.query, and recorder compatibility of events."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from crmtui.agent.execution import make_query_executor
from crmtui.agent.runner import EpisodeOptions, run_instance
from crmtui.agent.strategies import make_strategy
from crmtui.data.schema import builtin_schema
from tests.unit.agent.agent_helpers import Events, Inst, ScriptedClient, exact_score, reply


@pytest.fixture
def org(tmp_path: Path):
    store = pytest.importorskip("crmtui.org.store")
    accounts = [
        {"Id": "001000000000001AAA", "FirstName": "Ada", "LastName": "Acme", "ShippingState": "CA"},
        {
            "Id": "001000000000002AAA",
            "FirstName": "Gus",
            "LastName": "Globex",
            "ShippingState": "NY",
        },
    ]
    return store.write_org(tmp_path / "tiny.db", builtin_schema(), {"Account": accounts})


def test_executor_runs_soql_and_reports_rows(org) -> None:
    execute = make_query_executor(org, dt.date(2024, 5, 26))
    obs = execute("SELECT FirstName, ShippingState FROM Account WHERE ShippingState = 'CA'")
    assert obs.ok and obs.kind == "soql" and obs.rows == 1
    assert obs.records == [{"FirstName": "Ada", "ShippingState": "CA"}]
    assert obs.text == "[{'FirstName': 'Ada', 'ShippingState': 'CA'}]"
    assert obs.ms >= 0


def test_executor_turns_query_errors_into_observations(org) -> None:
    obs = make_query_executor(org)("SELECT Nope FROM Account")
    assert not obs.ok and obs.rows is None and obs.records is None
    assert obs.error_code and obs.text.startswith(obs.error_code + ":")


def test_count_styles(org) -> None:
    assert make_query_executor(org)("SELECT COUNT() FROM Account").text == "[]"
    helpful = make_query_executor(org, count_style="helpful")("SELECT COUNT() FROM Account")
    assert helpful.text == "[{'expr0': 2}]"


def test_events_pass_the_recorders_validation(org) -> None:
    events_mod = pytest.importorskip("crmtui.record.events")
    client = ScriptedClient(
        [
            reply("<thought>look</thought><execute>SELECT LastName FROM Account</execute>"),
            reply("<execute>SELECT Nope FROM Account</execute>", cost=None),
            reply("no tags"),
            reply("<respond>CA</respond>"),
        ]
    )
    events = Events()
    run_instance(
        Inst(),
        client,
        make_strategy("react"),
        make_query_executor(org),
        events,
        exact_score("CA"),
        EpisodeOptions(schema_text="schema"),
    )
    tool_client = ScriptedClient(
        [
            reply("", [("c1", "get_period", '{"period_name": "Q2", "year": 2024}')]),
            reply("", [("c2", "respond", '{"content": "CA"}')]),
        ]
    )
    run_instance(
        Inst(),
        tool_client,
        make_strategy("tool_call", toolset="upstream"),
        make_query_executor(org),
        events,
        exact_score("CA"),
        EpisodeOptions(schema_text="schema"),
    )
    assert len(events.items) > 10
    for kind, payload in events.items:
        events_mod.validate_payload(kind, payload)


def test_scorer_objects_and_metric_dicts_are_normalised() -> None:
    class Scored:
        reward = 0.5
        method = "fuzzy_f1"
        details = {"metric": "fuzzy_match"}

    events = Events()
    run_instance(
        Inst(),
        ScriptedClient([reply("<respond>x</respond>")]),
        make_strategy("act"),
        lambda text: None,
        events,
        lambda answer: Scored(),
        EpisodeOptions(schema_text="s"),
    )
    assert events.of("submit")[0] == {
        "answer": "x",
        "reward": 0.5,
        "scoring": "fuzzy_f1",
        "gold": "CA",
        "details": {"metric": "fuzzy_match"},
    }
    events = Events()
    result = run_instance(
        Inst(),
        ScriptedClient([reply("<respond>x</respond>")]),
        make_strategy("act"),
        lambda text: None,
        events,
        lambda answer: ({"em": False, "f1": 0.25}, "toolenv"),
        EpisodeOptions(schema_text="s"),
    )
    assert result.reward == 0.25
    assert events.of("submit")[0]["details"] == {"metrics": {"em": False, "f1": 0.25}}


def test_end_to_end_over_http_with_a_real_org(org, make_client, server) -> None:
    from tests.fakes.openai_server import text

    server.push(
        text(
            "<thought>x</thought>"
            "<execute>SELECT LastName FROM Account WHERE ShippingState = 'NY'</execute>"
        ),
        text("<thought>y</thought><respond>Globex</respond>", chunks=2),
    )
    pieces: list[str] = []
    events = Events()
    result = run_instance(
        Inst(answer="Globex"),
        make_client(),
        make_strategy("react"),
        make_query_executor(org),
        events,
        exact_score("Globex"),
        EpisodeOptions(on_delta=pieces.append),
    )
    assert result.reward == 1
    assert server.requests[1]["messages"][-1]["content"] == (
        "Salesforce instance output: [{'LastName': 'Globex'}]"
    )
    assert "".join(pieces).endswith("<respond>Globex</respond>")
    assert "# Salesforce instance description" in server.requests[0]["messages"][0]["content"]


def test_a_query_past_its_time_limit_is_a_timeout_observation(tmp_path: Path) -> None:
    from crmtui.org.store import write_org

    accounts = [{"Id": f"001{n:012d}AAA", "LastName": f"A{n}"} for n in range(3000)]
    org = write_org(tmp_path / "many.db", builtin_schema(), {"Account": accounts})
    obs = make_query_executor(org, query_timeout_s=1e-9)("SELECT Id, LastName FROM Account")
    assert not obs.ok and obs.error_code == "QUERY_TIMEOUT"
    assert obs.text == "QUERY_TIMEOUT: Your query request was running for too long."
    assert make_query_executor(org)("SELECT Id, LastName FROM Account").rows == 3000
