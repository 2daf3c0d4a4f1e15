"""``crmtui org``: build, import, inspect and list org databases.

Each subcommand is a thin layer over :mod:`crmtui.org`; errors are typed and shown as one
line by :func:`crmtui.cli.main`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.table import Table
from rich.text import Text

from crmtui import paths
from crmtui.errors import ConfigError, OrgError
from crmtui.org.sample import open_org_or_sample
from crmtui.org.store import Org, OrgInfo
from crmtui.org.task_match import own_tasks_path

SCALES = ("small", "full", "stress")


@click.group("org")
def org() -> None:
    """Build, import and inspect org databases (the SQLite files queries run against)."""


def _default_name(scale: str, seed: int, org_type: str | None = None) -> str:
    if org_type is not None:
        # The small seed-7 Pro orgs are the Pro samples (sample-b2b, sample-b2c).
        if scale == "small" and seed == 7:
            return f"{paths.SAMPLE_ORG_NAME}-{org_type}"
        return f"{org_type}-{scale}-{seed}"
    if scale == "small" and seed == 7:
        return paths.SAMPLE_ORG_NAME
    return f"{scale}-{seed}"


def _size(n_bytes: int) -> str:
    size = float(n_bytes)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} GB"  # pragma: no cover - loop always returns


@org.command("build")
@click.option(
    "--seed", type=int, default=7, show_default=True, help="Random seed of the generator."
)
@click.option(
    "--scale",
    type=click.Choice(SCALES),
    default="small",
    show_default=True,
    help="How much data: small (sample), full (paper-sized) or stress (~2M rows).",
)
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Where to write the org (default: <data dir>/orgs/<name>.db).",
)
@click.option(
    "--org-type",
    type=click.Choice(("b2b", "b2c")),
    default=None,
    help="Build a CRMArena-Pro org (27 objects, 22 task types): b2b (businesses) or b2c "
    "(person accounts); scale small or full.",
)
@click.option(
    "--name",
    help="Org name (default: 'sample' for small/seed 7, else <scale>-<seed>; with --org-type: "
    "sample-b2b/sample-b2c, else <type>-<scale>-<seed>).",
)
@click.option(
    "--domain-details",
    type=click.Choice(("full", "short")),
    default=None,
    help="With --org-type: the Domain Details every task carries. full (default, about 3,300 "
    "characters): also the case, purchase and sales conventions each instance rests on; "
    "short: about the real file's 950 characters (quarters, seasons, past periods), so "
    "some instances rest on conventions it leaves unstated.",
)
@click.option("--force", is_flag=True, help="Replace an existing org file.")
def build(
    seed: int,
    scale: str,
    out: Path | None,
    org_type: str | None,
    name: str | None,
    domain_details: str | None,
    force: bool,
) -> None:
    """Generate a synthetic CRMArena-like org and its tasks (Pro: --org-type)."""
    if domain_details is not None and org_type is None:
        raise ConfigError("--domain-details applies to CRMArena-Pro orgs only (add --org-type)")
    if org_type is not None:
        from crmtui.org.generator.pro.config import pro_scale

        pro_scale(scale)  # stress is not a Pro scale: say so before anything else
    default = _default_name(scale, seed, org_type)
    org_name = paths.check_org_name(name or (out.stem if out else default))
    target = out if out is not None else paths.org_path(org_name)
    if target.exists() and not force:
        raise ConfigError(f"{target} already exists; pass --force to replace it")
    try:
        from crmtui.org.build import build_org
    except ModuleNotFoundError as exc:
        if exc.name != "crmtui.org.build":
            raise
        raise OrgError("the org generator (crmtui.org.build) is not installed") from exc
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(
        TextColumn("{task.description:<24}"),
        BarColumn(),
        TextColumn("{task.percentage:>3.0f}%"),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    ) as bar:
        task = bar.add_task("starting", total=1.0)

        def on_progress(stage: str, fraction: float) -> None:
            bar.update(task, description=stage, completed=max(0.0, min(1.0, fraction)))

        result = build_org(
            target,
            seed=seed,
            scale=scale,
            name=org_name,
            progress=on_progress,
            org_type=org_type,
            details=domain_details or "full",
        )

    kind = f", Pro {org_type}" if org_type else ""
    table = Table(title=f"Org {org_name!r} (seed {seed}, scale {scale}{kind})")
    table.add_column("Object")
    table.add_column("Rows", justify="right")
    for obj_name, count in result.counts.items():
        table.add_row(obj_name, f"{count:,}")
    table.add_row("[b]total[/b]", f"[b]{sum(result.counts.values()):,}[/b]")
    Console().print(table)
    click.echo(f"Path:   {result.path}")
    click.echo(f"Tasks:  {result.tasks_path}")
    click.echo(f"Time:   {result.seconds:.1f} s")
    click.echo(f"Digest: {result.digest}")


@org.command("import")
@click.argument("src", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--name", help="Name of the new org (default: the file name without .db).")
@click.option(
    "--schema",
    "schema_path",
    metavar="hf|hf:FILE|FILE",
    help="Expected schema, whose descriptions the prompts show: hf (the hub's CRMArena "
    "schema config, through datasets; needs the network or its cache), hf:FILE (a local "
    "copy of that config, through datasets), or a schema JSON (crmtui or upstream format).",
)
@click.option(
    "--extra-columns",
    type=click.Choice(["keep", "omit", "describe"]),
    default="keep",
    show_default=True,
    help="Source columns the schema lacks (queryable in every case): keep them in the "
    "prompt's schema text without a description, omit them from it (upstream's prompt), "
    "or describe them in crmtui's words.",
)
@click.option(
    "--tasks",
    "tasks_source",
    default=None,
    metavar="SRC",
    help="Tasks that belong to this org (a file or hf:...): kept beside it, so --org NAME "
    "uses them without --tasks. Their record Ids are checked against the org first.",
)
@click.option("--force", is_flag=True, help="Replace an existing org of the same name.")
def import_(
    src: Path,
    name: str | None,
    schema_path: str | None,
    extra_columns: str,
    tasks_source: str | None,
    force: bool,
) -> None:
    """Import a database in upstream's layout (e.g. local_data/crmarena_data.db).

    The source is validated against the schema, then copied into the data directory with
    indexes and full-text search added; it is never modified.

    \b
    Example:
      crmtui org import local_data/crmarena_data.db --name crmarena --tasks crmarena_tasks.json
    """
    from crmtui.org.importer import import_org

    err = Console(stderr=True)

    def warn(message: str) -> None:
        err.print(f"[yellow]Warning:[/yellow] {message}", soft_wrap=True, highlight=False)

    tasks = None
    if tasks_source is not None:
        from crmtui.data.loaders import load_tasks

        tasks = load_tasks(tasks_source)  # a bad task file fails before anything is written
    result = import_org(
        src,
        name=name,
        schema=schema_path,
        force=force,
        on_warning=warn,
        extra_columns=extra_columns,
    )
    if schema_path is not None:
        click.echo(_extra_note(result, extra_columns))
    info = result.info()
    click.echo(f"Imported {len(info.objects)} objects, {info.total_rows:,} rows as {result.name!r}")
    click.echo(f"Path:   {result.path}")
    click.echo(f"Digest: {result.digest}")
    if tasks is not None:
        click.echo(f"Tasks:  {_attach_tasks(result, tasks, tasks_source or '')}")
    else:
        # A replaced org keeps no tasks of the org it replaced.
        Path(result.path).with_suffix(".tasks.json").unlink(missing_ok=True)


def _attach_tasks(org: Org, tasks: Any, label: str) -> Path:
    """Keep ``tasks`` beside ``org`` as its own, once their record Ids check out."""
    import json

    from crmtui.org.task_match import check_task_ids, refusal

    check = check_task_ids(tasks, org)
    if check.mostly_missing:
        raise ConfigError(refusal(check, org, label).split(": these tasks")[0] + ": not kept")
    target = Path(org.path).with_suffix(".tasks.json")
    rows = [inst.to_row() for inst in tasks]
    target.write_text(json.dumps(rows, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return target


@org.command("info")
@click.argument("name", required=False, metavar="[NAME|PATH]")
@click.option("--org", "spec", help="Org name or .db path (the same as NAME).")
def info(name: str | None, spec: str | None) -> None:
    """Show an org's objects, row counts, date ranges, digest and search support.

    NAME is a built or imported org's name or a .db path (default: the sample org).
    """
    if name is not None and spec is not None and name != spec:
        raise ConfigError(f"give the org once: {name!r} or --org {spec!r}, not both")
    details = open_org_or_sample(name or spec).info()
    _print_info(details)
    tasks = own_tasks_path(details)
    click.echo(f"Tasks:      {tasks if tasks is not None else 'none of its own (uses --tasks)'}")


def _print_info(details: OrgInfo) -> None:
    table = Table(title=Text(f"Org '{paths.printable(details.name)}'"))
    table.add_column("Object")
    table.add_column("Rows", justify="right")
    table.add_column("From")
    table.add_column("To")
    table.add_column("FTS")
    for obj in details.objects:
        table.add_row(
            obj.name,
            f"{obj.rows:,}",
            (obj.date_min or "")[:10],
            (obj.date_max or "")[:10],
            "yes" if obj.has_fts else "no",
        )
    Console().print(table)
    low, high = details.date_range
    click.echo(f"Path:       {details.path}")
    click.echo(f"Size:       {_size(details.size)}")
    click.echo(f"Rows:       {details.total_rows:,}")
    click.echo(f"Dates:      {(low or '-')[:10]} .. {(high or '-')[:10]}")
    click.echo(f"Digest:     {details.digest}")
    click.echo(f"FTS:        {'yes' if details.has_fts else 'no (search scans tables)'}")
    click.echo(f"Source:     {details.meta.get('source', 'raw file (no crmtui metadata)')}")
    if "created_at" in details.meta:
        click.echo(f"Created:    {details.meta['created_at']}")
    if "seed" in details.meta:
        click.echo(f"Seed/scale: {details.meta['seed']} / {details.meta.get('scale', '?')}")


def _short_source(source: str | None) -> str:
    """Imported orgs record an absolute path; the file name is enough in a listing."""
    if not source:
        return "raw file"
    return f"import of {Path(source).name}" if os.sep in source else source


def _cell(text: str) -> Text:
    """A table cell showing ``text`` literally: no markup, control characters escaped."""
    return Text(paths.printable(text))


@org.command("list")
def list_() -> None:
    """List the orgs built or imported into the data directory."""
    files = sorted(paths.orgs_dir().glob("*.db"))
    if not files:
        click.echo(
            f"No orgs in {paths.orgs_dir()} yet; run `crmtui org build` or `crmtui org import`."
        )
        return
    table = Table(title=Text(f"Orgs in {paths.printable(str(paths.orgs_dir()))}"))
    for column in ("Name", "Objects", "Rows", "Size", "Created", "Source"):
        table.add_column(
            column,
            justify="right" if column in {"Objects", "Rows"} else "left",
            no_wrap=column != "Source",
        )
    for path in files:
        try:
            opened = Org.open(path)
            rows = sum(opened.count(o.name) for o in opened.schema)
        except OrgError as exc:
            table.add_row(
                _cell(path.stem), "", "", _size(path.stat().st_size), "", _cell(f"invalid: {exc}")
            )
            continue
        table.add_row(
            _cell(opened.name),
            str(len(opened.schema)),
            f"{rows:,}",
            _size(path.stat().st_size),
            opened.meta.get("created_at", "")[:16].replace("T", " "),
            _cell(_short_source(opened.meta.get("source"))),
        )
    Console().print(table)


def _extra_note(result: object, how: str) -> str:
    """One line saying what the prompts' schema text does with the extra columns."""
    schema = result.schema  # type: ignore[attr-defined]
    hidden = [f"{o.name}.{f.name}" for o in schema for f in o.fields if not f.listed]
    hidden = [h for h in hidden if not h.endswith(".Id")]
    if how == "omit":
        return f"Schema text: the schema's descriptions; left out: {', '.join(hidden) or 'none'}"
    if how == "describe":
        return "Schema text: the schema's descriptions; extra columns described in crmtui's words"
    return "Schema text: the schema's descriptions; extra columns listed without a description"


