"""Event types of a recording and the payload each one carries.

Payloads are plain JSON objects (``dict``), typed here with :class:`TypedDict` and checked
by :func:`validate_payload`, so the recorder refuses a malformed event at the moment it
happens rather than leaving a replay to trip over it later. Unknown payload keys are refused
too: a typo would otherwise silently lose data. Extending the format means adding the key
here (and, for a breaking change, bumping ``FORMAT_VERSION`` in :mod:`crmtui.record.format`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NotRequired, TypedDict

from crmtui.limits import MAX_INT64
from crmtui.record.errors import PayloadError

# --- event type names -------------------------------------------------------------------
OPEN_OBJECT = "open_object"
SORT = "sort"
FILTER = "filter"
COLUMNS = "columns"
SEARCH = "search"
OPEN_RECORD = "open_record"
FOLLOW_LINK = "follow_link"
BACK = "back"
FORWARD = "forward"
RUN_QUERY = "run_query"
ANSWER_EDIT = "answer_edit"
SUBMIT = "submit"
PAUSE = "pause"
RESUME = "resume"
IDLE = "idle"
MODEL_CALL = "model_call"
THOUGHT = "thought"
END = "end"
EDITOR_EDIT = "editor_edit"
APP_BLUR = "app_blur"
APP_FOCUS = "app_focus"
# A human's scratch work (see crmtui.play.scratch).
VIEW_VALUE = "view_value"
COPY = "copy"
COMPUTE = "compute"
NOTE_EDIT = "note_edit"
# A model call made to score the answer (answer extraction, the privacy judge).
SCORE_CALL = "score_call"
#: The roles of a ``score_call``.
SCORE_CALL_ROLES = ("extractor", "judge")
# The conversation of CRMArena-Pro's multi-turn mode (see crmtui.play.dialogue).
USER_MESSAGE = "user_message"
AGENT_MESSAGE = "agent_message"
#: A dialogue's messages, in the order they were said.
DIALOGUE_TYPES = frozenset({USER_MESSAGE, AGENT_MESSAGE})

#: Scratch steps: reading a value whole, copying, computing, writing notes.
SCRATCH_TYPES = frozenset({VIEW_VALUE, COPY, COMPUTE, NOTE_EDIT})
#: Where a viewed or copied value was on screen (see crmtui.play.cells.SOURCES).
#: ``context``: an Id copied from the task context (the instance's metadata).
VALUE_SOURCES = (
    "table",
    "record",
    "related",
    "console",
    "compute",
    "viewer",
    "notes",
    "context",
)
#: A ``copy`` event keeps at most this many characters of the value (``length`` is whole).
COPY_VALUE_LIMIT = 2000
#: A ``compute`` event keeps at most this many result rows (``groups`` counts them all).
COMPUTE_ROWS_LIMIT = 500

#: Browse actions: each carries ``query``, the SOQL/SOSL a model would have run instead.
BROWSE_TYPES = frozenset(
    {OPEN_OBJECT, SORT, FILTER, COLUMNS, SEARCH, OPEN_RECORD, FOLLOW_LINK, BACK, FORWARD}
)


# --- payload shapes (for type checkers and readers) --------------------------------------
class OpenObjectPayload(TypedDict):
    """The list view of an object was opened."""

    object: str
    query: str


class SortPayload(TypedDict):
    """The current list was sorted by a field."""

    object: str
    field: str
    descending: bool
    query: str


class FilterPayload(TypedDict):
    """The current list was filtered on a field."""

    object: str
    field: str
    op: str
    value: str | int | float | bool | list[Any] | None
    query: str


class ColumnsPayload(TypedDict):
    """The current list's columns were chosen (own fields or paths through lookups).

    ``columns`` empty means the object's own fields again.
    """

    object: str
    columns: list[str]
    query: str


class SearchPayload(TypedDict):
    """A free-text search (the SOSL equivalent is in ``query``)."""

    text: str
    query: str


class OpenRecordPayload(TypedDict):
    """One record's detail view was opened."""

    object: str
    id: str
    query: str


