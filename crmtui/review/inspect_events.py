"""One recording's steps as Inspect AI chat messages and transcript events.

A model's session becomes what an Inspect run of it would have logged: its calls as
``ModelEvent``\\s (tokens, cost, latency, the reply and its tool calls) and assistant
messages, each query or tool it ran as a ``ToolEvent`` and its observation as a tool
message (function calling) or a user message (ReAct's text protocol). A person's session
keeps the same shape where it can: each typed query is a tool call of the person's with its
result, the answer a final assistant message; what has no Inspect counterpart (browsing,
viewing, copying, computing, notes, the answer box, pauses) becomes ``InfoEvent``\\s whose
``source`` names the kind (``browse``, ``scratch``, ``notes``, ``answer``, ``clock``) and
whose ``data`` is the recorded payload with its type. A dialogue's messages are user and
assistant messages in the order they were said. The submit is a ``ScoreEvent``.

Every event carries the recording's wall time (``timestamp``), its session clock
(``working_start``, seconds) and ``metadata.seq`` (its line in the recording).
"""

from __future__ import annotations

import datetime as dt
import json
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from crmtui.record import events as ev
from crmtui.record.verify import Recording
from crmtui.scoring.rules import gold_text

#: InfoEvent sources by event type (everything not a model call, query, message or submit).
INFO_SOURCES: dict[str, str] = {
    **dict.fromkeys(ev.BROWSE_TYPES, "browse"),
    ev.VIEW_VALUE: "scratch",
    ev.COPY: "scratch",
    ev.COMPUTE: "scratch",
    ev.NOTE_EDIT: "notes",
    ev.ANSWER_EDIT: "answer",
    ev.EDITOR_EDIT: "console",
    ev.THOUGHT: "thought",
    ev.PAUSE: "clock",
    ev.RESUME: "clock",
    ev.IDLE: "clock",
    ev.APP_BLUR: "clock",
    ev.APP_FOCUS: "clock",
    ev.END: "end",
}


def timestamp(text: str) -> dt.datetime:
    """A recording's ISO UTC time (``...Z``) as an aware datetime."""
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00"))


def _arguments(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str):
        try:
            found = json.loads(raw) if raw.strip() else {}
        except ValueError:
            return {"raw": raw}
        return found if isinstance(found, dict) else {"value": found}
    return {}


def _tool_calls(payload: dict[str, Any], seq: int) -> list[tuple[str, str, dict[str, Any]]]:
    """(id, function, arguments) of a model call's tool calls, in either recorded shape."""
    found = []
    for n, call in enumerate(payload.get("tool_calls") or []):
        if not isinstance(call, dict):
            continue
        function = call.get("function") if isinstance(call.get("function"), dict) else {}
        name = call.get("name") or function.get("name") or "?"
        args = call.get("arguments", function.get("arguments"))
        found.append((str(call.get("id") or f"call-{seq}-{n}"), str(name), _arguments(args)))
    return found


@dataclass
class Transcript:
    """What :func:`transcript` builds: messages, events, and the model's usage."""

    messages: list[Any] = field(default_factory=list)
    events: list[Any] = field(default_factory=list)


