"""Fixtures for the batch/session tests: a small org built once, routing fake servers."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from crmtui.agent.batch import BatchConfig
from crmtui.agent.client import load_litellm
from tests.fakes.openai_server import FakeOpenAI, Reply
from tests.unit.batch.scripted import RoutingFake


@pytest.fixture(scope="session")
def litellm_loaded() -> None:
    load_litellm(online=False)


@pytest.fixture(scope="session")
def built_org(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The small generated org (and its tasks file beside it), built once."""
    from crmtui.org.build import build_org

    out = tmp_path_factory.mktemp("batch-org") / "sample.db"
    build_org(out, seed=7, scale="small", name="sample")
    return out


@pytest.fixture(scope="session")
def org(built_org: Path) -> Any:
    from crmtui.org.store import Org

    return Org.open(built_org)


@pytest.fixture(scope="session")
def tasks(built_org: Path) -> Any:
    from crmtui.data.loaders import load_tasks

    return load_tasks(str(built_org.with_suffix(".tasks.json")))


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> str:
    """litellm's openai provider wants a key; tests use a dummy one from the environment."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-dummy-key")
    return "sk-test-dummy-key"


@pytest.fixture
def routing(litellm_loaded: None) -> Iterator[Callable[..., RoutingFake]]:
    """Start routing fakes: ``routing({instance: [replies]}, extractor=None)``."""
    started: list[RoutingFake] = []

    def start(
        scripts: dict[Any, list[Reply]],
        extractor: Callable[[dict[str, Any]], Reply] | None = None,
    ) -> RoutingFake:
        server = RoutingFake(scripts, extractor).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture
def make_config(tmp_path: Path, tasks: Any, built_org: Path) -> Callable[..., BatchConfig]:
    """A BatchConfig on the built org, recording under tmp, quick retries, no fsync."""

    def build(server: FakeOpenAI, **kwargs: Any) -> BatchConfig:
        options = {"max_retries": 2, "backoff_base_s": 0.01} | kwargs.pop("client_options", {})
        values: dict[str, Any] = {
            "model": "openai/fake",
            "tasks": str(built_org.with_suffix(".tasks.json")),
            "org": str(built_org),
            "out": tmp_path / "out",
            "api_base": server.base_url,
            "timeout": 5.0,
            "fsync": False,
            "client_options": options,
        }
        values.update(kwargs)
        return BatchConfig(**values)

    return build
