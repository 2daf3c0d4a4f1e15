"""--llm-extract: prompt families, forgiving parsing, and scoring over the fake server."""

from __future__ import annotations

from typing import Any

import pytest

from crmtui.agent.batch import run_batch
from crmtui.agent.extract import extraction_messages, family_for, parse_extracted
from crmtui.record.verify import load
from tests.fakes.openai_server import Reply, text


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ('["CA", "NY"]', ["CA", "NY"]),
        ('{"extracted_answers": ["June"]}', ["June"]),
        ('```json\n["005Ws000003wMzsIAE"]\n```', ["005Ws000003wMzsIAE"]),
        ("Sure! The answers are ['NJ'] as requested.", ["NJ"]),
        ("[]", ["None"]),
        ('["None"]', ["None"]),
        ("", ["None"]),
        ("  just text  ", ["just text"]),
        ("[null]", ["None"]),
        ('"TX"', ["TX"]),
    ],
)
def test_parse_extracted(reply: str, expected: list[str]) -> None:
    assert parse_extracted(reply) == expected


def test_prompt_families_follow_the_task() -> None:
    assert family_for("monthly_trend_analysis") == "months"
    assert family_for("best_region_identification") == "states"
    assert family_for("handle_time") == "ids"
    assert family_for(None) == "ids"
    system, user = extraction_messages("It is NJ.", "best_region_identification")
    assert "two-letter" in system["content"] and "JSON list" in system["content"]
    assert "It is NJ." in user["content"]
    months = extraction_messages("June", "monthly_trend_analysis")[0]["content"]
    assert "month" in months and "Id" not in months.split("Rules")[0]


def test_llm_extract_scores_a_sentence_answer(routing, make_config, tasks, org) -> None:
    inst = next(i for i in tasks if i.task == "best_region_identification" and i.answer)
    wrong = next(i for i in tasks if i.task == "best_region_identification" and i.idx != inst.idx)
    extractions: list[dict[str, Any]] = []

    def extractor(body: dict[str, Any]) -> Reply:
        extractions.append(body)
        answer_text = body["messages"][-1]["content"]
        state = inst.answer if f"is {inst.answer}." in answer_text else "ZZ"
        return text(f'```json\n["{state}"]\n```')

    scripts = {
        inst: [text(f"<respond>The fastest state is {inst.answer}.</respond>")],
        wrong: [text("<respond>The fastest state is ZZ.</respond>")],
    }
    server = routing(scripts, extractor)
    # The extractor is the agent's own model here, served by the same fake server.
    config = make_config(
        server, idxs=(inst.idx, wrong.idx), llm_extract=True, extract_model="openai/fake"
    )

    report = run_batch(config, org=org, tasks=tasks)

    outcomes = {o.idx: o for o in report.outcomes}
    assert outcomes[inst.idx].reward == 1.0
    assert outcomes[wrong.idx].reward == 0.0
    assert len(extractions) == 2
    assert "two-letter" in extractions[0]["messages"][0]["content"]
    submit = load(outcomes[inst.idx].path).submit
    assert submit is not None
    assert submit.payload["scoring"] == "llm_extract"
    assert submit.payload["details"]["parsed"] == [inst.answer]


def test_a_failing_extractor_scores_zero_with_the_reason(routing, make_config, tasks, org) -> None:
    inst = next(i for i in tasks if i.task == "monthly_trend_analysis" and i.answer)
    from tests.fakes.openai_server import error

    server = routing(
        {inst: [text("<respond>It was June, clearly.</respond>")]},
        lambda body: error(400, "bad request"),
    )
    config = make_config(
        server,
        idxs=(inst.idx,),
        llm_extract=True,
        extract_model="openai/other",
        extract_api_base=server.base_url,
    )

    (outcome,) = run_batch(config, org=org, tasks=tasks).outcomes

    assert outcome.reward == 0.0 and outcome.done
    submit = load(outcome.path).submit
    assert submit is not None
    assert "answer extraction failed" in submit.payload["details"]["error"]
    assert server.requests[-1]["model"] == "other"


def test_the_default_extractor_is_upstreams_fixed_model(make_config, routing) -> None:
    from crmtui.agent.presets import UPSTREAM_EXTRACT_MODEL

    config = make_config(routing({}), llm_extract=True)
    assert config.resolved.extract_model == UPSTREAM_EXTRACT_MODEL == "gpt-4o-2024-08-06"
    assert config.resolved.scoring == "llm_extract"
    assert config.client(UPSTREAM_EXTRACT_MODEL).api_base is None  # its provider's own server