class FollowLinkPayload(TypedDict):
    """A reference field was followed from one record to another."""

    from_object: str
    from_id: str
    field: str
    to_object: str
    to_id: str
    query: str


class NavPayload(TypedDict):
    """``back`` / ``forward`` in the browse history; ``query`` re-shows the target view."""

    query: NotRequired[str | None]


class RunQueryPayload(TypedDict):
    """A SOQL/SOSL query (or, kind ``tool``, a function-calling tool) run by the actor.

    ``rows`` is None for tools that return no row list; ``observation`` is the text the
    model was shown (kept so a model transcript can be rebuilt from the recording).
    """

    text: str
    kind: str
    rows: int | None
    ms: float
    error_code: str | None
    error: str | None
    observation: NotRequired[str | None]
    #: Length of the observation when ``observation`` was cut to the stored-text limit.
    observation_chars: NotRequired[int]
    tool: NotRequired[str]


class AnswerEditPayload(TypedDict):
    """The answer box changed (debounced by the caller, see :class:`Debouncer`)."""

    text: str


class SubmitPayload(TypedDict):
    """The answer was submitted and scored; the gold answer is revealed only now."""

    answer: str
    reward: float | None
    scoring: str
    gold: str | list[str | None] | None
    details: NotRequired[dict[str, Any]]


class EditorEditPayload(TypedDict):
    """The console editor's text changed (debounced like ``answer_edit``); resume restores it."""

    text: str


class FocusPayload(TypedDict):
    """``app_blur`` / ``app_focus``: the terminal lost or regained focus (no fields)."""


class ResumePayload(TypedDict):
    """Work resumed: after a pause, or (``reopened``) after the process ended."""

    reopened: NotRequired[bool]
    gap_ms: NotRequired[int]
    discarded_bytes: NotRequired[int]
    #: A person's ``--idle``: how much of ``gap_ms`` counts after a kill.
    idle_after: NotRequired[float]


class PausePayload(TypedDict):
    """The clock stopped: F7, or (``reason``) the app let go of the session unended."""

    reason: NotRequired[str]


class IdlePayload(TypedDict):
    """A gap without input of ``seconds`` ended; its first ``idle_after`` counted as active."""

    seconds: float
    idle_after: NotRequired[float]


class ModelCallPayload(TypedDict):
    """One LLM call made by a model actor."""

    prompt_tokens: int
    completion_tokens: int
    cost: float | None
    latency_ms: float
    content: str | None
    tool_calls: NotRequired[list[Any] | None]
    model: NotRequired[str]
    finish_reason: NotRequired[str | None]
    attempts: NotRequired[int]
    #: Length of the reply when ``content`` was cut to the stored-text limit.
    content_chars: NotRequired[int]
    #: This call's streamed reply was empty and a repeat without streaming answered;
    #: streaming stays off for the rest of the session.
    stream_fallback: NotRequired[bool]
    #: Which of several model servers answered (``--api-base`` repeated, ``--deployments``).
    deployment: NotRequired[str]


class ThoughtPayload(TypedDict):
    """A model's stated reasoning for its next step."""

    text: str


class ScoreCallPayload(TypedDict):
    """A model call that scored the answer, recorded just before ``submit``.

    ``role`` ``extractor``: HEAD's answer extraction (``input`` is the answer, ``result`` the
    extracted list); ``judge``: the ``privacy_rejection`` judge (``input`` is what it read,
    the agent's actions; ``result`` its verdict, ``YES`` or ``NO``). ``reply`` is the model's
    whole reply, so a person can judge the same text again. ``error`` says why the call
    failed (then the reward is 0, as upstream's).
    """

    role: str
    model: str
    input: str
    reply: NotRequired[str | None]
    result: NotRequired[str | list[str] | None]
    prompt_tokens: NotRequired[int]
    completion_tokens: NotRequired[int]
    cost: NotRequired[float | None]
    latency_ms: NotRequired[float]
    input_chars: NotRequired[int]
    reply_chars: NotRequired[int]
    error: NotRequired[str]


