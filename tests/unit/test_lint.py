"""The tree stays ruff-clean (the rules in pyproject.toml: E, F, W, I, B, UP, SIM)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _ruff() -> list[str] | None:
    local = Path(sys.executable).with_name("ruff")
    if local.exists():
        return [str(local)]
    found = shutil.which("ruff")
    return [found] if found else None


@pytest.mark.skipif(_ruff() is None, reason="ruff is not installed")
def test_ruff_check_is_clean() -> None:
    command = [*(_ruff() or []), "check", "--no-cache", "crmtui", "tests", "scripts", "benchmarks"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:]
