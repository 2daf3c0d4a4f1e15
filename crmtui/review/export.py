"""Exporting a folder of recordings: a Hugging Face dataset, flat JSONL, or CSV results.

Every ``*.jsonl`` under the folder is verified first; tampered or unreadable files are
skipped and listed (see :func:`crmtui.review.report.load_folder`).

* ``hf``: one row per session, saved with ``datasets`` as Parquet. Nested values whose type
  varies between rows are JSON strings so every row has one schema: ``header`` (the header
  line's canonical JSON), ``gold``, and each event's ``payload``. In every format a gold
  answer of None is the string ``"None"`` (upstream's meaning), and a session without a
  submission has no gold (null, or an empty CSV cell): the two never look alike. ``PATH``
  is a ``.parquet`` file, or a folder that receives ``sessions.parquet`` (loadable with
  ``datasets.load_dataset("parquet", data_files=...)`` or ``load_dataset(FOLDER)``).
* ``jsonl``: the same rows as JSON lines, nested values kept as JSON objects.
* ``csv``: one row per session of per-instance results (no events).
* ``sqlite``: sessions, events, queries, answers and rewards as tables of an SQLite file,
  with full-text search on queries and answers (:mod:`crmtui.review.export_sqlite`).
* ``inspect``: a folder of Inspect AI eval logs, one per actor and setting
  (:mod:`crmtui.review.export_inspect`; needs the ``inspect`` extra).

Every row says whether the session is ``counted`` by the report (a person's first
submission of the instance; a model's latest finished one; a dialogue by the report's
multi-turn rules, :mod:`crmtui.review.dialogue_report`).

A session of the multi-turn mode also carries its conversation: ``dialogue`` in the
``hf`` and ``jsonl`` rows (who played each side, the pairing, every message as role, actor
and text in order, user turns, key facts, how it ended; JSON text in Parquet), and the
pairing, the role recorded, the dialogue id, the user, user turns and the outcome as CSV
columns (empty for single-turn sessions).
"""

from __future__ import annotations

import csv
import json
import os
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from crmtui.errors import ConfigError
from crmtui.record.format import canonical_json
from crmtui.record.verify import Recording
from crmtui.review.dialogue_report import counted_dialogues, scored_reward
from crmtui.review.export_columns import CSV_COLUMNS
from crmtui.review.export_target import check_target, partial_path, replace_into
from crmtui.review.report import Skipped, load_folder, scoring_label, select_counted
from crmtui.review.summary import SessionSummary, is_right
from crmtui.sanitise import printable, printable_text
from crmtui.scoring.rules import gold_text

FORMATS = ("hf", "jsonl", "csv", "sqlite", "inspect")
HF_FILE_NAME = "sessions.parquet"


@dataclass(frozen=True)
class ExportResult:
    """What an export wrote.

    Attributes:
        path: The file written.
        sessions: Number of sessions exported.
        skipped: Files left out, with reasons.
        excluded: Valid sessions left out by the caller's rule, counted by reason.
        files: For a format written as several files (inspect: one log per actor and
            setting), each file.
    """

    path: Path
    sessions: int
    skipped: list[Skipped]
    excluded: dict[str, int] = field(default_factory=dict)
    files: list[Path] = field(default_factory=list)


def _gold(summary: SessionSummary, flat: bool) -> Any:
    """The gold revealed at the submit: ``"None"`` for a None gold, distinct from no
    submission (null); flat (CSV, Parquet): a list as JSON text."""
    if not summary.submitted:
        return None
    if flat or summary.gold is None:
        return gold_text(summary.gold)
    return summary.gold


