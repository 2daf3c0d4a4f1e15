"""Comparing attempts at one instance: aligned steps, per-actor numbers and evidence.

:func:`compare` takes two or more recordings of the same instance and returns a
:class:`Comparison`: each actor's summary (answer, reward, active time, queries, records
viewed, tokens, cost), the step alignment with the first divergence
(:mod:`crmtui.review.align`), and, when the org's solutions file is given, which of the
records the gold answer rests on each actor touched, with a verdict:

==================  =====================  ==================
verdict             answer                 evidence touched
==================  =====================  ==================
``solved``          right                  at least one record
``lucky guess``     right                  none
``reasoning error`` wrong                  at least one record
``missed evidence`` wrong                  none
``unscored``        not submitted / no reward
==================  =====================  ==================

A gold answer that rests on no records (a ``None`` gold: there is nothing to find) has an
empty evidence set; then looking is the evidence: an actor who ran a query or a browse step
checked the answer (a right one is *solved*, not a *lucky guess*).

"Right" follows :func:`crmtui.review.summary.is_right` (exact match: reward 1; KQA:
F1 >= 0.5). Recordings of the multi-turn mode are also lined up by conversation turn
(:mod:`crmtui.review.dialogue_compare`): a simulated user's messages next to a person's,
with the key facts each message gave first. The screen, :meth:`Comparison.to_json` and
:func:`crmtui.review.compare_format.comparison_markdown` only render a :class:`Comparison`.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from crmtui.data.tasktypes import abbreviation
from crmtui.errors import ConfigError, CrmtuiError
from crmtui.record.verify import Recording
from crmtui.review.align import AlignedRow, align
from crmtui.review.dialogue_compare import TurnRow, align_dialogues
from crmtui.review.instance_key import InstanceKey, instance_key, instance_place
from crmtui.review.summary import SessionSummary, is_right, summarize
from crmtui.review.trajectory import ResultIds, Step, extract_steps

if TYPE_CHECKING:
    from crmtui.review.report import Skipped

SOLVED = "solved"
LUCKY_GUESS = "lucky guess"
REASONING_ERROR = "reasoning error"
MISSED_EVIDENCE = "missed evidence"
UNSCORED = "unscored"


class CompareError(CrmtuiError):
    """The recordings given cannot be compared (too few, or different instances)."""


def verdict(right: bool | None, evidence_seen: bool) -> str:
    """The evidence verdict for an answer (see the module table)."""
    if right is None:
        return UNSCORED
    if right:
        return SOLVED if evidence_seen else LUCKY_GUESS
    return REASONING_ERROR if evidence_seen else MISSED_EVIDENCE


@dataclass(frozen=True)
class Evidence:
    """What one actor saw of the records a gold answer rests on.

    Attributes:
        seen: Evidence Ids the actor touched, sorted.
        total: Number of evidence Ids.
        right: Whether the answer was right (None: unscored).
        verdict: One of the verdict strings.
    """

    seen: tuple[str, ...]
    total: int
    right: bool | None
    verdict: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "seen": list(self.seen),
            "total": self.total,
            "right": self.right,
            "verdict": self.verdict,
        }


def evidence_for(summary: SessionSummary, evidence_ids: Sequence[str]) -> Evidence:
    """Classify one session against the gold answer's evidence Ids.

    With no evidence Ids (nothing to find: a ``None`` gold), a session that ran any query
    or browse step counts as having checked (see the module docs).
    """
    wanted = set(evidence_ids)
    seen = tuple(sorted(summary.records & wanted))
    right = is_right(summary.reward, summary.reward_metric)
    checked = bool(seen) if wanted else summary.queries > 0
    return Evidence(seen, len(wanted), right, verdict(right, checked))


def evidence_ids(solutions: Mapping[str, Any] | None, idx: int) -> list[str] | None:
    """The evidence Ids for ``idx`` from a ``<org>.solutions.json`` mapping, if present.

    Raises:
        CompareError: If the entry exists but its ``evidence`` is not a list of strings.
    """
    if solutions is None:
        return None
    entry = solutions.get(str(idx))
    if entry is None:
        return None
    ids = entry.get("evidence") if isinstance(entry, Mapping) else None
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
        raise CompareError(f"solutions entry for idx {idx} has no list of evidence Ids")
    return ids


@dataclass
class Comparison:
    """Two or more attempts at one instance, aligned.

    Attributes:
        idx: The instance idx.
        task: Its task code.
        query: The instance's question as shown to the actors.
        gold: The gold answer (revealed in the submit events), if any actor submitted.
        actors: One summary per recording, the reference (first) first.
        steps: Each actor's trajectory.
        rows: The aligned rows (cells in actor order).
        first_divergence: The first row that is not a match (None: identical).
        divergence: Per actor, the first row where it differs from the reference.
        evidence: Per actor, evidence seen and verdict (None without solutions).
        evidence_total: Number of evidence Ids (None without solutions).
        notes: Warnings worth showing (different orgs, no evidence for this idx...).
        conversation: The dialogues lined up by user turn (empty when none is a dialogue).
    """

    idx: int
    task: str
    query: str
    gold: Any
    actors: list[SessionSummary]
    steps: list[list[Step]]
    rows: list[AlignedRow]
    first_divergence: int | None
    divergence: list[int | None]
    evidence: list[Evidence] | None = None
    evidence_total: int | None = None
    notes: list[str] = field(default_factory=list)
    conversation: list[TurnRow] = field(default_factory=list)

    @property
    def has_dialogue(self) -> bool:
        """Whether any compared recording is a dialogue (multi-turn)."""
        return any(actor.dialogue is not None for actor in self.actors)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (rows refer to steps by their index in each trajectory)."""
        return {
            "idx": self.idx,
            "task": self.task,
            "abbreviation": abbreviation(self.task),
            "query": self.query,
            "gold": self.gold,
            "actors": [actor.to_dict() for actor in self.actors],
            "steps": [[step.to_dict() for step in steps] for steps in self.steps],
            "rows": [row.to_dict() for row in self.rows],
            "first_divergence": self.first_divergence,
            "divergence": self.divergence,
            "evidence": None if self.evidence is None else [e.to_dict() for e in self.evidence],
            "evidence_total": self.evidence_total,
            "notes": self.notes,
            "dialogues": [
                None if a.dialogue is None else a.dialogue.to_dict() for a in self.actors
            ],
            "conversation": [row.to_dict() for row in self.conversation],
        }

    def to_json(self) -> str:
        """The comparison as indented JSON."""
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False)


