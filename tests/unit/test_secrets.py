"""Secret scrubbing: one function, used by the recorder, the results file and the client."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crmtui import secrets
from crmtui.agent.batch_files import ResultsFile
from crmtui.record import Recorder, verify

KEY = "sk-proj-Abc123def456ghi789JKL"


def test_environment_values_and_key_shapes_are_replaced(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_PROVIDER_API_KEY", "abcdefgh12345678")
    text = "key abcdefgh12345678, sk-live123456 and AIzaSyA-1234567890abcdef"
    assert secrets.scrub(text) == "key ***, *** and ***"
    assert secrets.scrub("see https://bob:hunter2x@proxy.example/v1") == (
        "see https://***@proxy.example/v1"
    )
    assert secrets.scrub("Authorization: Bearer abcdefghijklmnop1234") == (
        "Authorization: Bearer ***"
    )
    assert secrets.scrub("ghp_" + "a1" * 12) == "***"


def test_placeholders_and_ordinary_text_are_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    # The local-server recipe in docs/agents.md sets OPENAI_API_KEY=anything: not a secret to erase.
    monkeypatch.setenv("OPENAI_API_KEY", "anything")
    monkeypatch.setenv("SHORT_TOKEN", "ab12")
    text = "Anything else? The risk-assessment task-1234567890 ab12, mail bob@example.com"
    assert secrets.scrub(text) == text


def test_scrubbing_json_text_keeps_it_valid(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WEIRD_SECRET", 'pa"ss\\word42')
    doc = json.dumps({"reply": 'my key is pa"ss\\word42 and ' + KEY})
    assert json.loads(secrets.scrub(doc)) == {"reply": "my key is *** and ***"}


def test_registered_secrets_and_extra_values() -> None:
    secrets.register("local-server-key-9")
    assert secrets.scrub("key=local-server-key-9") == "key=***"
    assert secrets.scrub("x zz99zz99 y", extra=["zz99zz99"]) == "x *** y"


def test_scrub_json_walks_keys_and_values() -> None:
    value = {"a": [KEY, 1, None], KEY: {"b": "fine"}}
    assert secrets.scrub_json(value) == {"a": ["***", 1, None], "***": {"b": "fine"}}


def test_recorder_scrubs_an_echoed_key_and_stays_verifiable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "k3y-from-the-environment")
    rec = Recorder.create(
        tmp_path / "s.jsonl",
        actor={"kind": "model", "id": "openai/x", "strategy": "react"},
        instance={"idx": 1, "task": "t", "query": "q", "reward_metric": "exact_match"},
        org={"path": "/o.db", "digest": "d" * 64, "name": "o"},
        tasks_source="sample",
    )
    rec.emit("thought", {"text": f"My key is k3y-from-the-environment, also {KEY}"})
    # A lone surrogate (a broken model reply) must not make the event unwritable.
    rec.emit("thought", {"text": "half a pair: \ud83d"})
    rec.close()
    text = (tmp_path / "s.jsonl").read_text(encoding="utf-8")
    assert "k3y-from-the-environment" not in text and KEY not in text
    assert "My key is ***, also ***" in text
    assert "half a pair: \ufffd" in text
    assert verify(tmp_path / "s.jsonl").ok


def test_results_file_is_scrubbed(tmp_path: Path) -> None:
    results = ResultsFile(tmp_path / "results.json")
    results.set({"task_id": 3, "agent_info": {"transcript": f"echo {KEY}"}, "reward": 0})
    results.write()
    text = results.path.read_text(encoding="utf-8")
    assert KEY not in text
    assert json.loads(text)[0]["agent_info"]["transcript"] == "echo ***"