def session_row(
    recording: Recording,
    summary: SessionSummary,
    *,
    counted: bool,
    root: Path,
    flat: bool,
) -> dict[str, Any]:
    """One session as a flat row: header fields, summary numbers and events.

    Args:
        recording: The verified recording.
        summary: Its summary.
        counted: Whether the report counts this session.
        root: Folder the exported paths are made relative to.
        flat: JSON-encode values whose type varies between rows (for Parquet).
    """
    header = recording.header
    info = summary.to_dict()
    try:
        rel = str(recording.path.relative_to(root))
    except ValueError:
        rel = str(recording.path)
    row: dict[str, Any] = {
        "session_id": summary.session_id,
        "path": rel,
        "format_version": header["format_version"],
        "crmtui_version": header["crmtui_version"],
        "actor_kind": summary.actor_kind,
        "actor_id": summary.actor_id,
        "strategy": summary.strategy,
        "actor": summary.actor_label,
        "idx": summary.idx,
        "task": summary.task,
        "abbreviation": summary.abbreviation,
        "query": header["instance"]["query"],
        "reward_metric": summary.reward_metric,
        "tasks_source": header["tasks_source"],
        "org_name": header["org"].get("name"),
        "org_path": header["org"].get("path"),
        "org_digest": header["org"].get("digest"),
        "today": header["today"],
        "mode": header["mode"],
        "started_at": summary.started_at,
        "counted": counted,
    }
    for key in (
        "finished", "submitted", "answer", "scoring", "end_reason", "elapsed_ms",
        "paused_ms", "idle_ms", "active_ms", "wall_ms", "queries", "typed_queries",
        "query_errors", "browse_actions", "records_viewed", "records", "objects",
        "model_calls", "prompt_tokens", "completion_tokens", "tokens",
    ):  # fmt: skip
        row[key] = info[key]
    row["gold"] = _gold(summary, flat)
    row["reward"] = scored_reward(summary, counted)  # an unanswered counted dialogue: 0
    row["right"] = is_right(row["reward"], summary.reward_metric)
    # What produced the reward (metric, method, extractor, judge); JSON text when flat.
    scored_by = summary.scored_by
    row["scored_by"] = canonical_json(scored_by) if flat and scored_by is not None else scored_by
    row["cost"] = summary.cost
    row["header"] = canonical_json(header) if flat else header
    dialogue = None if summary.dialogue is None else summary.dialogue.to_dict()
    if dialogue is not None and not dialogue["dialogue_id"]:
        # A conversation recorded once (with a simulated user) is its session, as in CSV.
        dialogue["dialogue_id"] = summary.session_id
    row["dialogue"] = canonical_json(dialogue) if flat and dialogue is not None else dialogue
    row["events"] = [
        {**event.to_dict(), "payload": canonical_json(event.payload)} if flat else event.to_dict()
        for event in recording.events
    ]
    return row


def _csv_row(summary: SessionSummary, counted: bool, root: Path) -> list[Any]:
    try:
        rel = str(summary.path.relative_to(root))
    except ValueError:
        rel = str(summary.path)
    reward = scored_reward(summary, counted)  # an unanswered counted dialogue: 0
    right = is_right(reward, summary.reward_metric)
    values: dict[str, Any] = {
        "actor": summary.actor_label,
        "actor_kind": summary.actor_kind,
        "actor_id": summary.actor_id,
        "strategy": summary.strategy,
        "idx": summary.idx,
        "task": summary.task,
        "abbreviation": summary.abbreviation,
        "counted": counted,
        "finished": summary.finished,
        "submitted": summary.submitted,
        "answer": summary.answer,
        "gold": _gold(summary, flat=True),
        "reward": reward,
        "right": right,
        "scoring": summary.scoring,
        "scored_by": scoring_label(summary) if summary.submitted else None,
        "active_seconds": summary.active_seconds,
        "wall_seconds": None if summary.wall_ms is None else summary.wall_ms / 1000,
        "queries": summary.queries,
        "typed_queries": summary.typed_queries,
        "records_viewed": summary.records_viewed,
        "model_calls": summary.model_calls,
        "tokens": summary.tokens,
        "cost": summary.cost,
        "started_at": summary.started_at,
        "session_id": summary.session_id,
        "path": rel,
    }
    stats = summary.dialogue
    if stats is not None:
        values.update(
            pairing=stats.spec.pairing,
            dialogue_role=stats.spec.role,
            # A conversation recorded once (with a simulated user) is its session.
            dialogue_id=stats.spec.dialogue_id or summary.session_id,
            user=stats.spec.user.label,
            user_turns=stats.user_turns,
            dialogue_outcome=stats.outcome,
        )
    # Text as every format for people has it: control and bidi characters escaped
    # (crmtui.sanitise), so a cell never acts on the terminal or spreadsheet showing it.
    return [_csv_cell(values.get(c)) for c in CSV_COLUMNS]


def _csv_cell(value: Any) -> Any:
    if value is None:
        return ""
    return printable_text(value) if isinstance(value, str) else value


def _target(fmt: str, out: Path) -> Path:
    if fmt == "hf" and out.suffix != ".parquet":
        return out / HF_FILE_NAME
    return out