class UserMessagePayload(TypedDict):
    """The user's message in a dialogue (``actor``: who plays the user).

    ``turn`` 0 is the opening message; turn k answers the agent's k-th message. ``stop``: it
    holds ``###STOP###`` and ends the conversation. A simulated user's call is recorded
    beside it (its own model, tokens, cost and latency: never counted as the agent's).
    """

    text: str
    turn: int
    stop: bool
    model: NotRequired[str]
    prompt_tokens: NotRequired[int]
    completion_tokens: NotRequired[int]
    cost: NotRequired[float | None]
    latency_ms: NotRequired[float]


class AgentMessagePayload(TypedDict):
    """The agent's message to the user in a dialogue (its ``respond``; turn k: the k-th)."""

    text: str
    turn: int


class EndPayload(TypedDict):
    """The session ended (always the last event of a finished recording)."""

    reason: str
    reward: NotRequired[float | None]
    end_reason: NotRequired[dict[str, Any]]
    #: Closing an unfinished session: wall ms since its last event, and the ``--idle``.
    gap_ms: NotRequired[int]
    idle_after: NotRequired[float]


class ViewValuePayload(TypedDict):
    """A value was opened whole in the value viewer."""

    source: str
    object: str | None
    record: str | None
    field: str | None
    length: int


class CopyPayload(TypedDict):
    """A value (``what``: ``value`` or ``row``) was copied to the clipboard and register.

    ``value`` keeps the first :data:`COPY_VALUE_LIMIT` characters; ``length`` is the whole.
    """

    source: str
    object: str | None
    record: str | None
    field: str | None
    what: str
    value: str
    length: int


class ComputeSpecPayload(TypedDict):
    """What a ``compute`` aggregated (see crmtui.play.compute.ComputeSpec)."""

    aggregate: str
    group_by: str | None
    field: str | None
    start: str | None
    end: str | None
    unit: str | None
    group_by2: NotRequired[str | None]


class ComputePayload(TypedDict):
    """The compute tool ran over every row of ``query`` (a view's SOQL or a console query).

    ``rows`` keeps the first :data:`COMPUTE_ROWS_LIMIT` result rows; ``groups`` counts all.
    A failed computation has ``error`` and no rows.
    """

    source: str
    object: str | None
    query: str
    spec: ComputeSpecPayload
    input_rows: int
    skipped: int
    columns: list[str]
    rows: list[list[Any]]
    groups: int
    ms: float
    error: NotRequired[str | None]
    summary_query: NotRequired[str | None]


class NoteEditPayload(TypedDict):
    """The notes pane changed (debounced like the answer)."""

    text: str


# --- validation -------------------------------------------------------------------------
_STR = (str,)
_OPT_STR = (str, type(None))
_NUM = (int, float)
_OPT_NUM = (int, float, type(None))
_SCALAR = (str, int, float, bool, list, type(None))


def _non_negative(value: Any) -> str | None:
    if (
        isinstance(value, bool)
        or value < 0
        or (isinstance(value, float) and not math.isfinite(value))
    ):
        return "must be a non-negative number"
    if value > MAX_INT64:  # a forged 10**30 would overflow exports and sums
        return f"must be at most {MAX_INT64}"
    return None


def _reward(value: Any) -> str | None:
    # Every reward is exact-match 0/1 or a token F1; a 1e308 "reward" is a forgery.
    if isinstance(value, bool) or not (0 <= value <= 1):
        return "must be a number from 0 to 1"
    return None


def _query_kind(value: Any) -> str | None:
    return None if value in ("soql", "sosl", "tool") else "must be 'soql', 'sosl' or 'tool'"


def _value_source(value: Any) -> str | None:
    return None if value in VALUE_SOURCES else f"must be one of {', '.join(VALUE_SOURCES)}"


def _copy_what(value: Any) -> str | None:
    return None if value in ("value", "row") else "must be 'value' or 'row'"


