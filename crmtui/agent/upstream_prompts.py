"""Upstream's own agent prompts, read at run time from an upstream harness folder.

Under ``--preset naacl|head`` every text of the agent's messages is upstream's, byte for
byte: the system prompts, the schema section and task context headings, the format
reminders, the observation prefix and the invalid tool call message. Upstream's harness is
CC BY-NC 4.0, so crmtui carries none of these texts: they are read from the user's copy of
upstream's code (the folder :func:`crmtui.agent.upstream_texts.find_harness` finds) by
parsing its modules with ``ast`` (nothing of it is imported or run):

* ``crm_sandbox/agents/prompts.py``: every module-level string constant (the last
  assignment wins, as in Python: HEAD assigns ``SYSTEM_METADATA`` twice);
* ``crm_sandbox/agents/chat_agent.py``: the f-string that wraps a query result
  (``<prefix>{obs}``);
* ``crm_sandbox/agents/tool_call_agent.py``: the tool message answering a tool call whose
  arguments are not JSON (the one tool message whose content is a literal).

Which prompt upstream picks (react internal/external/privacy-aware/interactive, act, native
or flex tool calling) and how it assembles the system prompt is reproduced by
:class:`UpstreamPrompts`; that is code, not upstream's text.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from crmtui.errors import ConfigError

__all__ = ["SYSTEM_NAME", "UpstreamPrompts", "read_prompts", "upstream_prompts"]

#: What upstream's agents fill ``{system}`` with.
SYSTEM_NAME = "Salesforce instance"
_AGENTS = Path("crm_sandbox", "agents")
_PROMPTS = _AGENTS / "prompts.py"
_CHAT_AGENT = _AGENTS / "chat_agent.py"
_TOOL_AGENT = _AGENTS / "tool_call_agent.py"

#: The constants of prompts.py each version's agents use.
_NEEDED = {
    "naacl": (
        "SCHEMA_STRING",
        "SYSTEM_METADATA",
        "REACT_RULE_STRING",
        "ACT_RULE_STRING",
        "REACT_PROMPT",
        "ACT_PROMPT",
        "NATIVE_FC_PROMPT",
        "FC_RULE_STRING",
        "FC_FLEX_PROMPT",
    ),
    "head": (
        "SCHEMA_STRING",
        "SYSTEM_METADATA",
        "REACT_RULE_STRING",
        "ACT_RULE_STRING",
        "REACT_INTERNAL_PROMPT",
        "REACT_EXTERNAL_PROMPT",
        "REACT_PRIVACY_AWARE_EXTERNAL_PROMPT",
        "REACT_INTERNAL_INTERACTIVE_PROMPT",
        "REACT_EXTERNAL_INTERACTIVE_PROMPT",
        "REACT_PRIVACY_AWARE_EXTERNAL_INTERACTIVE_PROMPT",
        "ACT_PROMPT",
        "ACT_INTERACTIVE_PROMPT",
        "NATIVE_FC_PROMPT",
        "FC_RULE_STRING",
        "FC_FLEX_PROMPT",
    ),
}


def _literal(node: ast.expr | None) -> str | None:
    """A string constant, or an f-string without placeholders, as its text."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr) and all(
        isinstance(v, ast.Constant) and isinstance(v.value, str) for v in node.values
    ):
        return "".join(v.value for v in node.values)  # type: ignore[attr-defined]
    return None


def _module_strings(source: str) -> dict[str, str]:
    """Every ``NAME = "..."`` at module level (a later assignment replaces an earlier)."""
    found: dict[str, str] = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            text = _literal(node.value)
            if isinstance(target, ast.Name) and text is not None:
                found[target.id] = text
    return found


def _dict_items(node: ast.Dict) -> dict[str, ast.expr]:
    return {
        k.value: v
        for k, v in zip(node.keys, node.values, strict=True)
        if isinstance(k, ast.Constant) and isinstance(k.value, str)
    }


def _observation_prefix(source: str) -> str | None:
    """The literal before ``{obs}`` in the f-string chat_agent.py wraps query results in."""
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.JoinedStr) or len(node.values) != 2:
            continue
        head, value = node.values
        if (
            isinstance(head, ast.Constant)
            and isinstance(head.value, str)
            and isinstance(value, ast.FormattedValue)
            and isinstance(value.value, ast.Name)
            and value.value.id == "obs"
            and value.conversion == -1
            and value.format_spec is None
        ):
            return head.value
    return None


