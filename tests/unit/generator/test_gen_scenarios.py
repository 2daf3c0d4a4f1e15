"""Policy scenarios: several phrasings, and deciding numbers close to the threshold on both
sides, with the outcome always the one the policy text gives."""

from __future__ import annotations

import random
import re

import pytest

from crmtui.org.generator.scenarios import SCENARIOS, SHIPPING_DAYS

DRAWS = 300


def _draw(key: str, breach: bool, seed: int) -> tuple[int, str, str]:
    rng = random.Random(seed)
    scenario = SCENARIOS[key]
    days = scenario.lag(rng, breach)
    ask, reply = scenario.write(rng, "Trail Jacket", breach, days)
    return days, ask, reply


def _number(pattern: str, text: str) -> float:
    found = re.search(pattern, text)
    assert found, (pattern, text)
    return float(found.group(1))


# key -> (the deciding number read from the exchange, the rule says it is a breach)
CHECKS = {
    "refund_cap": (
        lambda days, ask, reply: _number(r"\$(\d+\.\d\d)", ask),
        lambda value, reply: value > 150 and "supervisor" not in reply,
        150,
    ),
    "expedited": (
        lambda days, ask, reply: _number(r"(\d+) days", ask),
        lambda value, reply: value <= 7 and "expedited" in reply,
        7.5,
    ),
    "return_window": (
        lambda days, ask, reply: _number(r"(\d+) days", ask),
        lambda value, reply: value > 45 and "label" in reply,
        45.5,
    ),
    "price_adjust": (
        lambda days, ask, reply: _number(r"(\d+) days ago", ask),
        lambda value, reply: value > 14 and "too late" not in reply and "only" not in reply,
        14.5,
    ),
    "discount_cap": (
        lambda days, ask, reply: _number(r"(\d+)%", reply),
        lambda value, reply: value > 15,
        15.5,
    ),
}


@pytest.mark.parametrize("key", sorted(CHECKS))
def test_outcome_follows_the_rule_and_numbers_sit_near_the_threshold(key: str) -> None:
    read, breaks, threshold = CHECKS[key]
    near = {True: 0, False: 0}
    for breach in (True, False):
        for seed in range(DRAWS):
            days, ask, reply = _draw(key, breach, seed)
            value = read(days, ask, reply)
            assert breaks(value, reply) == breach, (key, breach, ask, reply)
            if abs(value - threshold) <= 3:
                near[value > threshold] += 1
    # Some draws fall just below and some just above the threshold.
    assert near[True] >= 10 and near[False] >= 10, near


def test_every_scenario_has_several_phrasings() -> None:
    for key in SCENARIOS:
        asks = {" ".join(_draw(key, seed % 2 == 0, seed)[1].split()[:3]) for seed in range(60)}
        replies = {_draw(key, True, seed)[2][:25] for seed in range(60)}
        assert len(asks) >= 2 and len(replies) >= 2, key


def test_time_scenarios_state_days_consistent_with_the_purchase_lag() -> None:
    for seed in range(DRAWS):
        days, ask, _ = _draw("return_window", seed % 2 == 0, seed)
        assert f"{days - SHIPPING_DAYS} days" in ask
        days, ask, reply = _draw("warranty", seed % 2 == 0, seed)
        months = int(_number(r"(\d+) months", ask))
        assert months == (days - SHIPPING_DAYS) // 30 and months != 6
