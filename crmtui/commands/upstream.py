"""``crmtui upstream``: make an environment for upstream's harness and run it offline."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from crmtui.errors import ConfigError


@click.group("upstream")
def upstream() -> None:
    """Run upstream's own harness (run_tasks.py), unchanged, against a local org."""


VERSION_OPTION = click.option(
    "--version",
    "version",
    type=click.Choice(["naacl", "head"]),
    default=None,
    help="Upstream's harness version: naacl (the paper's code, 17cbce8) or head (32b609a). "
    "Default: what the folder holds; the other one is exported from a git clone.",
)


@upstream.command("setup")
@click.argument("upstream_dir", type=click.Path(file_okay=False, path_type=Path))
@VERSION_OPTION
@click.option(
    "--base-python",
    default=sys.executable,
    show_default="the Python crmtui runs on",
    help="Python the venv is made from.",
)
@click.option("--dry-run", is_flag=True, help="Only say what would be installed.")
def setup(upstream_dir: Path, version: str | None, base_python: str, dry_run: bool) -> None:
    """Make a venv for upstream from its requirements.txt, relaxing pins that do not install."""
    import subprocess

    from crmtui.upstream import create_env, read_plan, venv_dir
    from crmtui.upstream.venv import installed_versions, requirement_name, write_environment
    from crmtui.upstream.versions import resolve_source

    source = resolve_source(upstream_dir, version)
    folder = source.folder
    click.echo(f"Upstream {source.version} ({source.commit or 'commit unknown'}): {folder}")
    interpreter = subprocess.run(
        [base_python, "-c", "import sys; print(sys.version_info[0], sys.version_info[1])"],
        capture_output=True,
        text=True,
    )
    if interpreter.returncode != 0:
        raise ConfigError(f"cannot run {base_python}")
    major, minor = (int(v) for v in interpreter.stdout.split())
    plan = read_plan(folder, (major, minor))
    target = venv_dir(folder)
    if dry_run:
        _say_plan(plan)
        click.echo("Pins the package index cannot serve are relaxed when the venv is made.")
        click.echo(f"Would create {target} and install {len(plan.requirements)} requirements")
        return
    click.echo(f"Creating {target} (resolving and installing take a few minutes)...")
    python = create_env(target, plan, base_python=base_python)
    _say_plan(plan)
    names = [requirement_name(r) for _, r, _ in plan.relaxed] + [
        requirement_name(r) for r, _ in plan.added
    ]
    versions = installed_versions(python, sorted(set(names)))
    if versions:
        chosen = ", ".join(f"{name} {v}" for name, v in sorted(versions.items()))
        click.echo(f"Installed: {chosen}")
    write_environment(
        target,
        {
            **source.to_json(),
            "python": f"{major}.{minor}",
            "relaxed": [{"pin": a, "installed": b, "why": c} for a, b, c in plan.relaxed],
            "added": [{"requirement": a, "why": b} for a, b in plan.added],
            "installed": versions,
        },
    )
    click.echo(f"Ready: {python}")
    option = f" --version {version}" if version else ""
    click.echo(f"`crmtui upstream run {upstream_dir}{option} ...` uses it by default.")


def _say_plan(plan: object) -> None:
    for pin, replacement, why in plan.relaxed:  # type: ignore[attr-defined]
        click.echo(f"Relaxed: {pin} -> {replacement} ({why})")
    for requirement, why in plan.added:  # type: ignore[attr-defined]
        click.echo(f"Added:   {requirement} ({why})")


# Options may come before or after UPSTREAM_DIR; everything after ``--`` goes to run_tasks.py
# untouched (click stops parsing options there).
@upstream.command("run", context_settings={"ignore_unknown_options": True})
@click.argument("upstream_dir", type=click.Path(file_okay=False, path_type=Path))
@VERSION_OPTION
@click.option(
    "--org", "spec", default=None, metavar="PATH|NAME", help="Org to serve (default: sample)."
)
@click.option(
    "--tasks",
    "tasks_source",
    default=None,
    metavar="SRC",
    help="Tasks every dataset split yields (default: sample).",
)
@click.option(
    "--python",
    "python",
    default=None,
    help="Python to run upstream with (default: the `upstream setup` venv).",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("upstream-runs"),
    show_default=True,
    help="Folder for the results file, request log, output and recordings.",
)
@click.option(
    "--api-base",
    default=None,
    metavar="URL",
    help="Sets OPENAI_API_BASE for the child (litellm's openai provider).",
)
@click.option(
    "--today",
    default=None,
    metavar="YYYY-MM-DD",
    help="Date LAST_N_DAYS etc. refer to (default: today).",
)
@click.option(
    "--quiet",
    is_flag=True,
    help="Do not echo upstream's output (it is kept in OUT/upstream-output.log).",
)
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def run(
    upstream_dir: Path,
    version: str | None,
    spec: str | None,
    tasks_source: str | None,
    python: str | None,
    out: Path,
    api_base: str | None,
    today: str | None,
    quiet: bool,
    args: tuple[str, ...],
) -> None:
    """Run upstream's run_tasks.py with ARGS (after --) against a local org.

    Example: crmtui upstream run ../CRMArena --org sample -- --model gpt-4o-2024-08-06
    --llm_provider openai --agent_strategy react --org_type original --task_category handle_time

    The paper's code (--version naacl) has no --org_type and takes one --task_category or all.
    """
    from crmtui.commands.serve_rest import parse_today
    from crmtui.data.loaders import load_tasks
    from crmtui.org.sample import open_org_or_sample, sample_tasks_path
    from crmtui.upstream import default_python, run_upstream
    from crmtui.upstream.venv import read_environment
    from crmtui.upstream.versions import resolve_source

    source = resolve_source(upstream_dir, version)
    folder = source.folder
    org = open_org_or_sample(spec)
    tasks = load_tasks(tasks_source, sample_tasks=sample_tasks_path)
    interpreter = python or default_python(folder)
    environment = {**source.to_json(), **(read_environment(interpreter) or {})}
    environment["interpreter"] = interpreter
    relaxed = environment.get("relaxed") or []
    click.echo(f"Upstream {source.version} ({source.commit or 'commit unknown'}): {folder}")
    for entry in relaxed if isinstance(relaxed, list) else []:
        click.echo(f"Relaxed pin: {entry.get('pin')} -> {entry.get('installed')}")
    outcome = run_upstream(
        folder,
        org=org,
        tasks=tasks,
        tasks_source=tasks_source or "sample",
        out=out,
        args=list(args),
        python=interpreter,
        api_base=api_base,
        today=parse_today(today),
        on_output=None if quiet else click.echo,
        environment=environment,
    )
    click.echo(f"upstream exited with status {outcome.returncode}")
    for path in outcome.results:
        click.echo(f"Results:     {path}")
    click.echo(f"Request log: {outcome.request_log}")
    click.echo(f"Recordings:  {len(outcome.recordings)} in {out / 'recordings'}")
    for problem in outcome.problems:
        click.echo(f"Warning: not imported: {problem}", err=True)
    if not outcome.results:
        raise ConfigError(f"upstream wrote no results file; see {outcome.output_log}")
