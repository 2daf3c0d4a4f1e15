"""Aggregate report over a folder of recordings: accuracy, time, queries, tokens, cost.

Rules (shown in every rendering's notes):

* Every ``*.jsonl`` under the folder (recursively) is verified; files that cannot be read
  or fail verification (tampered, truncated, not a recording) are skipped and listed with
  the first bad line and the reason.
* One row per actor: each human annotator (by id), each model + strategy.
* A person's **first submission** per instance counts (by the wall time of its ``submit``;
  a crash right after it leaves no ``end`` event, and the answer still counts). Any later
  submission of the same instance (recordings made before crmtui opened submitted
  instances read-only) is not counted and is flagged (:attr:`Report.later`). The time of
  the instance is the counted session's active time plus that of the person's earlier
  sessions on it that ended without an answer (left, or closed as abandoned).
* A model's **latest finished, submitted** session per instance counts (latest by header
  ``started_at``, then session id): a re-run replaces an earlier attempt. A session the
  harness or the model ended in error is excluded (counted by its reason), not wrong.
* Sessions never submitted do not count as wrong answers.
* Accuracy per task type is the mean reward (exact match: 0/1, so the share right; fuzzy
  match, i.e. KQA and CRMArena-Pro's sales insight mining: mean token F1; privacy rejection:
  the share the judge saw refused). Rewards are recomputed from the recorded answer and the
  task's gold answer wherever the task file is at hand; a recording whose reward (or gold)
  disagrees is flagged and counted with the recomputed reward. Submissions without a reward
  (unscored) are left out of accuracy but kept in the time/query/token tables.
* **Overall accuracy is the unweighted mean of the per-task accuracies that have data**
  (as the leaderboard's Overall column presumably is); its count is all scored instances.
* When CRMArena-Pro sessions are counted (list gold, or a Pro task type), a skill table
  groups the task accuracies by CRMArena-Pro's skills (:mod:`crmtui.data.skills`): each cell
  is the unweighted mean of the per-task accuracies of that skill that have data.
* Every counted reward's scoring (metric, method, extractor, judge) is counted by kind.
  Overall of the other tables is taken over all of the actor's counted sessions.
* Time: median active time (pauses and idle periods removed). Queries: median typed queries
  plus browse actions (each browse action is the query a model would have run). Tokens and
  cost: mean per instance; cost is unknown when any call's cost is unknown.
* Single-turn and multi-turn are apart: the tables above count single-turn sessions; the
  dialogues of the multi-turn mode are counted from their agent's recording and shown by
  who played each side (:mod:`crmtui.review.dialogue_report`).
* Agreement: for every human and model that both have a scored session of an instance,
  each shared instance is "both right", "only human", "only model" or "both wrong"
  ("right": reward 1, or F1 >= 0.5 for KQA).
"""

from __future__ import annotations

import os
import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from crmtui.data.skills import SKILLS, skill_of
from crmtui.data.tasktypes import TASK_ORDER, TASK_TYPES, sort_key
from crmtui.errors import ConfigError
from crmtui.record.errors import RecordingError
from crmtui.record.verify import Recording, scan
from crmtui.review.dialogue_report import PairingRow, counted_dialogues, pairing_rows
from crmtui.review.instance_key import InstanceKey
from crmtui.review.recheck import RewardCheck, TaskLookup, rechecked
from crmtui.review.summary import SessionSummary, actor_label, is_right, summarize

OVERALL = "Overall"
ActorKey = tuple[str, str, str | None]

BOTH_RIGHT = "both right"
ONLY_HUMAN = "only human"
ONLY_MODEL = "only model"
BOTH_WRONG = "both wrong"
AGREEMENT_KINDS = (BOTH_RIGHT, ONLY_HUMAN, ONLY_MODEL, BOTH_WRONG)
# (human right, model right) -> agreement kind
_OUTCOME = {
    (True, True): BOTH_RIGHT,
    (True, False): ONLY_HUMAN,
    (False, True): ONLY_MODEL,
    (False, False): BOTH_WRONG,
}


@dataclass(frozen=True)
class Skipped:
    """A file left out of the report, and why."""

    path: Path
    reason: str


@dataclass(frozen=True)
class LaterSubmission:
    """A person's submission of an instance they had already submitted: not counted.

    Attributes:
        actor: The actor's label.
        idx: The instance.
        path: The later session's recording.
        submitted_at: When it was submitted.
        counted: The recording of the submission that counts.
    """

    actor: str
    idx: int
    path: Path
    submitted_at: str | None
    counted: Path


@dataclass(frozen=True)
class Cell:
    """One table cell: a value (None: no data) over ``n`` instances."""

    value: float | None
    n: int


