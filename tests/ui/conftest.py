"""UI test fixtures: one small sample org per test session, a fake clock, a frozen wall; a
small CRMArena-Pro org and a scripted simulated user for the multi-turn tests."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest

from crmtui.config import PlayConfig


class FakeClock:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class FrozenWall:
    """A wall clock that advances 1 ms per call (deterministic timestamps)."""

    def __init__(self) -> None:
        self.moment = dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.UTC)

    def __call__(self) -> dt.datetime:
        self.moment += dt.timedelta(milliseconds=1)
        return self.moment


@pytest.fixture(scope="session")
def sample_org_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small sample org (and its tasks file) built once for the UI tests."""
    from crmtui.org.build import build_org

    out = tmp_path_factory.mktemp("ui-org") / "sample.db"
    build_org(out, seed=7, scale="small", name="sample")
    return out


@pytest.fixture
def workspace(sample_org_path: Path) -> Any:
    """The org and its tasks, loaded."""
    from crmtui.data.loaders import load_tasks
    from crmtui.org.store import Org
    from crmtui.play.workspace import Workspace

    tasks_path = sample_org_path.with_suffix(".tasks.json")
    # Read with the json module, not through ``datasets`` (the same instances: the loaders'
    # own tests cover that path): ``datasets`` cost 0.25 s of CPU a test (an Arrow cache in
    # each test's fresh home) and its import 0.8-2.4 s and 80,000 objects a worker, which every
    # later full collection of the heap (``crmtui.ui.heap.settle_heap``) scanned again.
    tasks = load_tasks(str(tasks_path), via_datasets=False)
    return Workspace(org=Org.open(sample_org_path), tasks=tasks, tasks_label="sample")


@pytest.fixture
def play_config(tmp_path: Path) -> PlayConfig:
    """Settings for a deterministic play session recorded under tmp."""
    return PlayConfig(annotator="tester", recordings=tmp_path / "recordings", fsync=False)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def wall() -> FrozenWall:
    return FrozenWall()


@pytest.fixture
def snap_compare(snap_compare: Any) -> Any:
    """The snapshot plugin's compare, with a steady text cursor.

    A blinking cursor is drawn or not depending on when, within its half-second phase, the
    picture is taken: on a slow machine that flips a snapshot at random.
    """

    def compare(app: Any, *args: Any, **kwargs: Any) -> bool:
        if hasattr(app, "steady_cursor"):
            app.steady_cursor = True
        return snap_compare(app, *args, **kwargs)

    return compare


@pytest.fixture
def pro_workspace(tmp_path: Path) -> Any:
    """A small CRMArena-Pro org with its tasks (tests/fixtures/pro_org.py)."""
    from crmtui.data.instances import TaskSet
    from crmtui.play.workspace import Workspace
    from tests.fixtures import pro_org as fx

    org = fx.build_pro_org(tmp_path)
    return Workspace(org=org, tasks=TaskSet.from_rows(fx.PRO_ROWS, "pro"), tasks_label="pro")


@pytest.fixture
def user_server(monkeypatch: pytest.MonkeyPatch) -> Any:
    """A scripted simulated user over real HTTP (tests/fakes/openai_server.py)."""
    from tests.fakes.openai_server import FakeOpenAI

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    with FakeOpenAI(model_name="user") as server:
        yield server


@pytest.fixture(scope="session")
def pro_sample_paths(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """``sample-b2b`` and ``sample-b2c`` as ``crmtui org build`` makes them (seed 7, small,
    every Pro task type), built once: ``{"b2b": path, "b2c": path}``."""
    from crmtui.org.build import build_org

    root = tmp_path_factory.mktemp("pro-samples")
    paths = {}
    for org_type in ("b2b", "b2c"):
        out = root / f"sample-{org_type}.db"
        build_org(out, seed=7, scale="small", name=f"sample-{org_type}", org_type=org_type)
        paths[org_type] = out
    return paths
