"""Every export names a conversation the same way (issue #34): a dialogue with a simulated
user, recorded once, has its session id as its dialogue id in CSV and in JSONL alike."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from crmtui.play.dialogue import STOP_TOKEN, DialogueSpec, Side
from crmtui.record import Recorder
from crmtui.review.export import export_folder

INSTANCE = {"idx": 3, "task": "lead_routing", "query": "Who gets this lead?", "reward_metric": "x"}
ORG = {"path": "/o.db", "digest": "d" * 64, "name": "o"}
SIM = "openai/sim"


def _dialogue(folder: Path) -> None:
    spec = DialogueSpec("agent", Side("human", "ann"), Side("model", SIM), 3)
    rec = Recorder.create(
        folder / "ann.jsonl",
        actor={"kind": "human", "id": "ann"},
        instance=INSTANCE,
        org=ORG,
        tasks_source="t",
        dialogue=spec.to_json(),
        fsync=False,
    )
    rec.emit("user_message", {"text": "Route my lead", "turn": 0, "stop": False}, actor=SIM)
    rec.emit("agent_message", {"text": "Route it to U4", "turn": 1})
    rec.emit("user_message", {"text": STOP_TOKEN, "turn": 1, "stop": True}, actor=SIM)
    rec.close("Submit action")


def test_a_simulated_user_dialogue_has_one_id_in_every_export(tmp_path: Path) -> None:
    recordings = tmp_path / "recordings"
    recordings.mkdir()
    _dialogue(recordings)
    export_folder(recordings, "csv", tmp_path / "out.csv")
    export_folder(recordings, "jsonl", tmp_path / "out.jsonl")
    with (tmp_path / "out.csv").open(newline="", encoding="utf-8") as handle:
        [csv_row] = list(csv.DictReader(handle))
    [json_row] = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert csv_row["dialogue_id"] == json_row["dialogue"]["dialogue_id"] == json_row["session_id"]