def transcript(recording: Recording, model_name: str) -> Transcript:
    """The recording's messages and events (see the module docs).

    Args:
        recording: A verified recording.
        model_name: The log's model name (``openai/gpt-4o``, ``human/alice``).
    """
    from inspect_ai.event import InfoEvent, ModelEvent, ScoreEvent, ToolEvent
    from inspect_ai.model import (
        ChatMessageAssistant,
        ChatMessageTool,
        ChatMessageUser,
        GenerateConfig,
        ModelOutput,
        ModelUsage,
    )
    from inspect_ai.model._model_output import ChatCompletionChoice
    from inspect_ai.scorer import Score
    from inspect_ai.tool import ToolCall, ToolCallError

    header = recording.header
    human = header["actor"]["kind"] == "human"
    dialogue = isinstance(header.get("dialogue"), dict)
    out = Transcript()
    if not dialogue:
        out.messages.append(ChatMessageUser(content=header["instance"]["query"], source="input"))
    pending: deque[tuple[str, str]] = deque()  # a model call's tool calls awaiting results

    def base(event: ev.Event) -> dict[str, Any]:
        return {
            "uuid": f"{header['session_id'][:12]}-e{event.seq}",  # stable, as message ids
            "timestamp": timestamp(event.t),
            "working_start": event.ms / 1000,
            "metadata": {"seq": event.seq, "type": event.type, "actor": event.actor},
        }

    for event in recording.events:
        p = event.payload
        kind = event.type
        if kind == ev.MODEL_CALL:
            calls = _tool_calls(p, event.seq)
            message = ChatMessageAssistant(
                content=p.get("content") or "",
                tool_calls=[ToolCall(id=i, function=f, arguments=a) for i, f, a in calls] or None,
                model=p.get("model") or model_name,
                source="generate",
            )
            usage = ModelUsage(
                input_tokens=int(p["prompt_tokens"]),
                output_tokens=int(p["completion_tokens"]),
                total_tokens=int(p["prompt_tokens"]) + int(p["completion_tokens"]),
                total_cost=p.get("cost"),
            )
            output = ModelOutput(
                model=p.get("model") or model_name,
                choices=[
                    ChatCompletionChoice(
                        message=message,
                        stop_reason="tool_calls" if calls else "stop",
                    )
                ],
                usage=usage,
                time=float(p["latency_ms"]) / 1000,
            )
            out.events.append(
                ModelEvent(
                    **base(event),
                    model=p.get("model") or model_name,
                    input=list(out.messages),
                    tools=[],
                    tool_choice="auto" if calls else "none",
                    config=GenerateConfig(),
                    output=output,
                    retries=max(0, int(p.get("attempts") or 1) - 1),
                    working_time=float(p["latency_ms"]) / 1000,
                )
            )
            out.messages.append(message)
            pending = deque((i, f) for i, f, _ in calls)
        elif kind == ev.RUN_QUERY:
            error = p.get("error") or p.get("error_code")
            observation = p.get("observation")
            if observation is None:
                observation = f"{p['rows']} row(s)" if p.get("rows") is not None else ""
            function = p.get("tool") or p["kind"]
            call_id = f"query-{event.seq}"
            if pending:
                call_id, function = pending.popleft()
            tool_error = ToolCallError("unknown", str(error)) if error else None
            out.events.append(
                ToolEvent(
                    **base(event),
                    id=call_id,
                    function=function,
                    arguments={"query": p["text"]},
                    result=observation if not error else "",
                    error=tool_error,
                    working_time=float(p["ms"]) / 1000,
                    failed=bool(error),
                )
            )
            out.events[-1].metadata.update(kind=p["kind"], rows=p.get("rows"))
            if human:
                # A person's query, as the tool call it stands for.
                out.messages.append(
                    ChatMessageAssistant(
                        content="",
                        tool_calls=[
                            ToolCall(id=call_id, function=function, arguments={"query": p["text"]})
                        ],
                        metadata={"actor": event.actor},
                    )
                )
            if human or call_id != f"query-{event.seq}":
                out.messages.append(
                    ChatMessageTool(
                        content=observation if not error else str(error),
                        tool_call_id=call_id,
                        function=function,
                        error=tool_error,
                    )
                )
            else:  # ReAct: the observation goes back as the next user turn
                out.messages.append(
                    ChatMessageUser(
                        content=str(error) if error else observation,
                        metadata={"observation": True, "seq": event.seq},
                    )
                )
        elif kind == ev.USER_MESSAGE:
            out.messages.append(
                ChatMessageUser(
                    content=p["text"],
                    metadata={"turn": p["turn"], "actor": event.actor, "stop": p["stop"]},
                )
            )
            out.events.append(InfoEvent(**base(event), source="dialogue", data={"type": kind, **p}))
        elif kind == ev.AGENT_MESSAGE:
            if human:  # a model's reply is already its model call's message
                out.messages.append(
                    ChatMessageAssistant(
                        content=p["text"], metadata={"turn": p["turn"], "actor": event.actor}
                    )
                )
            out.events.append(InfoEvent(**base(event), source="dialogue", data={"type": kind, **p}))
        elif kind == ev.SCORE_CALL:
            reply = p.get("reply") or ""
            out.events.append(
                ModelEvent(
                    **base(event),
                    model=p["model"],
                    role=p["role"],
                    input=[ChatMessageUser(content=p["input"])],
                    tools=[],
                    tool_choice="none",
                    config=GenerateConfig(),
                    output=ModelOutput.from_content(p["model"], reply),
                    error=p.get("error"),
                )
            )
        elif kind == ev.SUBMIT:
            if human and not dialogue:
                out.messages.append(
                    ChatMessageAssistant(content=p["answer"], metadata={"actor": event.actor})
                )
            if p["reward"] is None:  # submitted but not scored: no score to show
                out.events.append(
                    InfoEvent(**base(event), source="submit", data={"type": kind, **p})
                )
                continue
            out.events.append(
                ScoreEvent(
                    **base(event),
                    score=Score(value=p["reward"], answer=p["answer"], explanation=p["scoring"]),
                    target=gold_text(p["gold"]),
                    scorer="crmtui",
                )
            )
        else:
            out.events.append(
                InfoEvent(
                    **base(event),
                    source=INFO_SOURCES.get(kind, kind),
                    data={"type": kind, **p},
                )
            )
    _stable_ids(out, header["session_id"])
    return out


def _stable_ids(out: Transcript, session_id: str) -> None:
    """Give every message an id from the session and its order, in place of inspect_ai's
    random ones, so exporting the same recordings twice writes the same logs."""
    found: dict[int, Any] = {}
    for message in out.messages:
        found.setdefault(id(message), message)
    for event in out.events:
        for message in getattr(event, "input", None) or []:
            found.setdefault(id(message), message)
        output = getattr(event, "output", None)
        for choice in getattr(output, "choices", None) or []:
            found.setdefault(id(choice.message), choice.message)
    for n, message in enumerate(found.values()):
        message.id = f"{session_id[:12]}-{n}"