@dataclass
class ActorRow:
    """One actor's row in every table (cells keyed by task code or ``Overall``)."""

    kind: str
    actor_id: str
    strategy: str | None
    accuracy: dict[str, Cell] = field(default_factory=dict)
    active_seconds: dict[str, Cell] = field(default_factory=dict)
    away_seconds: dict[str, Cell] = field(default_factory=dict)
    queries: dict[str, Cell] = field(default_factory=dict)
    tokens: dict[str, Cell] = field(default_factory=dict)
    cost: dict[str, Cell] = field(default_factory=dict)
    #: CRMArena-Pro skill (or ``Overall``) -> mean of its task accuracies (see module docs).
    skills: dict[str, Cell] = field(default_factory=dict)

    @property
    def label(self) -> str:
        """The actor's name in tables."""
        return actor_label(self.kind, self.actor_id, self.strategy)


@dataclass(frozen=True)
class Agreement:
    """Human-versus-model agreement over the instances both answered."""

    human: str
    model: str
    counts: dict[str, int]
    instances: list[tuple[int, str]]

    @property
    def n(self) -> int:
        """Number of shared instances."""
        return len(self.instances)


@dataclass
class Report:
    """Everything the report renderers show.

    Attributes:
        root: The folder reported on.
        tasks: Task codes with a column, in leaderboard order (all nine, then extras).
        rows: One per actor (humans first, then models, each by label).
        agreement: One per human/model pair with shared instances.
        sessions: The counted sessions.
        skipped: Files that could not be used.
        excluded: Why valid sessions did not count (reason -> number).
        files: Number of ``.jsonl`` files found.
        reward_checks: Each submitted session's recorded reward against the recomputed one.
        skills: CRMArena-Pro skills with data, for the skill table (empty without Pro
            sessions).
        scored_by: How the counted rewards were produced (:func:`scoring_label`) -> count.
        dialogue_pairs: The multi-turn table: one row per (agent, user) pair.
        dialogue_kinds: The multi-turn table by pairing kind.
        dialogues: The counted dialogues (their agents' sessions).
        later: A person's later submissions of instances already submitted (not counted).
    """

    root: Path
    tasks: list[str]
    rows: list[ActorRow]
    agreement: list[Agreement]
    sessions: list[SessionSummary]
    skipped: list[Skipped]
    excluded: dict[str, int]
    files: int
    reward_checks: list[RewardCheck] = field(default_factory=list)
    skills: list[str] = field(default_factory=list)
    scored_by: dict[str, int] = field(default_factory=dict)
    dialogue_pairs: list[PairingRow] = field(default_factory=list)
    dialogue_kinds: list[PairingRow] = field(default_factory=list)
    dialogues: list[SessionSummary] = field(default_factory=list)
    later: list[LaterSubmission] = field(default_factory=list)

    @property
    def columns(self) -> list[str]:
        """Column keys: the task codes, then ``Overall``."""
        return [*self.tasks, OVERALL]


def find_recordings(root: str | os.PathLike[str]) -> list[Path]:
    """Every ``*.jsonl`` under ``root`` (or ``root`` itself when it is a file), sorted.

    Raises:
        ConfigError: If ``root`` does not exist.
    """
    path = Path(root)
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise ConfigError(f"no such folder: {path}")
    return sorted(path.rglob("*.jsonl"))


def load_folder(
    root: str | os.PathLike[str], checks: list[RewardCheck] | None = None
) -> tuple[list[tuple[Recording, SessionSummary]], list[Skipped], int]:
    """Verify and summarize every recording under ``root``, rewards recomputed.

    Each submitted session's reward is recomputed from its answer and the task's gold where
    the task file is at hand (see :mod:`crmtui.review.recheck`); a disagreement makes the
    summary carry the recomputed reward.

    Args:
        root: The folder (or one file).
        checks: When given, every reward check is appended to it.

    Returns:
        ``(loaded, skipped, files)``: recordings with their summaries, the files skipped
        with their reasons, and the number of files looked at.
    """
    loaded: list[tuple[Recording, SessionSummary]] = []
    skipped: list[Skipped] = []
    lookup = TaskLookup()
    files = find_recordings(root)
    for path in files:
        try:
            report, header, events = scan(path)
        except RecordingError as exc:
            skipped.append(Skipped(path, exc.problem))
            continue
        if not report.ok or header is None:
            skipped.append(Skipped(path, report.describe()))
            continue
        recording = Recording(path, header, events)
        summary, check = rechecked(summarize(recording), lookup, header)
        if check is not None and checks is not None:
            checks.append(check)
        loaded.append((recording, summary))
    return loaded, skipped, len(files)


#: End reasons that are failures, not outcomes: counted apart, never as wrong answers.
ERROR_ENDS = {"Harness error": "harness error", "Model error": "model error"}


