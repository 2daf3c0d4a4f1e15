"""Reading upstream's results files: one :class:`Attempt` per row, its steps from ``traj``.

``run_tasks.py`` writes a JSON list of rows ``{task_id, task_type, gt_answer, reward,
agent_info, traj}`` (a row whose agent raised has ``agent_info = {source: api, content}``).
Two eras share that shape but not their protocol:

* paper-era (Nov 2024): answers in ``<submit>...</submit>`` or a ``submit`` tool call,
  ``num_turns`` an int, no ``parsed_answer`` in the end reason;
* HEAD (May 2025 on): ``<respond>`` / a ``respond`` tool, ``parsed_answer`` in the end reason,
  ``num_turns`` a (user turns, agent turns) pair for the chat agent.

The trajectory is read the way upstream built it: a system prompt (or, for o1-style models, a
single user message holding prompt and query), the user's query, then per model call an
assistant message followed by the environment's answer: ``Salesforce instance output: ...``
after an ``<execute>``, a ``role: tool`` message after a tool call, or the rule reminder after
an invalid reply.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from crmtui.errors import ConfigError

OUTPUT_PREFIX = "Salesforce instance output:"
ANSWER_TOOLS = ("respond", "submit")
QUERY_TOOLS = ("issue_soql_query", "issue_sosl_query")
STRATEGIES = ("tool_call_flex", "tool_call", "react", "act")

_FILE_RE = re.compile(
    r"^results_(?P<model>.+)_(?P<strategy>tool_call_flex|tool_call|react|act)_"
    r"(?P<task>.+?)(?:_interactive-(?:True|False))?\.json$"
)
_TAG = {
    name: re.compile(rf"<{name}>(.*?)</{name}>", re.DOTALL)
    for name in ("execute", "respond", "submit", "thought")
}
_ERROR_RE = re.compile(r"^([A-Z][A-Z_]+): ")
_ACTION_RE = re.compile(r"Action:\s*(\w+)")


@dataclass
class Step:
    """One model call and what the environment answered.

    Attributes:
        content: The assistant message's text (None for a pure tool call).
        kind: ``query`` (SOQL/SOSL), ``tool`` (a helper tool), ``answer`` or ``invalid``.
        text: Query text, tool name, or the answer.
        arguments: A tool call's arguments.
        thought: The ``<thought>`` of a react reply.
        observation: What the environment sent back (prefix removed), if anything.
        tool_calls: The assistant message's tool calls as upstream stored them.
        said: The reply to an answer in an interactive run: what the simulated user said
            to that message (None where nothing followed it).
    """

    content: str | None
    kind: str
    text: str = ""
    arguments: dict[str, Any] | None = None
    thought: str | None = None
    observation: str | None = None
    tool_calls: list[Any] | None = None
    said: str | None = None

    @property
    def error_code(self) -> str | None:
        """The Salesforce error code of a failed query's observation (``INVALID_FIELD``)."""
        if self.kind != "query" or self.observation is None:
            return None
        match = _ERROR_RE.match(self.observation)
        return match.group(1) if match and not self.observation.startswith("[") else None

    @property
    def rows(self) -> int | None:
        """Rows in a successful query's observation, when it can be read back."""
        if self.kind != "query" or self.observation is None or self.error_code:
            return None
        # Parsed, not evaluated: nested parents print as OrderedDict([...]), not a literal.
        try:
            node = ast.parse(self.observation, mode="eval").body
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            return None
        return len(node.elts) if isinstance(node, ast.List) else None


