"""build_org end to end: org file, task files, counts, digest, progress."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crmtui.errors import ConfigError
from crmtui.org.build import build_org

store = pytest.importorskip("crmtui.org.store")
pytest.importorskip("crmtui.org.tasks")


def test_build_small_org_end_to_end(tmp_path: Path) -> None:
    stages: list[tuple[str, float]] = []
    result = build_org(tmp_path / "demo.db", seed=7, progress=lambda s, f: stages.append((s, f)))

    assert result.path == tmp_path / "demo.db"
    assert result.tasks_path == tmp_path / "demo.tasks.json"
    assert result.solutions_path == tmp_path / "demo.solutions.json"
    assert result.seconds > 0  # its speed target is benchmarks/bench_build.py's, not an assert

    org = store.Org.open(result.path)
    assert org.meta["seed"] == "7" and org.meta["scale"] == "small"
    assert org.meta["source"] == "crmtui generator"
    assert org.digest == result.digest
    for obj, count in result.counts.items():
        assert org.count(obj) == count

    rows = json.loads(result.tasks_path.read_text(encoding="utf-8"))
    solutions = json.loads(result.solutions_path.read_text(encoding="utf-8"))
    assert len(rows) == 9 * 10
    assert [r["idx"] for r in rows] == list(range(90))
    assert set(solutions) == {str(r["idx"]) for r in rows}

    fractions = [f for _, f in stages]
    assert fractions == sorted(fractions) and fractions[0] == 0.0 and fractions[-1] == 1.0


def test_same_seed_builds_the_same_digest(tmp_path: Path) -> None:
    first = build_org(tmp_path / "a.db", seed=3)
    second = build_org(tmp_path / "b.db", seed=3)
    assert first.digest == second.digest
    assert first.tasks_path.read_text() == second.tasks_path.read_text()


def test_bad_scale_and_seed_are_config_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="unknown org scale"):
        build_org(tmp_path / "x.db", scale="medium")
    with pytest.raises(ConfigError, match="seed must be an integer"):
        build_org(tmp_path / "x.db", seed="7")  # type: ignore[arg-type]
    assert not (tmp_path / "x.db").exists()
