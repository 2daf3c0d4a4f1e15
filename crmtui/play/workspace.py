"""Loading what a play session needs: the org and the task set (blocking; run in a worker)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from crmtui.config import PlayConfig

Progress = Callable[[str, float], None]


@dataclass
class Workspace:
    """The org and tasks the app works on."""

    org: Any
    tasks: Any
    tasks_label: str


def load_workspace(config: PlayConfig, progress: Progress | None = None) -> Workspace:
    """Open (building the sample on first use) the org and load the tasks.

    Raises:
        CrmtuiError: When the org or the tasks cannot be loaded.
    """
    from crmtui.data.loaders import load_tasks
    from crmtui.data.tasktypes import resolve_task_type
    from crmtui.org.sample import open_org_or_sample, sample_tasks_path

    report = progress or (lambda label, fraction: None)
    report("Opening the sample org" if config.org is None else f"Opening org {config.org}", 0.0)
    org = open_org_or_sample(config.org, progress=report)
    report("Loading tasks", 0.95)
    tasks = load_tasks(config.tasks, sample_tasks=sample_tasks_path)
    if config.task:
        tasks = tasks.filter(task=resolve_task_type(config.task, tasks.task_codes))
    if config.idx is not None:
        tasks.get(config.idx)  # raises TaskNotFound naming the idx
    report("Ready", 1.0)
    return Workspace(org=org, tasks=tasks, tasks_label=config.tasks_label)
