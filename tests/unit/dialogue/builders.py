"""Dialogue recordings written directly (as the seats would), for report, compare and export."""

from __future__ import annotations

from pathlib import Path

from crmtui.play.dialogue import STOP_TOKEN, DialogueSpec, Side
from crmtui.record import Recorder

QUERY = (
    "During Q2 of 2021, which agent handled over two cases and had the shortest handle time? "
    "Return only the Id of the agent (e.g. CA)."
)
INSTANCE = {"idx": 88, "task": "handle_time", "query": QUERY, "reward_metric": "exact_match"}
ORG = {"path": None, "digest": None, "name": "o"}
MODEL = Side("model", "openai/agent", "react")
SIM = Side("model", "openai/user")
ANN = Side("human", "ann")
BEN = Side("human", "ben")


def write_dialogue(
    folder: Path, agent: Side, user: Side, said: list[str], reward: float | None, idx: int = 88
) -> Path:
    """The agent's recording of a dialogue: ``said`` alternates user, agent, user...;
    with a reward the user accepted the agent's last message (with ``###STOP###``, added
    when ``said`` ends with the agent: ``verify`` checks that rule), else the turns ran out."""
    if reward is not None and len(said) % 2 == 0:
        said = [*said, STOP_TOKEN]
    spec = DialogueSpec("agent", agent, user, 10)
    path = folder / f"{agent.id.replace('/', '-')}-{user.id.replace('/', '-')}-{idx}.jsonl"
    rec = Recorder.create(
        path,
        actor={
            "kind": agent.kind,
            "id": agent.id,
            **({"strategy": agent.strategy} if agent.strategy else {}),
        },
        instance={**INSTANCE, "idx": idx},
        org=ORG,
        tasks_source="t",
        dialogue=spec.to_json(),
        fsync=False,
    )
    for turn, text in enumerate(said):
        if turn % 2 == 0:
            payload = {"text": text, "turn": turn // 2, "stop": text == STOP_TOKEN}
            rec.emit("user_message", payload, actor=user.id)
        else:
            rec.emit("agent_message", {"text": text, "turn": turn // 2 + 1})
    if reward is not None:
        rec.emit("submit", {"answer": said[-2], "reward": reward, "scoring": "head_rules",
                            "gold": ["005"]})  # fmt: skip
        rec.close("Submit action", reward)
    else:
        rec.close("Max user turns reached", 0)
    return path
