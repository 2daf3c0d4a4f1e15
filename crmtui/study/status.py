"""Progress of a study: who has done what, for how long, and when they were last active.

This is a quick read meant to be run often (and over thousands of recordings): each file's
header, its last line and the lines the time model reads (``submit``, ``end``, ``pause``,
``resume``, ``idle``, ``app_blur``/``app_focus``) are parsed, and the time is folded by
:mod:`crmtui.record.timing`, as everywhere; hash chains are not checked (``crmtui study
report`` and ``crmtui verify`` do that).

Per annotator, each counted instance is *done* (a session with a submission, or in a
multi-turn study a conversation that ended, on either side), *in progress* (a session without
one yet, running or ended) or *left* (no session). Active time adds up
every session's active time (the one time model, as in the report). Where the study has
them, each annotator's qualification (``qualify``) and answer to the instructions are shown
too.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from crmtui.record.timing import session_times
from crmtui.study import consent
from crmtui.study.assign import coverage
from crmtui.study.definition import Study
from crmtui.study.qualify import Qualification, qualification


@dataclass(frozen=True)
class SessionFacts:
    """What the quick read learns about one recording.

    Attributes:
        path: The file.
        annotator: The actor id of its header.
        idx: The instance.
        started_at: Header start time.
        submitted: Has a ``submit`` event.
        finished: Has an ``end`` event.
        end_reason: The ``end`` event's reason.
        active_ms: Active time, by the one time model (:mod:`crmtui.record.timing`).
        last_at: Wall time of its last event (or its start).
        reward: The submission's reward (None: none, or not scored).
        reward_metric: The instance's metric, from the header (decides what is right).
        dialogue_role: The side a person played in a conversation (``agent`` or ``user``;
            None: single-turn).
    """

    path: Path
    annotator: str
    idx: int
    started_at: str
    submitted: bool
    finished: bool
    end_reason: str | None
    active_ms: int
    last_at: str
    reward: float | None = None
    reward_metric: str | None = None
    dialogue_role: str | None = None

    @property
    def completed(self) -> bool:
        """Whether the instance is done: a submission, or a conversation that ended
        (accepted, out of user turns, stopped by the user), not one a side left."""
        if self.submitted:
            return True
        return (
            self.dialogue_role is not None
            and self.finished
            and not (self.end_reason or "").startswith("abandoned")
        )

    @property
    def right(self) -> bool | None:
        """Whether the submission was right (None: no scored submission)."""
        from crmtui.scoring.rules import is_right

        return is_right(self.reward, self.reward_metric or "exact_match")


# Lines are canonical JSON (sorted keys, no spaces), so the few fields needed can be found
# with byte patterns: a quote inside a string value is always escaped, so ``"ms":`` can only
# match a key, and the top-level ``type`` is a line's last key (``..."type":"end"}``, after
# ``"t"``). A search per event type finds the lines that matter (``bytes.find``, in C); only
# the ``end`` line is parsed whole, the others give their few numbers to regexes.
#: The events the active time depends on (crmtui.record.timing), and the end.
_MARKERS = {
    kind: f'"type":"{kind}"'.encode() for kind in ("submit", "end", "pause", "resume", "idle")
}
_MS = re.compile(rb'"ms":(\d+)')
# In the payloads of pause, resume and idle (flat objects of numbers and booleans).
_NUMBERS = {
    key: re.compile(f'"{key}":([0-9.eE+-]+)'.encode())
    for key in ("seconds", "idle_after", "gap_ms")
}


class _Timed(NamedTuple):
    """An event as the time fold reads it."""

    ms: int
    t: str
    type: str
    payload: dict[str, Any]


def _positions(data: bytes, marker: bytes) -> list[int]:
    """Where ``marker`` ends a line's object: the line's own (top-level) type."""
    found, pos = [], data.find(marker)
    while pos >= 0:
        if data[pos + len(marker) : pos + len(marker) + 2] == b"}\n":
            found.append(pos)
        pos = data.find(marker, pos + len(marker))
    return found


def _timed(line: bytes, kind: str) -> _Timed | None:
    ms = _MS.search(line)
    at = line.rfind(b',"t":"')  # the top-level key just before "type", at the line's end
    if ms is None or at < 0:
        return None
    stamp = line[at + 6 : line.find(b'"', at + 6)].decode("ascii", "replace")
    payload: dict[str, Any] = {}
    try:
        if kind == "end":
            payload = dict(json.loads(line)["payload"])
        elif kind in ("pause", "resume", "idle"):
            for key, pattern in _NUMBERS.items():
                found = pattern.search(line)
                if found is not None:
                    payload[key] = float(found.group(1))
            if b'"reopened":true' in line:
                payload["reopened"] = True
    except (ValueError, KeyError, TypeError):
        return None
    return _Timed(int(ms.group(1)), stamp, kind, payload)


def _kind_of(line: bytes) -> str:
    at = line.rfind(b'"type":"')
    return line[at + 8 : line.find(b'"', at + 8)].decode("ascii", "replace") if at >= 0 else ""


def read_facts(path: Path) -> SessionFacts | None:
    """Quick facts of one recording; None for files that are not human recordings."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    first, _, body = data.partition(b"\n")
    try:
        header = json.loads(first)
        if header.get("kind") != "header" or header["actor"]["kind"] != "human":
            return None
        annotator, idx = str(header["actor"]["id"]), header["instance"]["idx"]
        started = str(header["started_at"])
        metric = header["instance"].get("reward_metric")
        dialogue = header.get("dialogue")
        role = dialogue.get("role") if isinstance(dialogue, dict) else None
    except (ValueError, KeyError, TypeError, AttributeError):
        return None
    if not isinstance(idx, int):
        return None
    if not body.endswith(b"\n"):
        body = body[: body.rfind(b"\n") + 1]  # a partial last line (a crash mid-write)
    starts = {
        body.rfind(b"\n", 0, pos) + 1: kind
        for kind, marker in _MARKERS.items()
        for pos in _positions(body, marker)
    }
    if body:  # the last event ends an unsubmitted clock
        last = body.rfind(b"\n", 0, len(body) - 1) + 1
        starts.setdefault(last, _kind_of(body[last:-1]))
    events = []
    for begin in sorted(starts):
        item = _timed(body[begin : body.find(b"\n", begin)], starts[begin])
        if item is not None:
            events.append(item)
    submitted = any(e.type == "submit" for e in events)
    # A recording's submission is its first submit.
    first_submit = min((begin for begin, kind in starts.items() if kind == "submit"), default=None)
    reward = (
        None
        if first_submit is None
        else _reward(body[first_submit : body.find(b"\n", first_submit)])
    )
    ends = [e for e in events if e.type == "end"]
    reason = ends[0].payload.get("reason") if ends else None
    times = session_times(events)
    last_at = events[-1].t if events else started
    return SessionFacts(
        path=path,
        annotator=annotator,
        idx=idx,
        started_at=started,
        submitted=submitted,
        finished=bool(ends),
        end_reason=reason if isinstance(reason, str) else None,
        active_ms=times.active_ms,
        last_at=last_at,
        reward=reward,
        reward_metric=metric if isinstance(metric, str) else None,
        dialogue_role=role if isinstance(role, str) else None,
    )


