"""The report of a study: the usual report restricted to the study, plus agreement.

Which sessions count:

* the study's annotators' sessions on their own counted instances (practice sessions and
  sessions on instances not assigned to their annotator are left out, and counted in
  ``excluded``), verified and selected by the usual rules (an annotator's first submission
  per instance; later ones are flagged, not counted);
* with ``--models DIR``, model sessions on the study's instances; a model session whose
  task type or instance text differs from the annotators' (another task file) is left out;
* in a multi-turn study, the dialogues on the annotators' counted instances, counted from
  their agents' recordings (a person's, or the study's model agent's when a person played
  the user) and shown by who played each side, apart from the single-turn tables
  (:mod:`crmtui.review.dialogue_report`).

On top of the usual tables: agreement between annotators on the shared instances (on
correctness, and on the answers themselves for exact-match instances) with a seeded
bootstrap interval of alpha, the disagreeing instances for adjudication (each annotator's
answer and the gold answer), each annotator's accuracy (share right, with a 95% Wilson
interval) and active-time distribution, where they stand on the study's qualification and
instructions, and, with models, humans versus models per instance.
"""

from __future__ import annotations

import os
import statistics
from collections import defaultdict
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from crmtui.review import intervals
from crmtui.review.dialogue_report import scored_reward
from crmtui.review.report import Report, Skipped, build_report, load_folder
from crmtui.review.summary import SessionSummary, is_right
from crmtui.scoring import extract_by_rules, strip_answer
from crmtui.study import consent
from crmtui.study.agreement import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    AgreementStats,
    agreement_stats,
)
from crmtui.study.definition import Study
from crmtui.study.qualify import Qualification, qualification


@dataclass(frozen=True)
class Distribution:
    """Five numbers of a sample (None when empty)."""

    n: int
    low: float | None = None
    q1: float | None = None
    median: float | None = None
    q3: float | None = None
    high: float | None = None

    @classmethod
    def of(cls, values: Sequence[float]) -> Distribution:
        """Minimum, quartiles (inclusive method) and maximum of ``values``."""
        if not values:
            return cls(0)
        ordered = sorted(values)
        if len(ordered) == 1:
            only = ordered[0]
            return cls(1, only, only, only, only, only)
        q1, median, q3 = statistics.quantiles(ordered, n=4, method="inclusive")
        return cls(len(ordered), ordered[0], q1, median, q3, ordered[-1])


def wilson(right: int, n: int) -> tuple[float, float] | None:
    """95% Wilson score interval of a proportion (None for n = 0)."""
    return intervals.wilson(right / n, n) if n else None


@dataclass(frozen=True)
class AnnotatorStats:
    """One annotator's accuracy and time.

    Attributes:
        annotator: Name.
        assigned: Counted instances assigned.
        scored: Counted sessions with a scored answer.
        right: Of those, right (reward 1; KQA: F1 >= 0.5).
        interval: 95% Wilson interval of the share right.
        seconds: Active seconds per instance.
    """

    annotator: str
    assigned: int
    scored: int
    right: int
    interval: tuple[float, float] | None
    seconds: Distribution

    @property
    def accuracy(self) -> float | None:
        """Share right."""
        return self.right / self.scored if self.scored else None


@dataclass(frozen=True)
class InstanceVerdicts:
    """Humans and models on one instance (right: True, wrong: False, not done: absent)."""

    idx: int
    task: str
    humans: dict[str, bool]
    models: dict[str, bool]

    @property
    def humans_right(self) -> int:
        """How many annotators got it right."""
        return sum(self.humans.values())