def _copy_value(value: Any) -> str | None:
    return None if len(value) <= COPY_VALUE_LIMIT else f"longer than {COPY_VALUE_LIMIT} characters"


_SPEC_KEYS = ("aggregate", "group_by", "field", "start", "end", "unit")
#: Spec keys a recording may leave out (added after the first format).
_SPEC_OPTIONAL = ("group_by2",)


def _compute_spec(value: Any) -> str | None:
    keys = set(value)
    if not set(_SPEC_KEYS) <= keys <= set(_SPEC_KEYS) | set(_SPEC_OPTIONAL):
        return "must have exactly the keys " + ", ".join(_SPEC_KEYS) + " (and group_by2)"
    if not isinstance(value["aggregate"], str):
        return "aggregate must be a string"
    rest = [k for k in (*_SPEC_KEYS[1:], *_SPEC_OPTIONAL) if k in keys]
    if not all(value[k] is None or isinstance(value[k], str) for k in rest):
        return "group_by, group_by2, field, start, end and unit must be strings or null"
    return None


def _compute_rows(value: Any) -> str | None:
    if len(value) > COMPUTE_ROWS_LIMIT:
        return f"holds more than {COMPUTE_ROWS_LIMIT} rows"
    if not all(isinstance(row, list) for row in value):
        return "must be a list of rows (lists)"
    return None


def _string_list(value: Any) -> str | None:
    return None if all(isinstance(v, str) for v in value) else "must be a list of strings"


def _score_role(value: Any) -> str | None:
    return None if value in SCORE_CALL_ROLES else "must be 'extractor' or 'judge'"


def _score_result(value: Any) -> str | None:
    if isinstance(value, str):
        return None
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return None
    return "must be a string or a list of strings"


