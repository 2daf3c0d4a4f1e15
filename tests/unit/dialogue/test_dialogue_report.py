"""Key facts, one dialogue's numbers, and the report's multi-turn tables (who played whom)."""

from __future__ import annotations

from pathlib import Path

from crmtui.play.dialogue import STOP_TOKEN, DialogueSpec
from crmtui.record import Recorder
from crmtui.review.key_facts import key_facts, normalise, revealed
from crmtui.review.report import report_folder
from crmtui.review.report_format import to_dict, to_table_text
from tests.unit.dialogue.builders import (
    ANN,
    BEN,
    INSTANCE,
    MODEL,
    ORG,
    QUERY,
    SIM,
    write_dialogue,
)


def test_key_facts_come_from_the_question_not_the_answer_format() -> None:
    names = [fact.name for fact in key_facts(QUERY)]
    assert names == ["period: Q2 of 2021", "threshold: over two cases"]
    relative = key_facts("Which states closed cases fastest in the last three quarters?")
    assert [fact.name for fact in relative] == ["period: past 3 quarters"]
    named = key_facts("Can you find the rope Teresa Thomas bought?", {"region": "OH"})
    assert [fact.name for fact in named] == ["name: Teresa Thomas", "state: OH"]
    assert revealed(named, ["She lives in Ohio.", "It's Teresa Thomas, OH"]) == [{1}, {0}]
    assert revealed(named, ["oh, I see", "ohio"]) == [set(), {1}]  # "oh" the word is no code


def test_a_fact_is_revealed_once_in_any_of_its_forms() -> None:
    facts = key_facts(QUERY)
    said = ["Hi, who was best?", "It was the second quarter... Q2 in 2021", "more than 2 cases"]
    assert revealed(facts, ["I mean Q2 of 2021.", "Q2 2021 again", "over 2 case"]) == [
        {0}, set(), {1}]  # fmt: skip
    assert revealed(facts, said) == [set(), {0}, {1}]  # the number and the noun make it
    assert normalise("Over TWO Cases") == "over 2 cases"


def test_the_report_splits_multi_turn_by_who_played_whom(tmp_path: Path) -> None:
    asks = ["I need the best agent.", "For which period?", "Q2 of 2021.",
            "Over how many cases?", "Over two cases.", "005", STOP_TOKEN]  # fmt: skip
    told = ["Best agent in Q2 of 2021 over two cases?", "005", STOP_TOKEN]
    write_dialogue(tmp_path, MODEL, SIM, asks, 1.0)
    write_dialogue(tmp_path, MODEL, SIM, told, 0.0, idx=89)
    write_dialogue(tmp_path, ANN, SIM, asks, 1.0)
    write_dialogue(tmp_path, MODEL, ANN, ["hello", "Which period?", "not sure"], None)
    write_dialogue(tmp_path, BEN, ANN, told, 1.0)
    report = report_folder(tmp_path)
    assert report.rows == [] and len(report.dialogues) == 5
    rows = {(row.agent, row.user): row for row in report.dialogue_pairs}
    model_sim = rows[("openai/agent (react)", "openai/user")]
    assert (model_sim.dialogues, model_sim.answered, model_sim.success) == (2, 2, 0.5)
    assert model_sim.user_turns == 2  # medians of 3 and 1
    assert model_sim.first_key_turn == 1.5  # 2nd message, and the opening
    assert model_sim.asked == 2 / 4  # asked for both facts once; told both unasked once
    person_sim = rows[("ann", "openai/user")]
    assert person_sim.pairing == "human/model" and person_sim.asked == 1.0
    model_person = rows[("openai/agent (react)", "ann")]
    assert model_person.success == 0.0 and model_person.answered == 0
    assert model_person.no_key == 1 and model_person.first_key_turn is None
    kinds = [row.pairing for row in report.dialogue_kinds]
    assert kinds == ["model/model", "human/model", "model/human", "human/human"]
    text = to_table_text(report, width=200)
    assert "Multi-turn: who played whom" in text and "Multi-turn by pairing" in text
    assert "person as agent, simulated user" in text
    # On an 80-column terminal the eleven measures are turned, one column per pairing, and
    # no name or number is cut in two.
    narrow = to_table_text(report, width=80)
    assert all(len(line) <= 80 for line in narrow.splitlines())
    assert "Multi-turn: who played whom (turned: one row per measure)" in narrow
    assert "Multi-turn by pairing (turned: one row per measure)" in narrow
    for word in ("openai/user", "human/model", "model/human", "Dialogues", "Questions"):
        assert word in narrow
    assert "ben / ann" in narrow  # a pair names its column
    data = to_dict(report)
    assert len(data["dialogues"]["pairs"]) == 4
    assert data["dialogues"]["sessions"][0]["messages"][0]["role"] == "user"


def test_the_users_own_recording_is_not_counted_twice(tmp_path: Path) -> None:
    spec = DialogueSpec("user", MODEL, ANN, 10, "d1")
    rec = Recorder.create(tmp_path / "ann.jsonl", actor={"kind": "human", "id": "ann"},
                          instance=INSTANCE, org=ORG, tasks_source="t", dialogue=spec.to_json(),
                          fsync=False)  # fmt: skip
    rec.emit("user_message", {"text": "hi", "turn": 0, "stop": False})
    rec.close("Submit action", 1.0)
    report = report_folder(tmp_path)
    assert report.dialogues == [] and report.rows == []
    assert any("person's side" in reason for reason in report.excluded)


def test_compare_shows_a_conversation_once_from_its_agents_recording(tmp_path: Path) -> None:
    """Both people record a conversation; compare lined the two up as if two dialogues."""
    from crmtui.review.compare import recordings_for_idx

    def side(name: str, role: str, dialogue_id: str, who: str) -> None:
        spec = DialogueSpec(role, BEN, ANN, 10, dialogue_id)
        rec = Recorder.create(tmp_path / name, actor={"kind": "human", "id": who},
                              instance={**INSTANCE, "idx": 88}, org=ORG, tasks_source="t",
                              dialogue=spec.to_json(), fsync=False)  # fmt: skip
        rec.emit("user_message", {"text": "I need the best agent.", "turn": 0, "stop": False},
                 actor="ann")  # fmt: skip
        rec.close("Submit action", 1.0)

    side("ben-agent.jsonl", "agent", "d1", "ben")
    side("ann-user.jsonl", "user", "d1", "ann")  # ann's side of ben's dialogue: left out
    side("ann-other.jsonl", "user", "d2", "ann")  # its agent's recording is not here: kept
    found, _ = recordings_for_idx(tmp_path, 88)
    kept = sorted((r.header["dialogue"]["role"], r.header["dialogue"]["id"]) for r in found)
    assert kept == [("agent", "d1"), ("user", "d2")]