@dataclass(frozen=True)
class Disagreement:
    """A shared instance on which the annotators' counted answers differ.

    Attributes:
        idx: The instance.
        task: Its task type's abbreviation.
        on: What differs: ``correctness`` (right versus wrong) and/or ``answers`` (the
            cleaned answers of an exact-match instance).
        answers: Each annotator's answer as submitted (None: submitted empty).
        right: Each annotator's verdict (None: not scored).
        gold: The gold answer revealed at submission.
    """

    idx: int
    task: str
    on: tuple[str, ...]
    answers: dict[str, str | None]
    right: dict[str, bool | None]
    gold: object

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form."""
        return {
            "idx": self.idx,
            "task": self.task,
            "on": list(self.on),
            "answers": self.answers,
            "right": self.right,
            "gold": self.gold,
        }


@dataclass(frozen=True)
class _Attempt:
    """A session as :func:`~crmtui.study.qualify.qualification` reads it."""

    annotator: str
    idx: int
    started_at: str
    submitted: bool
    right: bool | None


def disagreements(counted: Iterable[SessionSummary]) -> list[Disagreement]:
    """The shared instances whose annotators disagree, by idx (counted human sessions)."""
    by_idx: dict[int, dict[str, SessionSummary]] = defaultdict(dict)
    for s in counted:
        if s.actor_kind == "human":
            by_idx[s.idx][s.actor_id] = s
    found = []
    for idx in sorted(by_idx):
        people = dict(sorted(by_idx[idx].items()))
        if len(people) < 2:
            continue
        verdicts = {name: is_right(scored_reward(s), s.reward_metric) for name, s in people.items()}
        on = []
        if len({v for v in verdicts.values() if v is not None}) > 1:
            on.append("correctness")
        first = next(iter(people.values()))
        if first.reward_metric == "exact_match":
            cleaned = {
                _answer_value(s.answer, s.gold, s.task)
                for s in people.values()
                if s.answer is not None
            }
            if len(cleaned) > 1:
                on.append("answers")
        if on:
            found.append(
                Disagreement(
                    idx=idx,
                    task=first.abbreviation,
                    on=tuple(on),
                    answers={name: s.answer for name, s in people.items()},
                    right=verdicts,
                    # The gold a submission recorded (a session without one records none).
                    gold=next((s.gold for s in people.values() if s.submitted), first.gold),
                )
            )
    return found


@dataclass
class StudyReport:
    """Everything ``crmtui study report`` shows.

    Attributes:
        study: The study.
        report: The usual report over the counted sessions.
        correctness: Agreement on right/wrong over shared instances.
        answers: Agreement on the (cleaned) answers of exact-match shared instances.
        annotators: Per-annotator accuracy and time.
        instances: Humans versus models per instance (only with model sessions).
        models: Model labels, in column order.
        excluded: Sessions left out before the usual selection, by reason.
        disagreements: Shared instances with differing answers, for adjudication.
        qualification: Each annotator's standing on ``qualify`` (empty without it).
        instructions: sha256 of the current instructions (None: the study has none).
        consent: Each annotator's answer to them (see
            :func:`~crmtui.study.consent.consent_state`).
    """

    study: Study
    report: Report
    correctness: AgreementStats
    answers: AgreementStats
    annotators: list[AnnotatorStats]
    instances: list[InstanceVerdicts] = field(default_factory=list)
    models: list[str] = field(default_factory=list)
    excluded: dict[str, int] = field(default_factory=dict)
    disagreements: list[Disagreement] = field(default_factory=list)
    qualification: dict[str, Qualification] = field(default_factory=dict)
    instructions: str | None = None
    consent: dict[str, dict[str, object]] = field(default_factory=dict)


def excluded_reason(study: Study, summary: SessionSummary) -> str | None:
    """Why a session in the study folder is left out of the report and the export.

    Returns:
        The reason (``practice``, ...), or None when the session is kept.
    """
    person = summary.actor_id
    if summary.actor_kind != "human":
        # A multi-turn study's model agent, answering a person in the user role, recorded
        # into the study: it counts as that person's dialogue does.
        user = summary.dialogue.spec.user if summary.dialogue is not None else None
        if user is None or user.kind != "human" or user.id not in study.assignments:
            return "not a human session"
        person = user.id
    item = study.assignments.get(person)
    if item is None:
        return "annotator not in the study"
    if summary.idx in item.practice:
        return "practice"
    if summary.idx not in item.instances:
        return "instance not assigned to its annotator"
    return None


def select_sessions(
    study: Study, humans: Iterable[SessionSummary], models: Iterable[SessionSummary] = ()
) -> tuple[list[SessionSummary], dict[str, int]]:
    """The sessions the study report is built from, and what was left out (by reason)."""
    excluded: dict[str, int] = defaultdict(int)
    kept: list[SessionSummary] = []
    for summary in humans:
        reason = excluded_reason(study, summary)
        if reason:
            excluded[reason] += 1
        else:
            kept.append(summary)
    pool = set(study.design.types)
    for summary in models:
        if summary.actor_kind != "model" or summary.idx not in pool:
            excluded["model session outside the study's instances"] += 1
        elif summary.task != study.design.types[summary.idx]:
            excluded["model session on another task set"] += 1
        else:
            kept.append(summary)
    return kept, dict(excluded)


def build_study_report(
    study: Study,
    humans: Iterable[SessionSummary],
    models: Iterable[SessionSummary] = (),
    *,
    skipped: Sequence[Skipped] = (),
    files: int | None = None,
    excluded: dict[str, int] | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> StudyReport:
    """Build the study report from session summaries (see the module docs).

    Args:
        study: The study.
        humans: Summaries of the sessions in the study folder.
        models: Summaries of model sessions to compare with.
        skipped: Files that could not be used (listed in the report).
        files: Files looked at.
        excluded: Sessions already left out by the caller, by reason.
        resamples: Bootstrap resamples for alpha's interval.
        seed: Their generator's seed.
    """
    humans = list(humans)
    attempts = [
        _Attempt(s.actor_id, s.idx, s.started_at, s.submitted, is_right(s.reward, s.reward_metric))
        for s in humans
        if s.actor_kind == "human"
    ]
    standing = {
        name: found
        for name in study.assignments
        if (found := qualification(study, name, attempts)) is not None
    }
    kept, left_out = select_sessions(study, humans, models)
    report = build_report(kept, root=study.folder, skipped=skipped, files=files)
    # An annotator's first submission per instance, and the dialogues a person answered as
    # the agent (counted from their recordings, as the pairing tables count them): every
    # table of the study counts the same sessions. A person in the user role is not scored.
    counted = [*report.sessions, *(d for d in report.dialogues if d.actor_kind == "human")]
    right: dict[int, dict[str, Hashable]] = defaultdict(dict)
    answers: dict[int, dict[str, Hashable]] = defaultdict(dict)
    verdicts: dict[int, InstanceVerdicts] = {}
    for s in counted:
        verdict = is_right(scored_reward(s), s.reward_metric)
        item = verdicts.setdefault(s.idx, InstanceVerdicts(s.idx, s.abbreviation, {}, {}))
        if s.actor_kind == "human":
            if verdict is not None:
                right[s.idx][s.actor_id] = verdict
                item.humans[s.actor_id] = verdict
            if s.reward_metric == "exact_match" and s.answer is not None:
                answers[s.idx][s.actor_id] = _answer_value(s.answer, s.gold, s.task)
        elif verdict is not None:
            item.models[s.actor_label] = verdict
    model_labels = sorted({label for v in verdicts.values() for label in v.models})
    stats = []
    for name, assignment in study.assignments.items():
        mine = [s for s in counted if s.actor_kind == "human" and s.actor_id == name]
        marks = [v for s in mine if (v := is_right(scored_reward(s), s.reward_metric)) is not None]
        stats.append(
            AnnotatorStats(
                annotator=name,
                assigned=len(assignment.instances),
                scored=len(marks),
                right=sum(marks),
                interval=wilson(sum(marks), len(marks)),
                seconds=Distribution.of([s.active_seconds for s in mine]),
            )
        )
    # Humans versus models: the instances both sides answered.
    instances = [
        verdicts[idx] for idx in sorted(verdicts) if verdicts[idx].humans and verdicts[idx].models
    ]
    excluded_all = dict(excluded or {})
    for reason, n in [*left_out.items(), *report.excluded.items()]:
        excluded_all[reason] = excluded_all.get(reason, 0) + n
    return StudyReport(
        study=study,
        report=report,
        correctness=agreement_stats(right, "correctness", resamples=resamples, seed=seed),
        answers=agreement_stats(
            answers, "answers (exact-match instances)", resamples=resamples, seed=seed
        ),
        annotators=stats,
        instances=instances,
        models=model_labels,
        excluded=excluded_all,
        disagreements=disagreements(counted),
        qualification=standing,
    )


def report_study(
    study: Study,
    models: str | os.PathLike[str] | None = None,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> StudyReport:
    """Verify the study's recordings (and ``models``' recordings) and build the report.

    Raises:
        ConfigError: ``models`` is not a folder.
        StudyError: The instructions or the consent file cannot be read.
    """
    loaded, skipped, files = ([], [], 0)
    if study.recordings.is_dir():
        loaded, skipped, files = load_folder(study.recordings)
    model_summaries: list[SessionSummary] = []
    excluded: dict[str, int] = {}
    if models is not None:
        model_loaded, model_skipped, model_files = load_folder(Path(models))
        skipped, files = [*skipped, *model_skipped], files + model_files
        # The instance text the annotators saw: a model run on another task file that
        # reuses the idx numbers must not be compared with them.
        seen = {s.idx: rec.header["instance"]["query"] for rec, s in loaded}
        for rec, summary in model_loaded:
            query = seen.get(summary.idx)
            if query is not None and rec.header["instance"]["query"] != query:
                excluded["model session on another task set"] = (
                    excluded.get("model session on another task set", 0) + 1
                )
            else:
                model_summaries.append(summary)
    result = build_study_report(
        study,
        (s for _, s in loaded),
        model_summaries,
        skipped=skipped,
        files=files,
        excluded=excluded,
        resamples=resamples,
        seed=seed,
    )
    text = consent.read_instructions(study)
    if text is not None:
        result.instructions = consent.text_digest(text)
        recorded = consent.answers(study)
        for name in study.annotators:
            state = consent.consent_state(recorded, name, result.instructions)
            if state is not None:
                result.consent[name] = state
    return result


def _answer_value(answer: str, gold: Any, task: str) -> Hashable:
    """An answer as scoring reads it: cleaned text, or for a CRMArena-Pro row (list gold)
    the set of Ids, months, states, factors or stages it names ("T2, T1" agrees with "T1
    and T2")."""
    if isinstance(gold, list):
        return tuple(sorted(extract_by_rules(answer, task)))
    return strip_answer(answer)