@org.command("fetch")
@click.argument("which", type=click.Choice(["crmarena", "crmarenapro-b2b", "crmarenapro-b2c"]))
@click.option("--url", default=None, help="Download from here instead of upstream's repository.")
@click.option("--name", default=None, help="Org name (default: WHICH).")
@click.option("--force", is_flag=True, help="Replace an existing org of that name.")
@click.option(
    "--schema",
    default=None,
    metavar="hf|hf:FILE|FILE",
    help="The schema whose descriptions prompts show (default: crmtui's own); see org import.",
)
@click.option(
    "--extra-columns",
    type=click.Choice(["keep", "omit", "describe"]),
    default="keep",
    show_default=True,
    help="Columns the schema lacks: keep, omit from or describe in the prompt's schema text.",
)
def fetch(
    which: str,
    url: str | None,
    name: str | None,
    force: bool,
    schema: str | None,
    extra_columns: str,
) -> None:
    """Download upstream's published org file, verify its git blob id and import it.

    A partial download is resumed. Offline, it fails within seconds and says how to import
    a copy of the file instead.
    """
    from rich.progress import BarColumn, DownloadColumn, Progress, TransferSpeedColumn

    from crmtui.upstream.fetch import fetch_org

    with Progress(
        "{task.description}",
        BarColumn(),
        DownloadColumn(),
        TransferSpeedColumn(),
        console=Console(stderr=True),
        transient=True,
    ) as bar:
        task = bar.add_task(f"Downloading {which}", total=None)

        def on_progress(done: int, total: int | None) -> None:
            bar.update(task, completed=done, total=total)

        result = fetch_org(
            which,
            url=url,
            name=name,
            force=force,
            progress=on_progress,
            schema=schema,
            extra_columns=extra_columns,
        )
    info = result.info()
    click.echo(
        f"Verified and imported {which}: {len(info.objects)} objects, {info.total_rows:,} rows"
    )
    click.echo(f"Path:   {result.path}")
    click.echo(f"Use it: --org {result.name}")
