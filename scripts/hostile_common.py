"""Shared pieces of the hostile-surfaces battery (scripts/hostile_surfaces.py): the result
table, the CLI runner and a scripted OpenAI-compatible model server on 127.0.0.1."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CRMTUI = [str(Path(sys.executable).with_name("crmtui"))]
STOP = "###STOP###"


@dataclass
class Row:
    """One probe's outcome."""

    group: str
    probe: str
    outcome: str
    held: bool


ROWS: list[Row] = []


def row(group: str, probe: str, outcome: str, held: bool) -> None:
    ROWS.append(Row(group, probe, outcome, held))
    mark = "ok  " if held else "FAIL"
    print(f"{mark} {group:<12} {probe:<44} {outcome}", flush=True)


def crmtui(*args: str, home: Path, timeout: float = 120) -> tuple[int, str, float]:
    """Run the CLI; (exit status, stdout+stderr, seconds)."""
    env = {**os.environ, "CRMTUI_HOME": str(home), "OPENAI_API_KEY": "sk-probe-not-a-key"}
    began = time.monotonic()
    try:
        done = subprocess.run(
            [*CRMTUI, *args], capture_output=True, text=True, env=env, timeout=timeout, cwd=ROOT
        )
    except subprocess.TimeoutExpired:
        return -1, f"hung past {timeout:g} s", time.monotonic() - began
    return done.returncode, done.stdout + done.stderr, time.monotonic() - began


def one_error_line(code: int, said: str) -> bool:
    lines = [line for line in said.strip().splitlines() if line.strip()]
    return code not in (0, -1) and len(lines) == 1 and lines[0].startswith("Error:")


# -- a scripted model server ---------------------------------------------------------------


class Models:
    """An OpenAI-compatible server: ``plan[model]`` gives each call's ``(delay_s, text)``."""

    def __init__(self) -> None:
        self.plan: dict[str, list[tuple[float, str]]] = {}
        self._lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802 - stdlib naming
                self._send({"object": "list", "data": [{"id": "agent"}, {"id": "user"}]})

            def do_POST(self) -> None:  # noqa: N802 - stdlib naming
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                model = str(body.get("model", "")).split("/")[-1]
                with owner._lock:
                    queue = owner.plan.get(model) or [(0.0, "<respond>none</respond>")]
                    delay, text = queue.pop(0) if len(queue) > 1 else queue[0]
                time.sleep(delay)
                with contextlib.suppress(OSError):
                    self._send({
                        "id": "c1", "object": "chat.completion", "created": 0, "model": model,
                        "choices": [{"index": 0, "finish_reason": "stop",
                                     "message": {"role": "assistant", "content": text}}],
                        "usage": {"prompt_tokens": 10, "completion_tokens": 5,
                                  "total_tokens": 15},
                    })  # fmt: skip

            def _send(self, value: dict[str, Any]) -> None:
                data = json.dumps(value).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"


# -- recordings to attack -------------------------------------------------------------------
