"""Trajectories: a recording read as a list of steps, with the records and objects each touched.

Pure functions over a verified :class:`~crmtui.record.verify.Recording`. A *step* is one
thing the actor did that touched the org or ended the attempt: a browse action (which
carries the SOQL/SOSL a model would have run instead), a typed query (``run_query``), a
human's scratch step (a value opened whole, a copy, a compute, a notes edit), a
``submit``, or a model call that led to no action at all. Model calls that did lead to an
action are folded into that action's step (their tokens and the model's stated thought).

*Records touched* by a step are the record Ids it names: the record opened, both ends of a
followed link, the record a value was viewed in or copied from, and every quoted literal
(or SOSL ``{...}`` term) in its query that is shaped like a Salesforce Id, plus the Ids in
a ``run_query``'s ``observation`` text when an agent recorded one. Otherwise rows a query
returned are not in the recording (only their count), so they are not counted unless a
caller passes ``result_ids`` (re-running typed queries and computes on the same org,
:mod:`crmtui.review.rerun`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from crmtui.data.schema import Schema, builtin_schema
from crmtui.record import events as ev
from crmtui.record.verify import Recording

#: Returns the Ids of the records a query returned (``None``: unknown / not re-runnable).
ResultIds = Callable[[str], Iterable[str] | None]

# A quoted SOQL literal (backslash escapes allowed) or a SOSL search term in braces.
_LITERAL_RE = re.compile(r"'((?:[^'\\]|\\.)*)'|\{([^}]*)\}")
# Salesforce Ids: 15 or 18 letters/digits; at least one digit keeps plain words out.
_ID_RE = re.compile(r"(?=[A-Za-z]*[0-9])[0-9A-Za-z]{15}(?:[0-9A-Za-z]{3})?")
_FROM_RE = re.compile(r"\bFROM\s+([A-Za-z_][A-Za-z0-9_]*)", re.IGNORECASE)
_RETURNING_RE = re.compile(r"\bRETURNING\s+(.*)$", re.IGNORECASE | re.DOTALL)
_RETURNING_OBJ_RE = re.compile(r"(?:^|,)\s*([A-Za-z_][A-Za-z0-9_]*)")
_PARENS_RE = re.compile(r"\([^()]*\)")
_PUNCT_SPACE_RE = re.compile(r"\s*([,()=<>!])\s*")
_SPACE_RE = re.compile(r"\s+")


@lru_cache(maxsize=1)
def _schema() -> Schema:
    """The 16 CRMArena objects (with key prefixes), plus CRMArena-Pro's eleven, so a Pro
    session's ``FROM Opportunity`` counts as touching Opportunity."""
    import json
    from importlib import resources

    builtin = builtin_schema()
    text = resources.files("crmtui.data").joinpath("crmarenapro_b2b_schema.json").read_text()
    pro = Schema.from_json(json.loads(text))
    return Schema([*builtin, *(obj for obj in pro if builtin.get(obj.name) is None)])


def is_record_id(text: str) -> bool:
    """True when ``text`` is shaped like a 15- or 18-character Salesforce Id."""
    return bool(_ID_RE.fullmatch(text))


def _canonical_object(name: str) -> str | None:
    # Names the builtin schema does not know (relationship names in subqueries such as
    # ``FROM Contacts``) are dropped: they are not objects.
    found = _schema().get(name)
    return found.name if found is not None else None


def ids_in_query(text: str) -> set[str]:
    """Record Ids named as quoted literals (or SOSL ``{...}`` terms) in a query."""
    found: set[str] = set()
    for match in _LITERAL_RE.finditer(text):
        literal = match.group(1) if match.group(1) is not None else match.group(2)
        literal = literal.strip()
        if is_record_id(literal):
            found.add(literal)
    return found


_WORD_ID_RE = re.compile(r"\b[0-9A-Za-z]{15}(?:[0-9A-Za-z]{3})?\b")


def ids_in_text(text: str) -> set[str]:
    """Record Ids in free text (an observation): Id-shaped words with a known key prefix."""
    return {
        word
        for word in _WORD_ID_RE.findall(text)
        if is_record_id(word) and object_of_id(word) is not None
    }


def objects_in_query(text: str) -> set[str]:
    """sObjects a SOQL ``FROM`` or a SOSL ``RETURNING`` clause names (schema casing)."""
    names = list(_FROM_RE.findall(text))
    returning = _RETURNING_RE.search(text)
    if returning:
        # Drop the field lists ``Case(Id, Subject)`` so only the object names remain.
        clause = _PARENS_RE.sub("", _LITERAL_RE.sub("", returning.group(1)))
        names += _RETURNING_OBJ_RE.findall(clause)
    objects = {_canonical_object(name) for name in names}
    return {name for name in objects if name is not None}


def object_of_id(record_id: str) -> str | None:
    """The builtin-schema object whose key prefix starts ``record_id``, if any."""
    found = _schema().object_for_id(record_id)
    return found.name if found is not None else None


