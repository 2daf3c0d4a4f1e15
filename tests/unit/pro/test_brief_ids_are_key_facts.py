"""Every record Id a simulated user's brief gives is a key fact, as an Id in the query is."""

from __future__ import annotations

import re
from typing import Any

import pytest

from crmtui.play.dialogue_facts import ANSWER_FACTS, facts_lines
from crmtui.review.key_facts import key_facts, normalise, revealed

_ID = re.compile(r"\b(?=[A-Za-z0-9]*\d)(?=[A-Za-z0-9]*[A-Za-z])[A-Za-z0-9]{18}\b")


def _briefs(built: Any) -> list[tuple[str, dict[str, Any]]]:
    rows, solutions = built
    out = []
    for row in rows:
        facts = solutions[str(row["idx"])].get("facts") or {}
        told = {k: v for k, v in facts.items() if k not in ANSWER_FACTS}
        out.append((row["query"], told))
    return out


@pytest.mark.parametrize("org_type", ["b2b", "b2c"])
def test_every_id_in_a_brief_is_a_key_fact_that_a_message_can_state(
    org_type: str, request: pytest.FixtureRequest
) -> None:
    briefs = _briefs(request.getfixturevalue(f"{org_type}_tasks"))
    with_ids = 0
    for query, facts in briefs:
        ids = {m.group(0) for line in facts_lines(facts) for m in _ID.finditer(line)}
        found = key_facts(query, facts)
        for record_id in ids:
            with_ids += 1
            names = [fact.name for fact in found]
            assert f"record: {record_id}" in names, (query, facts, names)
            # Said in a message (any case), it counts as revealed.
            index = names.index(f"record: {record_id}")
            (new,) = revealed(found, [f"it is {record_id.lower()} please"])
            assert index in new
            assert found[index].stated_in(normalise(f"Opportunity {record_id}"))
    assert with_ids > 0  # the sample's briefs do give Ids (opportunity, quote, lead, ...)


def test_an_opportunity_id_in_the_brief_counts() -> None:
    facts = {"opportunity_id": "006Wt00000AbCdEfGH"}
    names = [f.name for f in key_facts("Is the stage of my opportunity right?", facts)]
    assert names == ["record: 006Wt00000AbCdEfGH"]
