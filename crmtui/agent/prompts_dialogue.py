"""Prompt texts of the multi-turn mode (a user to talk to), in crmtui's own words.

Upstream's interactive prompts differ from its single-turn ones in three ways, which these
follow: ``respond`` is how the agent talks to the user (to ask for what it needs, or to give
the answer), an unclear or under-specified request is to be answered with a question, and
the final ``respond`` need not be the bare answer (the evaluator extracts it). The examples
and the rest of the structure are those of :mod:`crmtui.agent.prompts`.
"""

from __future__ import annotations

from crmtui.agent.prompts import ACT_INSTRUCTIONS, REACT_INSTRUCTIONS

__all__ = ["ACT_DIALOGUE_INSTRUCTIONS", "REACT_DIALOGUE_INSTRUCTIONS"]

_SINGLE_TURN_RULES = """\
Rules:
- Write one action per reply and then stop; the result of an <execute> action is sent back to \
you in the next message. Never write query results or observations yourself.
- When the answer consists of several records, give them as one comma-separated string.
- When nothing matches the request, respond with None.
- Your last action must be a <respond> that contains only the answer, with no explanation.
"""

_DIALOGUE_RULES = """\
Rules:
- You are in a conversation with the user. <respond> sends a message to the user, who \
answers in the next message: use it to ask for details you need, or to give the answer.
- When the user's request is unclear or leaves out something you need (a period, a name, \
a threshold, which record), ask for it with <respond> before answering.
- Write one action per reply and then stop; the result of an <execute> action is sent back to \
you in the next message. Never write query results, observations or the user's messages \
yourself.
- When the answer consists of several records, give them as one comma-separated string.
- When nothing matches the request, respond with None.
- When you are sure of the answer, give it with <respond>: the Ids, names or values asked \
for, plainly.
"""


def _dialogue(text: str) -> str:
    if _SINGLE_TURN_RULES not in text:
        raise RuntimeError("the single-turn rules changed; update prompts_dialogue")
    return text.replace(_SINGLE_TURN_RULES, _DIALOGUE_RULES).replace(
        "<respond> your final answer </respond> when you are done",
        "<respond> a message to the user </respond> to ask or to answer",
    )


#: ``react`` with a user to talk to.
REACT_DIALOGUE_INSTRUCTIONS = _dialogue(REACT_INSTRUCTIONS)
#: ``act`` with a user to talk to.
ACT_DIALOGUE_INSTRUCTIONS = _dialogue(ACT_INSTRUCTIONS)
