"""Event types of a recording and the payload each one carries.

Payloads are plain JSON objects (``dict``). Each event type's payload is defined once, as a
:class:`TypedDict` (:data:`PAYLOADS`): its annotations give each field's types, whether it is
required (``NotRequired``) and any check on its value (``Annotated[int, _non_negative]``).
From those classes come the static types, the table :func:`validate_payload` reads
(:data:`PAYLOAD_FIELDS`) and the docs' event table (``scripts/gen_docs.py``). The recorder so
refuses a malformed event at the moment it happens rather than leaving a replay to trip over
it later. Unknown payload keys are refused too: a typo would otherwise silently lose data.
Extending the format means adding the field to its class (and, for a breaking change,
bumping ``FORMAT_VERSION`` in :mod:`crmtui.record.format`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import UnionType
from typing import (
    Annotated,
    Any,
    NotRequired,
    Required,
    TypedDict,
    Union,
    get_args,
    get_origin,
    get_type_hints,
    is_typeddict,
)

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


# --- payloads: the one definition of each event's fields --------------------------------
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

    ``columns`` empty means the object's own fields again. ``same_step`` (a related list's
    View All) keeps them in the step that opened the list.
    """

    object: str
    columns: Annotated[list[str], _string_list]
    query: str
    #: The columns complete the view just opened (a related list's View All): one step of
    #: the history, so Back leaves the view at once.
    same_step: NotRequired[bool]


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
    kind: Annotated[str, _query_kind]
    rows: Annotated[int | None, _non_negative]
    ms: Annotated[float, _non_negative]
    error_code: str | None
    error: str | None
    observation: NotRequired[str | None]
    #: Length of the observation when ``observation`` was cut to the stored-text limit.
    observation_chars: NotRequired[Annotated[int, _non_negative]]
    tool: NotRequired[str]


class AnswerEditPayload(TypedDict):
    """The answer box changed (debounced by the caller, see :class:`Debouncer`)."""

    text: str


class SubmitPayload(TypedDict):
    """The answer was submitted and scored; the gold answer is revealed only now."""

    answer: str
    reward: Annotated[float | None, _reward]
    scoring: str
    gold: Annotated[str | list[str | None] | None, _gold]
    details: NotRequired[dict[str, Any]]


class EditorEditPayload(TypedDict):
    """The console editor's text changed (debounced like ``answer_edit``); resume restores it."""

    text: str


class FocusPayload(TypedDict):
    """``app_blur`` / ``app_focus``: the terminal lost or regained focus (no fields)."""


class ResumePayload(TypedDict):
    """Work resumed: after a pause, or (``reopened``) after the process ended."""

    reopened: NotRequired[bool]
    gap_ms: NotRequired[Annotated[int, _non_negative]]
    discarded_bytes: NotRequired[Annotated[int, _non_negative]]
    #: A person's ``--idle``: how much of ``gap_ms`` counts after a kill.
    idle_after: NotRequired[Annotated[float, _non_negative]]


class PausePayload(TypedDict):
    """The clock stopped: F7, or (``reason``) the app let go of the session unended."""

    reason: NotRequired[str]


class IdlePayload(TypedDict):
    """A gap without input of ``seconds`` ended; its first ``idle_after`` counted as active."""

    seconds: Annotated[float, _non_negative]
    idle_after: NotRequired[Annotated[float, _non_negative]]


class ModelCallPayload(TypedDict):
    """One LLM call made by a model actor."""

    prompt_tokens: Annotated[int, _non_negative]
    completion_tokens: Annotated[int, _non_negative]
    cost: Annotated[float | None, _non_negative]
    latency_ms: Annotated[float, _non_negative]
    content: str | None
    tool_calls: NotRequired[list[Any] | None]
    model: NotRequired[str]
    finish_reason: NotRequired[str | None]
    attempts: NotRequired[Annotated[int, _non_negative]]
    #: Length of the reply when ``content`` was cut to the stored-text limit.
    content_chars: NotRequired[Annotated[int, _non_negative]]
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

    role: Annotated[str, _score_role]
    model: str
    input: str
    reply: NotRequired[str | None]
    result: NotRequired[Annotated[str | list[str] | None, _score_result]]
    prompt_tokens: NotRequired[Annotated[int, _non_negative]]
    completion_tokens: NotRequired[Annotated[int, _non_negative]]
    cost: NotRequired[Annotated[float | None, _non_negative]]
    latency_ms: NotRequired[Annotated[float, _non_negative]]
    input_chars: NotRequired[Annotated[int, _non_negative]]
    reply_chars: NotRequired[Annotated[int, _non_negative]]
    error: NotRequired[str]


class UserMessagePayload(TypedDict):
    """The user's message in a dialogue (``actor``: who plays the user).

    ``turn`` 0 is the opening message; turn k answers the agent's k-th message. ``stop``: it
    holds ``###STOP###`` and ends the conversation. A simulated user's call is recorded
    beside it (its own model, tokens, cost and latency: never counted as the agent's).
    """

    text: str
    turn: Annotated[int, _non_negative]
    stop: bool
    model: NotRequired[str]
    prompt_tokens: NotRequired[Annotated[int, _non_negative]]
    completion_tokens: NotRequired[Annotated[int, _non_negative]]
    cost: NotRequired[Annotated[float | None, _non_negative]]
    latency_ms: NotRequired[Annotated[float, _non_negative]]


