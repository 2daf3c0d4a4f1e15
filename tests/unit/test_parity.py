"""Information parity, checked against the one table (crmtui/data/parity.py, docs/parity.md).

For every task type (the 9 of CRMArena on the sample org, every Pro type on sample-b2b and
sample-b2c) and every mode, this builds what the model receives (the messages and tools of
each preset and strategy, the simulated user's prompt) and what a person's screens are given
(:func:`crmtui.play.person_view.person_view`, the user seat's brief), and checks each part
against the table: shown where it says so, absent where it does not. Neither view may depend
on the gold answer or the reward metric (so nothing in it can hint at how an answer is
scored or what kind is right), and a person's task label never tells a confidentiality
type from a customer's question. The screens that draw the person's view are checked in
tests/ui/test_parity_screens.py.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from crmtui.agent.dialogue_settings import DialogueSettings
from crmtui.agent.prompts import PRIVACY_RULES, audience_text
from crmtui.agent.settings import AgentSettings
from crmtui.agent.user_sim import user_prompt
from crmtui.data.instances import Instance
from crmtui.data.parity import (
    MODEL_MODES,
    PARTS,
    PERSON_MODES,
    TABLE,
    VALUES,
    parity_markdown,
    person_task_label,
    shown,
)
from crmtui.play.dialogue_facts import ANSWER_FACTS, facts_lines
from crmtui.play.person_view import ANSWER_FORMAT, person_view
from crmtui.play.user_seat import Brief

ROOT = Path(__file__).resolve().parents[2]
OPENING = "Hi, I need some help with a question."
#: Words that say how an answer is scored or what kind is right.
SCORING_WORDS = ("scored", "reward", "token f1", "exact match", "refusal", "privacy judge")


def _one_per_type(rows: list[dict[str, Any]], solutions: dict[str, Any]) -> list[tuple]:
    seen: dict[str, tuple] = {}
    for row in rows:
        if row["task"] not in seen:
            facts = (solutions.get(str(row["idx"])) or {}).get("facts") or {}
            told = {k: v for k, v in facts.items() if k not in ANSWER_FACTS}
            seen[row["task"]] = (Instance.from_row(row), told)
    return list(seen.values())


@pytest.fixture(scope="module")
def orgs() -> dict[str, tuple[list[tuple], str]]:
    """``name -> ([(instance, facts)], schema text)``: one instance of every type."""
    from crmtui.data.schema import builtin_schema
    from crmtui.org.build import PER_TYPE
    from crmtui.org.generator import generate
    from crmtui.org.generator.pro import generate_pro
    from crmtui.org.generator.pro.config import pro_scale, pro_schema
    from crmtui.org.pro_tasks import build_pro_tasks
    from crmtui.org.tasks import build_tasks

    generated = generate(seed=7, scale="small")
    rows, solutions = build_tasks(generated, seed=7, per_type=PER_TYPE["small"])
    found = {"sample": (_one_per_type(rows, solutions), builtin_schema().render_prompt_text())}
    cfg = pro_scale("small")
    for org_type in ("b2b", "b2c"):
        generated = generate_pro(seed=7, scale="small", org_type=org_type)
        rows, solutions = build_pro_tasks(
            generated, seed=7, per_type=cfg.per_type, per_privacy=cfg.per_privacy
        )
        found[f"sample-{org_type}"] = (
            _one_per_type(rows, solutions),
            pro_schema(org_type).render_prompt_text(),
        )
    return found


def _other_gold(instance: Any) -> Any:
    """``instance`` with another gold of the same shape (a list marks a Pro row)."""
    other = ["GOLD-SENTINEL"] if isinstance(instance.answer, list) else "GOLD-SENTINEL"
    return instance.replaced(answer=other)


def _upstream_audience(mode: str) -> tuple[str, ...]:
    """How upstream's prompts say who is asking: the first line of its internal and external
    react prompts after the system's name (read from the harness, as the presets read it)."""
    from crmtui.agent.upstream_prompts import upstream_prompts

    texts = upstream_prompts(mode.split("/")[0]).texts
    names = ("REACT_INTERNAL_PROMPT", "REACT_EXTERNAL_PROMPT")
    return tuple(texts[n].splitlines()[0].split("{system}")[-1] for n in names if n in texts)


def _model_text(instance: Any, mode: str, schema: str, aided: bool, facts: dict) -> str:
    """Everything ``mode`` sends the model before its first reply (messages and tools)."""
    if mode == "simulated user":
        return user_prompt(instance.persona, instance.query, facts)
    preset, strategy = mode.split("/")
    interactive = strategy == "interactive"
    settings = AgentSettings(
        model="openai/test-model",
        preset=preset,
        strategy="react" if interactive else strategy,
        aided=aided,
        dialogue=DialogueSettings(interactive=interactive),
    )
    played = settings.strategy_object()
    messages = played.initial_messages(
        instance, schema, aided=aided, query=OPENING if interactive else None
    )
    texts = [m["content"] for m in messages]
    return "\n".join(texts) + "\n" + json.dumps(played.tools or [])


def test_the_table_is_whole() -> None:
    assert [p.key for p in PARTS] == list(TABLE)
    for row in TABLE.values():
        assert set(row) == set(MODEL_MODES) | set(PERSON_MODES)
        assert set(row.values()) <= set(VALUES)
    # Never, for anyone, before the answer is final: how it is scored, the gold; the task
    # type never to a model, to a person only as a label (checked below).
    assert {TABLE["task_type"][m] for m in MODEL_MODES} == {"no"}
    assert {TABLE["task_type"][m] for m in PERSON_MODES} == {"label"}
    for part in ("scoring", "gold"):
        assert all(not shown(part, m, pro=True, aided=True, privacy_aware=True)
                   for m in (*MODEL_MODES, *PERSON_MODES))  # fmt: skip