def compare(
    recordings: Sequence[Recording],
    solutions: Mapping[str, Any] | None = None,
    result_ids: Sequence[ResultIds | None] | None = None,
) -> Comparison:
    """Compare attempts at one instance.

    Args:
        recordings: Two or more verified recordings of the same idx; the first is the
            reference the others are aligned to.
        solutions: The org's solutions mapping (``str(idx)`` -> ``{"evidence": [...]}``).
        result_ids: Optional, one per recording: an Ids-of-returned-rows lookup (see
            :func:`crmtui.review.trajectory.extract_steps` and
            :mod:`crmtui.review.rerun`), or None for that recording.

    Raises:
        CompareError: Fewer than two recordings, or they are of different instances.
    """
    if len(recordings) < 2:
        raise CompareError(f"need at least two recordings to compare, got {len(recordings)}")
    idxs = sorted({rec.header["instance"]["idx"] for rec in recordings})
    if len(idxs) > 1:
        raise CompareError(
            "recordings are of different instances (idx " + ", ".join(map(str, idxs)) + ")"
        )
    # The same idx of another org or task source is another instance, unless it asks the
    # same question (the same tasks on another org, rebuilt or live: noted below).
    if len({instance_key(rec.header) for rec in recordings}) > 1:
        where = {instance_place(r.header) for r in recordings}
        places = sorted(f"org {org!r}, tasks {source!r}" for org, source in where)
        raise CompareError(
            f"recordings are of different instances: idx {idxs[0]} asks different questions "
            f"in {'; '.join(places)}"
        )
    lookups = list(result_ids) if result_ids is not None else [None] * len(recordings)
    if len(lookups) != len(recordings):
        raise CompareError("give one result_ids lookup (or None) per recording")
    steps = [extract_steps(rec, ids) for rec, ids in zip(recordings, lookups, strict=True)]
    actors = [summarize(rec, s) for rec, s in zip(recordings, steps, strict=True)]
    alignment = align(steps)
    first = recordings[0].header
    notes: list[str] = []
    digests = {rec.header["org"].get("digest") for rec in recordings}
    if len(digests) > 1:
        notes.append("the recordings were made on different orgs (org digests differ)")
    if len({rec.header.get("tasks_source") for rec in recordings}) > 1:
        notes.append("the recordings name different task sources")
    gold = next((a.gold for a in actors if a.submitted), None)
    comparison = Comparison(
        idx=idxs[0],
        task=first["instance"]["task"],
        query=first["instance"]["query"],
        gold=gold,
        actors=actors,
        steps=steps,
        rows=alignment.rows,
        first_divergence=alignment.first_divergence,
        divergence=alignment.divergence,
        notes=notes,
        conversation=align_dialogues([actor.dialogue for actor in actors]),
    )
    if comparison.has_dialogue and any(actor.dialogue is None for actor in actors):
        notes.append("some recordings are single-turn: they have no conversation to line up")
    ids = evidence_ids(solutions, idxs[0])
    if solutions is not None and ids is None:
        notes.append(f"the solutions file has no entry for idx {idxs[0]}")
    if ids is not None:
        comparison.evidence = [evidence_for(actor, ids) for actor in actors]
        comparison.evidence_total = len(set(ids))
    return comparison