def actor_key(summary: SessionSummary) -> ActorKey:
    """The identity of a report row."""
    return (summary.actor_kind, summary.actor_id, summary.strategy)


#: Why a person's later submission is not counted (the excluded reason).
LATER_SUBMISSION = "a later submission of an instance already submitted"


def select_counted(
    summaries: Iterable[SessionSummary],
) -> tuple[list[SessionSummary], dict[str, int]]:
    """The counted session per (actor, idx), and what was excluded (see the module docs)."""
    counted, excluded, _ = choose_counted(summaries)
    return counted, excluded


def choose_counted(
    summaries: Iterable[SessionSummary],
) -> tuple[list[SessionSummary], dict[str, int], list[LaterSubmission]]:
    """The counted session per (actor, idx), what was excluded, and the later submissions.

    A person's first submission counts, with the active time of their earlier unanswered
    sessions on the instance added; a model's latest finished submission counts.
    """
    excluded: dict[str, int] = defaultdict(int)
    chosen: dict[tuple[ActorKey, InstanceKey], SessionSummary] = {}
    unanswered: dict[tuple[ActorKey, InstanceKey], list[SessionSummary]] = defaultdict(list)
    later: list[LaterSubmission] = []
    for summary in summaries:
        # The instance is its org, task source and idx: idx 11 of two orgs is two instances.
        key = (actor_key(summary), summary.instance_key)
        human = summary.actor_kind == "human"
        if summary.end_reason in ERROR_ENDS:
            # The harness or the model failed (upstream's exception rows included): not an
            # answer that was wrong.
            excluded[ERROR_ENDS[summary.end_reason]] += 1
            continue
        if not summary.submitted:
            excluded["unfinished" if not summary.finished else "not submitted"] += 1
            if human:
                unanswered[key].append(summary)
            continue
        if not summary.finished and not human:
            excluded["unfinished"] += 1
            continue
        best = chosen.get(key)
        if best is None:
            chosen[key] = summary
            continue
        if human:
            first, second = sorted((best, summary), key=_submission_order)
            chosen[key] = first
            excluded[LATER_SUBMISSION] += 1
            later.append(
                LaterSubmission(
                    second.actor_label, second.idx, second.path, second.submitted_at, first.path
                )
            )
            continue
        excluded["superseded by a later attempt"] += 1
        if (summary.started_at, summary.session_id) > (best.started_at, best.session_id):
            chosen[key] = summary
    for key, summary in chosen.items():
        earlier = [
            s.active_ms
            for s in unanswered.get(key, ())
            if summary.submitted_at is None or s.started_at < summary.submitted_at
        ]
        if earlier:
            chosen[key] = replace(summary, active_ms=summary.active_ms + sum(earlier))
    later.sort(key=lambda item: (item.actor, item.idx, item.submitted_at or ""))
    return list(chosen.values()), dict(excluded), later


def _submission_order(summary: SessionSummary) -> tuple[str, str]:
    # ISO UTC times with milliseconds and Z compare as strings.
    return (summary.submitted_at or summary.started_at, summary.session_id)


def _mean(values: Sequence[float]) -> float | None:
    return statistics.fmean(values) if values else None


def _median(values: Sequence[float]) -> float | None:
    return statistics.median(values) if values else None


def is_pro(summary: SessionSummary) -> bool:
    """Whether a session is on a CRMArena-Pro row (list gold, or a Pro-only task type)."""
    pro_task = summary.task not in TASK_TYPES and skill_of(summary.task) is not None
    return isinstance(summary.gold, list) or pro_task


def scoring_label(summary: SessionSummary) -> str:
    """``exact_match: head_rules, extractor rules`` — what produced a session's reward."""
    by = summary.scored_by or {}
    metric = by.get("metric") or summary.reward_metric
    if metric == "fuzzy_match":
        return f"{metric}: token F1"  # every method scores it the same way
    text = f"{metric}: {by.get('method') or summary.scoring}"
    for part in ("extractor", "judge"):
        if by.get(part):
            text += f", {part} {by[part]}"
    return text


def _skill_cells(row: ActorRow, tasks: list[str], skills: list[str]) -> None:
    for skill in skills:
        cells = [row.accuracy[t] for t in tasks if skill_of(t) == skill]
        values = [c.value for c in cells if c.value is not None]
        row.skills[skill] = Cell(_mean(values), sum(c.n for c in cells))
    if skills:
        row.skills[OVERALL] = row.accuracy[OVERALL]


