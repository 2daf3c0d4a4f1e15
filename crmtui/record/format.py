"""The on-disk recording format: canonical JSON, the hash chain and the header.

A recording is one JSONL file per session. Line 1 is the header; every further line is an
:class:`~crmtui.record.events.Event`. Each line carries ``hash`` = sha256 (hex) of the
canonical JSON of the line's object without ``hash``, and each event carries ``prev`` = the
hash of the line before it, so any edit, deletion, insertion or reordering breaks the chain
at the first affected line. This is tamper *evidence*, not security: someone rewriting the
whole tail can recompute the hashes.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
from collections.abc import Mapping
from typing import Any

from crmtui import __version__
from crmtui.limits import idx_range_problem
from crmtui.record.dialogue_check import validate_dialogue
from crmtui.record.errors import PayloadError

FORMAT_NAME = "crmtui-recording"
FORMAT_VERSION = 1

HEADER_KEYS = frozenset(
    {
        "kind",
        "format",
        "format_version",
        "crmtui_version",
        "session_id",
        "actor",
        "instance",
        "tasks_source",
        "org",
        "today",
        "mode",
        "started_at",
        "settings",
        "run_id",
        "dialogue",
        "hash",
    }
)
EVENT_KEYS = frozenset({"seq", "t", "ms", "actor", "type", "payload", "prev", "hash"})
ACTOR_KINDS = ("human", "model")
MODES = ("default", "aided")

_TIME_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")
_DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_HEX64_RE = re.compile(r"^[0-9a-f]{64}$")


def canonical_json(obj: Any) -> str:
    """Serialise ``obj`` the one way the hash chain uses (sorted keys, no spaces, UTF-8).

    Raises:
        PayloadError: If ``obj`` holds something JSON cannot represent exactly (NaN,
            infinity, non-string keys, arbitrary objects).
    """
    try:
        return json.dumps(
            obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
        )
    except (TypeError, ValueError) as exc:
        raise PayloadError(f"not representable as JSON: {exc}") from exc


def hash_text(text: str) -> str:
    """sha256 hex digest of ``text`` encoded as UTF-8.

    Raises:
        PayloadError: If the text holds lone surrogates (not encodable as UTF-8).
    """
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise PayloadError(f"text is not valid Unicode: {exc.reason}") from exc
    return hashlib.sha256(data).hexdigest()


def object_hash(obj: Mapping[str, Any]) -> str:
    """The ``hash`` a header or event line must carry: over everything but ``hash``."""
    return hash_text(canonical_json({k: v for k, v in obj.items() if k != "hash"}))


def sealed_line(obj: Mapping[str, Any]) -> tuple[dict[str, Any], str]:
    """Add ``hash`` to ``obj`` and return it with its line text (newline included)."""
    body = canonical_json({k: v for k, v in obj.items() if k != "hash"})
    sealed = dict(obj)
    sealed["hash"] = hash_text(body)
    return sealed, canonical_json(sealed) + "\n"


def format_time(moment: dt.datetime) -> str:
    """ISO 8601 UTC with milliseconds and ``Z``; naive datetimes are taken as UTC."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    moment = moment.astimezone(dt.UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def parse_time(text: str) -> dt.datetime:
    """Inverse of :func:`format_time` (an aware UTC datetime)."""
    return dt.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=dt.UTC)


def is_time(value: Any) -> bool:
    """True when ``value`` is a string in :func:`format_time`'s shape."""
    return isinstance(value, str) and bool(_TIME_RE.match(value))


def is_hash(value: Any) -> bool:
    """True when ``value`` looks like a sha256 hex digest."""
    return isinstance(value, str) and bool(_HEX64_RE.match(value))


def _need(obj: Mapping[str, Any], key: str, types: tuple[type, ...], where: str) -> Any:
    if key not in obj:
        raise PayloadError(f"{where}: missing {key!r}")
    value = obj[key]
    if isinstance(value, bool) and bool not in types:
        raise PayloadError(f"{where}: {key!r} has the wrong type (bool)")
    if not isinstance(value, types):
        raise PayloadError(f"{where}: {key!r} has the wrong type ({type(value).__name__})")
    return value


