"""``crmtui compare``: two or more attempts at one instance, aligned step by step."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from crmtui.errors import ConfigError
from crmtui.record.verify import Recording, load
from crmtui.review.compare import (
    Comparison,
    default_solutions_path,
    load_solutions,
    recordings_for_idx,
)
from crmtui.review.compare import (
    compare as compare_recordings,
)
from crmtui.review.compare_format import comparison_markdown
from crmtui.review.rerun import result_ids_for
from crmtui.review.trajectory import ResultIds
from crmtui.sanitise import printable, printable_json


def _gather(
    paths: tuple[Path, ...], idx: int | None, org: str | None = None, source: str | None = None
) -> list[Recording]:
    if idx is None:
        if len(paths) < 2:
            raise click.UsageError("give two recordings (FILE_A FILE_B), or --idx N [DIR]")
        for path in paths:
            if path.is_dir():
                raise click.UsageError(
                    f"{path} is a folder; use --idx N {path} to compare "
                    "every recording of one instance in it"
                )
        if org is not None or source is not None:
            raise click.UsageError("--org and --tasks choose among the recordings --idx finds")
        return [load(path) for path in paths]
    if len(paths) > 1:
        raise click.UsageError("with --idx give at most one folder")
    if paths:
        root = paths[0]
    else:
        from crmtui.paths import recordings_dir

        root = recordings_dir()
    if not root.is_dir():
        raise ConfigError(f"no such folder: {root}")
    found, skipped = recordings_for_idx(root, idx, org=org, source=source)
    for item in skipped:
        click.echo(f"Skipped {printable(str(item.path))}: {printable(item.reason)}", err=True)
    if len(found) < 2:
        which = "".join(
            f" {name} {value!r}" for name, value in (("org", org), ("tasks", source)) if value
        )
        raise ConfigError(
            f"found {len(found)} valid recording(s) of idx {idx}{which} in {root}; "
            "need two to compare"
        )
    return found


def _rerunners(recordings: list[Recording]) -> tuple[list[ResultIds | None], list[str]]:
    runners: dict[tuple[object, object, object], ResultIds | None] = {}
    lookups: list[ResultIds | None] = []
    notes: list[str] = []
    for recording in recordings:
        org = recording.header["org"]
        key = (org.get("path"), org.get("digest"), recording.header.get("today"))
        if key not in runners:
            runners[key], note = result_ids_for(recording)
            if note not in notes:
                notes.append(note)
        lookups.append(runners[key])
    return lookups, notes


@click.command("compare")
@click.argument(
    "paths", nargs=-1, type=click.Path(path_type=Path), metavar="FILE_A FILE_B... | --idx N [DIR]"
)
@click.option(
    "--idx",
    type=int,
    default=None,
    metavar="N",
    help="Compare every recording of instance N found under DIR "
    "(default CRMTUI_HOME/recordings), humans first.",
)
@click.option(
    "--org",
    "org_name",
    default=None,
    metavar="NAME",
    help="With --idx: only recordings made on the org NAME (as `crmtui org list` names "
    "it). Needed when the folder holds idx N of more than one org: each org numbers its "
    "instances from 0, so idx N of two orgs is two instances.",
)
@click.option(
    "--tasks",
    "tasks_source",
    default=None,
    metavar="SOURCE",
    help="With --idx: only recordings of the task source SOURCE as recorded (sample: "
    "the org's own tasks; else the --tasks given when playing or running).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["md", "json"]),
    default=None,
    help="Print instead of opening the compare screen. md: Markdown; json: the full "
    "comparison for scripts. Without --format the screen opens when stdout is a terminal "
    "(Markdown is printed when it is piped or redirected).",
)
@click.option(
    "--solutions",
    type=click.Path(path_type=Path),
    default=None,
    help="The org's solutions file (str(idx) -> evidence Ids). Default: "
    "<org>.solutions.json beside the org named in the first recording, if present.",
)
@click.option(
    "--rerun/--no-rerun",
    default=True,
    show_default=True,
    help="Re-run each typed query on the recording's org (when present and unchanged) "
    "so the records it returned (or aggregated) count as looked at.",
)
def compare(
    paths: tuple[Path, ...],
    idx: int | None,
    org_name: str | None,
    tasks_source: str | None,
    fmt: str | None,
    solutions: Path | None,
    rerun: bool,
) -> None:
    """Lay attempts at one instance side by side, aligned by the queries they ran and the
    records they touched, with the first divergence marked.

    Opens the compare screen (up/down: rows, d: first divergence, n: next difference,
    Enter: a row's steps in full, q: quit); --format md|json prints the same comparison.

    For each actor: the answer, the reward, active time, number of queries and records
    viewed, tokens and cost. With a solutions file, also which of the records the gold
    answer rests on each actor looked at, and a verdict: solved, lucky guess (right
    without the evidence), reasoning error (evidence seen, wrong answer) or missed
    evidence. Records "looked at" are those a step names (opened, followed, or quoted in
    a query) plus, with --rerun, the rows each typed query returns when re-run on the same org.

    \b
    Examples:
      crmtui compare recordings/alice/a.jsonl recordings/gpt-4o/b.jsonl
      crmtui compare --idx 650 recordings --format json
      crmtui compare --idx 11 --org sample-b2b
      crmtui compare a.jsonl b.jsonl --format md > compare.md
    """
    comparison = build_comparison(paths, idx, solutions, rerun, org=org_name, source=tasks_source)
    if fmt is None and _interactive():
        from crmtui.factory import build_compare_app, run_app

        run_app(build_compare_app(comparison))
        return
    if fmt == "json":
        text = printable_json(comparison.to_json()) + "\n"
    else:
        text = comparison_markdown(comparison)
    click.echo(text, nl=False)


def _interactive() -> bool:
    """Whether stdout is a terminal (so a screen can open instead of printing)."""
    return sys.stdout.isatty()


def build_comparison(
    paths: tuple[Path, ...],
    idx: int | None,
    solutions: Path | None,
    rerun: bool,
    *,
    org: str | None = None,
    source: str | None = None,
) -> Comparison:
    """Load, verify and (optionally) re-run the recordings, then compare them.

    Everything slow happens here, before any screen opens.

    Raises:
        click.UsageError: If the arguments do not name recordings to compare.
        CrmtuiError: If a recording, the folder or the solutions file is unusable, or the
            recordings cannot be compared.
    """
    recordings = _gather(paths, idx, org, source)
    source = solutions if solutions is not None else default_solutions_path(recordings[0])
    solved = load_solutions(source) if source is not None else None
    lookups, notes = _rerunners(recordings) if rerun else (None, [])
    comparison = compare_recordings(recordings, solved, lookups)
    comparison.notes.extend(notes)
    return comparison
