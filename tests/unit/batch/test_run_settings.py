"""A results folder remembers how it was made: resume only with the same settings, merge rows,
one run at a time."""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path
from typing import Any

import pytest

from crmtui.agent.batch import run_batch
from crmtui.agent.out_lock import LOCK_NAME, OutInUse, OutLock
from crmtui.agent.run_state import settings_path
from crmtui.errors import ConfigError
from tests.fakes.openai_server import text
from tests.unit.batch.scripted import gold_text, solving_script


def _first(tasks: Any, n: int = 1) -> list[Any]:
    return [inst for inst in tasks if inst.task == "handle_time"][:n]


def _rows(path: Path) -> list[dict[str, Any]]:
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture
def done_once(routing, make_config, tasks, org) -> tuple[Any, Any]:
    """One instance run to the end with default settings; returns (config, report)."""
    (inst,) = _first(tasks)
    server = routing({inst: solving_script(inst, "react")})
    config = make_config(server, idxs=(inst.idx,))
    return config, run_batch(config, org=org, tasks=tasks)


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"aided": True}, "aided false -> true"),
        ({"max_turns": 5}, "max_turns 20 -> 5"),
        ({"max_tokens": 100}, "max_tokens 2000 -> 100"),
        ({"temperature": 0.5}, "temperature 0.0 -> 0.5"),
        ({"date_literals": "wallclock"}, "date_literals instance -> wallclock"),
        ({"date_literals": "2024-05-26"}, "date_literals instance -> 2024-05-26"),
        ({"scoring": "paper"}, "scoring strict -> paper"),
        ({"llm_extract": True, "extract_model": "openai/fake"}, "scoring strict -> llm_extract"),
        ({"max_observation": 0}, "observation_chars 40000 -> null"),
        ({"preset": "upstream"}, "preset crmtui -> upstream"),
    ],
)
def test_resuming_with_another_setting_is_refused(
    done_once, make_config, routing, tasks, org, change: dict[str, Any], named: str
) -> None:
    config, report = done_once
    before = report.results_path.read_text(encoding="utf-8")
    server = routing({})
    changed = make_config(server, idxs=config.idxs, **change)

    with pytest.raises(ConfigError, match="was made with other settings") as info:
        run_batch(changed, org=org, tasks=tasks)

    assert named in str(info.value) and "--fresh" in str(info.value)
    assert server.requests == []
    assert report.results_path.read_text(encoding="utf-8") == before


def test_every_difference_is_named_at_once(done_once, make_config, routing, tasks, org) -> None:
    config, _ = done_once
    changed = make_config(routing({}), idxs=config.idxs, aided=True, max_turns=3)
    with pytest.raises(ConfigError) as info:
        run_batch(changed, org=org, tasks=tasks)
    assert "aided false -> true" in str(info.value) and "max_turns 20 -> 3" in str(info.value)


def test_other_tasks_are_refused(done_once, make_config, routing, tasks, org, tmp_path) -> None:
    from crmtui.data.loaders import load_tasks

    config, _ = done_once
    rows = [inst.to_row() for inst in tasks]
    rows[0]["query"] += " Please."
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(rows), encoding="utf-8")
    changed = make_config(routing({}), idxs=config.idxs, tasks=str(edited))
    with pytest.raises(ConfigError, match="tasks_digest"):
        run_batch(changed, org=org, tasks=load_tasks(str(edited)))


def test_a_change_outside_the_resume_key_resumes(done_once, make_config, routing, tasks, org):
    config, _ = done_once
    report = run_batch(
        make_config(routing({}), idxs=config.idxs, time_limit_s=30, concurrency=2),
        org=org,
        tasks=tasks,
    )
    assert report.resumed and report.tally.skipped == 1 and report.outcomes == []


def test_fresh_keeps_the_old_files_and_runs_again(
    done_once, make_config, routing, tasks, org
) -> None:
    config, report = done_once
    (inst,) = _first(tasks)
    old_settings = json.loads(settings_path(report.results_path).read_text(encoding="utf-8"))
    server = routing({inst: [text(f"<respond>{gold_text(inst.answer)}</respond>")]})

    again = run_batch(
        make_config(server, idxs=config.idxs, aided=True, fresh=True), org=org, tasks=tasks
    )

    assert again.tally.skipped == 0 and len(again.outcomes) == 1
    kept = sorted(p.name for p in config.out.glob("*.replaced-*"))
    assert len(kept) == 2  # the old results and settings files, set aside
    new_settings = json.loads(settings_path(again.results_path).read_text(encoding="utf-8"))
    assert new_settings["run_id"] != old_settings["run_id"]
    assert new_settings["settings"]["aided"] is True


