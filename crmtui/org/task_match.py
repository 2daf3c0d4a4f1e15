"""Tasks belong to an org: pick an org's own tasks, and check tasks from elsewhere against it.

A task's query, metadata and gold answer name record Ids of the org it was made for. Played
against another org, those Ids do not exist and every answer is meaningless; worse, an
instance whose gold is ``None`` scores 1.0 for answering "None" when the org has none of its
records. So:

* :func:`load_sources` opens the org and its tasks: without ``--tasks`` an org built (or
  imported) with tasks uses its own ``<org>.tasks.json``; with tasks from another place, the
  Ids they mention are checked against the org and, when most are missing, it refuses with
  an :class:`~crmtui.errors.ConfigError` saying how to get the right org, unless ``force``.
* :func:`check_task_ids` is that check on its own (for ``crmtui study`` and others): every
  18-character Id with a valid case-safe suffix (and every 15-character token whose key
  prefix belongs to an object of the org) is looked up, one indexed query per object.
"""

from __future__ import annotations

import json
import re
import sqlite3
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from crmtui.errors import ConfigError
from crmtui.value_class import ValueClass

__all__ = ["IdCheck", "Sources", "check_task_ids", "load_sources", "own_tasks_path"]

Progress = Callable[[str, float], None]

#: Share of mentioned Ids that may be missing before the tasks are refused.
MISSING_LIMIT = 0.5

_TOKEN = re.compile(r"(?<![A-Za-z0-9])(?:[A-Za-z0-9]{18}|[A-Za-z0-9]{15})(?![A-Za-z0-9])")
_SUFFIX_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345"
_UPPER_BITS = str.maketrans(
    {chr(c): "1" for c in range(ord("A"), ord("Z") + 1)}
    | {chr(c): "0" for c in range(ord("a"), ord("z") + 1)}
    | {chr(c): "0" for c in range(ord("0"), ord("9") + 1)}
)


def _checksum(id15: str) -> str:
    # The case-safe suffix (as crmtui.org.generator.ids.checksum), repeated here so that a
    # check at start-up does not import the generator and its Faker dependency. Each
    # 5-character chunk gives 5 bits (1 = upper-case letter), the first character lowest.
    flags = id15.translate(_UPPER_BITS)
    return "".join(_SUFFIX_ALPHABET[int(flags[i : i + 5][::-1], 2)] for i in (0, 5, 10))


class IdCheck(ValueClass):
    """Which of the record Ids a task set mentions exist in an org.

    Attributes:
        mentioned: Distinct Ids the instances mention (query, metadata, gold).
        found: How many of them the org has.
        by_object: Object -> (mentioned, found); Ids whose key prefix no object of the org
            uses are under ``"?"``.
        missing_examples: A few missing Ids, for the message.
        seconds: Time the check took.
    """

    FIELDS = ("mentioned", "found", "by_object", "missing_examples", "seconds")

    mentioned: int
    found: int
    by_object: dict[str, tuple[int, int]]
    missing_examples: list[str]
    seconds: float

    def __init__(
        self,
        mentioned: int = 0,
        found: int = 0,
        by_object: dict[str, tuple[int, int]] | None = None,
        missing_examples: list[str] | None = None,
        seconds: float = 0.0,
    ) -> None:
        self.mentioned = mentioned
        self.found = found
        self.by_object = {} if by_object is None else by_object
        self.missing_examples = [] if missing_examples is None else missing_examples
        self.seconds = seconds

    @property
    def missing(self) -> int:
        """Mentioned Ids the org lacks."""
        return self.mentioned - self.found

    @property
    def mostly_missing(self) -> bool:
        """True when more than :data:`MISSING_LIMIT` of the mentioned Ids are missing."""
        return self.mentioned > 0 and self.missing > MISSING_LIMIT * self.mentioned


def _texts(instance: Any) -> Iterable[str]:
    yield instance.query
    meta = instance.metadata
    yield meta.required
    yield meta.optional
    answer = instance.answer
    if isinstance(answer, str):
        yield answer
    elif isinstance(answer, list):
        yield from (a for a in answer if isinstance(a, str))


def _prefixes(conn: Any, objects: list[str]) -> dict[str, str]:
    """Key prefix -> object, from the smallest and largest Id of each object (indexed)."""
    found: dict[str, str] = {}
    for name in objects:
        for end in ("MIN", "MAX"):
            # One aggregate per statement: only then does SQLite answer from the Id index
            # instead of scanning the table.
            try:
                row = conn.execute(f'SELECT {end}("Id") FROM "{name}"').fetchone()
            except sqlite3.Error:  # a table without Id: nothing to look up there
                break
            value = row[0] if row else None
            if isinstance(value, str) and len(value) >= 3:
                found.setdefault(value[:3], name)
    return found