def default_solutions_path(recording: Recording) -> Path | None:
    """``<org>.solutions.json`` beside the recorded org, if it exists.

    The org named in the header is looked up the way replay does (its path, else an org of
    the same name here, rebuilding the deterministic sample), and only an org whose digest
    matches the recording's counts: another org's solutions would name other records.
    """
    org_path = recording.header["org"].get("path")
    if org_path:
        candidate = Path(org_path).with_suffix(".solutions.json")
        if candidate.is_file():
            return candidate
    from crmtui.review.replay_org import open_recorded_org

    try:
        org, check = open_recorded_org(recording)
    except CrmtuiError:
        return None
    if org is None or not check.ok:
        return None
    candidate = Path(org.path).with_suffix(".solutions.json")
    return candidate if candidate.is_file() else None


def load_solutions(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read a ``<org>.solutions.json`` file (``str(idx)`` -> ``{"evidence": [...], ...}``).

    Raises:
        ConfigError: If the file is missing, not JSON, or not a JSON object.
    """
    source = Path(path)
    try:
        data = json.loads(source.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read solutions file {source}: {exc.strerror}") from exc
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"solutions file {source} is not valid JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"solutions file {source} must hold a JSON object keyed by idx")
    return data


def recordings_for_idx(
    root: str | os.PathLike[str],
    idx: int,
    *,
    org: str | None = None,
    source: str | None = None,
) -> tuple[list[Recording], list[Skipped]]:
    """Every valid recording of instance ``idx`` under ``root``, humans first.

    One folder holds the recordings of every org played: idx ``idx`` of two orgs (or task
    sources) is two instances, so ``org`` and ``source`` narrow the search, and when the
    recordings found are still of more than one instance nothing is compared.

    Within each kind they are ordered by actor label, then start time. A conversation is
    compared once, from its agent's recording: a person's side as the user of a dialogue
    whose agent's recording is also here is left out (it holds the same messages, and
    showed the dialogue twice).

    Raises:
        ConfigError: If ``root`` does not exist.
        CompareError: The recordings of ``idx`` are of more than one instance (naming each,
            and how to choose).
    """
    from crmtui.review.report import load_folder

    loaded, skipped, _ = load_folder(root)
    found = [
        (rec, s)
        for rec, s in loaded
        if s.idx == idx
        and (org is None or (s.place or ("", ""))[0] == org)
        and (source is None or (s.place or ("", ""))[1] == source)
    ]
    instances: dict[InstanceKey, Counter[tuple[str, str]]] = {}
    for _, s in found:
        instances.setdefault(s.instance_key, Counter())[s.place or ("?", "?")] += 1
    if len(instances) > 1:
        listed = "; ".join(
            ", ".join(f"org {o!r}, tasks {t!r}: {n} recording(s)" for (o, t), n in places.items())
            for places in instances.values()
        )
        raise CompareError(
            f"the recordings of idx {idx} are of {len(instances)} different instances "
            f"({listed}); choose one with --org NAME (and --tasks SOURCE)"
        )
    agents = {_dialogue(rec).get("id") for rec, _ in found if _dialogue(rec).get("role") == "agent"}
    found = [
        (rec, s)
        for rec, s in found
        if _dialogue(rec).get("role") != "user" or _dialogue(rec).get("id") not in agents
    ]
    found.sort(
        key=lambda pair: (pair[1].actor_kind != "human", pair[1].actor_label, pair[1].started_at)
    )
    return [rec for rec, _ in found], skipped


def _dialogue(recording: Recording) -> dict[str, Any]:
    """The header's dialogue object ({}: a single-turn recording)."""
    value = recording.header.get("dialogue")
    return value if isinstance(value, dict) else {}
