"""Configuration mistakes end a run before the first instance: one Error: line, exit 2, no rows.

Over real HTTP against the fake server: a missing key, a 401, a refused connection; plus an
unknown provider and the provider-key table kept in step with litellm.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from crmtui.agent.preflight import (
    PROVIDER_KEYS,
    check_credentials,
    probe_api_base,
    provider_of,
)
from crmtui.errors import ConfigError
from tests.fakes.openai_server import FakeOpenAI, text
from tests.unit.batch.test_run_cli import run as run_cli
from tests.waiting import promptly

ROOT = Path(__file__).resolve().parents[3]


def _argv(built_org: Path, out: Path, *extra: str) -> list[str]:
    return [
        "run",
        "--org", str(built_org),
        "--tasks", str(built_org.with_suffix(".tasks.json")),
        "--out", str(out),
        "--limit", "2",
        *extra,
    ]  # fmt: skip


def _no_rows(out: Path) -> bool:
    return not any(json.loads(p.read_text(encoding="utf-8")) for p in out.glob("results_*.json"))


def test_a_missing_key_stops_before_any_request(
    built_org: Path, tmp_path: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    with FakeOpenAI([text("never")]) as server:
        argv = _argv(
            built_org, tmp_path / "out", "--model", "openai/fake", "--api-base", server.base_url
        )
        code, _, stderr = run_cli(argv, capsys)
        assert server.requests == [] and server.gets == []
    assert code == 2
    (line,) = stderr.strip().splitlines()
    assert line.startswith("Error: OPENAI_API_KEY is not set")
    assert "any value" in line  # a local server: say that any key will do
    assert _no_rows(tmp_path / "out")


def test_a_key_the_server_refuses_is_reported_before_any_instance(
    built_org: Path, tmp_path: Path, capsys: Any
) -> None:
    with FakeOpenAI([text("never")], require_key="sk-the-right-one") as server:
        argv = _argv(
            built_org, tmp_path / "out", "--model", "openai/fake", "--api-base", server.base_url
        )
        code, _, stderr = run_cli(argv, capsys)
        assert server.requests == [] and len(server.gets) == 1
    assert code == 2
    assert stderr.startswith("Error: the server at --api-base") and "HTTP 401" in stderr
    assert "sk-test" not in stderr
    assert _no_rows(tmp_path / "out")


def test_a_refused_connection_names_the_url(built_org: Path, tmp_path: Path, capsys: Any) -> None:
    with FakeOpenAI() as dead:
        url = dead.base_url  # the port is closed once the server stops
    began = time.monotonic()
    code, _, stderr = run_cli(
        _argv(built_org, tmp_path / "out", "--model", "openai/fake", "--api-base", url), capsys
    )
    # At once, not after the client's retries (4, backing off 1+2+4+8 s).
    assert time.monotonic() - began < promptly(3.0, instead=15.0)
    assert code == 2
    assert stderr.startswith(f"Error: cannot reach --api-base {url}")
    assert _no_rows(tmp_path / "out")


def test_a_bad_url_is_refused() -> None:
    with pytest.raises(ConfigError, match="not an http"):
        probe_api_base("localhost:8000")


def test_an_anthropic_model_without_its_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="^ANTHROPIC_API_KEY is not set: --model"):
        check_credentials("anthropic/claude-3-5-sonnet-20240620")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-x")
    check_credentials("anthropic/claude-3-5-sonnet-20240620")


def test_an_explicit_key_needs_no_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    check_credentials("openai/gpt-4o", api_key="sk-given")


def test_an_unknown_provider_is_refused(litellm_loaded: None) -> None:
    with pytest.raises(ConfigError, match="litellm knows no provider"):
        check_credentials("no-such-model-family")


def test_providers_without_a_table_entry_ask_litellm(
    litellm_loaded: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OLLAMA_API_BASE", raising=False)
    with pytest.raises(ConfigError, match="OLLAMA_API_BASE"):
        check_credentials("ollama/llama3")
    check_credentials("ollama/llama3", api_base="http://127.0.0.1:11434")  # the URL is given


@pytest.mark.parametrize(
    "model",
    [
        "openai/gpt-4o-mini",
        "gpt-4o",
        "anthropic/claude-3-5-sonnet-20240620",
        "gemini/gemini-2.5-pro",
        "together_ai/deepseek-ai/DeepSeek-R1",
        "deepseek/deepseek-chat",
        "groq/llama3-70b-8192",
        "mistral/mistral-large-latest",
    ],
)
def test_the_provider_table_agrees_with_litellm(
    model: str, litellm_loaded: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from crmtui.agent.client import load_litellm

    for names in PROVIDER_KEYS.values():
        for name in names:
            monkeypatch.delenv(name, raising=False)
    provider = provider_of(model)
    assert provider is not None
    missing = load_litellm().validate_environment(model=model)["missing_keys"]
    assert set(missing) == set(PROVIDER_KEYS[provider])


def test_a_misconfigured_run_never_imports_litellm(built_org: Path, tmp_path: Path) -> None:
    """The check that fails fast must not pay for litellm's import (seconds)."""
    script = (
        "import sys\n"
        "from crmtui.cli import main\n"
        "try:\n"
        f"    main({_argv(built_org, tmp_path / 'out', '--model', 'openai/gpt-4o')!r})\n"
        "except SystemExit as exc:\n"
        "    assert exc.code == 2, exc.code\n"
        "assert 'litellm' not in sys.modules\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert "Error: OPENAI_API_KEY is not set" in done.stderr


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["--as-user", "--agent-model", "openai/fake", "--agent-api-base"], "--agent-api-base"),
        (["--interactive", "--user-model", "openai/fake", "--user-api-base"], "--user-api-base"),
    ],
)
def test_play_names_the_flag_the_person_gave(
    built_org: Path, tmp_path: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch,
    argv: list[str], named: str,
) -> None:  # fmt: skip
    """`play --as-user --agent-api-base URL` said "cannot reach --api-base URL": a flag the
    person never typed."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    with FakeOpenAI() as dead:
        url = dead.base_url
    play = ["play", "--org", str(built_org), "--annotator", "a", "--recordings", str(tmp_path)]
    code, _, stderr = run_cli([*play, *argv, url], capsys)
    assert code != 0 and stderr.startswith(f"Error: cannot reach {named} {url}")
