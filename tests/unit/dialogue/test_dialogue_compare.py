"""Comparing dialogues on one instance turn by turn, and exporting the conversation."""

from __future__ import annotations

import csv
import json
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from crmtui.play.dialogue import STOP_TOKEN
from crmtui.record import Recorder, load
from crmtui.review.compare import compare
from crmtui.review.compare_format import comparison_markdown
from crmtui.review.export import export_folder
from crmtui.review.report import report_folder
from tests.unit.dialogue.builders import ANN, BEN, INSTANCE, MODEL, ORG, SIM, write_dialogue

ASKS = ["I need the best agent.", "For which period?", "Q2 of 2021.",
        "Over how many cases?", "Over two cases.", "005", STOP_TOKEN]  # fmt: skip
TOLD = ["Best agent in Q2 of 2021 over two cases?", "006", STOP_TOKEN]

_words = st.text(alphabet="abcdefgh ?.|", min_size=1, max_size=12).filter(str.strip)


def _said(messages: list[tuple[str, str, str]]) -> list[str]:
    return [text for _, _, text in messages]


@settings(max_examples=25, deadline=None)
@given(st.lists(st.lists(_words, min_size=1, max_size=7), min_size=2, max_size=3))
def test_each_column_of_the_conversation_is_what_each_side_said_in_order(
    talks: list[list[str]],
) -> None:
    """Whatever the dialogues: reading a column down (user message, then the agent's
    replies, row after row) gives back that recording's conversation exactly, and the rows
    run as long as the longest dialogue's user turns."""
    with tempfile.TemporaryDirectory() as tmp:
        sides = [(MODEL, SIM), (MODEL, ANN), (BEN, ANN)]
        recordings = []
        for (agent, user), said in zip(sides, talks, strict=False):
            recordings.append(load(write_dialogue(Path(tmp), agent, user, said, None)))
        comparison = compare(recordings)
    for column, said in enumerate(talks):
        read: list[str] = []
        for row in comparison.conversation:
            cell = row.cells[column]
            if cell is not None:
                read += [cell.user, *cell.agent]
        assert read == said
    assert len(comparison.conversation) == max((len(said) + 1) // 2 for said in talks)


def test_compare_puts_a_simulated_user_beside_a_person(tmp_path: Path) -> None:
    sim = load(write_dialogue(tmp_path, MODEL, SIM, ASKS, 1.0))
    person = load(write_dialogue(tmp_path, MODEL, ANN, TOLD, 0.0))
    comparison = compare([sim, person])
    first = comparison.conversation[0]
    assert first.cells[0] is not None and first.cells[0].facts == ()
    assert first.cells[1] is not None
    assert first.cells[1].facts == ("period: Q2 of 2021", "threshold: over two cases")
    assert comparison.conversation[1].cells[0].facts == ("period: Q2 of 2021",)  # type: ignore[union-attr]
    assert comparison.conversation[2].cells[1] is None  # the person's dialogue had ended
    text = comparison_markdown(comparison)
    assert "## Conversation" in text
    assert "openai/agent (react) ↔ openai/user" in text and "openai/agent (react) ↔ ann" in text
    assert "| User turns | 3 | 1 |" in text and "| Pairing | model/model | model/human |" in text
    assert "| 1st key fact at | message 2 | message 1 |" in text
    data = json.loads(comparison.to_json())
    assert [m["text"] for m in data["dialogues"][1]["messages"]] == TOLD
    assert data["conversation"][0]["cells"][1]["agent"] == ["006"]


def test_single_turn_recordings_have_no_conversation(tmp_path: Path) -> None:

    for name in ("a", "b"):
        actor = {"kind": "human", "id": name}
        rec = Recorder.create(tmp_path / f"{name}.jsonl", actor=actor, instance=INSTANCE,
                              org=ORG, tasks_source="t", fsync=False)  # fmt: skip
        rec.close("quit")
    comparison = compare([load(tmp_path / "a.jsonl"), load(tmp_path / "b.jsonl")])
    assert comparison.conversation == [] and not comparison.has_dialogue
    assert "## Conversation" not in comparison_markdown(comparison)


def test_export_carries_the_conversation_and_counts_as_the_report(tmp_path: Path) -> None:
    rec_dir = tmp_path / "rec"
    rec_dir.mkdir()
    write_dialogue(rec_dir, MODEL, SIM, ASKS, 1.0)
    write_dialogue(rec_dir, BEN, ANN, TOLD, 0.0)
    write_dialogue(rec_dir, ANN, SIM, ["hello", "What period?", "no idea"], None, idx=90)
    export_folder(rec_dir, "jsonl", tmp_path / "out.jsonl")
    rows = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    by_pairing = {row["dialogue"]["pairing"]: row for row in rows}
    assert [m["text"] for m in by_pairing["model/model"]["dialogue"]["messages"]] == ASKS
    assert [m["role"] for m in by_pairing["human/human"]["dialogue"]["messages"]] == [
        "user", "agent", "user"]  # fmt: skip
    counted = {row["path"] for row in rows if row["counted"]}
    report = report_folder(rec_dir)
    assert counted == {str(s.path.relative_to(rec_dir)) for s in report.dialogues}
    export_folder(rec_dir, "csv", tmp_path / "out.csv")
    with (tmp_path / "out.csv").open() as handle:
        table = list(csv.DictReader(handle))
    assert sorted(r["pairing"] for r in table) == ["human/human", "human/model", "model/model"]
    assert {r["user_turns"] for r in table if r["pairing"] == "model/model"} == {"3"}
    assert {r["dialogue_outcome"] for r in table if r["pairing"] == "human/model"} == {
        "Max user turns reached"}  # fmt: skip


def test_the_cli_compares_and_reports_dialogues(tmp_path: Path) -> None:
    """Through the commands a user types: compare prints both conversations; report prints
    the who-played-whom table; both from the same recordings."""
    from click.testing import CliRunner

    from crmtui.cli import cli

    sim = write_dialogue(tmp_path, MODEL, SIM, ASKS, 1.0)
    person = write_dialogue(tmp_path, MODEL, ANN, TOLD, 0.0)
    runner = CliRunner()
    shown = runner.invoke(cli, ["compare", str(sim), str(person), "--format", "md", "--no-rerun"])
    assert shown.exit_code == 0, shown.output
    assert "## Conversation" in shown.output and "Over how many cases?" in shown.output
    report = runner.invoke(cli, ["report", str(tmp_path), "--format", "json"])
    assert report.exit_code == 0, report.output
    pairs = json.loads(report.output)["dialogues"]["pairs"]
    assert [(p["agent"], p["user"], p["dialogues"]) for p in pairs] == [
        ("openai/agent (react)", "openai/user", 1),
        ("openai/agent (react)", "ann", 1),
    ]
