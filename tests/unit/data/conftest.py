"""Fixtures for the data tests: made-up rows in the real HF row shape, written to files."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.unit.data.rowkit import sample_rows, write_json, write_jsonl, write_parquet


@pytest.fixture
def rows() -> list[dict[str, Any]]:
    """Fresh copies of the sample rows."""
    return sample_rows()


@pytest.fixture
def json_tasks(tmp_path: Path) -> Path:
    """A JSON task file holding the sample rows."""
    return write_json(tmp_path / "tasks.json", sample_rows())


@pytest.fixture
def writer() -> Callable[..., Path]:
    """Write rows in a format chosen by suffix: .json, .jsonl, .parquet."""

    def write(path: Path, rows: Any) -> Path:
        if path.suffix == ".jsonl":
            return write_jsonl(path, rows)
        if path.suffix == ".parquet":
            return write_parquet(path, rows)
        return write_json(path, rows)

    return write
