"""Several model servers behind litellm's Router: calls spread, a failing one is left out,
and every model call records the deployment that answered."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from crmtui.agent.batch import BatchConfig, run_batch
from crmtui.agent.deployments import make_set, parse_api_base, read_deployments
from crmtui.errors import ConfigError
from crmtui.record import load
from tests.fakes.openai_server import FakeOpenAI, error
from tests.unit.batch.scripted import solving_script


class Scripted(FakeOpenAI):
    """Answers each request with the next reply of the instance it is about."""

    def __init__(self, scripts: dict) -> None:
        super().__init__()
        self.scripts = scripts

    def _next(self, body):  # type: ignore[no-untyped-def]
        with self._lock:
            self.requests.append(body)
        users = [m for m in body.get("messages", []) if m.get("role") == "user"]
        first = str(users[0].get("content", "")) if users else ""
        for (query, required), script in self.scripts.items():
            if first.strip().endswith(query) and required in str(body["messages"][0]):
                return script.pop(0)
        return None


def test_calls_spread_over_servers_and_skip_the_failing_one(
    tmp_path: Path, tasks, built_org: Path, litellm_loaded: None
) -> None:
    chosen = [t for t in tasks if t.answer is not None][:6]

    def scripts() -> dict:
        return {
            (t.query.strip(), t.metadata.required.strip()): solving_script(t, "react")
            for t in chosen
        }

    # Every server can answer any instance: each holds a full copy of the scripts, so a
    # reply taken from one server is also dropped from the others below.
    shared = scripts()
    good_a, good_b = Scripted(shared), Scripted(shared)
    broken = FakeOpenAI(script=[error(500, "down")] * 50)
    with good_a, good_b, broken:
        spec = make_set(
            [
                parse_api_base(f"{good_a.base_url},name=a,rpm=600"),
                parse_api_base(f"{good_b.base_url},name=b,rpm=600"),
                # The heaviest weight: the router picks it first, then cools it down.
                parse_api_base(f"{broken.base_url},name=broken,rpm=600000"),
            ],
            retries=3,
            cooldown_s=60,
        )
        config = BatchConfig(
            # Its own model name: litellm keeps what a Router registers for a model (priced
            # 0.0) for the rest of the process, and other tests price "openai/fake" as unknown.
            model="openai/routed",
            tasks=str(built_org.with_suffix(".tasks.json")),
            org=str(built_org),
            out=tmp_path / "out",
            deployments=spec,
            idxs=tuple(t.idx for t in chosen),
            timeout=60.0,  # the fakes answer at once: only a hang waits it out
            fsync=False,
            client_options={"max_retries": 1, "backoff_base_s": 0.01, "api_key": "sk-x"},
        )
        random.seed(5)  # the router's shuffle draws from the global generator
        report = run_batch(config)
    assert report.tally.right == len(chosen), report
    calls = [
        e.payload
        for path in sorted((tmp_path / "out" / "recordings").rglob("*.jsonl"))
        for e in load(path).events
        if e.type == "model_call"
    ]
    answered = [c["deployment"] for c in calls]
    assert len(answered) == 2 * len(chosen)
    assert set(answered) <= {"a", "b"} and "broken" not in answered
    assert len(good_a.requests) + len(good_b.requests) == len(answered)
    assert len(broken.requests) >= 1  # it was tried, failed, and was left out
    # The router registers the model with no price: its calls cost unknown, not 0.0.
    assert {c["cost"] for c in calls} == {None}
    (results,) = (tmp_path / "out").glob("results_*.json")
    settings = json.loads(results.read_text())[0]["crmtui"]["settings"]
    names = [d.get("name") for d in settings["deployments"]["deployments"]]
    assert names == ["a", "b", "broken"]


def test_deployments_file_is_checked(tmp_path: Path) -> None:
    path = tmp_path / "d.json"
    path.write_text(json.dumps({"deployments": [
        {"api_base": "http://127.0.0.1:1/v1", "name": "x", "rpm": 10},
        {"api_base": "http://127.0.0.1:2/v1", "fallback": True}], "retries": 1}))  # fmt: skip
    spec = read_deployments(path)
    assert [d.label for d in spec.deployments] == ["x", "http://127.0.0.1:2/v1"]
    assert spec.deployments[1].fallback and spec.retries == 1
    for bad, message in [
        ([], "non-empty list"),
        ([{"api_base": "ftp://x"}], "http\\(s\\) URL"),
        ([{"api_base": "http://a", "rpm": 0}], "at least 1"),
        ([{"api_base": "http://a", "colour": 1}], "unknown field"),
        ([{"api_base": "http://a", "fallback": True}], "every deployment is a fallback"),
    ]:
        path.write_text(json.dumps(bad))
        with pytest.raises(ConfigError, match=message):
            read_deployments(path)
    with pytest.raises(ConfigError, match="expected URL"):
        parse_api_base("http://a,colour=red")