def _invalid_tool_call(source: str) -> str | None:
    """The content of the one tool message tool_call_agent.py writes as a literal."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Dict):
            items = _dict_items(node)
            if "tool_call_id" in items and (text := _literal(items.get("content"))) is not None:
                return text
    return None


@dataclass(frozen=True)
class UpstreamPrompts:
    """The texts of one upstream harness version, and how its agents assemble them.

    Attributes:
        version: ``naacl`` or ``head``.
        texts: prompts.py's string constants, by name.
        observation_prefix: What a query result follows (chat_agent.py).
        invalid_tool_call: The tool message after a tool call whose arguments are not JSON.
    """

    version: str
    texts: Mapping[str, str]
    observation_prefix: str
    invalid_tool_call: str

    def schema_text(self, objects: list[tuple[str, list[tuple[str, str]]]]) -> str:
        """The schema section as upstream's agents build it from the hub's schema rows.

        Args:
            objects: Each object's name and its ``(field, description)`` pairs, in the
                order of the schema rows upstream receives.
        """
        described = {
            name: "\n".join(f"  - {k}: {v}" for k, v in fields) for name, fields in objects
        }
        return self.texts["SCHEMA_STRING"].format(
            object_names=", ".join(described),
            object_fields="\n".join(f"{name}\n{fields}" for name, fields in described.items()),
        )

    def template(
        self, strategy: str, *, external: bool, privacy_aware: bool, interactive: bool
    ) -> str:
        """The name of the prompts.py constant upstream's agent starts its system prompt with.

        ``external``: the task type is customer-facing (HEAD's ``agent_type``, decided for
        every org, CRMArena's included). The paper's code has one react prompt.
        """
        if strategy == "tool_call":
            return "NATIVE_FC_PROMPT"
        if strategy == "tool_call_flex":
            return "FC_FLEX_PROMPT"
        if strategy == "act":
            return "ACT_INTERACTIVE_PROMPT" if interactive else "ACT_PROMPT"
        if self.version == "naacl":
            return "REACT_PROMPT"
        who = "INTERNAL"
        if external:
            who = "PRIVACY_AWARE_EXTERNAL" if privacy_aware else "EXTERNAL"
        return f"REACT_{who}_INTERACTIVE_PROMPT" if interactive else f"REACT_{who}_PROMPT"

    def system_prompt(
        self,
        name: str,
        *,
        schema_text: str,
        required: str | None,
        optional: str | None,
        aided: bool,
    ) -> str:
        """Upstream's ``sys_prompt`` before its final strip: the template filled in, then
        the task context (``SYSTEM_METADATA``, when ``metadata.required`` is not empty),
        then ``"\\n" + metadata.optional`` in aided mode."""
        prompt = self.texts[name].format(system_description=schema_text, system=SYSTEM_NAME)
        if required:
            prompt += self.texts["SYSTEM_METADATA"].format(
                system_metadata=required, system=SYSTEM_NAME
            )
        if aided and optional is not None:
            prompt += "\n" + optional
        return prompt

    def reminder(self, strategy: str) -> str:
        """The user message after a reply upstream cannot read as an action."""
        if strategy == "react":
            return self.texts["REACT_RULE_STRING"]
        if strategy == "act":
            return self.texts["ACT_RULE_STRING"]
        return self.texts["FC_RULE_STRING"]


def read_prompts(folder: Path, version: str) -> UpstreamPrompts:
    """Read :class:`UpstreamPrompts` from an upstream harness folder holding ``version``.

    Raises:
        ConfigError: A module is missing or unreadable, or lacks a text (one line).
    """
    try:
        texts = _module_strings((folder / _PROMPTS).read_text(encoding="utf-8"))
        prefix = _observation_prefix((folder / _CHAT_AGENT).read_text(encoding="utf-8"))
        invalid = _invalid_tool_call((folder / _TOOL_AGENT).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc).splitlines()[0]
        raise ConfigError(
            f"cannot read upstream's prompts in {folder / _AGENTS}: {reason}"
        ) from None
    absent = [name for name in _NEEDED[version] if name not in texts]
    if prefix is None:
        absent.append(f"the observation prefix ({_CHAT_AGENT.name})")
    if invalid is None:
        absent.append(f"the invalid tool call message ({_TOOL_AGENT.name})")
    if absent:
        raise ConfigError(f"{folder / _AGENTS} has no {', '.join(absent)}: not upstream's harness?")
    return UpstreamPrompts(version, dict(texts), prefix or "", invalid or "")


@lru_cache(maxsize=8)
def _cached(folder: str, version: str) -> UpstreamPrompts:
    return read_prompts(Path(folder), version)


def upstream_prompts(version: str, named: str | Path | None = None) -> UpstreamPrompts:
    """The prompts of upstream's ``version`` (``naacl`` or ``head``), read once per folder.

    Args:
        version: The harness version.
        named: The folder the user named (``--upstream-dir``), if any.

    Raises:
        ConfigError: No harness folder (one line saying how to get one), or its prompts
            cannot be read.
    """
    from crmtui.agent.upstream_texts import find_harness

    folder = find_harness(version, named, sends="prompts")
    return _cached(str(folder), version)


def describe(prompts: UpstreamPrompts) -> dict[str, Any]:
    """Every text of ``prompts`` (for a digest of what is sent)."""
    return {
        "texts": dict(sorted(prompts.texts.items())),
        "observation_prefix": prompts.observation_prefix,
        "invalid_tool_call": prompts.invalid_tool_call,
    }