def _row(key: ActorKey, sessions: list[SessionSummary], tasks: list[str]) -> ActorRow:
    row = ActorRow(*key)
    by_task: dict[str, list[SessionSummary]] = defaultdict(list)
    for s in sessions:
        by_task[s.task].append(s)
    per_task_accuracy: list[float] = []
    for column in [*tasks, OVERALL]:
        group = sessions if column == OVERALL else by_task.get(column, [])
        scored = [s.reward for s in group if s.reward is not None]
        if column == OVERALL:
            row.accuracy[column] = Cell(_mean(per_task_accuracy), len(scored))
        else:
            acc = _mean(scored)
            if acc is not None:
                per_task_accuracy.append(acc)
            row.accuracy[column] = Cell(acc, len(scored))
        n = len(group)
        row.active_seconds[column] = Cell(_median([s.active_seconds for s in group]), n)
        row.away_seconds[column] = Cell(_median([s.away_ms / 1000 for s in group]), n)
        row.queries[column] = Cell(_median([float(s.queries) for s in group]), n)
        row.tokens[column] = Cell(_mean([float(s.tokens) for s in group]), n)
        costs = [s.cost for s in group]
        known = [c for c in costs if c is not None]
        row.cost[column] = Cell(_mean(known) if len(known) == len(costs) else None, n)
    return row


def agreement(sessions: Sequence[SessionSummary]) -> list[Agreement]:
    """Agreement for every human/model pair with scored sessions of shared instances."""
    outcome: dict[ActorKey, dict[InstanceKey, bool]] = defaultdict(dict)
    for s in sessions:
        right = is_right(s.reward, s.reward_metric)
        if right is not None:
            outcome[actor_key(s)][s.instance_key] = right
    humans = sorted((k for k in outcome if k[0] == "human"), key=lambda k: actor_label(*k))
    models = sorted((k for k in outcome if k[0] == "model"), key=lambda k: actor_label(*k))
    result = []
    for human in humans:
        for model in models:
            shared = sorted(set(outcome[human]) & set(outcome[model]))
            if not shared:
                continue
            counts = dict.fromkeys(AGREEMENT_KINDS, 0)
            instances = []
            for key in shared:
                h, m = outcome[human][key], outcome[model][key]
                kind = _OUTCOME[(h, m)]
                counts[kind] += 1
                instances.append((key.idx, kind))
            result.append(Agreement(actor_label(*human), actor_label(*model), counts, instances))
    return result


def build_report(
    summaries: Iterable[SessionSummary],
    *,
    root: str | os.PathLike[str] = ".",
    skipped: Sequence[Skipped] = (),
    files: int | None = None,
) -> Report:
    """Build the report from session summaries (see the module docs for the rules)."""
    all_sessions = list(summaries)
    # Dialogues have rules of their own (dialogue_report): the single-turn choice never sees them.
    counted, excluded, later = choose_counted([s for s in all_sessions if s.dialogue is None])
    dialogues, not_dialogues = counted_dialogues(all_sessions)
    excluded.update(not_dialogues)
    pairs, kinds = pairing_rows(dialogues)
    extra = sorted({s.task for s in counted} - set(TASK_ORDER), key=sort_key)
    tasks = [*TASK_ORDER, *extra]
    groups: dict[ActorKey, list[SessionSummary]] = defaultdict(list)
    for s in counted:
        groups[actor_key(s)].append(s)
    order = sorted(groups, key=lambda k: (k[0] != "human", actor_label(*k)))
    rows = [_row(key, groups[key], tasks) for key in order]
    skills: list[str] = []
    if any(is_pro(s) for s in counted):
        present = {skill_of(s.task) for s in counted if s.reward is not None}
        skills = [skill for skill in SKILLS if skill in present]
    for row in rows:
        _skill_cells(row, tasks, skills)
    scored: dict[str, int] = defaultdict(int)
    for s in counted:
        if s.reward is not None:
            scored[scoring_label(s)] += 1
    counted.sort(key=lambda s: (actor_label(*actor_key(s)), s.idx, s.instance_key))
    return Report(
        root=Path(root),
        tasks=tasks,
        rows=rows,
        agreement=agreement(counted),
        sessions=counted,
        skipped=list(skipped),
        excluded=excluded,
        files=len(all_sessions) + len(skipped) if files is None else files,
        skills=skills,
        scored_by=dict(sorted(scored.items())),
        dialogue_pairs=pairs,
        dialogue_kinds=kinds,
        dialogues=dialogues,
        later=later,
    )


def report_folder(root: str | os.PathLike[str]) -> Report:
    """Verify every recording under ``root`` and build the report.

    Raises:
        ConfigError: If ``root`` does not exist.
    """
    checks: list[RewardCheck] = []
    loaded, skipped, files = load_folder(root, checks)
    report = build_report((s for _, s in loaded), root=root, skipped=skipped, files=files)
    report.reward_checks = checks
    return report