@dataclass
class Attempt:
    """One row of a results file.

    Attributes:
        task_id: The instance's idx.
        task_type: Its task name.
        gt_answer: The gold answer as upstream stored it.
        reward: Upstream's reward as stored (0/1, a metrics dict for fuzzy tasks, ...).
        era: ``paper`` or ``head``.
        steps: The model calls, in order.
        answer: The submitted answer (None when the agent never answered).
        end_reason: ``agent_info.end_reason`` (or the api error of a crashed row).
        usage: ``agent_info.usage`` lists (cost, prompt/completion/total tokens).
        query: The user's query from the trajectory.
        prompt: The first message of the trajectory (the system prompt).
        error: The error text of a row whose agent raised.
    """

    task_id: int
    task_type: str
    gt_answer: Any
    reward: Any
    era: str
    steps: list[Step] = field(default_factory=list)
    answer: str | None = None
    end_reason: dict[str, Any] | None = None
    usage: dict[str, list[Any]] = field(default_factory=dict)
    query: str | None = None
    prompt: str = ""
    error: str | None = None

    @property
    def uses_tools(self) -> bool:
        """Whether the agent called tools (the tool_call strategies)."""
        return any(s.tool_calls for s in self.steps) or any(s.kind == "tool" for s in self.steps)


@dataclass
class ResultsFile:
    """A parsed results file and what its name says.

    Attributes:
        path: The file.
        attempts: One per row, in file order.
        model: From the file name (``results_<model>_<strategy>_<task>.json``), if it matches.
        strategy: Likewise.
        problems: Rows that could not be read, one line each (naming the row).
    """

    path: Path
    attempts: list[Attempt]
    model: str | None
    strategy: str | None
    problems: list[str] = field(default_factory=list)


def _tag(name: str, text: str) -> str:
    match = _TAG[name].search(text)
    return match.group(1).strip() if match else ""


def _content(message: Any) -> str:
    value = message.get("content") if isinstance(message, dict) else None
    return value if isinstance(value, str) else ""


def _tool_arguments(call: Any) -> tuple[str, dict[str, Any] | None]:
    function = (call or {}).get("function") or {}
    name = str(function.get("name") or "").strip()
    raw = function.get("arguments")
    if isinstance(raw, dict):
        return name, raw
    try:
        parsed = json.loads(raw) if isinstance(raw, str) else None
    except json.JSONDecodeError:
        parsed = None
    return name, parsed if isinstance(parsed, dict) else None


def _step_from_tool_call(message: dict[str, Any]) -> Step:
    name, arguments = _tool_arguments(message["tool_calls"][0])
    content = message.get("content")
    step = Step(content, "invalid", name, arguments, tool_calls=message["tool_calls"])
    if arguments is None or not name:
        return step
    if name in ANSWER_TOOLS:
        step.kind, step.text = "answer", str(arguments.get("content", ""))
    elif name in QUERY_TOOLS:
        step.kind, step.text = "query", str(arguments.get("query", ""))
    else:
        step.kind = "tool"
    return step


def _step_from_text(content: str) -> Step:
    thought = _tag("thought", content) or None
    executed = _tag("execute", content)
    if executed:
        return Step(content, "query", executed, thought=thought)
    for tag in ("respond", "submit"):
        answered = _tag(tag, content)
        if answered:
            return Step(content, "answer", answered, thought=thought)
    action = _ACTION_RE.search(content)
    if action:  # the llama text protocol of the tool_call agent
        name = action.group(1)
        arguments: dict[str, Any] | None = None
        if "Action Input:" in content:
            try:
                arguments = json.loads(content.split("Action Input:", 1)[1].strip())
            except json.JSONDecodeError:
                arguments = None
        kind = "answer" if name in ANSWER_TOOLS else "query" if name in QUERY_TOOLS else "tool"
        text = name
        if kind == "answer":
            text = str((arguments or {}).get("content", ""))
        elif kind == "query":
            text = str((arguments or {}).get("query", ""))
        return Step(content, kind, text, arguments, thought=thought)
    return Step(content, "invalid", thought=thought)


