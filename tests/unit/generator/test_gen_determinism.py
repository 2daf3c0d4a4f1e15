"""Same seed and scale -> identical tables and truth; another seed -> different data."""

from __future__ import annotations

import hashlib
import json

import pytest

from crmtui.errors import ConfigError
from crmtui.org.generator import GeneratedOrg, generate


def _digest(org: GeneratedOrg) -> str:
    text = json.dumps({"tables": org.tables, "truth": org.truth}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def test_same_seed_same_tables(small_org: GeneratedOrg) -> None:
    assert _digest(generate(seed=7, scale="small")) == _digest(small_org)


def test_other_seed_other_tables(small_org: GeneratedOrg, small_org_seed11: GeneratedOrg) -> None:
    assert _digest(small_org_seed11) != _digest(small_org)
    cases7 = {c["Subject"] for c in small_org.tables["Case"]}
    cases11 = {c["Subject"] for c in small_org_seed11.tables["Case"]}
    assert cases7 != cases11


def test_global_random_state_is_untouched() -> None:
    import random

    random.seed(123)
    expected = random.random()
    random.seed(123)
    generate(seed=3, scale="small")
    assert random.random() == expected


def test_unknown_scale_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="unknown org scale 'huge'"):
        generate(scale="huge")


def test_small_scale_is_small() -> None:
    # Its speed (a target of 3 s) is benchmarks/bench_build.py's to measure, not an assert's.
    org = generate(seed=5, scale="small")
    total = sum(org.counts().values())
    assert 3_000 <= total <= 10_000


@pytest.mark.parametrize("seed", ["7", 7.0, True, None])
def test_non_integer_seed_is_a_config_error(seed: object) -> None:
    with pytest.raises(ConfigError, match="seed must be an integer"):
        generate(seed=seed)  # type: ignore[arg-type]
