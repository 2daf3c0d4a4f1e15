"""What the asking person knows: a generated instance's hidden ``facts``, read and put in words.

A Pro org built by crmtui stores, beside each task's gold answer, the ``facts`` its asker
holds (``<org>.solutions.json``: the period asked about, the lead's name and region, the case
the customer describes, the record a question is about ...). In the multi-turn mode they
are part of the user's brief: a simulated user reveals them when asked, and a person
playing the user sees them. Rows from upstream (the ``*_interactive`` splits) have none: the
user then knows only the persona and the query, as upstream's simulator did.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["ANSWER_FACTS", "facts_lines", "hidden_facts", "solutions_path"]

#: Facts left out of the user's brief because they are the evidence the gold answer rests
#: on, not part of the question (a lead's budget, timeline, authority and need, which the
#: lead stated in its calls: a user who repeated them would hand the agent the answer).
ANSWER_FACTS = frozenset({"budget", "months", "authority", "need"})

_cache: dict[tuple[str, int, int], dict[str, Any]] = {}


def solutions_path(org_path: str | os.PathLike[str]) -> Path:
    """``<org>.solutions.json`` beside an org's database file."""
    return Path(org_path).with_suffix(".solutions.json")


def hidden_facts(org_path: str | os.PathLike[str] | None, idx: int) -> dict[str, Any] | None:
    """The instance's ``facts`` from its org's solutions file, or None where there are none.

    A missing or unreadable file, or an entry without ``facts``, is None (upstream's rows
    have no facts; the user then knows the persona and query only).
    """
    if org_path is None:
        return None
    path = solutions_path(org_path)
    try:
        stat = path.stat()
    except OSError:
        return None
    key = (str(path), stat.st_mtime_ns, stat.st_size)
    if key not in _cache:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError):
            return None
        _cache.clear()  # one org at a time is the common case; keep memory flat
        _cache[key] = data if isinstance(data, dict) else {}
    entry = _cache[key].get(str(idx))
    facts = entry.get("facts") if isinstance(entry, Mapping) else None
    if not isinstance(facts, Mapping) or not facts:
        return None
    return {k: v for k, v in facts.items() if k not in ANSWER_FACTS}


def _period(value: Mapping[str, Any]) -> str:
    if value.get("kind") == "relative":
        count, unit = value.get("count"), value.get("unit", "")
        return f"the past {count} {unit}{'' if count == 1 else 's'}"
    if value.get("kind") == "named":
        return f"{value.get('name')} {value.get('year')}"
    return json.dumps(dict(value), sort_keys=True)


def _words(key: str, value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, Mapping):
        return _period(value) if "kind" in value else json.dumps(dict(value), sort_keys=True)
    if key == "bought" and isinstance(value, list | tuple) and len(value) == 2:
        unit, count = value
        return f"{count} {unit}{'' if count == 1 else 's'} ago"
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value)
    return str(value)


_NAMES = {
    "today": "today's date",
    "wants": "what you want",
    "n_cases": "at least this many cases (more than)",
    "mode": "lowest or highest",
    "asks_for": "what you ask for",
    "about_name": "the person you ask about",
    "about": "that person's record Id",
    "signed_in": "your own contact Id",
    "product_words": "how you describe the product",
    "bought": "when you bought it",
}


def facts_lines(facts: Mapping[str, Any] | None) -> list[str]:
    """The facts as ``name: value`` lines a person (or a model) reads, in a stable order."""
    if not facts:
        return []
    lines = []
    for key in sorted(facts):
        name = _NAMES.get(key, key.replace("_", " "))
        value = _words(key, facts[key]).strip()
        if "\n" in value:
            value = "\n  " + value.replace("\n", "\n  ")
        lines.append(f"{name}: {value}")
    return lines