def _by_a_model(path: Path) -> bool:
    """Whether a recording is a model's (a multi-turn study's model agent, recorded beside
    the person it talked to): not a person's progress, and not unreadable either."""
    try:
        with path.open("rb") as handle:
            header = json.loads(handle.readline())
        return bool(header["actor"]["kind"] == "model")
    except (OSError, ValueError, KeyError, TypeError):
        return False


def _reward(line: bytes) -> float | None:
    """The reward of a ``submit`` line (its payload may hold anything, so it is parsed)."""
    try:
        value = json.loads(line)["payload"]["reward"]
    except (ValueError, KeyError, TypeError):
        return None
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


#: path -> ((size, mtime_ns), facts): lets a screen that re-reads every few seconds skip
#: the recordings that did not change (finished ones never do).
FactsCache = dict[Path, tuple[tuple[int, int], SessionFacts | None]]


def scan_recordings(root: Path, cache: FactsCache | None = None) -> tuple[list[SessionFacts], int]:
    """Quick facts of every recording under ``root`` and the number of files skipped.

    Args:
        root: The recordings folder.
        cache: Facts from an earlier scan, reused for files whose size and modification
            time are unchanged (and updated in place).
    """
    facts: list[SessionFacts] = []
    skipped = 0
    if not root.is_dir():
        return facts, skipped
    for folder, _, files in os.walk(root):
        base = Path(folder)
        for name in files:
            if not name.endswith(".jsonl"):
                continue
            path = base / name
            item: SessionFacts | None
            if cache is None:
                item = read_facts(path)
            else:
                try:
                    stat = path.stat()
                except OSError:
                    continue
                stamp = (stat.st_size, stat.st_mtime_ns)
                known = cache.get(path)
                if known is not None and known[0] == stamp:
                    item = known[1]
                else:
                    item = read_facts(path)
                    cache[path] = (stamp, item)
            if item is None:
                skipped += not _by_a_model(path)
            else:
                facts.append(item)
    return facts, skipped