def parse_traj(traj: list[Any]) -> tuple[str | None, list[Step]]:
    """The user's query and the steps of an upstream trajectory."""
    messages = [m for m in traj if isinstance(m, dict)]
    query: str | None = None
    start = 0
    for i, message in enumerate(messages):
        if message.get("role") == "assistant":
            start = i
            break
        if message.get("role") == "user":
            query = _content(message)
    else:
        return query, []
    steps: list[Step] = []
    for i in range(start, len(messages)):
        message = messages[i]
        if message.get("role") != "assistant":
            continue
        calls = message.get("tool_calls")
        step = _step_from_tool_call(message) if calls else _step_from_text(_content(message))
        reply = messages[i + 1] if i + 1 < len(messages) else None
        if reply is not None and reply.get("role") == "tool":
            step.observation = _content(reply)
        elif reply is not None and reply.get("role") == "user" and step.kind != "invalid":
            text = _content(reply)
            if text.startswith(OUTPUT_PREFIX):
                step.observation = text[len(OUTPUT_PREFIX) :].lstrip(" ")
            elif step.kind == "answer":  # interactive: the simulated user's reply
                step.said = text
        steps.append(step)
    return query, steps


def _era(row: dict[str, Any], steps: list[Step]) -> str:
    for step in steps:
        content = step.content or ""
        if "<submit>" in content or (step.tool_calls and step.text == "submit"):
            return "paper"
        if step.kind == "answer" and step.tool_calls:
            return "paper" if _tool_arguments(step.tool_calls[0])[0] == "submit" else "head"
        if "<respond>" in content:
            return "head"
    info = row.get("agent_info") or {}
    reason = info.get("end_reason") if isinstance(info, dict) else None
    if isinstance(reason, dict) and "parsed_answer" in reason:
        return "head"
    if isinstance(info.get("num_turns"), list):
        return "head"
    return "paper" if isinstance(info.get("num_turns"), int) and not steps else "head"


def parse_row(row: Any) -> Attempt:
    """One results row as an :class:`Attempt`.

    Raises:
        ValueError: The row lacks ``task_id`` or its trajectory is not a list.
    """
    if not isinstance(row, dict) or isinstance(row.get("task_id"), bool):
        raise ValueError("not an object with a task_id")
    task_id = row.get("task_id")
    if not isinstance(task_id, int):
        raise ValueError(f"task_id must be an integer, not {task_id!r}")
    traj = row.get("traj") or []
    if not isinstance(traj, list):
        raise ValueError("traj must be a list of messages")
    query, steps = parse_traj(traj)
    info = row.get("agent_info") if isinstance(row.get("agent_info"), dict) else {}
    attempt = Attempt(
        task_id=task_id,
        task_type=str(row.get("task_type") or ""),
        gt_answer=row.get("gt_answer"),
        reward=row.get("reward"),
        era=_era(row, steps),
        steps=steps,
        query=query,
        prompt=_content(traj[0]) if traj else "",
    )
    if info.get("source") == "api" and "end_reason" not in info:
        attempt.error = str(info.get("content") or "")
        attempt.end_reason = {"source": "api", "message": "Error", "content": attempt.error}
    else:
        reason = info.get("end_reason")
        attempt.end_reason = reason if isinstance(reason, dict) else None
        usage = info.get("usage")
        attempt.usage = usage if isinstance(usage, dict) else {}
    answers = [s for s in steps if s.kind == "answer"]
    if answers:
        attempt.answer = answers[-1].text
    return attempt


def read_results(path: str | Path) -> ResultsFile:
    """Read a results file of either era.

    Raises:
        ConfigError: The file is missing, not JSON, or not a list of rows.
    """
    source = Path(path)
    try:
        data = json.loads(source.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read {source}: {exc.strerror or exc}") from exc
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{source} is not JSON: {exc.msg} at line {exc.lineno}") from exc
    if not isinstance(data, list):
        raise ConfigError(f"{source} is not an upstream results file (expected a JSON list)")
    match = _FILE_RE.match(source.name)
    parsed = ResultsFile(
        source,
        [],
        match.group("model") if match else None,
        match.group("strategy") if match else None,
    )
    for position, row in enumerate(data, 1):
        try:
            parsed.attempts.append(parse_row(row))
        except ValueError as exc:
            task = row.get("task_id") if isinstance(row, dict) else None
            where = f"task_id {task}" if task is not None else f"row {position}"
            parsed.problems.append(f"{where}: {exc}")
    return parsed