def _gold(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return None
    if isinstance(value, list) and all(v is None or isinstance(v, str) for v in value):
        return None
    return "must be a string, null, or a list of strings"


@dataclass(frozen=True)
class _Field:
    types: tuple[type, ...]
    required: bool = True
    check: Callable[[Any], str | None] | None = None
    #: The accepted types as a set, for a fast ``type(value) in exact`` test.
    exact: frozenset[type] = frozenset()


def _f(types: tuple[type, ...], check: Callable[[Any], str | None] | None = None) -> _Field:
    return _Field(types, True, check, frozenset(types))


def _opt(types: tuple[type, ...], check: Callable[[Any], str | None] | None = None) -> _Field:
    return _Field(types, False, check, frozenset(types))


_NAV = {"query": _opt(_OPT_STR)}

PAYLOAD_FIELDS: dict[str, dict[str, _Field]] = {
    OPEN_OBJECT: {"object": _f(_STR), "query": _f(_STR)},
    SORT: {"object": _f(_STR), "field": _f(_STR), "descending": _f((bool,)), "query": _f(_STR)},
    COLUMNS: {"object": _f(_STR), "columns": _f((list,), _string_list), "query": _f(_STR)},
    FILTER: {
        "object": _f(_STR),
        "field": _f(_STR),
        "op": _f(_STR),
        "value": _f(_SCALAR),
        "query": _f(_STR),
    },
    SEARCH: {"text": _f(_STR), "query": _f(_STR)},
    OPEN_RECORD: {"object": _f(_STR), "id": _f(_STR), "query": _f(_STR)},
    FOLLOW_LINK: {
        "from_object": _f(_STR),
        "from_id": _f(_STR),
        "field": _f(_STR),
        "to_object": _f(_STR),
        "to_id": _f(_STR),
        "query": _f(_STR),
    },
    BACK: _NAV,
    FORWARD: _NAV,
    RUN_QUERY: {
        "text": _f(_STR),
        "kind": _f(_STR, _query_kind),
        "rows": _f((int, type(None)), _non_negative),
        "ms": _f(_NUM, _non_negative),
        "error_code": _f(_OPT_STR),
        "error": _f(_OPT_STR),
        "observation": _opt(_OPT_STR),
        "observation_chars": _opt((int,), _non_negative),
        "tool": _opt(_STR),
    },
    ANSWER_EDIT: {"text": _f(_STR)},
    SUBMIT: {
        "answer": _f(_STR),
        "reward": _f(_OPT_NUM, _reward),
        "scoring": _f(_STR),
        "gold": _f((str, list, type(None)), _gold),
        "details": _opt((dict,)),
    },
    # ``reason``: the app let go of the session without ending it (see record/timing.py).
    PAUSE: {"reason": _opt(_STR)},
    RESUME: {
        "reopened": _opt((bool,)),
        "gap_ms": _opt((int,), _non_negative),
        "discarded_bytes": _opt((int,), _non_negative),
        "idle_after": _opt(_NUM, _non_negative),
    },
    IDLE: {"seconds": _f(_NUM, _non_negative), "idle_after": _opt(_NUM, _non_negative)},
    MODEL_CALL: {
        "prompt_tokens": _f((int,), _non_negative),
        "completion_tokens": _f((int,), _non_negative),
        "cost": _f(_OPT_NUM, _non_negative),
        "latency_ms": _f(_NUM, _non_negative),
        "content": _f(_OPT_STR),
        "tool_calls": _opt((list, type(None))),
        "model": _opt(_STR),
        "finish_reason": _opt(_OPT_STR),
        "attempts": _opt((int,), _non_negative),
        "content_chars": _opt((int,), _non_negative),
        "stream_fallback": _opt((bool,)),
        "deployment": _opt((str,)),
    },
    THOUGHT: {"text": _f(_STR)},
    END: {
        "reason": _f(_STR),
        "reward": _opt(_OPT_NUM, _reward),
        "end_reason": _opt((dict,)),
        "gap_ms": _opt((int,), _non_negative),
        "idle_after": _opt(_NUM, _non_negative),
    },
    EDITOR_EDIT: {"text": _f(_STR)},
    APP_BLUR: {},
    APP_FOCUS: {},
    VIEW_VALUE: {
        "source": _f(_STR, _value_source),
        "object": _f(_OPT_STR),
        "record": _f(_OPT_STR),
        "field": _f(_OPT_STR),
        "length": _f((int,), _non_negative),
    },
    COPY: {
        "source": _f(_STR, _value_source),
        "object": _f(_OPT_STR),
        "record": _f(_OPT_STR),
        "field": _f(_OPT_STR),
        "what": _f(_STR, _copy_what),
        "value": _f(_STR, _copy_value),
        "length": _f((int,), _non_negative),
    },
    COMPUTE: {
        "source": _f(_STR, _value_source),
        "object": _f(_OPT_STR),
        "query": _f(_STR),
        "spec": _f((dict,), _compute_spec),
        "input_rows": _f((int,), _non_negative),
        "skipped": _f((int,), _non_negative),
        "columns": _f((list,), _string_list),
        "rows": _f((list,), _compute_rows),
        "groups": _f((int,), _non_negative),
        "ms": _f(_NUM, _non_negative),
        "error": _opt(_OPT_STR),
        "summary_query": _opt(_OPT_STR),
    },
    NOTE_EDIT: {"text": _f(_STR)},
    SCORE_CALL: {
        "role": _f(_STR, _score_role),
        "model": _f(_STR),
        "input": _f(_STR),
        "reply": _opt(_OPT_STR),
        "result": _opt((str, list, type(None)), _score_result),
        "prompt_tokens": _opt((int,), _non_negative),
        "completion_tokens": _opt((int,), _non_negative),
        "cost": _opt(_OPT_NUM, _non_negative),
        "latency_ms": _opt(_NUM, _non_negative),
        "input_chars": _opt((int,), _non_negative),
        "reply_chars": _opt((int,), _non_negative),
        "error": _opt(_STR),
    },
    USER_MESSAGE: {
        "text": _f(_STR),
        "turn": _f((int,), _non_negative),
        "stop": _f((bool,)),
        "model": _opt(_STR),
        "prompt_tokens": _opt((int,), _non_negative),
        "completion_tokens": _opt((int,), _non_negative),
        "cost": _opt(_OPT_NUM, _non_negative),
        "latency_ms": _opt(_NUM, _non_negative),
    },
    AGENT_MESSAGE: {"text": _f(_STR), "turn": _f((int,), _non_negative)},
}

#: Every event type this format version knows.
EVENT_TYPES = frozenset(PAYLOAD_FIELDS)

_ALLOWED = {kind: frozenset(spec) for kind, spec in PAYLOAD_FIELDS.items()}
_REQUIRED = {
    kind: frozenset(name for name, field in spec.items() if field.required)
    for kind, spec in PAYLOAD_FIELDS.items()
}


def _type_ok(value: Any, types: tuple[type, ...]) -> bool:
    # bool is an int subclass; a count or a duration must not silently accept True.
    if isinstance(value, bool) and bool not in types:
        return False
    return isinstance(value, types)


def validate_payload(event_type: str, payload: Mapping[str, Any]) -> None:
    """Check that ``payload`` has exactly the fields ``event_type`` defines.

    Args:
        event_type: One of :data:`EVENT_TYPES`.
        payload: The payload object.

    Raises:
        PayloadError: Naming the event type and the offending field.
    """
    # A forged line can hold any JSON value as its type (a list or object is unhashable).
    spec = PAYLOAD_FIELDS.get(event_type) if isinstance(event_type, str) else None
    if spec is None:
        raise PayloadError(f"unknown event type {str(event_type)[:80]!r}")
    if not isinstance(payload, Mapping):
        raise PayloadError(f"{event_type}: payload must be an object, not {type(payload).__name__}")
    keys = payload.keys()
    if not keys <= _ALLOWED[event_type]:
        unknown = sorted(set(keys) - _ALLOWED[event_type])
        raise PayloadError(f"{event_type}: unknown payload field {unknown[0]!r}")
    if not _REQUIRED[event_type] <= keys:
        missing = [name for name in spec if name in _REQUIRED[event_type] and name not in keys]
        raise PayloadError(f"{event_type}: missing payload field {missing[0]!r}")
    for name, value in payload.items():
        field = spec[name]
        # Exact-type lookup first: verify() runs this for every line of every recording.
        if type(value) not in field.exact and not _type_ok(value, field.types):
            allowed = "/".join("null" if t is type(None) else t.__name__ for t in field.types)
            raise PayloadError(
                f"{event_type}: payload field {name!r} must be {allowed}, "
                f"not {type(value).__name__}"
            )
        if field.check is not None and value is not None:
            problem = field.check(value)
            if problem:
                raise PayloadError(f"{event_type}: payload field {name!r} {problem}")


@dataclass(frozen=True)
class Event:
    """One line of a recording after the header.

    Attributes:
        seq: 1-based position among events (line number minus one).
        t: Wall-clock time, ISO 8601 UTC with milliseconds and ``Z``.
        ms: Monotonic milliseconds since the session started (never decreases).
        actor: Id of the actor who caused the event.
        type: One of :data:`EVENT_TYPES`.
        payload: The type's payload object.
        prev: Hash of the previous line (the header for ``seq`` 1).
        hash: sha256 of the canonical JSON of this event without ``hash``.
    """

    seq: int
    t: str
    ms: int
    actor: str
    type: str
    payload: dict[str, Any]
    prev: str
    hash: str

    def to_dict(self) -> dict[str, Any]:
        """The event as the JSON object written on its line."""
        return {
            "seq": self.seq,
            "t": self.t,
            "ms": self.ms,
            "actor": self.actor,
            "type": self.type,
            "payload": self.payload,
            "prev": self.prev,
            "hash": self.hash,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Event:
        """Build an event from a parsed line whose keys were already checked."""
        return cls(
            seq=data["seq"],
            t=data["t"],
            ms=data["ms"],
            actor=data["actor"],
            type=data["type"],
            payload=data["payload"],
            prev=data["prev"],
            hash=data["hash"],
        )
