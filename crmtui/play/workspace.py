"""Loading what a play session needs: the org and the task set (blocking; run in a worker)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from crmtui.config import PlayConfig
from crmtui.value_class import ValueClass

Progress = Callable[[str, float], None]


class Workspace(ValueClass):
    """The org and tasks the app works on (a value class: see :mod:`crmtui.value_class`)."""

    FIELDS = ("org", "tasks", "tasks_label")

    org: Any
    tasks: Any
    tasks_label: str

    def __init__(self, org: Any, tasks: Any, tasks_label: str) -> None:
        self.org = org
        self.tasks = tasks
        self.tasks_label = tasks_label


def load_workspace(config: PlayConfig, progress: Progress | None = None) -> Workspace:
    """Open (building the sample on first use) the org and load the tasks.

    Raises:
        ConfigError: The tasks were made for another org (unless ``config.force``).
        CrmtuiError: When the org or the tasks cannot be loaded.
    """
    from crmtui.data.tasktypes import resolve_task_type
    from crmtui.org.task_match import load_sources

    report = progress or (lambda label, fraction: None)
    # An org built or imported with tasks brings its own; tasks from elsewhere are checked
    # against the org (their record Ids must mostly exist there) unless --force.
    sources = load_sources(config.org, config.tasks, force=config.force, progress=report)
    org, tasks = sources.org, sources.tasks
    if config.task:
        tasks = tasks.filter(task=resolve_task_type(config.task, tasks.task_codes))
    if config.idx is not None:
        tasks.get(config.idx)  # raises TaskNotFound naming the idx
    report("Ready", 1.0)
    return Workspace(org=org, tasks=tasks, tasks_label=sources.tasks_label)
