"""Fixtures for the agent tests: litellm loaded once, the fake OpenAI server, and a
ModelClient pointed at it (litellm over real local HTTP)."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from crmtui.agent.client import ModelClient, load_litellm
from tests.fakes.openai_server import FakeOpenAI


@pytest.fixture(scope="session")
def litellm_loaded() -> None:
    """Import litellm once per session (~3 s) so per-test timings stay honest."""
    load_litellm(online=False)


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


@pytest.fixture
def sleeps() -> list[float]:
    return []


@pytest.fixture
def make_client(
    litellm_loaded: None, server: FakeOpenAI, sleeps: list[float]
) -> Callable[..., ModelClient]:
    def build(model: str = "openai/fake", **kwargs: Any) -> ModelClient:
        # Generous: the deadline is total, and a loaded CI box is slow before the first byte.
        kwargs.setdefault("timeout", 10.0)
        kwargs.setdefault("max_retries", 2)
        return ModelClient(
            model,
            api_base=server.base_url,
            api_key="sk-test-not-a-real-key",
            sleep=sleeps.append,
            rng=random.Random(0),
            **kwargs,
        )

    return build
