"""The agent core: model client, strategies, tools and the episode runner (no UI).

Importing this package is cheap: ``litellm`` is imported by :mod:`crmtui.agent.client` only
when the first model call is made.
"""

from crmtui.agent.client import ModelClient, ModelError, ModelReply, ToolCall
from crmtui.agent.execution import Observation, make_query_executor
from crmtui.agent.runner import AgentResult, StepInfo, run_instance
from crmtui.agent.strategies import STRATEGIES, Strategy, make_strategy

__all__ = [
    "STRATEGIES",
    "AgentResult",
    "ModelClient",
    "ModelError",
    "ModelReply",
    "Observation",
    "StepInfo",
    "Strategy",
    "ToolCall",
    "make_query_executor",
    "make_strategy",
    "run_instance",
]