def test_a_results_file_without_settings_is_not_resumed_blindly(
    make_config, routing, tasks, org
) -> None:
    config = make_config(routing({}), idxs=(_first(tasks)[0].idx,))
    config.out.mkdir(parents=True)
    legacy = config.out / "results_openai-fake_react_all.json"
    legacy.write_text("[]\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="no settings file beside it"):
        run_batch(config, org=org, tasks=tasks)


def test_settings_are_recorded_everywhere(done_once) -> None:
    config, report = done_once
    from crmtui.record.verify import load

    saved = json.loads(settings_path(report.results_path).read_text(encoding="utf-8"))
    settings = saved["settings"]
    for key in ("preset", "model", "strategy", "prompts", "tasks_digest", "org_digest",
                "aided", "max_turns", "max_tokens", "temperature", "date_literals",
                "scoring", "extract_model", "observation_chars"):  # fmt: skip
        assert key in settings
    assert settings["preset"] == "crmtui" and settings["max_tokens"] == 2000
    (row,) = _rows(report.results_path)
    assert row["crmtui"]["settings"] == settings
    header = load(report.outcomes[0].path).header
    assert header["settings"] == settings and header["run_id"] == saved["run_id"]


def test_results_are_merged_across_selections(routing, make_config, tasks, org) -> None:
    a, b = _first(tasks, 2)
    server = routing({a: solving_script(a, "react"), b: solving_script(b, "react")})
    first = run_batch(make_config(server, idxs=(a.idx,)), org=org, tasks=tasks)
    second = run_batch(make_config(server, idxs=(b.idx,)), org=org, tasks=tasks)
    assert first.results_path == second.results_path
    assert [r["task_id"] for r in _rows(second.results_path)] == sorted([a.idx, b.idx])
    assert second.summary[-1].n == 2


def test_a_second_run_on_the_same_out_says_who_holds_it(make_config, routing, tasks, org):
    config = make_config(routing({}), idxs=(_first(tasks)[0].idx,))
    with OutLock(config.out), pytest.raises(OutInUse) as info:
        run_batch(config, org=org, tasks=tasks)
    message = str(info.value)
    assert f"pid {os.getpid()}" in message and socket.gethostname() in message
    assert "since 20" in message and "choose another --out" in message
    assert info.value.exit_code == 2


def test_a_stale_lock_of_a_dead_process_is_taken_over(routing, make_config, tasks, org) -> None:
    (inst,) = _first(tasks)
    config = make_config(routing({inst: solving_script(inst, "react")}), idxs=(inst.idx,))
    config.out.mkdir(parents=True)
    stale = {"pid": 2**22 + 17, "host": socket.gethostname(), "started_at": "2020-01-01"}
    (config.out / LOCK_NAME).write_text(json.dumps(stale), encoding="utf-8")
    report = run_batch(config, org=org, tasks=tasks)
    assert report.tally.right == 1
    assert OutLock(config.out).read() == {}  # released at the end


@pytest.mark.parametrize(
    ("mode", "wallclock", "expected"),
    [
        ("instance", None, None),
        ("wallclock", "2030-01-02", "2030-01-02"),
        ("2024-01-15", None, "2024-01-15"),
    ],
)
def test_date_literals_decide_today_and_are_recorded(
    routing, make_config, tasks, org, mode: str, wallclock: str | None, expected: str | None
) -> None:
    import datetime as dt

    from crmtui.record.verify import load

    (inst,) = _first(tasks)
    query = "SELECT COUNT(Id) n FROM Case WHERE CreatedDate = LAST_N_DAYS:30"
    server = routing({inst: [text(f"<execute>{query}</execute>"), text("<respond>0</respond>")]})
    config = make_config(
        server,
        idxs=(inst.idx,),
        date_literals=None if mode == "instance" else mode,
        wallclock=dt.date.fromisoformat(wallclock) if wallclock else None,
    )
    (outcome,) = run_batch(config, org=org, tasks=tasks).outcomes
    recording = load(outcome.path)
    today = expected or inst.today.isoformat()
    assert recording.header["today"] == today
    assert recording.header["settings"]["date_literals"] == mode
    assert recording.of_type("run_query")[0].payload["error"] is None


def test_budget_and_sampling_follow_the_strategy_and_model_family(
    routing, make_config, tasks, org
) -> None:
    (inst,) = _first(tasks)
    server = routing({inst: solving_script(inst, "tool_call")})
    run_batch(make_config(server, idxs=(inst.idx,), strategy="tool_call"), org=org, tasks=tasks)
    assert server.requests[0]["max_tokens"] == 3500 and server.requests[0]["temperature"] == 0.0

    server = routing({inst: solving_script(inst, "react")})
    config = make_config(
        server, idxs=(inst.idx,), model="openai/o3-mini", out=org.path.parent / "o3"
    )
    assert config.client().max_tokens == 50000 and config.client().temperature is None
    explicit = make_config(server, max_tokens=123, temperature=0.7)
    assert (explicit.client().max_tokens, explicit.client().temperature) == (123, 0.7)
