"""What upstream CRMArena does differently per model family: prompt layout, budget, sampling.

Upstream (crm_sandbox/agents/chat_agent.py and tool_call_agent.py) keys these on model
names: the o1 family, o3-mini, DeepSeek-R1 and
Gemini 2.5 Flash take the whole prompt as one user message; those and Gemini 2.5 Pro get a
50,000-token completion budget; the o1 family, o3-mini and DeepSeek-R1 are called without a
temperature. Otherwise ChatAgent (``react``/``act``) asks for 2,000 tokens and ToolCallAgent
(``tool_call``) for 3,500, both at temperature 0. Names are matched after the provider prefix:
``o1`` as a prefix, the others anywhere in the name.
"""

from __future__ import annotations

__all__ = [
    "REASONING_MAX_TOKENS",
    "STRATEGY_MAX_TOKENS",
    "default_max_tokens",
    "default_temperature",
    "is_reasoning_model",
    "uses_single_user_message",
]

_SINGLE_MESSAGE_MARKERS = ("o3-mini", "deepseek-r1", "gemini-2.5-flash")
_REASONING_MARKERS = ("o3-mini", "deepseek-r1", "gemini-2.5")
_NO_TEMPERATURE_MARKERS = ("o3-mini", "deepseek-r1")

#: Completion budget per strategy (upstream's ChatAgent and ToolCallAgent).
STRATEGY_MAX_TOKENS = {"react": 2_000, "act": 2_000, "tool_call": 3_500}
#: Completion budget of the reasoning families, whatever the strategy.
REASONING_MAX_TOKENS = 50_000


def _name(model: str) -> str:
    return model.rsplit("/", 1)[-1].lower()


def uses_single_user_message(model: str) -> bool:
    """True for models that take the whole prompt as one user message (no system role)."""
    name = _name(model)
    return name.startswith("o1") or any(m in name for m in _SINGLE_MESSAGE_MARKERS)


def is_reasoning_model(model: str) -> bool:
    """True for the families upstream gives a 50,000-token budget."""
    name = _name(model)
    return name.startswith("o1") or any(m in name for m in _REASONING_MARKERS)


def default_max_tokens(model: str, strategy: str = "react") -> int:
    """Upstream's completion budget for ``model`` playing ``strategy``."""
    if is_reasoning_model(model):
        return REASONING_MAX_TOKENS
    return STRATEGY_MAX_TOKENS.get(strategy, STRATEGY_MAX_TOKENS["react"])


def default_temperature(model: str) -> float | None:
    """0, or ``None`` (not sent) for the families that reject a temperature."""
    name = _name(model)
    if name.startswith("o1") or any(m in name for m in _NO_TEMPERATURE_MARKERS):
        return None
    return 0.0
