"""``crmtui tasks``: list and show CRMArena instances from any task source."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, TypeVar

import click
from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from crmtui.data.instances import Instance, TaskSet
from crmtui.data.loaders import load_tasks
from crmtui.data.tasktypes import ALL_TASK_TYPES, abbreviation
from crmtui.errors import ConfigError
from crmtui.org.sample import sample_tasks_path
from crmtui.sanitise import printable, printable_json, printable_text

F = TypeVar("F", bound=Callable[..., Any])

TASKS_SOURCE_HELP = (
    "Task source: a .json/.jsonl/.parquet file in the HF row format, "
    "hf:Salesforce/CRMArena, hf:Salesforce/CRMArenaPro[:b2b|b2c|b2b_interactive|"
    "b2c_interactive], or 'sample' (default: the sample org's tasks)."
)

TASK_TYPE_HELP = (
    "Only this task type: a leaderboard abbreviation (NCR, HTU, TCU, NED, PVI, KQA, TII, "
    "MTA, BRI) or a task code such as handle_time."
)


def tasks_source_option(func: F) -> F:
    """The shared ``--tasks SRC`` option; other commands may reuse it."""
    return click.option("--tasks", "source", metavar="SRC", default=None, help=TASKS_SOURCE_HELP)(
        func
    )


def _org_option(func: F) -> F:
    return click.option(
        "--org",
        "org_spec",
        metavar="ORG",
        default=None,
        help="Use the tasks built or imported with this org (name or .db path), e.g. "
        "sample-b2b after `crmtui org build --org-type b2b`.",
    )(func)


def _load(source: str | None, org_spec: str | None) -> TaskSet:
    """The task set ``--tasks`` names, else the one kept with ``--org``, else the sample's."""
    if org_spec is not None and source is None:
        from crmtui.org.sample import open_org_or_sample
        from crmtui.org.task_match import own_tasks_path

        org = open_org_or_sample(org_spec)
        own = own_tasks_path(org)
        if own is None:
            raise ConfigError(f"org {org.name!r} has no tasks of its own; pass --tasks")
        return load_tasks(str(own), via_datasets=False)
    return load_tasks(source, sample_tasks=sample_tasks_path)


def _label(task: str) -> str:
    abbrev = abbreviation(task)
    return printable(task if abbrev == task else f"{abbrev} {task}")


def _one_line(text: str) -> str:
    """The text on one line, with anything that would act on the terminal shown escaped."""
    return printable(" ".join(text.split()))


def _answer_text(inst: Instance) -> str:
    return " | ".join(inst.gold_answers)


@click.group(name="tasks")
def tasks() -> None:
    """List, show and measure CRMArena instances (queries, context, gold answers)."""


@tasks.command(name="list")
@tasks_source_option
@_org_option
@click.option("--task", "task_type", metavar="TYPE", default=None, help=TASK_TYPE_HELP)
@click.option(
    "--show-answers",
    "--show-answer",
    "show_answers",
    is_flag=True,
    help="Add a column with each instance's gold answer.",
)
@click.option(
    "--limit",
    type=click.IntRange(min=1),
    default=None,
    metavar="N",
    help="List at most N instances (the counts still cover all that match).",
)
def list_tasks(
    source: str | None,
    org_spec: str | None,
    task_type: str | None,
    show_answers: bool,
    limit: int | None,
) -> None:
    """List instances: idx, task type and the start of the query, then counts per type."""
    task_set = _load(source, org_spec).filter(task_type)
    console = Console(highlight=False)
    console.print(_instances_table(task_set, show_answers, limit))
    console.print(_counts_table(task_set))
    shown = len(task_set) if limit is None else min(limit, len(task_set))
    source = printable(task_set.source)
    console.print(Text(f"Showing {shown} of {len(task_set)} instances from {source}."))


def _instances_table(task_set: TaskSet, show_answers: bool, limit: int | None) -> Table:
    table = Table(expand=True)
    table.add_column("idx", justify="right", no_wrap=True)
    table.add_column("task", no_wrap=True)
    # A single line per instance: long queries are cut with an ellipsis, never wrapped.
    table.add_column("query", no_wrap=True, overflow="ellipsis", ratio=1, min_width=24)
    if show_answers:
        table.add_column("answer", no_wrap=True, overflow="ellipsis", max_width=28)
    for n, inst in enumerate(task_set):
        if limit is not None and n >= limit:
            break
        cells = [str(inst.idx), _label(inst.task), Text(_one_line(inst.query))]
        if show_answers:
            cells.append(Text(_one_line(_answer_text(inst))))
        table.add_row(*cells)
    return table


