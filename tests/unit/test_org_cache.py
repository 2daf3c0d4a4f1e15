"""The test run's org cache (tests/org_cache.py) gives what a real build gives: the same
tables, meta, tasks and solutions, built once per set of arguments."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

from crmtui.org.build import build_org as real_build
from crmtui.org.store import Org
from tests.org_cache import cached_builder


def _meta(path: Path) -> dict[str, Any]:
    """An org's meta but the moment it was written (two real builds differ there too)."""
    return {k: v for k, v in Org.open(path).meta.items() if k != "created_at"}


def _counted(folder: Path) -> tuple[Any, list[Path]]:
    """A cached builder over the real build, and the list of the real builds it made."""
    calls: list[Path] = []

    def counting(out: Path, **kwargs: Any) -> Any:
        calls.append(out)
        return real_build(out, **kwargs)

    counting.__signature__ = inspect.signature(real_build)  # type: ignore[attr-defined]
    return cached_builder(counting, folder), calls


def test_a_cached_build_is_the_real_build_and_runs_once(tmp_path: Path) -> None:
    cached, calls = _counted(tmp_path / "cache")
    real = real_build(tmp_path / "real" / "sample.db", seed=3, scale="small")
    first = cached(tmp_path / "a" / "sample.db", seed=3, scale="small")
    second = cached(tmp_path / "b" / "sample.db", seed=3)  # the same, by its defaults
    assert len(calls) == 1
    for copy in (first, second):
        assert copy.digest == real.digest and copy.counts == real.counts
        assert _meta(copy.path) == _meta(real.path) and Org.open(copy.path).digest == real.digest
        for path in ("tasks_path", "solutions_path"):
            assert getattr(copy, path).read_bytes() == getattr(real, path).read_bytes()
    other_name = cached(tmp_path / "c" / "other.db", seed=3)  # the name is in the org's meta
    assert len(calls) == 2 and other_name.path.name == "other.db"


def test_a_watched_build_is_never_cached(tmp_path: Path) -> None:
    cached, calls = _counted(tmp_path / "cache")
    stages: list[str] = []
    for n in range(2):
        cached(tmp_path / f"{n}.db", seed=3, progress=lambda stage, f: stages.append(stage))
    assert len(calls) == 2 and stages.count("Done") == 2
