"""The columns of a CSV export, apart from the exporter: the exporter writes them and
:mod:`crmtui.review.export_target` recognises an earlier export by them."""

from __future__ import annotations

__all__ = ["CSV_COLUMNS"]

CSV_COLUMNS = (
    "actor",
    "actor_kind",
    "actor_id",
    "strategy",
    "idx",
    "task",
    "abbreviation",
    "counted",
    "finished",
    "submitted",
    "answer",
    "gold",
    "reward",
    "right",
    "scoring",
    "scored_by",
    "active_seconds",
    "wall_seconds",
    "queries",
    "typed_queries",
    "records_viewed",
    "model_calls",
    "tokens",
    "cost",
    "started_at",
    "session_id",
    "path",
    "pairing",
    "dialogue_role",
    "dialogue_id",
    "user",
    "user_turns",
    "dialogue_outcome",
)
