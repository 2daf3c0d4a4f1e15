"""A stand-in for upstream's harness folder, for tests run where ../shared is absent.

``--preset naacl|head`` read upstream's tool schemas from a harness folder
(:mod:`crmtui.agent.upstream_texts`). Where the real one is missing, tests get this one:
the same file layout (``crm_sandbox/env/functions.py`` with ``<tool>.__info__ = {...}``
literals, ``crm_sandbox/env/__init__.py`` with ``TOOLS`` and ``TOOLS_FULL``), holding
crmtui's own tool descriptions, and ``crm_sandbox/agents`` with placeholder prompts
(tests/fakes/upstream_prompts_fake.py), so the machinery runs but no upstream text is involved.
"""

from __future__ import annotations

from pathlib import Path

from crmtui.agent.tool_specs import QUERY_TOOLS, UPSTREAM_TOOLS, with_answer_tool
from tests.fakes.upstream_prompts_fake import write_fake_prompts
from tests.fakes.upstream_user_harness import write_fake_user_code


def write_fake_harness(folder: Path, version: str) -> Path:
    """Write a fake ``naacl`` or ``head`` harness under ``folder``; returns it."""
    answer = "submit" if version == "naacl" else "respond"
    tools = with_answer_tool(UPSTREAM_TOOLS, answer)
    names = ("issue_soql_query", "issue_sosl_query")
    flex = [
        {**spec, "function": {**spec["function"], "name": name}}
        for spec, name in zip(QUERY_TOOLS[:2], names, strict=True)
    ]
    env = folder / "crm_sandbox" / "env"
    env.mkdir(parents=True, exist_ok=True)
    lines = [f"{t['function']['name']}.__info__ = {t!r}\n" for t in [*tools, *flex]]
    (env / "functions.py").write_text("".join(lines), encoding="utf-8")
    names = ", ".join(t["function"]["name"] for t in tools)
    extra = ", ".join(t["function"]["name"] for t in flex)
    (env / "__init__.py").write_text(
        f"TOOLS = [{names}]\nTOOLS_FULL = TOOLS + [{extra}]\n", encoding="utf-8"
    )
    write_fake_prompts(folder, version)  # the agents' prompts (placeholders)
    if version == "head":
        write_fake_user_code(folder)  # the simulated user and the evaluator
    return folder
