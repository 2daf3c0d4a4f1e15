"""Stand-in agent modules for the fake upstream harness (tests/fakes/upstream_harness.py).

``--preset naacl|head`` read upstream's agent prompts from its harness folder
(:mod:`crmtui.agent.upstream_prompts`). Where ../shared is absent, tests get these files:
the same module names, constant names, placeholders and message shapes as upstream's
``crm_sandbox/agents``, holding placeholder texts crmtui wrote, so the machinery runs but no
upstream text is involved.
"""

from __future__ import annotations

from pathlib import Path

from crmtui.agent.upstream_prompts import _NEEDED


def _text(name: str, answer: str) -> str:
    """A placeholder text for prompts.py's constant ``name`` (same placeholders)."""
    if name == "SCHEMA_STRING":
        return (
            "Objects (placeholder):\n{object_names}\n\n## Fields (placeholder):\n{object_fields}\n"
        )
    if name == "SYSTEM_METADATA":
        return "# Task context (placeholder, {system})\n{system_metadata}\n"
    if name.endswith("_RULE_STRING"):
        return f"Placeholder reminder {name}: use <execute> or <{answer}>.\n"
    schema = "" if name == "NATIVE_FC_PROMPT" else "\n# {system} schema\n{system_description}\n"
    return (
        f"Placeholder prompt {name} for a {{system}}.\n- Answer with <{answer}>.\n"
        "- Example: FIND {{Joe}} IN NAME FIELDS\n" + schema
    )


def write_fake_prompts(folder: Path, version: str) -> None:
    """Write ``crm_sandbox/agents/{prompts,chat_agent,tool_call_agent}.py`` under ``folder``."""
    answer = "submit" if version == "naacl" else "respond"
    agents = folder / "crm_sandbox" / "agents"
    agents.mkdir(parents=True, exist_ok=True)
    lines = [f"{name} = {_text(name, answer)!r}\n" for name in _NEEDED[version]]
    (agents / "prompts.py").write_text("".join(lines), encoding="utf-8")
    (agents / "chat_agent.py").write_text(
        "def feed(messages, obs):\n"
        '    messages.append({"role": "user", "content": f"Placeholder output: {obs}"})\n',
        encoding="utf-8",
    )
    (agents / "tool_call_agent.py").write_text(
        "def invalid(messages, call_id, name):\n"
        '    messages.append({"role": "tool", "tool_call_id": call_id, "name": name,\n'
        '                     "content": f"Placeholder: the arguments are not JSON."})\n',
        encoding="utf-8",
    )