def export_folder(
    root: str | os.PathLike[str],
    fmt: str,
    out: str | os.PathLike[str],
    *,
    exclude: Callable[[SessionSummary], str | None] | None = None,
    force: bool = False,
) -> ExportResult:
    """Export every valid recording under ``root``.

    Args:
        root: Folder searched recursively for ``*.jsonl`` recordings.
        fmt: ``hf``, ``jsonl`` or ``csv``.
        out: Output file (``hf``: a ``.parquet`` file or a folder).
        exclude: Why a session is left out (None keeps it), e.g. a study's practice
            sessions; ``counted`` is then decided over the kept sessions only, as a report
            restricted the same way would.
        force: Replace an earlier export of ours at ``out`` (never anything else; see
            :mod:`crmtui.review.export_target`).

    Raises:
        ConfigError: Unknown format, missing folder, no valid recordings, or an output
            path inside the recordings folder for JSONL (it would be read as a recording),
            or an output path that holds something the export may not replace.
        DatasetError: If ``datasets`` cannot write the Parquet file.
    """
    if fmt not in FORMATS:
        raise ConfigError(f"unknown export format {fmt!r}; choose one of {', '.join(FORMATS)}")
    if fmt == "inspect":  # before reading anything: a missing package is one line
        from crmtui.review.export_inspect import require_inspect

        require_inspect()
    base = Path(root)
    target = _target(fmt, Path(out))
    if target.suffix == ".jsonl" and target.resolve().is_relative_to(base.resolve()):
        raise ConfigError(
            f"{target} is inside {base}: later reports would read it as a recording; "
            "write it elsewhere"
        )
    check_target(fmt, target, force=force)
    loaded, skipped, _ = load_folder(base)
    excluded: Counter[str] = Counter()
    if exclude is not None:
        kept = []
        for recording, summary in loaded:
            reason = exclude(summary)
            if reason is None:
                kept.append((recording, summary))
            else:
                excluded[reason] += 1
        loaded = kept
    if not loaded:
        raise ConfigError(f"no valid recordings to export in {base}")
    # By file: the report's counted summary may carry added time (a copy, not the same object).
    counted_ids = counted_session_paths([s for _, s in loaded])
    if fmt == "inspect":
        from crmtui.review.export_inspect import write_inspect_logs

        def row_of(recording: Recording, summary: SessionSummary, counted: bool) -> dict:
            return session_row(recording, summary, counted=counted, root=base, flat=False)

        files = write_inspect_logs(loaded, counted_ids, target, row_of)
        return ExportResult(target, len(loaded), skipped, dict(excluded), files)
    if fmt == "csv":
        rows = [_csv_row(s, s.path in counted_ids, base) for _, s in loaded]
        _write_csv(fmt, target, rows, force)
        return ExportResult(target, len(rows), skipped, dict(excluded))
    flat = fmt == "hf"
    session_rows = [
        session_row(rec, s, counted=s.path in counted_ids, root=base, flat=flat)
        for rec, s in loaded
    ]
    if fmt == "sqlite":
        from crmtui.review.export_sqlite import write_sqlite

        write_sqlite(session_rows, target, force=force)
    elif flat:
        from crmtui.data.export_hf import save_parquet

        partial = _partial(target)
        try:
            save_parquet(session_rows, partial)
        except BaseException:
            partial.unlink(missing_ok=True)
            raise
        replace_into(partial, fmt, target, force=force)
    else:
        _write_jsonl(fmt, target, session_rows, force)
    return ExportResult(target, len(session_rows), skipped, dict(excluded))


def counted_session_paths(summaries: Sequence[SessionSummary]) -> set[Path]:
    """The files of the sessions the report counts: single-turn and multi-turn by their rules."""
    single = select_counted(s for s in summaries if s.dialogue is None)[0]
    return {s.path for s in [*single, *counted_dialogues(summaries)[0]]}


def _partial(target: Path) -> Path:
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"cannot write {printable(str(target))}: {exc.strerror}") from exc
    return partial_path(target)


def _write_text(fmt: str, target: Path, force: bool, write: Callable[[Any], None]) -> None:
    """Write a text export through ``write(handle)`` beside ``target``, then rename it over."""
    partial = _partial(target)
    try:
        # O_EXCL: the partial is a new file of ours, never something planted meanwhile.
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        with open(fd, "w", encoding="utf-8", newline="") as handle:
            write(handle)
    except OSError as exc:
        partial.unlink(missing_ok=True)
        raise ConfigError(f"cannot write {printable(str(target))}: {exc.strerror}") from exc
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    replace_into(partial, fmt, target, force=force)


def _write_csv(fmt: str, target: Path, rows: Sequence[list[Any]], force: bool) -> None:
    def write(handle: Any) -> None:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(CSV_COLUMNS)
        writer.writerows(rows)

    _write_text(fmt, target, force, write)


def _write_jsonl(fmt: str, target: Path, rows: Sequence[dict[str, Any]], force: bool) -> None:
    def write(handle: Any) -> None:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")

    _write_text(fmt, target, force, write)
