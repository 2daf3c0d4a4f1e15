"""Recordings as an SQLite database for analysts: ``crmtui export --format sqlite``.

Written with sqlite-utils, so the file opens in Datasette (``datasette results.db``) and
answers ``sqlite-utils query results.db "select ..."`` at once. Tables:

============  ==============================================================================
``sessions``  one row per session (pk ``session_id``): actor, instance, outcome, answer, gold,
              reward, counted, times, tokens, cost; ``header`` as JSON
``events``    every event (pk ``session_id, seq``): type, time, actor, ``payload`` as JSON
``queries``   each ``run_query`` (queries, helper tools): text, kind, rows, error, the
              observation shown; full-text search on ``text`` and ``observation``
``answers``   each ``submit``: answer, reward, scoring, gold; full-text search on ``answer``
``rewards``   one row per session that submitted: the reward and who scored it (``scoring``,
              e.g. ``paper``, ``upstream/toolenv``), right or not, counted by the report or not
============  ==============================================================================

``events``, ``queries``, ``answers`` and ``rewards`` refer to ``sessions`` by foreign key.
The file is written next to the target and renamed into place, so a failed export leaves
any previous file as it was; what may be replaced at all is
:mod:`crmtui.review.export_target`'s rule.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from crmtui.errors import ConfigError
from crmtui.review.export_target import SQLITE_APPLICATION_ID, partial_path, replace_into
from crmtui.scoring.rules import gold_text

__all__ = ["TABLES", "write_sqlite"]

TABLES = ("sessions", "events", "queries", "answers", "rewards")


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _tables(session_rows: Sequence[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    sessions, events, queries, answers, rewards = [], [], [], [], []
    for row in session_rows:
        sid = row["session_id"]
        session = {k: v for k, v in row.items() if k not in ("events", "header")}
        for key in ("gold", "end_reason", "records", "objects"):
            if isinstance(session.get(key), dict | list):
                session[key] = _json(session[key])
        session["header"] = _json(row["header"])
        sessions.append(session)
        for event in row["events"]:
            payload = event["payload"]
            events.append(
                {
                    "session_id": sid,
                    "seq": event["seq"],
                    "t": event["t"],
                    "ms": event["ms"],
                    "actor": event["actor"],
                    "type": event["type"],
                    "payload": _json(payload),
                }
            )
            if event["type"] == "run_query":
                queries.append(
                    {
                        "session_id": sid,
                        "seq": event["seq"],
                        "text": payload.get("text"),
                        "kind": payload.get("kind"),
                        "tool": payload.get("tool"),
                        "rows": payload.get("rows"),
                        "ms": payload.get("ms"),
                        "error_code": payload.get("error_code"),
                        "error": payload.get("error"),
                        "observation": payload.get("observation"),
                    }
                )
            elif event["type"] == "submit":
                answers.append(
                    {
                        "session_id": sid,
                        "seq": event["seq"],
                        "answer": payload.get("answer"),
                        "reward": payload.get("reward"),
                        "scoring": payload.get("scoring"),
                        # As in the sessions table: a None gold is the word None.
                        "gold": gold_text(payload["gold"]) if "gold" in payload else None,
                    }
                )
        if row.get("submitted"):
            rewards.append(
                {
                    "session_id": sid,
                    "actor": row["actor"],
                    "idx": row["idx"],
                    "task": row["task"],
                    "reward": row["reward"],
                    "right": row["right"],
                    "scoring": row["scoring"],
                    "counted": row["counted"],
                }
            )
    return {
        "sessions": sessions,
        "events": events,
        "queries": queries,
        "answers": answers,
        "rewards": rewards,
    }


def write_sqlite(
    session_rows: Sequence[dict[str, Any]], target: Path, *, force: bool = False
) -> Path:
    """Write the sessions (``crmtui.review.export.session_row`` rows) to ``target``.

    The database carries ``PRAGMA application_id`` =
    :data:`~crmtui.review.export_target.SQLITE_APPLICATION_ID`, the mark by which a later
    export with ``force`` knows it may replace it.

    Raises:
        ConfigError: The file cannot be written, or ``target`` holds something the export
            may not replace (:func:`~crmtui.review.export_target.check_target`).
    """
    import sqlite_utils

    tables = _tables(session_rows)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"cannot write {target}: {exc.strerror or exc}") from exc
    partial = partial_path(target)
    try:
        db = sqlite_utils.Database(partial)
        db.execute(f"PRAGMA application_id = {SQLITE_APPLICATION_ID}")
        db["sessions"].insert_all(tables["sessions"], pk="session_id", alter=True)
        keys = {"events": ("session_id", "seq"), "queries": ("session_id", "seq")}
        keys |= {"answers": ("session_id", "seq"), "rewards": "session_id"}
        for name, pk in keys.items():
            table = db.table(name)
            if tables[name]:
                table.insert_all(tables[name], pk=pk, alter=True)
            else:  # an empty table still exists, with its columns
                table.create({"session_id": str, "seq": int}, pk=pk if name != "rewards" else None)
            table.add_foreign_key("session_id", "sessions", "session_id")
            db[name].create_index(["session_id"], if_not_exists=True)
        db["sessions"].create_index(["actor", "idx"], if_not_exists=True)
        if tables["queries"]:
            db["queries"].enable_fts(["text", "observation"], create_triggers=True)
        if tables["answers"]:
            db["answers"].enable_fts(["answer"], create_triggers=True)
        db.close()
    except OSError as exc:
        partial.unlink(missing_ok=True)
        raise ConfigError(f"cannot write {target}: {exc.strerror or exc}") from exc
    replace_into(partial, "sqlite", target, force=force)
    return target
