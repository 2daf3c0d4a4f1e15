"""Upstream's tool schemas come from the user's upstream harness folder, read at run time."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crmtui.agent.presets import resolve
from crmtui.agent.settings import AgentSettings
from crmtui.agent.strategies import make_strategy
from crmtui.agent.upstream_texts import ENV_VAR, find_harness, upstream_tool_specs
from crmtui.errors import ConfigError
from tests.fakes.upstream_harness import write_fake_harness


def test_presets_send_the_folders_own_schemas_and_crmtui_keeps_its_own(tmp_path: Path) -> None:
    for version, answer in (("naacl", "submit"), ("head", "respond")):
        folder = write_fake_harness(tmp_path / version, version)
        # Edit the folder's text: what is sent must follow the folder, not a copy in crmtui.
        functions = folder / "crm_sandbox" / "env" / "functions.py"
        functions.write_text(
            functions.read_text().replace("Search products;", "FOLDER TEXT;"), encoding="utf-8"
        )
        for strategy, count in (("tool_call", 25), ("tool_call_flex", 27)):
            played = make_strategy(
                strategy, toolset="upstream", observations=version, upstream_dir=str(folder)
            )
            tools = played.tools or []
            assert len(tools) == count
            assert tools == upstream_tool_specs(version, full=count == 27, named=folder)
            assert answer in {t["function"]["name"] for t in tools}
            assert "FOLDER TEXT" in json.dumps(tools)
    ours = make_strategy("tool_call", toolset="upstream").tools or []
    assert "FOLDER TEXT" not in json.dumps(ours)


def test_top_p_is_upstreams_under_its_presets_only() -> None:
    for preset, top_p in (("crmtui", None), ("naacl", 1.0), ("head", 1.0)):
        for strategy in ("react", "tool_call"):
            resolved = resolve(
                AgentSettings(model="openai/gpt-4o", strategy=strategy, preset=preset)
            )
            assert resolved.top_p == top_p and resolved.to_json()["top_p"] == top_p
    # No temperature sent (o3-mini), no top_p either, as upstream drops it.
    assert resolve(AgentSettings(model="openai/o3-mini", preset="head")).top_p is None


def test_a_missing_or_wrong_folder_is_one_line_saying_how_to_get_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "nowhere"))
    with pytest.raises(ConfigError, match="crmtui upstream setup") as caught:
        find_harness("head")
    assert "\n" not in str(caught.value)
    naacl = write_fake_harness(tmp_path / "naacl", "naacl")
    with pytest.raises(ConfigError, match="holds naacl"):
        find_harness("head", naacl)
    with pytest.raises(ConfigError, match="is not upstream's"):
        find_harness("head", tmp_path)
    assert find_harness("naacl", naacl) == naacl.resolve()
    # A folder `crmtui upstream setup` recorded is found without being named.
    home = Path(__import__("os").environ["CRMTUI_HOME"])
    env = home / "upstream" / "CRMArena-0123456789"
    env.mkdir(parents=True)
    head = write_fake_harness(tmp_path / "head", "head")
    (env / "crmtui-environment.json").write_text(json.dumps({"folder": str(head)}))
    assert find_harness("head") == head.resolve()


def test_run_without_a_harness_says_how_to_get_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from crmtui.cli import main

    monkeypatch.setenv(ENV_VAR, str(tmp_path / "nowhere"))
    args = ["run", "--model", "openai/x", "--preset", "naacl", "--strategy", "tool_call_flex"]
    with pytest.raises(SystemExit) as exited:
        main([*args, "--out", str(tmp_path / "out")])
    assert exited.value.code != 0
    said = capsys.readouterr().err.strip().splitlines()
    assert len(said) == 1 and said[0].startswith("Error: ")
    assert "crmtui upstream setup <folder> --version naacl" in said[0]


@pytest.mark.parametrize(
    ("reader", "says"),
    [
        ("crmtui.agent.upstream_texts:upstream_tool_specs", "tool schemas"),
        ("crmtui.agent.upstream_prompts:upstream_prompts", "prompts"),
        ("crmtui.agent.upstream_user_texts:user_texts", "simulated user prompts"),
        ("crmtui.agent.upstream_user_texts:evaluator_texts", "answer extractor and judge prompts"),
    ],
)
def test_each_reader_says_what_it_reads_when_there_is_no_harness(
    reader, says, monkeypatch, tmp_path
):
    """No harness anywhere: each reader's one line names what the preset would have read."""
    import importlib

    monkeypatch.setenv(ENV_VAR, str(tmp_path / "nowhere"))
    monkeypatch.setattr("crmtui.agent.upstream_texts._candidates", lambda named: [])
    module, name = reader.split(":")
    call = getattr(importlib.import_module(module), name)
    with pytest.raises(ConfigError) as caught:
        call() if name in ("user_texts", "evaluator_texts") else call("head")
    message = str(caught.value)
    assert f"sends upstream's own {says}, read from upstream's harness" in message
    assert "\n" not in message