def validate_header(header: Mapping[str, Any]) -> None:
    """Check a header object's fields (not its hash).

    Raises:
        PayloadError: Naming the offending field.
    """
    unknown = sorted(set(header) - HEADER_KEYS)
    if unknown:
        raise PayloadError(f"header: unknown field {unknown[0]!r}")
    if header.get("kind") != "header":
        raise PayloadError("header: 'kind' must be 'header'")
    if header.get("format") != FORMAT_NAME:
        raise PayloadError(f"header: 'format' must be {FORMAT_NAME!r}")
    version = header.get("format_version")
    if version != FORMAT_VERSION:
        raise PayloadError(
            f"header: unsupported format_version {version!r} (this crmtui reads {FORMAT_VERSION})"
        )
    _need(header, "crmtui_version", (str,), "header")
    if not _need(header, "session_id", (str,), "header"):
        raise PayloadError("header: 'session_id' is empty")
    actor = _need(header, "actor", (dict,), "header")
    if actor.get("kind") not in ACTOR_KINDS:
        raise PayloadError("header: actor 'kind' must be 'human' or 'model'")
    if not _need(actor, "id", (str,), "header actor"):
        raise PayloadError("header: actor 'id' is empty")
    if actor["kind"] == "model":
        _need(actor, "strategy", (str,), "header actor")
    extra = sorted(set(actor) - {"kind", "id", "strategy"})
    if extra:
        raise PayloadError(f"header actor: unknown field {extra[0]!r}")
    instance = _need(header, "instance", (dict,), "header")
    if "answer" in instance:
        # The gold answer must never reach the actor through the recording header.
        raise PayloadError("header instance: must not contain the gold 'answer'")
    problem = idx_range_problem(_need(instance, "idx", (int,), "header instance"))
    if problem is not None:
        raise PayloadError(f"header instance: {problem}")
    for key in ("task", "query", "reward_metric"):
        _need(instance, key, (str,), "header instance")
    extra = sorted(set(instance) - {"idx", "task", "query", "reward_metric"})
    if extra:
        raise PayloadError(f"header instance: unknown field {extra[0]!r}")
    _need(header, "tasks_source", (str,), "header")
    org = _need(header, "org", (dict,), "header")
    for key in ("path", "digest", "name"):
        _need(org, key, (str, type(None)), "header org")
    extra = sorted(set(org) - {"path", "digest", "name"})
    if extra:
        raise PayloadError(f"header org: unknown field {extra[0]!r}")
    today = _need(header, "today", (str, type(None)), "header")
    if today is not None and not _DATE_RE.match(today):
        raise PayloadError(f"header: 'today' must be YYYY-MM-DD or null, not {today!r}")
    if header.get("mode") not in MODES:
        raise PayloadError("header: 'mode' must be 'default' or 'aided'")
    if not is_time(header.get("started_at")):
        raise PayloadError("header: 'started_at' must be an ISO UTC time with ms and Z")
    if "settings" in header and not isinstance(header["settings"], dict):
        raise PayloadError("header: 'settings' must be an object")
    if "run_id" in header and not (isinstance(header["run_id"], str) and header["run_id"]):
        raise PayloadError("header: 'run_id' must be a non-empty string")
    validate_dialogue(header)


def build_header(
    *,
    session_id: str,
    actor: Mapping[str, Any],
    instance: Mapping[str, Any],
    tasks_source: str,
    org: Mapping[str, Any],
    today: dt.date | str | None,
    mode: str,
    started_at: dt.datetime,
    settings: Mapping[str, Any] | None = None,
    run_id: str | None = None,
    dialogue: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Assemble, validate and seal (hash) a header object.

    ``settings`` (every value that shaped an agent's attempt: model, strategy, limits,
    scoring, preset ...), ``run_id`` (the batch run it belongs to) and ``dialogue`` (both
    sides of a multi-turn conversation, :class:`crmtui.play.dialogue.DialogueSpec`) are
    optional.

    Raises:
        PayloadError: If a field is missing or malformed, or ``instance`` holds the answer.
    """
    if isinstance(today, dt.datetime):
        today = today.date()
    header: dict[str, Any] = {
        "kind": "header",
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "crmtui_version": __version__,
        "session_id": session_id,
        "actor": dict(actor),
        "instance": dict(instance),
        "tasks_source": tasks_source,
        "org": {key: org.get(key) for key in ("path", "digest", "name")} | dict(org),
        "today": today.isoformat() if isinstance(today, dt.date) else today,
        "mode": mode,
        "started_at": format_time(started_at),
    }
    if settings is not None:
        header["settings"] = dict(settings)
    if run_id is not None:
        header["run_id"] = run_id
    if dialogue is not None:
        header["dialogue"] = dict(dialogue)
    validate_header(header)
    sealed, _ = sealed_line(header)
    return sealed


def slugify(text: str) -> str:
    """A filesystem-safe folder name for an actor id (``openai/gpt-4o`` -> ``openai-gpt-4o``)."""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-.")
    return slug[:80] or "actor"


def default_filename(started_at: dt.datetime, idx: int, session_id: str) -> str:
    """``<YYYYmmdd-HHMMSS>-idx<idx>-<session_id[:8]>.jsonl`` (UTC)."""
    if started_at.tzinfo is not None:
        started_at = started_at.astimezone(dt.UTC)
    return f"{started_at:%Y%m%d-%H%M%S}-idx{idx}-{session_id[:8]}.jsonl"
