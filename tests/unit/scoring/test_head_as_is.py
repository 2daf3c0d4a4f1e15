"""``--scoring head_as_is``: HEAD's react/act evaluator as it is, CRMArena's string and null
gold included, checked against upstream's own ``Evaluator.evaluate`` on generated cases."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from crmtui.agent.presets import resolve
from crmtui.agent.settings import AgentSettings
from crmtui.data.instances import TaskSet
from crmtui.data.loaders import load_tasks
from crmtui.errors import ConfigError
from crmtui.org.sample import sample_tasks_path
from crmtui.review.report import report_folder
from crmtui.scoring.rewards import score
from tests.fakes.openai_server import text

#: Runs HEAD's Evaluator.evaluate on each case, its extraction model replaced by the case's
#: list, and prints each outcome: ["ok", reward] or ["raised", message].
_UPSTREAM_EVALUATE = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
from crm_sandbox.env.env import Evaluator

out = []
for case in json.loads(sys.stdin.read()):
    ev = Evaluator(model="m", provider="openai")
    ev.parse_answers = lambda output, task, found=case["extracted"]: list(found)
    try:
        got = ev.evaluate(case["proposed"], case["gold"], case["metric"], case["task"], [])
        reward = got["reward"]
        out.append(["ok", reward["f1"] if isinstance(reward, dict) else reward])
    except Exception as exc:
        out.append(["raised", str(exc)])
print(json.dumps(out))
"""


class Listed:
    """A stand-in extraction model that states the case's list."""

    def __init__(self, found: list[str]) -> None:
        self.found = found

    def __call__(self, response: str, *, task: str | None) -> list[str]:
        return list(self.found)


def _ours(case: dict[str, Any]) -> list[Any]:
    got = score(
        case["gold"],
        case["metric"],
        case["proposed"],
        "head_as_is",
        extractor=Listed(case["extracted"]),
        task=case["task"],
    )
    if "upstream_raised" in got.details:
        return ["raised", got.details["upstream_raised"]]
    if got.details.get("metrics", {}).get("empty_prediction"):
        return ["raised", "Hypothesis is empty."]
    return ["ok", got.reward]


def _cases(rng: random.Random) -> list[dict[str, Any]]:
    golds: list[Any] = [None, "", "3", "CA", "May", "Polyester webbing straps", "a cat",
                        ["CA"], ["A", "C"], [None], ["005A", "005B"]]  # fmt: skip
    answers = ["CA", " 3 ", '"3"', "May", "the", "", "Polyester", "P", "a", "None", "cat"]
    lists = [["CA"], ["A", "C"], ["C", "A"], ["None"], ["M", "a", "y"], ["005B", "005A"]]
    cases = []
    for _ in range(300):
        gold = rng.choice(golds)
        metric = "fuzzy_match" if rng.random() < 0.3 else "exact_match"
        if metric == "fuzzy_match" and isinstance(gold, list):
            gold = [rng.choice(["Polyester straps", "a", "Nylon"])]
        cases.append(
            {"gold": gold, "metric": metric, "proposed": rng.choice(answers),
             "extracted": rng.choice(lists), "task": "best_region_identification"}
        )  # fmt: skip
    return cases


def test_head_as_is_is_heads_evaluator(shared_dir: Path, request: pytest.FixtureRequest) -> None:
    """Reward, or the exception HEAD's evaluator raises, for 300 generated cases."""
    import importlib.util
    import os

    from tests.unit.upstream.test_upstream_run import _overlay

    harness = shared_dir / "upstream-harness"
    missing = [m for m in ("sacrebleu", "rouge", "litellm") if importlib.util.find_spec(m) is None]
    if missing or not harness.is_dir():
        pytest.skip(f"needs upstream's harness and {', '.join(missing) or 'its imports'}")
    cases = _cases(random.Random(31))
    path = os.pathsep.join([str(_overlay(request.config)), os.environ.get("PYTHONPATH", "")])
    done = subprocess.run(
        [sys.executable, "-c", _UPSTREAM_EVALUATE, str(harness)],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        timeout=120,
        cwd=harness,
        env={**os.environ, "PYTHONPATH": path},
    )
    if done.returncode != 0 and "ModuleNotFoundError" in done.stderr:
        pytest.skip(done.stderr.strip().splitlines()[-1])
    assert done.returncode == 0, done.stderr[-2000:]
    theirs = json.loads(done.stdout.strip().splitlines()[-1])
    ours = [_ours(case) for case in cases]
    for case, mine, upstream in zip(cases, ours, theirs, strict=True):
        assert mine[0] == upstream[0], case
        if mine[0] == "raised":
            assert mine[1] == upstream[1], case
        else:
            assert mine[1] == pytest.approx(float(upstream[1])), case
    kinds = {tuple(o) if o[0] == "raised" else ("ok", o[1] > 0) for o in theirs}
    assert ("ok", True) in kinds and ("ok", False) in kinds
    assert ("raised", "'NoneType' object is not subscriptable") in kinds


def test_a_null_gold_ends_as_upstreams_exception_row_and_report_sets_it_apart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.unit.upstream.test_cross_check import _crmtui_rows

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    everything = {t.idx: t for t in load_tasks(None, sample_tasks=sample_tasks_path)}
    null, state = everything[22], everything[80]  # gold None; gold "CA"
    scripts = {
        null: [text("<respond>None</respond>")],
        state: [text(f"<respond>{state.answer}</respond>")],
    }
    tasks = TaskSet(list(scripts), "sample")

    def extracting(body: dict[str, Any]) -> Any:
        return text(json.dumps({"extracted_answers": [state.answer]}))

    def run(scoring: str | None, out: str) -> dict[int, Any]:
        fresh = {k: list(v) for k, v in scripts.items()}
        return _crmtui_rows(
            tmp_path / out, tasks, fresh, "react", "head", None, 4, extracting, scoring
        )

    rows = run("head_as_is", "as-is")
    assert rows[22]["reward"] == 0
    assert rows[22]["agent_info"] == {
        "source": "api",
        "content": "Error: 'NoneType' object is not subscriptable",
    }
    assert rows[80]["reward"] == 0  # "CA" compared with its characters
    report = report_folder(tmp_path / "as-is")
    assert report.excluded and report.rows[0].accuracy
    paper = run(None, "paper")  # the preset's default: the paper's method scores both
    assert paper[22]["reward"] == 1 and paper[80]["reward"] == 1


def test_head_as_is_is_for_the_text_protocols() -> None:
    settings = AgentSettings(model="openai/x", strategy="tool_call", scoring="head_as_is")
    with pytest.raises(ConfigError, match="toolenv"):
        resolve(settings)
    react = resolve(AgentSettings(model="openai/x", preset="head", scoring="head_as_is"))
    assert react.scoring == react.list_scoring == "head_as_is"
    assert react.extract_model == "gpt-4o-2024-08-06"  # HEAD extracts with it
