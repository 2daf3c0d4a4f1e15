"""Task files, recordings, orgs, the CLI and serve-rest under hostile input: one clear
refusal, never a crash.

The quick CI share of ``scripts/fuzz.py --tasks/--recordings/--tampered/--orgs/--cli/--http``
(same generators: ``fuzz_inputs``, ``fuzz_damage``, ``fuzz_http``): every input either works
or is refused by a crmtui error; ``verify`` and loading agree on every recording, and a
recording edited as text never verifies as intact and finished; the CLI never prints a
traceback, an internal error or a raw control character and exits only with a status from
``crmtui.exit_codes``, damaged org files included; serve-rest answers or closes every hostile
request without writing to stderr, and keeps serving.
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


def test_recordings_edited_as_text_are_never_intact_and_finished(tmp_path: Path) -> None:
    from .fuzz_damage import check_tampered, tampered_recording

    fuzzer = _fuzzer(148)
    outcomes: dict[str, int] = {}
    for i in range(120):
        what, data = tampered_recording(fuzzer.rng, fuzzer.recordings)
        path = tmp_path / f"t{i}.jsonl"
        path.write_bytes(data)
        _tally(outcomes, *check_tampered(path), what)
    assert outcomes.get("named", 0) > 50 and outcomes.get("unfinished", 0) > 10


def test_damaged_orgs_are_one_line(gen_fts_org: Any, tmp_path: Path) -> None:
    import random

    from .fuzz_damage import damaged_org, damaged_org_argv

    rng = random.Random(149)
    queries = QueryFuzzer(gen_fts_org.schema, 149)
    outcomes: dict[str, int] = {}
    for i in range(24):
        path = tmp_path / f"damaged{i}.db"
        what = damaged_org(rng, Path(gen_fts_org.path), path)
        argv = damaged_org_argv(rng, path, queries.next)
        _tally(outcomes, *run_cli(argv), f"{what}: {argv}")
    assert outcomes.get("exit:1", 0) > 5, outcomes


def test_hostile_http_requests(gen_fts_org: Any) -> None:
    import random

    from crmtui.rest import RestApi, RestServer

    from .fuzz_http import HTTP_FAILURES, check_http, hostile_request

    session = "00DFUZZ!fuzz"
    server = RestServer(RestApi(gen_fts_org, session), request_timeout_s=0.5).start()
    rng = random.Random(150)
    outcomes: dict[str, int] = {}
    try:
        for _ in range(60):
            data, hang_up = hostile_request(rng, session)
            outcome, detail = check_http(server, data, hang_up, session)
            assert outcome not in HTTP_FAILURES, f"{outcome}: {detail}"
            outcomes[outcome] = outcomes.get(outcome, 0) + 1
    finally:
        server.stop()
    assert outcomes.get("answered:400", 0) >= 3 and outcomes.get("answered:200", 0), outcomes
