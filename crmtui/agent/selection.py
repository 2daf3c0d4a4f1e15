"""Which instances a run takes: task types, ``--idx`` and a ``--limit`` spread over types.

``--limit N`` without ``--idx`` takes instances round-robin over the selected task types in
leaderboard order (the first of each type, then the second of each, ...), so a short run
samples every type instead of only the first one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from crmtui.data.instances import TaskSet
from crmtui.data.tasktypes import abbreviation, resolve_task_type, sort_key
from crmtui.errors import ConfigError

__all__ = ["select_instances", "select_types", "task_category"]


def select_types(tasks: TaskSet, types: Sequence[str]) -> TaskSet:
    """The instances of the given task types (codes or abbreviations; empty: all).

    Raises:
        ConfigError: A type that is not known, or that ``tasks`` has no instance of.
    """
    if not types:
        return tasks
    codes = {resolve_task_type(t, tasks.task_codes) for t in types}
    absent = sorted(codes - set(tasks.task_codes), key=sort_key)
    if absent:
        # A known type (CRMArena's or CRMArena-Pro's) that this task set does not hold.
        where = f" in {tasks.source}" if tasks.source else ""
        have = ", ".join(f"{abbreviation(c)} ({c})" for c in tasks.task_codes)
        raise ConfigError(f"no instances of task type {', '.join(absent)}{where}; it has: {have}")
    return TaskSet((inst for inst in tasks if inst.task in codes), tasks.source)


def task_category(tasks: TaskSet, types: Sequence[str]) -> str:
    """The results file's task-category part: ``all``, a code, or codes joined by commas."""
    if not types:
        return "all"
    codes = sorted({resolve_task_type(t, tasks.task_codes) for t in types}, key=sort_key)
    return ",".join(codes)


def select_instances(
    tasks: TaskSet, types: Sequence[str], idxs: Sequence[int], limit: int | None
) -> list[Any]:
    """The instances to run, in the order they will be started.

    Args:
        tasks: The task set.
        types: ``--task`` values (empty: every type).
        idxs: ``--idx`` values (kept in the user's order; empty: all of the types).
        limit: At most this many (spread over the types when ``idxs`` is empty).

    Raises:
        TaskNotFound: An ``--idx`` that is not in the (type-filtered) task set.
        ConfigError: An unknown task type.
    """
    chosen = select_types(tasks, types)
    if idxs:
        picked = [chosen.get(i) for i in dict.fromkeys(idxs)]
        return picked if limit is None else picked[:limit]
    if limit is None:
        return list(chosen)
    by_type: dict[str, list[Any]] = {}
    for inst in chosen:
        by_type.setdefault(inst.task, []).append(inst)
    queues = [by_type[code] for code in sorted(by_type, key=sort_key)]
    picked = []
    depth = 0
    while len(picked) < limit and any(depth < len(q) for q in queues):
        for queue in queues:
            if depth < len(queue) and len(picked) < limit:
                picked.append(queue[depth])
        depth += 1
    return picked