def normalize_query(text: str | None) -> str | None:
    """A query in a canonical spelling, so equivalent spellings compare equal.

    Outside quoted literals: lowercase (SOQL keywords and names are case-insensitive),
    whitespace collapsed, no spaces around ``, ( ) = < > !``, no trailing ``;``. Literals
    are kept exactly. Empty text gives None.
    """
    if text is None:
        return None
    out: list[str] = []
    pos = 0
    for match in re.finditer(r"'(?:[^'\\]|\\.)*'", text):
        out.append(_normalize_code(text[pos : match.start()]))
        out.append(match.group(0))
        pos = match.end()
    out.append(_normalize_code(text[pos:]))
    normalized = "".join(out).strip().rstrip(";").strip()
    return normalized or None


def _normalize_code(code: str) -> str:
    code = _SPACE_RE.sub(" ", code.lower())
    return _PUNCT_SPACE_RE.sub(r"\1", code)


@dataclass(frozen=True)
class Step:
    """One step of a trajectory.

    Attributes:
        index: 0-based position in the trajectory.
        seq: ``seq`` of the event the step comes from.
        ms: Session milliseconds of that event.
        kind: The event type (``open_record``, ``run_query``, ``submit``, ``model_call``...).
        query: The SOQL/SOSL the step is (typed, or a browse action's equivalent).
        normalized: :func:`normalize_query` of ``query``.
        objects: sObjects the step touched.
        records: Record Ids the step touched.
        error_code: The query's error code, if it failed.
        rows: Rows the query returned, when recorded.
        answer: The submitted answer (``submit`` steps).
        prompt_tokens: Prompt tokens of the model calls that led to this step.
        completion_tokens: Completion tokens of those calls.
        thought: The model's stated reasoning before this step, if any.
        detail: What a scratch step did, in a few words (``Case.Description``, the
            compute's spec, the copied value).
    """

    index: int
    seq: int
    ms: int
    kind: str
    query: str | None = None
    normalized: str | None = None
    objects: frozenset[str] = frozenset()
    records: frozenset[str] = frozenset()
    error_code: str | None = None
    rows: int | None = None
    answer: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    thought: str | None = None
    detail: str | None = None

    @property
    def label(self) -> str:
        """A short one-line description for tables."""
        if self.kind == ev.SUBMIT:
            return f"submit {self.answer!r}"
        if self.kind == ev.MODEL_CALL:
            return "model call (no action)"
        if self.kind in ev.SCRATCH_TYPES:
            return f"{self.kind}: {_SPACE_RE.sub(' ', self.detail or '')}"
        text = self.query if self.query else ", ".join(sorted(self.objects)) or "-"
        return f"{self.kind}: {_SPACE_RE.sub(' ', text)}"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (sets as sorted lists)."""
        return {
            "index": self.index,
            "seq": self.seq,
            "ms": self.ms,
            "kind": self.kind,
            "query": self.query,
            "normalized": self.normalized,
            "objects": sorted(self.objects),
            "records": sorted(self.records),
            "error_code": self.error_code,
            "rows": self.rows,
            "answer": self.answer,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "thought": self.thought,
            "detail": self.detail,
        }


def _browse_touch(event: ev.Event) -> tuple[set[str], set[str]]:
    payload = event.payload
    objects: set[str] = set()
    records: set[str] = set()
    for key in ("object", "from_object", "to_object"):
        if isinstance(payload.get(key), str):
            objects.add(_canonical_object(payload[key]) or payload[key])
    for key in ("id", "from_id", "to_id"):
        if isinstance(payload.get(key), str) and payload[key]:
            records.add(payload[key])
    return objects, records


def extract_steps(recording: Recording, result_ids: ResultIds | None = None) -> list[Step]:
    """The recording's trajectory.

    Args:
        recording: A loaded, verified recording.
        result_ids: Optional; Ids of the rows a successful typed query (``run_query``)
            returned, added to the step's records (the recording keeps only the count).

    Returns:
        Steps in event order.
    """
    steps: list[Step] = []
    pending_prompt = pending_completion = 0
    pending_call: ev.Event | None = None
    thought: str | None = None

    def add(event: ev.Event, **fields: Any) -> None:
        nonlocal pending_prompt, pending_completion, pending_call, thought
        steps.append(
            Step(
                index=len(steps),
                seq=event.seq,
                ms=event.ms,
                kind=event.type,
                prompt_tokens=pending_prompt,
                completion_tokens=pending_completion,
                thought=thought,
                **fields,
            )
        )
        pending_prompt = pending_completion = 0
        pending_call = None
        thought = None

    for event in recording.events:
        kind = event.type
        payload = event.payload
        if kind == ev.MODEL_CALL:
            if pending_call is not None:  # the previous call led to no action
                add(pending_call)
            pending_call = event
            pending_prompt += int(payload["prompt_tokens"])
            pending_completion += int(payload["completion_tokens"])
        elif kind == ev.THOUGHT:
            thought = payload["text"] if thought is None else f"{thought}\n{payload['text']}"
        elif kind in ev.BROWSE_TYPES or kind == ev.RUN_QUERY:
            query = payload.get("text") if kind == ev.RUN_QUERY else payload.get("query")
            objects, records = _browse_touch(event)
            error_code = payload.get("error_code") if kind == ev.RUN_QUERY else None
            observation = payload.get("observation") if kind == ev.RUN_QUERY else None
            if isinstance(observation, str) and error_code is None:
                # Agents may record the observation text they were shown: its Ids were seen.
                records |= ids_in_text(observation)
            if query:
                records |= ids_in_query(query)
                objects |= objects_in_query(query)
                # Only typed queries: a browse list view returns every row of the object
                # but shows one page, and the records opened from it are counted anyway.
                if result_ids is not None and error_code is None and kind == ev.RUN_QUERY:
                    records |= set(result_ids(query) or ())
            objects |= {o for o in map(object_of_id, records) if o is not None}
            add(
                event,
                query=query or None,
                normalized=normalize_query(query),
                objects=frozenset(objects),
                records=frozenset(records),
                error_code=error_code,
                rows=payload.get("rows") if kind == ev.RUN_QUERY else None,
            )
        elif kind in ev.SCRATCH_TYPES:
            add(event, **_scratch_step(event, result_ids))
        elif kind == ev.SUBMIT:
            add(event, answer=payload["answer"])
    if pending_call is not None:
        add(pending_call)
    return steps


def _where(payload: dict[str, Any]) -> str:
    """``Case.Description · 500...`` for a viewed or copied value."""
    where = ".".join(p for p in (payload.get("object"), payload.get("field")) if p)
    where = where or payload.get("source", "")
    return f"{where} · {payload['record']}" if payload.get("record") else where


def _preview(text: str, limit: int = 40) -> str:
    flat = _SPACE_RE.sub(" ", text).strip()
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _scratch_step(event: ev.Event, result_ids: ResultIds | None) -> dict[str, Any]:
    """The fields of a scratch step: what it touched and a few words saying what it did."""
    payload = event.payload
    objects: set[str] = set()
    records: set[str] = set()
    if isinstance(payload.get("object"), str):
        objects.add(_canonical_object(payload["object"]) or payload["object"])
    if isinstance(payload.get("record"), str) and payload["record"]:
        records.add(payload["record"])
    if event.type in (ev.VIEW_VALUE, ev.COPY):
        detail = scratch_detail(event)
        return {"objects": frozenset(objects), "records": frozenset(records), "detail": detail}
    if event.type == ev.COMPUTE:
        query = payload["query"]
        error = payload.get("error")
        records |= ids_in_query(query)
        objects |= objects_in_query(query)
        if result_ids is not None and not error:
            # Every row the computation read was looked at, as with an aggregate query.
            records |= set(result_ids(query) or ())
        # A summary the aggregate SOQL can say is shown as that query: what a model would
        # have run; the full-row query stays the measure of what was read.
        shown = payload.get("summary_query") or query
        return {
            "query": shown,
            "normalized": normalize_query(shown),
            "objects": frozenset(objects),
            "records": frozenset(records),
            "rows": payload["input_rows"],
            "error_code": "COMPUTE_ERROR" if error else None,
            "detail": scratch_detail(event),
        }
    return {"detail": scratch_detail(event)}  # note_edit


def scratch_detail(event: ev.Event) -> str:
    """A few words saying what a scratch event did (step labels, replay's event list).

    ``Case.Description · 500... (1,234 chars)`` for a viewer open,
    ``Account.ShippingState = 'NJ'`` for a copy, ``avg(ClosedDate - CreatedDate (hours)) by
    OwnerId → 9 groups`` for a compute, ``2 line(s): '...'`` for a notes edit.
    """
    payload = event.payload
    if event.type == ev.VIEW_VALUE:
        return f"{_where(payload)} ({payload['length']:,} chars)"
    if event.type == ev.COPY:
        what = "row of " if payload["what"] == "row" else ""
        return f"{what}{_where(payload)} = {_preview(payload['value'])!r}"
    if event.type == ev.COMPUTE:
        spec = payload["spec"]
        measure = spec["field"] or (
            f"{spec['end']} - {spec['start']} ({spec['unit']})" if spec["start"] else "rows"
        )
        group = f" by {spec['group_by']}" if spec["group_by"] else ""
        if spec.get("group_by2"):
            group += f", {spec['group_by2']}"
        error = payload.get("error")
        outcome = f"error: {error}" if error else f"{payload['groups']} groups"
        return f"{spec['aggregate']}({measure}){group} → {outcome}"
    text = payload.get("text", "")
    lines = text.count("\n") + 1 if text else 0
    return f"{lines} line(s): {_preview(text)!r}"
