"""Every export names a conversation the same way (issue #34): a dialogue with a simulated
user, recorded once, has its session id as its dialogue id in CSV and in JSONL alike."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from crmtui.review.export import export_folder
from tests.unit.dialogue.builders import ANN, SIM, write_dialogue


def test_a_simulated_user_dialogue_has_one_id_in_every_export(tmp_path: Path) -> None:
    recordings = tmp_path / "recordings"
    recordings.mkdir()
    write_dialogue(recordings, ANN, SIM, ["Route my lead", "Route it to U4"], reward=1.0)
    export_folder(recordings, "csv", tmp_path / "out.csv")
    export_folder(recordings, "jsonl", tmp_path / "out.jsonl")
    with (tmp_path / "out.csv").open(newline="", encoding="utf-8") as handle:
        [csv_row] = list(csv.DictReader(handle))
    [json_row] = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert csv_row["dialogue_id"] == json_row["dialogue"]["dialogue_id"] == json_row["session_id"]