def _counts_table(task_set: TaskSet) -> Table:
    table = Table(title="Instances per task type")
    table.add_column("abbr", no_wrap=True)
    table.add_column("task", no_wrap=True)
    table.add_column("name")
    table.add_column("count", justify="right")
    for code, count in task_set.counts().items():
        known = ALL_TASK_TYPES.get(code)
        table.add_row(
            printable(abbreviation(code)), printable(code), known.name if known else "", str(count)
        )
    table.add_section()
    table.add_row("", "total", "", str(len(task_set)))
    return table


@tasks.command(name="show")
@click.argument("idx", type=int)
@tasks_source_option
@_org_option
@click.option(
    "--show-answer",
    "--show-answers",
    "show_answer",
    is_flag=True,
    help="Reveal the gold answer (hidden by default).",
)
def show_task(idx: int, source: str | None, org_spec: str | None, show_answer: bool) -> None:
    """Show one instance in full: task, metric, query and metadata; IDX is its idx."""
    task_set = _load(source, org_spec)
    inst = task_set.get(idx)
    console = Console(highlight=False)
    known = ALL_TASK_TYPES.get(inst.task)
    facts = Table.grid(padding=(0, 2))
    facts.add_column(style="bold")
    facts.add_column()
    facts.add_row("idx", str(inst.idx))
    facts.add_row("task", _label(inst.task) + (f" ({known.name})" if known else ""))
    facts.add_row("reward metric", printable(inst.reward_metric))
    if inst.persona:
        facts.add_row("persona", Text(printable(inst.persona)))
    if inst.today is not None:
        facts.add_row("today", inst.today.isoformat())
    for label, record_id in inst.context_ids.items():
        facts.add_row(printable(label), Text(printable(record_id)))
    facts.add_row("source", Text(printable(task_set.source)))
    answer = _answer_text(inst) if show_answer else "(hidden; pass --show-answer to reveal)"
    # The task's own text, shown as itself: an escape sequence in it is printed escaped.
    console.print(
        Group(
            facts,
            Panel(Text(printable_text(inst.query)), title="query", title_align="left"),
            Panel(
                Text(printable_text(inst.metadata.required or "(empty)")),
                title="metadata.required",
                title_align="left",
            ),
            Panel(
                Text(printable_text(inst.metadata.optional or "(empty)")),
                title="metadata.optional",
                title_align="left",
            ),
            Panel(Text(printable_text(answer)), title="answer", title_align="left"),
        )
    )


@tasks.command(name="stats")
@tasks_source_option
@click.option(
    "--org",
    "org_spec",
    metavar="ORG",
    default=None,
    help="Org name or .db path whose tables the reference solvers re-run on (default: the "
    "org the tasks were generated with, when --tasks is not given).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json"]),
    default="table",
    show_default=True,
    help="table: one row per task type, then the calibration checks; json: the same figures.",
)
def stats(source: str | None, org_spec: str | None, fmt: str) -> None:
    """How well a task set discriminates, per task type.

    Always: instances, answered, None share, distinct gold values and the share of the
    three most common. With a generated org's solutions (found beside the task file) and
    its org: for argmax/argmin types the share of questions with a single candidate, the
    share whose best and second-best are within 1% (averages) or one (counts), exact ties,
    the median count of evidence records per answer, and type-specific notes; then the
    calibration targets. With the org, also an independent re-reading of every instance: how
    often the careful reading gives the gold answer, the share of instances whose text does
    not fix one answer, best-vs-second margins within 1% and within 10%, and the accuracy of
    each named careless shortcut (a handle time that keeps transferred cases, a product's
    all-time top issue, ...). On a task file without solutions (the real CRMArena file) only
    the distribution columns are filled.

    \b
    Examples:
      crmtui tasks stats                                  # the sample org
      crmtui tasks stats --org full-7                     # a built org and its tasks
      crmtui tasks stats --tasks crmarena_tasks.json      # the real file: distribution only
    """
    from crmtui.commands.tasks_stats import (
        build_report,
        has_readings,
        readings_table,
        stats_table,
        targets_table,
    )

    report = build_report(source, org_spec)
    if fmt == "json":
        click.echo(printable_json(json.dumps(report.to_json(), indent=2, ensure_ascii=False)))
        return
    console = Console(highlight=False)
    console.print(stats_table(report))
    if has_readings(report):
        console.print(readings_table(report))
    if report.targets:
        console.print(targets_table(report))
    elif report.solutions is None:
        console.print("No solutions file beside these tasks: only the gold distribution is shown.")
