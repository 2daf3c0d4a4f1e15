"""Task files, recordings and the CLI under hostile input: one clear refusal, never a crash.

The quick CI share of ``scripts/fuzz.py --target tasks,recordings,cli`` (same generators,
``fuzz_inputs``): every input either works or is refused by a crmtui error; ``verify`` and
loading agree on every recording; the CLI never prints a traceback or an internal error and
exits only with a status from ``crmtui.exit_codes``.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.unit.data.rowkit import make_row

from .fuzz_inputs import (
    INPUT_FAILURES,
    InputFuzzer,
    check_recording,
    check_task_file,
    cli_argv,
    run_cli,
)
from .fuzzgen import QueryFuzzer

EXAMPLES = Path(__file__).resolve().parents[2] / "recordings"


def _fuzzer(seed: int) -> InputFuzzer:
    recordings = [p.read_bytes() for p in sorted(EXAMPLES.rglob("*.jsonl"))]
    assert recordings, "the example recordings are the fuzzer's seeds"
    return InputFuzzer([make_row(i) for i in range(4)], recordings, seed)


def _tally(outcomes: dict[str, int], outcome: str, detail: str, what: Any) -> None:
    assert outcome not in INPUT_FAILURES, f"{outcome}: {detail}\nfor {what!r:.400}"
    outcomes[outcome] = outcomes.get(outcome, 0) + 1


def test_hostile_task_files(tmp_path: Path) -> None:
    fuzzer = _fuzzer(141)
    outcomes: dict[str, int] = {}
    for i in range(250):
        suffix, data = fuzzer.task_file()
        path = tmp_path / f"t{i}{suffix}"
        path.write_bytes(data)
        _tally(outcomes, *check_task_file(path), data[:300])
    # Both sides are reached: files that load and files refused by name.
    assert outcomes.get("ok", 0) > 5 and outcomes.get("refused:DatasetError", 0) > 50


def test_hostile_recordings(tmp_path: Path) -> None:
    fuzzer = _fuzzer(142)
    outcomes: dict[str, int] = {}
    for i in range(250):
        path = tmp_path / f"r{i}.jsonl"
        data = fuzzer.recording()
        path.write_bytes(data)
        _tally(outcomes, *check_recording(path), data[:300])
    assert outcomes.get("ok", 0) > 10 and outcomes.get("refused:RecordingError", 0) > 50


@pytest.mark.parametrize("seed", [143, 144])
def test_hostile_command_lines(gen_fts_org: Any, tmp_path: Path, seed: int) -> None:
    fuzzer = _fuzzer(seed)
    queries = QueryFuzzer(gen_fts_org.schema, seed)
    recordings = tmp_path / "recs"
    recordings.mkdir()
    files = {
        "tasks": tmp_path / "tasks.json",
        "recording": recordings / "r.jsonl",
        "recordings": recordings,
        "out": tmp_path / "out.jsonl",
    }
    outcomes: dict[str, int] = {}
    for _ in range(40):
        files["tasks"].write_bytes(fuzzer.task_file()[1])
        files["recording"].write_bytes(fuzzer.recording())
        argv, stdin = cli_argv(fuzzer.rng, queries.next, files)
        if argv[0] == "query":
            argv[1:1] = ["--org", str(gen_fts_org.path)]
        _tally(outcomes, *run_cli(argv, stdin=stdin), argv)
    shutil.rmtree(recordings)
    assert outcomes.get("exit:0", 0) > 3 and outcomes.get("exit:1", 0) + outcomes.get("exit:2", 0)


@pytest.mark.parametrize("strategy", ["react", "tool_call"])
def test_hostile_model_replies(gen_fts_org: Any, tmp_path: Path, strategy: str) -> None:
    from crmtui.data.instances import Instance

    from .fuzz_agent import AGENT_FAILURES, ReplyFuzzer, run_episode

    instance = Instance.from_row(make_row(3))
    queries = QueryFuzzer(gen_fts_org.schema, 145)
    fuzzer = ReplyFuzzer(queries.next, seed=146 if strategy == "react" else 147)
    outcomes: dict[str, int] = {}
    for _ in range(40):
        outcome, detail = run_episode(fuzzer, instance, gen_fts_org, tmp_path, strategy)
        assert outcome not in AGENT_FAILURES, f"{outcome}: {detail}"
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    # Episodes end in several ways, malformed replies among them, none as a harness error.
    assert len(outcomes) >= 3, outcomes