@dataclass
class AnnotatorProgress:
    """One annotator's row.

    Attributes:
        annotator: Name.
        assigned: Counted instances assigned.
        done: Counted instances with a submission.
        in_progress: Counted instances with a session but no submission.
        practice_done: Practice instances with a submission.
        practice: Practice instances assigned.
        active_seconds: Active time over all their sessions.
        sessions: Number of sessions.
        timed_out: Sessions ended by the time limit.
        last_activity: Wall time of their latest event (None: never started).
        qualification: Their standing on the study's ``qualify`` (None: no gate).
        instructions: Their answer to the study's instructions (None: there are none).
        role: Their side of the conversations in a multi-turn study (None: single-turn).
        partner: Who the other side is, in words (None: single-turn).
    """

    annotator: str
    assigned: int
    done: int = 0
    in_progress: int = 0
    practice_done: int = 0
    practice: int = 0
    active_seconds: float = 0.0
    sessions: int = 0
    timed_out: int = 0
    last_activity: str | None = None
    qualification: Qualification | None = None
    instructions: dict[str, object] | None = None
    role: str | None = None
    partner: str | None = None

    @property
    def left(self) -> int:
        """Counted instances not started."""
        return self.assigned - self.done - self.in_progress


@dataclass
class InstanceProgress:
    """One instance's row: who has it and who finished it (submitted)."""

    idx: int
    task: str
    shared: bool
    assigned: list[str]
    finished: list[str] = field(default_factory=list)


@dataclass
class StudyStatus:
    """Everything ``crmtui study status`` shows.

    Attributes:
        name: The study.
        folder: Its folder.
        annotators: One row per annotator, in the order they joined.
        instances: One row per counted instance, by idx.
        files: Recordings read.
        skipped: Files that are not readable human recordings.
        stray: Sessions by someone not in the study or on an instance not assigned to them.
    """

    name: str
    folder: Path
    annotators: list[AnnotatorProgress]
    instances: list[InstanceProgress]
    files: int
    skipped: int
    stray: int

    @property
    def done(self) -> int:
        """Counted (annotator, instance) pairs done."""
        return sum(row.done for row in self.annotators)

    @property
    def assigned(self) -> int:
        """Counted (annotator, instance) pairs assigned."""
        return sum(row.assigned for row in self.annotators)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "study": self.name,
            "folder": str(self.folder),
            "done": self.done,
            "assigned": self.assigned,
            "files": self.files,
            "skipped": self.skipped,
            "stray_sessions": self.stray,
            "annotators": [
                {
                    "annotator": row.annotator,
                    "assigned": row.assigned,
                    "done": row.done,
                    "in_progress": row.in_progress,
                    "left": row.left,
                    "practice_done": row.practice_done,
                    "practice": row.practice,
                    "active_seconds": round(row.active_seconds, 3),
                    "sessions": row.sessions,
                    "timed_out": row.timed_out,
                    "last_activity": row.last_activity,
                    "qualification": None
                    if row.qualification is None
                    else row.qualification.to_dict(),
                    "instructions": row.instructions,
                    "role": row.role,
                    "partner": row.partner,
                }
                for row in self.annotators
            ],
            "instances": [
                {
                    "idx": row.idx,
                    "task": row.task,
                    "shared": row.shared,
                    "assigned": row.assigned,
                    "finished": row.finished,
                }
                for row in self.instances
            ],
        }


