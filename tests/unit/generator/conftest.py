"""Shared generated orgs for the generator tests (built once per session: generation is pure)."""

from __future__ import annotations

import pytest

from crmtui.org.generator import GeneratedOrg, generate


@pytest.fixture(scope="session")
def small_org() -> GeneratedOrg:
    """The default sample org (seed 7, small)."""
    return generate(seed=7, scale="small")


@pytest.fixture(scope="session")
def small_org_seed11() -> GeneratedOrg:
    """A second small org with another seed, to check properties are not seed luck."""
    return generate(seed=11, scale="small")
