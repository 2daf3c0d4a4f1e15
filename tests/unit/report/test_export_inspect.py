"""``crmtui export --format inspect``: logs written with inspect_ai, read back through its
reader and its analysis data frames, field by field against the recordings.

The recordings: the shipped examples (a person and a scripted model, ReAct and function
calling), the report fixture (two people and two models, single-turn, with later,
unfinished, unsubmitted and tampered sessions), and dialogues (a person as the agent with a
simulated user, a model agent with a person as the user). Skipped, with the install command,
where inspect_ai is not installed; ``.ci/run`` installs it in a venv of its own.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from crmtui.cli import cli, main
from crmtui.errors import ConfigError
from crmtui.record import events as ev
from crmtui.review.export import counted_session_paths, export_folder
from crmtui.review.export_inspect import INSTALL, model_name, require_inspect, setting_of
from crmtui.review.report import load_folder, scoring_label
from crmtui.review.summary import is_right
from crmtui.scoring.rules import gold_text
from tests.unit.dialogue.builders import ANN, MODEL, SIM, write_dialogue
from tests.unit.report import builders as b

REPO = Path(__file__).resolve().parents[3]

try:
    import inspect_ai  # noqa: F401

    MISSING = None
except ImportError:
    MISSING = f"inspect_ai is not installed ({INSTALL})"

needs_inspect = pytest.mark.skipif(MISSING is not None, reason=MISSING or "")


@pytest.fixture(scope="module")
def recordings(tmp_path_factory: pytest.TempPathFactory, fixture_root: Path) -> Path:
    """Examples, the report fixture and two dialogues, in one folder."""
    root = tmp_path_factory.mktemp("inspect-recordings")
    shutil.copytree(REPO / "recordings", root / "examples")
    shutil.copytree(fixture_root, root / "fixture")
    dialogues = root / "dialogues"
    dialogues.mkdir()
    # A person as the agent, a simulated user; the person answers on the second turn.
    write_dialogue(dialogues, ANN, SIM, ["Who was fastest?", "Which quarter?", "Q2", "005A"], 1.0)
    # A model agent, a person as the user; the turns run out unanswered (scores 0).
    write_dialogue(dialogues, MODEL, ANN, ["Who was fastest?", "Which quarter?", "Q2"], None)
    # A model whose answer an extractor model read (a score call), and a person's
    # submission that was not scored (no reward).
    extra = root / "extra"
    judged = {"role": "extractor", "model": "openai/x", "input": "It is CA.", "reply": "CA",
              "result": ["CA"], "prompt_tokens": 40, "completion_tokens": 2, "cost": 0.0001,
              "latency_ms": 12.0}  # fmt: skip
    b.write_session(extra, b.MODEL_A, b.BRI, [
        (1.0, "model_call", b.model_call(100, 10, 0.001)),
        (1.0, "score_call", judged),
        (0.5, "submit", b.submit("It is CA.", 1.0, "CA")),
    ], start=b.DAY3, session_id="e1" * 16)  # fmt: skip
    b.write_session(extra, b.HUMAN_B, b.BRI, [
        (2.0, "run_query", b.run_query("SELECT Id FROM Account", rows=3)),
        (1.0, "run_query", b.run_query("SELECT Nope FROM Account", error_code="INVALID_FIELD")),
        (1.0, "submit", b.submit("CA", None, "CA")),
    ], start=b.DAY3, session_id="e2" * 16)  # fmt: skip
    return root


@pytest.fixture(scope="module")
def exported(recordings: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any]:
    if MISSING:
        pytest.skip(MISSING)
    out = tmp_path_factory.mktemp("inspect-logs")
    return out, export_folder(recordings, "inspect", out)


def _expected_events(recording: Any) -> list[tuple[int, str]]:
    """(seq, Inspect event kind) the export must give each recorded event."""
    kinds = {
        ev.MODEL_CALL: "model",
        ev.SCORE_CALL: "model",
        ev.RUN_QUERY: "tool",
        ev.SUBMIT: "score",
    }
    found = [(e.seq, kinds.get(e.type, "info")) for e in recording.events]
    # A submission without a reward has no score: it is told as an info event.
    return [
        (seq, "info" if e.type == ev.SUBMIT and e.payload["reward"] is None else kind)
        for (seq, kind), e in zip(found, recording.events, strict=True)
    ]


@needs_inspect
def test_every_session_is_a_sample_of_its_actors_log(
    recordings: Path, exported: tuple[Path, Any]
) -> None:
    from inspect_ai.log import list_eval_logs, read_eval_log

    out, result = exported
    loaded, skipped, _ = load_folder(recordings)
    assert [s.path.name for s in skipped] == ["bob-edited.jsonl"]  # the tampered file
    counted = counted_session_paths([s for _, s in loaded])
    by_session = {s.session_id: (rec, s) for rec, s in loaded}
    groups = {(s.actor_kind, s.actor_id, s.strategy, setting_of(r, s)) for r, s in loaded}
    infos = list_eval_logs(str(out))
    assert len(infos) == len(result.files) == len(groups)  # one log per actor and setting
    seen = []
    # Distinct task ids: inspect view folds logs sharing one into a single row (as retries).
    task_ids = {read_eval_log(info, header_only=True).eval.task_id for info in infos}
    assert len(task_ids) == len(infos)
    for info in infos:
        log = read_eval_log(info, resolve_attachments=True)
        assert log.status == "success"
        actor = log.eval.metadata["crmtui"]["actor"]
        assert log.samples and len({(s.id, s.epoch) for s in log.samples}) == len(log.samples)
        for sample in log.samples:
            recording, summary = by_session[sample.uuid]
            seen.append(sample.uuid)
            assert actor == {
                "kind": summary.actor_kind,
                "id": summary.actor_id,
                "strategy": summary.strategy,
            }
            assert log.eval.model == model_name(summary)
            assert log.eval.metadata["crmtui"]["setting"] == setting_of(recording, summary)
            assert sample.id == summary.idx
            assert sample.input == recording.header["instance"]["query"]
            assert sample.target == (gold_text(summary.gold) if summary.submitted else "")
            assert sample.metadata["counted"] is (summary.path in counted)
            assert sample.metadata["session_id"] == summary.session_id
            assert sample.metadata["task"] == summary.task
            assert sample.metadata["queries"] == summary.queries
            assert sample.metadata["active_ms"] == summary.active_ms
            assert sample.metadata["path"] == str(summary.path)
            assert sample.working_time == pytest.approx(summary.active_seconds)
            wall = None if summary.wall_ms is None else summary.wall_ms / 1000
            assert sample.total_time == pytest.approx(wall)
            assert sample.started_at.startswith(summary.started_at[:19])
            # The score: the reward, the answer and how it was scored.
            if summary.submitted and summary.reward is not None:
                score = sample.scores["crmtui"]
                assert score.value == pytest.approx(summary.reward)
                assert score.answer == summary.answer
                assert score.explanation == scoring_label(summary)
                assert score.metadata["metric"] == summary.reward_metric
                assert score.metadata["scoring"] == summary.scoring
                assert score.metadata["right"] == is_right(summary.reward, summary.reward_metric)
                assert score.metadata["counted"] is (summary.path in counted)
                assert sample.output.completion == summary.answer
            else:
                assert not sample.scores
            # Tokens and cost of a model's calls; none for a person.
            if summary.model_calls:
                usage = sample.model_usage[model_name(summary)]
                assert (usage.input_tokens, usage.output_tokens) == (
                    summary.prompt_tokens,
                    summary.completion_tokens,
                )
                assert usage.total_cost == summary.cost
            else:
                assert sample.model_usage == {}
            # Every recorded event, in order, as one Inspect event.
            kinds = [(e.metadata["seq"], e.event) for e in sample.events]
            assert kinds == _expected_events(recording)
            _check_steps(recording, sample)
    assert sorted(seen) == sorted(by_session)


def _check_steps(recording: Any, sample: Any) -> None:
    """Queries as tool events with their results; calls as model events; info payloads."""
    by_seq = {e.metadata["seq"]: e for e in sample.events}
    human = recording.header["actor"]["kind"] == "human"
    for event in recording.events:
        found = by_seq[event.seq]
        p = event.payload
        assert found.timestamp.isoformat().startswith(event.t[:19])
        assert found.working_start == pytest.approx(event.ms / 1000)
        if event.type == ev.RUN_QUERY:
            assert found.arguments == {"query": p["text"]}
            assert bool(found.error) == bool(p["error"] or p["error_code"])
            if p.get("observation") is not None and not found.error:
                assert found.result == p["observation"]
        elif event.type == ev.MODEL_CALL:
            usage = found.output.usage
            assert (usage.input_tokens, usage.output_tokens) == (
                p["prompt_tokens"],
                p["completion_tokens"],
            )
            assert found.output.time == pytest.approx(p["latency_ms"] / 1000)
            assert found.output.message.text == (p["content"] or "")
        elif event.type == ev.SCORE_CALL:
            assert (found.role, found.model) == (p["role"], p["model"])
            assert found.input[0].text == p["input"]
            assert found.output.completion == p["reply"]
        elif event.type == ev.SUBMIT and found.event == "score":
            assert found.score.answer == p["answer"]
            assert found.score.value == pytest.approx(p["reward"])
            assert found.target == gold_text(p["gold"])
        elif found.event == "info":
            assert found.data == {"type": event.type, **p}
    roles = [m.role for m in sample.messages]
    if recording.header.get("dialogue"):
        said = [e for e in recording.events if e.type in ev.DIALOGUE_TYPES]
        users = [m.text for m in sample.messages if m.role == "user"]
        assert users == [e.payload["text"] for e in said if e.type == ev.USER_MESSAGE]
        if human:
            agents = [m.text for m in sample.messages if m.role == "assistant"]
            assert agents == [e.payload["text"] for e in said if e.type == ev.AGENT_MESSAGE]
        return
    assert roles[0] == "user" and sample.messages[0].text == sample.input
    queries = sum(1 for e in recording.events if e.type == ev.RUN_QUERY)
    calls = sum(1 for e in recording.events if e.type == ev.MODEL_CALL)
    if human:
        submitted = recording.submit is not None
        assert roles.count("tool") == queries
        assert roles.count("assistant") == queries + submitted
        if submitted:
            assert sample.messages[-1].text == recording.submit.payload["answer"]
    else:
        assert roles.count("assistant") == calls
        assert roles.count("tool") + roles.count("user") - 1 == queries


@needs_inspect
def test_analysis_data_frames_read_the_logs(recordings: Path, exported: tuple[Path, Any]) -> None:
    from inspect_ai.analysis import evals_df, events_df, messages_df, samples_df

    out, result = exported
    loaded, _, _ = load_folder(recordings)
    by_session = {s.session_id: s for _, s in loaded}
    samples = samples_df(str(out), quiet=True)
    assert len(samples) == result.sessions == len(loaded)
    for row in samples.itertuples():
        summary = by_session[row.metadata_session_id]
        assert row.id == str(summary.idx) or row.id == summary.idx
        if summary.submitted and summary.reward is not None:
            assert row.score_crmtui == pytest.approx(summary.reward)
        assert row.working_time == pytest.approx(summary.active_seconds)
    evals = evals_df(str(out), quiet=True)
    assert len(evals) == len(result.files)
    assert set(evals["model"]) == {model_name(s) for s in by_session.values()}
    assert len(messages_df(str(out), quiet=True)) > 0
    assert len(events_df(str(out), quiet=True)) > 0


@needs_inspect
def test_people_and_models_side_by_side_in_one_folder(exported: tuple[Path, Any]) -> None:
    from inspect_ai.log import read_eval_log

    out, result = exported
    models = [read_eval_log(str(p), header_only=True).eval.model for p in result.files]
    assert "human/alice" in models and "human/example-annotator" in models
    assert "openai/scripted-model" in models and "model/gpt-4o" in models
    # The header's metric is the counted sessions' mean reward (alice: HTU 1.0, KQA 0.8).
    alice = next(p for p in result.files if "alice" in p.name)
    header = read_eval_log(str(alice), header_only=True)
    assert header.results.scores[0].metrics["mean"].value == pytest.approx(0.9)


@needs_inspect
def test_the_export_is_reproducible(recordings: Path, tmp_path: Path) -> None:
    from inspect_ai.log import read_eval_log

    first = export_folder(recordings, "inspect", tmp_path / "a").files
    second = export_folder(recordings, "inspect", tmp_path / "b").files
    assert [p.name for p in first] == [p.name for p in second]
    for one, other in zip(first, second, strict=True):
        left, right = read_eval_log(str(one)), read_eval_log(str(other))
        assert left.model_dump_json(exclude={"location"}) == right.model_dump_json(
            exclude={"location"}
        )


@needs_inspect
def test_cli_lists_the_logs(recordings: Path, tmp_path: Path) -> None:
    out = tmp_path / "logs"
    result = CliRunner().invoke(
        cli, ["export", str(recordings / "examples"), "--format", "inspect", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert result.output.count("Wrote ") == 3  # a person, ReAct, function calling
    assert "Exported 5 session(s)" in result.output


@needs_inspect
def test_study_export_writes_a_log_per_annotator(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from inspect_ai.log import read_eval_log

    from tests.unit.report.html_scenes import make_study

    monkeypatch.setenv("CRMTUI_STUDIES", str(tmp_path / "studies"))
    study, _ = make_study(tmp_path / "studies")
    out = tmp_path / "logs"
    result = CliRunner().invoke(
        cli, ["study", "export", study.name, "--format", "inspect", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    logs = [read_eval_log(str(p)) for p in sorted(out.glob("*.eval"))]
    assert sorted(log.eval.model for log in logs) == ["human/ann", "human/ben"]
    assert all(len(log.samples) == 6 for log in logs)  # every instance, each a sample


def test_missing_inspect_ai_is_one_line_naming_the_install(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "inspect_ai", None)
    monkeypatch.setitem(sys.modules, "inspect_ai.log", None)
    with pytest.raises(ConfigError, match=r"pip install -e '\.\[inspect\]'"):
        require_inspect()
    out = tmp_path / "logs"
    with pytest.raises(SystemExit) as exit_info:
        main(["export", str(REPO / "recordings"), "--format", "inspect", "--out", str(out)])
    assert exit_info.value.code != 0
    captured = capsys.readouterr()
    lines = [line for line in captured.err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: --format inspect needs the inspect_ai")
    assert not out.exists()  # nothing written


def test_extra_is_declared() -> None:
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert 'inspect = ["inspect-ai' in text
    assert json.dumps(INSTALL)  # the command the error names is the docs' one
    assert INSTALL in (REPO / "docs" / "inspect-and-html-report.md").read_text(encoding="utf-8")
