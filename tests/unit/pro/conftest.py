"""Shared CRMArena-Pro sample orgs and tasks (built once per session: generation is pure)."""

from __future__ import annotations

from typing import Any

import pytest

from crmtui.org.generator import GeneratedOrg
from crmtui.org.generator.pro import generate_pro
from crmtui.org.pro_tasks import build_pro_tasks

Built = tuple[list[dict[str, Any]], dict[str, dict[str, Any]]]


@pytest.fixture(scope="session")
def b2b() -> GeneratedOrg:
    """The b2b sample org (seed 7, small)."""
    return generate_pro(seed=7, scale="small", org_type="b2b")


@pytest.fixture(scope="session")
def b2c() -> GeneratedOrg:
    """The b2c sample org (seed 7, small)."""
    return generate_pro(seed=7, scale="small", org_type="b2c")


@pytest.fixture(scope="session", params=["b2b", "b2c"])
def pro_org(request: pytest.FixtureRequest) -> GeneratedOrg:
    """Each of the two sample orgs in turn."""
    return request.getfixturevalue(request.param)


@pytest.fixture(scope="session")
def b2b_tasks(b2b: GeneratedOrg) -> Built:
    """The b2b sample's tasks (10 per business type, 8 per confidentiality type)."""
    return build_pro_tasks(b2b, seed=7, per_type=10, per_privacy=8)


@pytest.fixture(scope="session")
def b2c_tasks(b2c: GeneratedOrg) -> Built:
    """The b2c sample's tasks."""
    return build_pro_tasks(b2c, seed=7, per_type=10, per_privacy=8)