def test_the_docs_page_holds_the_table() -> None:
    page = (ROOT / "docs" / "parity.md").read_text(encoding="utf-8")
    assert parity_markdown() in page, "docs/parity.md: paste crmtui.data.parity.parity_markdown()"


@pytest.mark.parametrize("org", ["sample", "sample-b2b", "sample-b2c"])
@pytest.mark.parametrize("aided", [False, True])
def test_what_the_model_receives_follows_the_table(
    orgs: dict[str, Any], org: str, aided: bool
) -> None:
    instances, schema = orgs[org]
    assert len(instances) == (9 if org == "sample" else 22)
    for instance, facts in instances:
        pro = isinstance(instance.answer, list)
        audience = audience_text(instance)
        for mode in MODEL_MODES:
            text = _model_text(instance, mode, schema, aided, facts)
            where = f"{org} {instance.task} {mode} aided={aided}"

            def has(part: str, *, mode: str = mode, pro: bool = pro) -> bool:
                return shown(part, mode, pro=pro, aided=aided)

            assert (instance.query.strip() in text) == has("query"), where
            assert ("comma-separated" in text) == has("answer_format"), where
            if mode.startswith(("naacl/", "head/")):  # upstream's own words say who asks
                said = any(marker in text for marker in _upstream_audience(mode))
                assert said == has("audience"), where
            elif audience:
                assert (audience in text) == has("audience"), where
            assert PRIVACY_RULES not in text, where  # opt-in (--privacy-aware)
            required = instance.metadata.required.strip()
            if required:
                assert (required in text) == has("required"), where
            if instance.today is not None:
                told = shown("today", mode, pro=pro, aided=aided, in_facts="today" in facts)
                assert (instance.today.isoformat() in text) == told, where
            optional = instance.metadata.optional.strip()
            if optional:
                assert (optional in text) == has("optional"), where
            assert (schema in text) == has("schema"), where
            if has("reference"):  # the org is reached by a query action or a tool
                assert "<execute>" in text or '"name": "' in text, where
            if instance.persona:
                assert (instance.persona in text) == has("persona"), where
            task_text = instance.query + instance.metadata.required
            for line in facts_lines(facts):
                if line not in task_text:  # a fact the task's own text also states
                    assert (line in text) == has("facts"), where
            # The task type: the tools are the same for every instance (upstream's helper
            # tools name measures, e.g. handle time), the messages never name it.
            messages = text[: text.rindex("\n")]
            assert instance.task not in messages, where
            for word in SCORING_WORDS:
                assert word not in text.lower(), (where, word)
            # Neither the gold nor the metric changes a word of it.
            for changed in (
                _other_gold(instance),
                instance.replaced(reward_metric="privacy_rejection"),
                instance.replaced(reward_metric="fuzzy_match"),
            ):
                assert _model_text(changed, mode, schema, aided, facts) == text, where


@pytest.mark.parametrize("org", ["sample", "sample-b2b", "sample-b2c"])
@pytest.mark.parametrize("aided", [False, True])
def test_what_a_person_is_shown_follows_the_table(
    orgs: dict[str, Any], org: str, aided: bool
) -> None:
    instances, _ = orgs[org]
    for instance, facts in instances:
        pro = isinstance(instance.answer, list)
        lines = tuple(facts_lines(facts))
        for mode in PERSON_MODES:
            view = person_view(instance, mode, aided=aided, facts=lines)
            where = f"{org} {instance.task} {mode} aided={aided}"

            def has(part: str, *, mode: str = mode, pro: bool = pro) -> bool:
                return shown(part, mode, pro=pro, aided=aided)

            assert (view.query == instance.query) == has("query"), where
            assert (view.query is None) == (not has("query")), where
            assert (view.answer_format == ANSWER_FORMAT) == has("answer_format"), where
            # Who is asking: the model's very words, where it is shown.
            assert view.audience == (audience_text(instance) if has("audience") else None), where
            assert (view.required == instance.metadata.required) == has("required"), where
            assert (view.optional is not None) == (
                has("optional") and bool(instance.metadata.optional)
            ), where
            assert view.schema == has("schema"), where
            assert (view.persona is not None) == (has("persona") and bool(instance.persona))
            assert (view.facts == lines) == has("facts") or not lines, where
            text = json.dumps(dataclasses.asdict(view)).lower()
            for word in SCORING_WORDS:
                assert word not in text, (where, word)
            assert instance.task not in text, where
            for changed in (
                _other_gold(instance),
                instance.replaced(reward_metric="privacy_rejection"),
                instance.replaced(reward_metric="fuzzy_match"),
            ):
                assert person_view(changed, mode, aided=aided, facts=lines) == view, where
            if mode == "user":
                brief = Brief.of(instance, facts)
                assert (brief.instruction, brief.persona, brief.facts) == (
                    view.query, view.persona, view.facts)  # fmt: skip


def test_a_persons_task_label_never_tells_a_confidentiality_type(
    orgs: dict[str, Any],
) -> None:
    privacy = {"private_customer_information", "internal_operation_data",
               "confidential_company_knowledge"}  # fmt: skip
    labels: dict[tuple[str, str], set[str]] = {}
    for instances, _ in orgs.values():
        for instance, _ in instances:
            labels.setdefault(person_task_label(instance.task), set()).add(instance.task)
    for label, tasks in labels.items():
        # A label that names a confidentiality type also names types answered with facts.
        if tasks & privacy:
            assert tasks - privacy, label
        assert not any(code in label[1] for code in privacy), label