def study_status(
    study: Study, facts: list[SessionFacts] | None = None, cache: FactsCache | None = None
) -> StudyStatus:
    """Progress of every annotator and instance.

    Args:
        study: The study.
        facts: Facts already read (else the study's recordings are scanned).
        cache: Passed to :func:`scan_recordings` (for repeated reads).
    """
    skipped = 0
    if facts is None:
        facts, skipped = scan_recordings(study.recordings, cache)
    by_annotator: dict[str, list[SessionFacts]] = defaultdict(list)
    for item in facts:
        by_annotator[item.annotator].append(item)
    rows: list[AnnotatorProgress] = []
    finished_by: dict[int, set[str]] = defaultdict(set)
    stray = sum(len(items) for name, items in by_annotator.items() if name not in study.assignments)
    text = consent.read_instructions(study)
    digest = None if text is None else consent.text_digest(text)
    recorded = consent.answers(study) if digest else []
    for name, assignment in study.assignments.items():
        row = AnnotatorProgress(name, len(assignment.instances), practice=len(assignment.practice))
        row.qualification = qualification(study, name, by_annotator.get(name, []))
        row.instructions = consent.consent_state(recorded, name, digest)
        row.role, row.partner = study.role_of(name), study.partner_text(name)
        counted, practice = set(assignment.instances), set(assignment.practice)
        submitted: set[int] = set()
        started: set[int] = set()
        for item in by_annotator.get(name, []):
            if item.idx not in counted and item.idx not in practice:
                stray += 1
                continue
            row.sessions += 1
            row.active_seconds += item.active_ms / 1000
            row.timed_out += item.end_reason == "time_limit"
            if row.last_activity is None or item.last_at > row.last_activity:
                row.last_activity = item.last_at
            started.add(item.idx)
            if item.completed:
                submitted.add(item.idx)
        row.done = len(submitted & counted)
        row.in_progress = len((started - submitted) & counted)
        row.practice_done = len(submitted & practice)
        for idx in submitted & counted:
            finished_by[idx].add(name)
        rows.append(row)
    shared = set(study.shared)
    instances = [
        InstanceProgress(
            idx=idx,
            task=study.design.types[idx],
            # A pair of people is one seat: their instance is not shared for agreement.
            shared=idx in shared,
            assigned=names,
            finished=[n for n in names if n in finished_by.get(idx, set())],
        )
        for idx, names in coverage(study.assignments).items()
    ]
    return StudyStatus(
        name=study.name,
        folder=study.folder,
        annotators=rows,
        instances=instances,
        files=len(facts) + skipped,
        skipped=skipped,
        stray=stray,
    )


def ago(moment: str | None, now: dt.datetime | None = None) -> str:
    """``3 min ago`` for an ISO UTC time (``never`` for None)."""
    if moment is None:
        return "never"
    try:
        when = dt.datetime.fromisoformat(moment.replace("Z", "+00:00"))
    except ValueError:
        return moment
    seconds = ((now or dt.datetime.now(dt.UTC)) - when).total_seconds()
    if seconds < 60:
        return "just now"
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{int(seconds // size)} {unit} ago"
    return moment
