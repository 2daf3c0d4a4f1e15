"""Writing and reading exported sessions as a Hugging Face dataset (Parquet).

Lives in ``crmtui.data`` because only this package may import ``datasets`` (always lazily,
so commands that do not export stay fast). The rows are built by
:mod:`crmtui.review.export`; this module only turns them into a dataset file.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from crmtui.errors import DatasetError


@contextmanager
def _no_progress_bars() -> Iterator[Any]:
    """Import ``datasets`` with its progress bars off (a CLI export prints one line)."""
    import datasets

    was_enabled = datasets.is_progress_bar_enabled()
    datasets.disable_progress_bars()
    try:
        yield datasets
    finally:
        if was_enabled:
            datasets.enable_progress_bars()


def save_parquet(rows: Sequence[dict[str, Any]], path: str | os.PathLike[str]) -> Path:
    """Save ``rows`` as one Parquet file through ``datasets.Dataset``.

    Args:
        rows: Flat session rows (every row with the same keys and value types).
        path: The ``.parquet`` file to write (its folder is created).

    Returns:
        The file written.

    Raises:
        DatasetError: If the rows cannot be turned into a dataset or the file written.
    """
    target = Path(path)
    with _no_progress_bars() as datasets:
        try:
            dataset = datasets.Dataset.from_list(list(rows))
            target.parent.mkdir(parents=True, exist_ok=True)
            dataset.to_parquet(str(target))
        except (ValueError, TypeError, OSError) as exc:
            raise DatasetError(f"cannot write {target}: {exc}") from exc
    return target


def load_parquet(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Read an exported Parquet file (or a folder of them) back as a list of rows.

    Raises:
        DatasetError: If the file cannot be read as a dataset.
    """
    source = Path(path)
    files = sorted(str(p) for p in source.glob("*.parquet")) if source.is_dir() else [str(source)]
    if not files:
        raise DatasetError(f"no .parquet files in {source}")
    with _no_progress_bars() as datasets:
        try:
            dataset = datasets.load_dataset("parquet", data_files=files, split="train")
        except (ValueError, OSError) as exc:
            raise DatasetError(f"cannot read {source}: {exc}") from exc
    return list(dataset.to_list())
