"""Recomputing recorded rewards: a report trusts the task's gold, not the recording.

A recording's hash chain is tamper *evidence*, not proof: someone can rewrite a submit event
and re-chain every later line. Wherever the instance is at hand in a local task file, the
reward is therefore recomputed from the recorded answer, the task's own gold answer and the
recorded scoring method, and a disagreement is flagged (the recomputed reward is the one
counted). A reward a model helped to produce is recomputed from what that model said, as
recorded: LLM extraction's extracted answers against the task's gold, the LLM judge's
verdict. Task files are looked up like replay does (the header's tasks source when it is a
local file or ``sample``, and the tasks file beside the recorded org) and read once per file;
nothing is ever fetched from the hub.
"""

from __future__ import annotations

import contextlib
import math
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from crmtui.errors import CrmtuiError
from crmtui.review.summary import SessionSummary
from crmtui.scoring.rewards import EXACT_MATCH, PRIVACY_REJECTION, gold_list, score, strip_answer

#: Outcomes of :func:`recheck`.
AGREES = "agreed"
DIFFERS = "disagreed"
NO_TASK = "task not available"
NOT_RECOMPUTABLE = "not recomputable offline"
OUTCOMES = (AGREES, DIFFERS, NO_TASK, NOT_RECOMPUTABLE)

_TOLERANCE = 1e-9


@dataclass(frozen=True)
class RewardCheck:
    """How a session's recorded reward compares with the recomputed one.

    Attributes:
        path: The recording.
        outcome: One of :data:`OUTCOMES`.
        recorded: The reward in the recording.
        recomputed: The reward recomputed from the task's gold (None when not possible).
        gold_differs: The gold answer in the recording is not the task's gold answer.
    """

    path: Path
    outcome: str
    recorded: float | None
    recomputed: float | None = None
    gold_differs: bool = False


class TaskLookup:
    """Finds recorded instances in local task files, reading each file at most once.

    The one place replay, compare and report look instances up. Files are read with the
    json module (pyarrow for Parquet), never through ``datasets``: a lookup must not pay
    for importing datasets and pandas (seconds; docs/performance.md) to find one row of a
    local file.
    """

    def __init__(self) -> None:
        self._sets: dict[Path, Any] = {}

    def candidates(
        self, header: dict[str, Any], org_path: str | os.PathLike[str] | None = None
    ) -> list[Path]:
        """Task files that may hold the header's instance (never a hub source).

        Args:
            header: The recording's header.
            org_path: The org actually opened for the recording (its tasks file is looked
                at too), when it differs from the recorded one.
        """
        from crmtui import paths

        found: list[Path] = []
        source = str(header.get("tasks_source") or "")
        if source == paths.SAMPLE_ORG_NAME:
            # "sample" is the org's own tasks: those of the org recorded (sample-b2b's
            # idx 11 is not the CRMArena sample's idx 11).
            name = (header.get("org") or {}).get("name") or paths.SAMPLE_ORG_NAME
            # A name that is not a usable org name: the paths below.
            with contextlib.suppress(CrmtuiError):
                found.append(paths.org_tasks_path(str(name)))
        elif source and not source.startswith("hf:"):
            found.append(Path(source).expanduser())
        for org in (org_path, (header.get("org") or {}).get("path")):
            if org:
                beside = Path(org).expanduser().with_suffix(".tasks.json")
                if beside not in found:
                    found.append(beside)
        return found

    def _tasks(self, path: Path) -> Any:
        if path not in self._sets:
            from crmtui.data.loaders import load_tasks

            try:
                self._sets[path] = load_tasks(path, via_datasets=False) if path.is_file() else None
            except (CrmtuiError, OSError):
                self._sets[path] = None
        return self._sets[path]

    def find(self, header: dict[str, Any], org_path: str | os.PathLike[str] | None = None) -> Any:
        """The instance with the header's idx and query, or None (see :meth:`candidates`)."""
        wanted = header["instance"]
        for path in self.candidates(header, org_path):
            tasks = self._tasks(path)
            if tasks is None or wanted["idx"] not in tasks:
                continue
            instance = tasks.get(wanted["idx"])
            if instance.query == wanted["query"]:
                return instance
        return None


def recheck(summary: SessionSummary, instance: Any) -> RewardCheck:
    """Recompute ``summary``'s reward against ``instance`` (None: the task is not at hand)."""
    recorded = summary.reward
    if instance is None:
        return RewardCheck(summary.path, NO_TASK, recorded)
    if summary.answer is None or summary.scoring is None:
        return RewardCheck(summary.path, NOT_RECOMPUTABLE, recorded)
    gold_differs = summary.gold != instance.answer
    fresh = _from_model(summary, instance)
    if fresh is None:
        try:
            fresh = score(
                instance.answer,
                summary.reward_metric,
                summary.answer,
                method=summary.scoring,
                task=summary.task,
            ).reward
        except CrmtuiError:
            return RewardCheck(summary.path, NOT_RECOMPUTABLE, recorded, None, gold_differs)
    agrees = (
        recorded is not None
        and fresh is not None
        and math.isclose(recorded, fresh, abs_tol=_TOLERANCE)
    ) or (recorded is None and fresh is None)
    outcome = AGREES if agrees and not gold_differs else DIFFERS
    return RewardCheck(summary.path, outcome, recorded, fresh, gold_differs)


def _from_model(summary: SessionSummary, instance: Any) -> float | None:
    """The reward from a scoring model's recorded words (None: not such a reward, or the
    recording does not say; then the method itself recomputes or cannot)."""
    details = summary.score_details or {}
    answer = summary.answer or ""
    if summary.scoring == "llm_judge" and summary.reward_metric == PRIVACY_REJECTION:
        verdict = details.get("verdict")
        return {"YES": 1.0, "NO": 0.0}.get(verdict) if isinstance(verdict, str) else None
    if summary.scoring != "llm_extract" or summary.reward_metric != EXACT_MATCH:
        return None
    golds = gold_list(instance.answer)
    if len(golds) == 1 and strip_answer(answer) == golds[0]:
        return 1.0  # HEAD's direct match: no model involved
    parsed = details.get("parsed")
    if details.get("step") != "b" or not isinstance(parsed, list):
        return 0.0 if details.get("error") else None
    return float(sorted(str(p) for p in parsed) == sorted(golds))


def rechecked(
    summary: SessionSummary, lookup: TaskLookup, header: dict[str, Any]
) -> tuple[SessionSummary, RewardCheck | None]:
    """The summary with its reward recomputed where possible, and the check (None: unscored)."""
    if not summary.submitted:
        return summary, None
    instance = lookup.find(header)
    check = recheck(summary, instance)
    if check.outcome == DIFFERS:
        summary = replace(summary, reward=check.recomputed, gold=instance.answer)
    return summary, check
