"""A ``--deployments`` file is bounded and validated before anything runs (issue #35).

The property: whatever is at the path (a FIFO with no writer, a device, a file of 200,000
entries, bytes that are not UTF-8, 5,000 levels of nesting, ``NaN`` or an infinite
cooldown), ``read_deployments`` answers at once with one ``ConfigError`` line, never a hang,
an internal error or a run that fails later.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from crmtui.agent.deployments import MAX_DEPLOYMENTS, read_deployments
from crmtui.errors import ConfigError
from tests.waiting import PATIENCE_S, promptly

GOOD = {"api_base": "http://127.0.0.1:9/v1"}


def _write(tmp_path: Path, data: bytes | str) -> Path:
    path = tmp_path / "d.json"
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    return path


def _refused(path: Path, match: str) -> None:
    began = time.monotonic()
    with pytest.raises(ConfigError, match=match) as caught:
        read_deployments(path)
    assert "\n" not in str(caught.value)
    assert time.monotonic() - began < promptly(10.0, instead=PATIENCE_S)  # not after a wait


def test_a_fifo_is_refused_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    _refused(fifo, "not a regular file")


def test_a_device_is_refused() -> None:
    _refused(Path("/dev/zero"), "not a regular file")


def test_too_many_entries(tmp_path: Path) -> None:
    body = json.dumps([{**GOOD, "name": f"d{i}"} for i in range(200_000)])
    _refused(_write(tmp_path, body), "larger than|at most")
    small = json.dumps([{**GOOD, "name": f"d{i}"} for i in range(MAX_DEPLOYMENTS + 1)])
    _refused(_write(tmp_path, small), f"at most {MAX_DEPLOYMENTS:,}")


def test_not_utf8(tmp_path: Path) -> None:
    _refused(_write(tmp_path, b'[{"api_base": "http://h\xe9/v1"}]'), "not UTF-8")


@pytest.mark.parametrize("depth", [9, 5000])
def test_deep_nesting(tmp_path: Path, depth: int) -> None:
    _refused(_write(tmp_path, "[" * depth + "]" * depth), "nested|not usable JSON")


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity", "1e999", "-1", "1e9"])
def test_a_cooldown_that_is_not_a_finite_number_of_seconds(tmp_path: Path, value: str) -> None:
    body = f'{{"deployments": [{json.dumps(GOOD)}], "cooldown_s": {value}}}'
    _refused(_write(tmp_path, body), "cooldown_s|not a number")


def test_a_good_file_still_reads(tmp_path: Path) -> None:
    body = json.dumps({"deployments": [GOOD], "cooldown_s": 5, "retries": 1})
    assert read_deployments(_write(tmp_path, body)).cooldown_s == 5.0