class AgentMessagePayload(TypedDict):
    """The agent's message to the user in a dialogue (its ``respond``; turn k: the k-th)."""

    text: str
    turn: Annotated[int, _non_negative]


class EndPayload(TypedDict):
    """The session ended (always the last event of a finished recording)."""

    reason: str
    reward: NotRequired[Annotated[float | None, _reward]]
    end_reason: NotRequired[dict[str, Any]]
    #: Closing an unfinished session: wall ms since its last event, and the ``--idle``.
    gap_ms: NotRequired[Annotated[int, _non_negative]]
    idle_after: NotRequired[Annotated[float, _non_negative]]


class ViewValuePayload(TypedDict):
    """A value was opened whole in the value viewer."""

    source: Annotated[str, _value_source]
    object: str | None
    record: str | None
    field: str | None
    length: Annotated[int, _non_negative]


class CopyPayload(TypedDict):
    """A value (``what``: ``value`` or ``row``) was copied to the clipboard and register.

    ``value`` keeps the first :data:`COPY_VALUE_LIMIT` characters; ``length`` is the whole.
    """

    source: Annotated[str, _value_source]
    object: str | None
    record: str | None
    field: str | None
    what: Annotated[str, _copy_what]
    value: Annotated[str, _copy_value]
    length: Annotated[int, _non_negative]


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

    source: Annotated[str, _value_source]
    object: str | None
    query: str
    spec: Annotated[ComputeSpecPayload, _compute_spec]
    input_rows: Annotated[int, _non_negative]
    skipped: Annotated[int, _non_negative]
    columns: Annotated[list[str], _string_list]
    rows: Annotated[list[list[Any]], _compute_rows]
    groups: Annotated[int, _non_negative]
    ms: Annotated[float, _non_negative]
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


#: The one definition of every event's payload: its type name and the TypedDict above. The
#: validator's field table (:data:`PAYLOAD_FIELDS`), the docs' event table
#: (``scripts/gen_docs.py``) and the static types all come from these classes.
PAYLOADS: dict[str, type] = {
    OPEN_OBJECT: OpenObjectPayload,
    SORT: SortPayload,
    FILTER: FilterPayload,
    COLUMNS: ColumnsPayload,
    SEARCH: SearchPayload,
    OPEN_RECORD: OpenRecordPayload,
    FOLLOW_LINK: FollowLinkPayload,
    BACK: NavPayload,
    FORWARD: NavPayload,
    RUN_QUERY: RunQueryPayload,
    ANSWER_EDIT: AnswerEditPayload,
    SUBMIT: SubmitPayload,
    PAUSE: PausePayload,
    RESUME: ResumePayload,
    IDLE: IdlePayload,
    MODEL_CALL: ModelCallPayload,
    THOUGHT: ThoughtPayload,
    END: EndPayload,
    EDITOR_EDIT: EditorEditPayload,
    APP_BLUR: FocusPayload,
    APP_FOCUS: FocusPayload,
    VIEW_VALUE: ViewValuePayload,
    COPY: CopyPayload,
    COMPUTE: ComputePayload,
    NOTE_EDIT: NoteEditPayload,
    SCORE_CALL: ScoreCallPayload,
    USER_MESSAGE: UserMessagePayload,
    AGENT_MESSAGE: AgentMessagePayload,
}


def _runtime_types(annotation: Any) -> tuple[type, ...]:
    """The JSON value types an annotation admits, in its order (``float`` admits ints too)."""
    if annotation is float:
        return (int, float)
    if annotation is type(None) or annotation is None:
        return (type(None),)
    if is_typeddict(annotation):
        return (dict,)
    origin = get_origin(annotation)
    if origin in (Union, UnionType):
        kinds: list[type] = []
        for arm in get_args(annotation):
            kinds += [k for k in _runtime_types(arm) if k not in kinds]
        return tuple(kinds)
    if origin is not None:  # list[str], dict[str, Any]
        return (origin,)
    return (annotation,)


def _fields(payload: type) -> dict[str, _Field]:
    """A payload class's fields as the validator checks them, in declaration order."""
    hints = get_type_hints(payload, include_extras=True)
    fields = {}
    for name, hint in hints.items():
        # Read from the annotation itself: with postponed annotations a TypedDict's own
        # __required_keys__ cannot see NotRequired (Python 3.11).
        required = get_origin(hint) is not NotRequired and (
            payload.__total__ or get_origin(hint) is Required
        )
        if get_origin(hint) in (NotRequired, Required):
            (hint,) = get_args(hint)
        check = None
        if get_origin(hint) is Annotated:
            hint, check = get_args(hint)[:2]
        types = _runtime_types(hint)
        fields[name] = _Field(types, required, check, frozenset(types))
    return fields


#: Each event type's payload fields, derived from :data:`PAYLOADS` (what the validator reads).
PAYLOAD_FIELDS: dict[str, dict[str, _Field]] = {
    kind: _fields(payload) for kind, payload in PAYLOADS.items()
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
