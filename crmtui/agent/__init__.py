"""The agent core: model client, strategies, tools and the episode runner (no UI).

Importing this package is cheap: its public names are loaded on first use (so ``crmtui
play`` reading only :mod:`crmtui.agent.dialogue_settings` loads no client or runner), and
``litellm`` is imported by :mod:`crmtui.agent.client` only when the first model call is made.
"""

from __future__ import annotations

import importlib
from typing import Any

#: Public name -> the module that defines it.
_HOMES = {
    "ModelClient": "crmtui.agent.client",
    "ModelError": "crmtui.agent.client",
    "ModelReply": "crmtui.agent.client",
    "ToolCall": "crmtui.agent.client",
    "Observation": "crmtui.agent.execution",
    "make_query_executor": "crmtui.agent.execution",
    "AgentResult": "crmtui.agent.runner",
    "EpisodeOptions": "crmtui.agent.runner",
    "StepInfo": "crmtui.agent.runner",
    "run_instance": "crmtui.agent.runner",
    "STRATEGIES": "crmtui.agent.strategies",
    "Strategy": "crmtui.agent.strategies",
    "make_strategy": "crmtui.agent.strategies",
}

__all__ = sorted(_HOMES)


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'crmtui.agent' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value  # the next lookup is a plain attribute
    return value