def check_task_ids(tasks: Iterable[Any], org: Any) -> IdCheck:
    """Look up every record Id the instances mention in ``org``.

    Args:
        tasks: Instances (a :class:`~crmtui.data.instances.TaskSet` or any iterable).
        org: An opened :class:`~crmtui.org.store.Org`.
    """
    began = time.perf_counter()
    objects = [obj.name for obj in org.schema]
    ids18: set[str] = set()
    short: set[str] = set()
    seen: set[str] = set()
    for instance in tasks:
        for text in _texts(instance):
            # Many instances share their long metadata text: scan each distinct text once.
            if not text or text in seen:
                continue
            seen.add(text)
            for token in _TOKEN.findall(text):
                if len(token) == 18:
                    if token[15:] == _checksum(token[:15]):
                        ids18.add(token)
                elif any(c.isdigit() for c in token):
                    short.add(token)
    check = IdCheck()
    conn = org.connect()
    try:
        prefixes = _prefixes(conn, objects)
        ids18.update(t + _checksum(t) for t in short if t[:3] in prefixes)
        groups: dict[str, list[str]] = {}
        for value in ids18:
            groups.setdefault(prefixes.get(value[:3], "?"), []).append(value)
        for name, values in sorted(groups.items()):
            present: set[str] = set()
            if name != "?":
                query = f'SELECT "Id" FROM "{name}" WHERE "Id" IN (SELECT value FROM json_each(?))'
                present = {row[0] for row in conn.execute(query, (json.dumps(values),))}
            check.by_object[name] = (len(values), len(present))
            check.mentioned += len(values)
            check.found += len(present)
            missing = sorted(set(values) - present)
            check.missing_examples.extend(missing[: max(0, 3 - len(check.missing_examples))])
    finally:
        conn.close()
    check.seconds = time.perf_counter() - began
    return check


def own_tasks_path(org: Any) -> Path | None:
    """The tasks file built or imported with ``org`` (``<org>.tasks.json``), if any."""
    path = getattr(org, "path", None)
    if path is None:
        return None
    candidate = Path(path).with_suffix(".tasks.json")
    return candidate if candidate.is_file() else None


class Sources(ValueClass):
    """An org and the tasks played on it.

    Attributes:
        org: The opened org.
        tasks: The task set.
        tasks_label: The task source as recorded in headers.
        check: The Id check, when the tasks came from elsewhere than the org.
    """

    FIELDS = ("org", "tasks", "tasks_label", "check")

    org: Any
    tasks: Any
    tasks_label: str
    check: IdCheck | None

    def __init__(
        self, org: Any, tasks: Any, tasks_label: str, check: IdCheck | None = None
    ) -> None:
        self.org = org
        self.tasks = tasks
        self.tasks_label = tasks_label
        self.check = check


def refusal(check: IdCheck, org: Any, tasks_label: str) -> str:
    """The message for tasks whose Ids are mostly missing from ``org``."""
    examples = ", ".join(check.missing_examples)
    return (
        f"{check.missing:,} of the {check.mentioned:,} record Ids the instances in "
        f"{tasks_label} mention (queries, metadata, gold answers) are not in org "
        f"{org.name!r} (e.g. {examples}): these tasks were made for another org, and on "
        "this one their answers mean nothing (a None gold would even score 1.0 for 'None'). "
        "Use the org they belong to (for the real CRMArena tasks: `crmtui org import "
        "crmarena_data.db --name crmarena`, then --org crmarena), or pass --force"
    )


def load_sources(
    org_spec: str | None,
    tasks_spec: str | None,
    *,
    force: bool = False,
    progress: Progress | None = None,
) -> Sources:
    """Open the org and load its tasks (its own unless ``tasks_spec``), checked together.

    Args:
        org_spec: ``--org`` (``None``: the sample org, built on first use).
        tasks_spec: ``--tasks`` (``None``: the org's own tasks, else the sample's).
        force: Do not refuse tasks whose Ids are mostly missing from the org.
        progress: Called with ``(stage, fraction)`` while the sample org is built.

    Raises:
        ConfigError: The tasks do not belong to the org (see :func:`refusal`).
        CrmtuiError: The org or the tasks cannot be loaded.
    """
    from crmtui import paths
    from crmtui.data.loaders import load_tasks
    from crmtui.org.sample import open_org_or_sample, sample_tasks_path

    report = progress or (lambda label, fraction: None)
    report("Opening the sample org" if org_spec is None else f"Opening org {org_spec}", 0.0)
    org = open_org_or_sample(org_spec, progress=report)
    report("Loading tasks", 0.95)
    own = own_tasks_path(org)
    if tasks_spec is None and own is not None:
        if own == paths.org_tasks_path(paths.SAMPLE_ORG_NAME):
            return Sources(org, load_tasks(None, sample_tasks=sample_tasks_path), "sample")
        # crmtui wrote this file when it built or imported the org: read it with the json
        # module, as the sample's, rather than paying 1-2 s to import datasets and pandas.
        return Sources(org, load_tasks(str(own), via_datasets=False), str(own))
    tasks = load_tasks(tasks_spec, sample_tasks=sample_tasks_path)
    label = tasks_spec or "sample"
    given = Path(tasks_spec).expanduser() if tasks_spec else None
    if given is not None and own is not None and given.resolve() == own.resolve():
        return Sources(org, tasks, label)
    if org_spec is None and tasks_spec in (None, "sample"):
        return Sources(org, tasks, label)
    check = check_task_ids(tasks, org)
    if check.mostly_missing and not force:
        raise ConfigError(refusal(check, org, label))
    return Sources(org, tasks, label, check)
