"""``crmtui study``: create a human-baseline study, hand out tokens, follow it, report on it.

Each subcommand is a thin layer over :mod:`crmtui.study`.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from crmtui.commands.dialogue_options import dialogue_options, dialogue_settings
from crmtui.commands.options import (
    POSITIVE_SECONDS,
    UNIT_FRACTION,
    figures_option,
    report_out_option,
)
from crmtui.errors import ConfigError
from crmtui.sanitise import printable

if TYPE_CHECKING:
    from crmtui.study import Study


@click.group("study")
def study() -> None:
    """Human-baseline studies: several annotators, assigned instances, agreement.

    \b
    A study lives in ./studies/NAME (or $CRMTUI_STUDIES/NAME; NAME may also be a path):
    study.toml (the definition and every assignment), tokens.json (hashes only) and
    recordings/ (every annotator's sessions).
    """


def _idx_list(text: str | None, option: str) -> list[int] | None:
    """``1,2,5-9`` -> [1, 2, 5, 6, 7, 8, 9]."""
    if text is None:
        return None
    found: list[int] = []
    for part in text.split(","):
        part = part.strip()
        match = re.fullmatch(r"(\d+)(?:\s*-\s*(\d+))?", part)
        if not match:
            raise ConfigError(f"{option}: {part!r} is not an idx or a range like 5-9")
        low = int(match.group(1))
        high = int(match.group(2) or low)
        if high < low:
            raise ConfigError(f"{option}: the range {part!r} runs backwards")
        found.extend(range(low, high + 1))
    return found


def _seconds(text: str | None) -> float | None:
    """``90``, ``90s``, ``10m``, ``1h`` -> seconds."""
    if text is None:
        return None
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smh]?)\s*", text)
    if not match:
        raise ConfigError(f"--time-limit: {text!r} is not a duration like 600, 90s or 10m")
    value = float(match.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600}[match.group(2)]
    if value <= 0:
        raise ConfigError("--time-limit must be positive")
    return value


def _print_tokens(
    study_name: str,
    folder: Path,
    tokens: dict[str, str],
    url: str,
    fmt: str,
    counts: dict[str, dict[str, int]],
) -> None:
    from crmtui.study import sign_in_link

    if fmt == "json":
        click.echo(
            json.dumps(
                {
                    "study": study_name,
                    "folder": str(folder),
                    "annotators": [
                        {
                            "annotator": name,
                            "token": token,
                            "link": sign_in_link(url, token),
                            **counts.get(name, {}),
                        }
                        for name, token in tokens.items()
                    ],
                },
                indent=2,
            )
        )
        return
    from rich.console import Console
    from rich.table import Table

    title = "Access tokens (shown once; stored only as hashes)"
    rows = []
    for name, token in tokens.items():
        item = counts.get(name, {})
        done = f"{item.get('practice', 0)} + {item.get('instances', 0)}" if item else ""
        rows.append((name, done, sign_in_link(url, token)))
    # "2 + 4": practice instances, then counted ones (said in words where it is printed).
    console = Console(soft_wrap=False)
    # A link folded inside a table cell is copied in pieces (with the box between): where
    # the table would fold them, each link is printed whole on a line of its own, which
    # the terminal only wraps on screen.
    widest = max((len(a) + len(b) + len(c) for a, b, c in rows), default=0)
    if widest + 20 > console.width:
        console.print(title, markup=False, highlight=False)
        for name, done, link in rows:
            console.print(
                f"{name} ({done.replace(' + ', ' practice + ')} counted):" if done else f"{name}:",
                markup=False,
            )
            console.print(link, markup=False, highlight=False, soft_wrap=True)
        return
    table = Table(title=title, title_justify="left")
    table.add_column("Annotator")
    table.add_column("Practice + counted", justify="right")
    table.add_column("Sign-in link", overflow="fold")
    for row in rows:
        table.add_row(*row)
    console.print(table)


def _counts(made: Study) -> dict[str, dict[str, int]]:
    return {
        name: {"practice": len(item.practice), "instances": len(item.instances)}
        for name, item in made.assignments.items()
    }


_FORMAT = click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json"]),
    default="table",
    show_default=True,
    help="table for people, json for scripts.",
)
_CREATE_URL = click.option(
    "--url",
    default="http://127.0.0.1:8000",
    show_default=True,
    help="Address annotators will open (crmtui serve's), remembered by the study: every "
    "sign-in link names it, and crmtui serve listens on its port.",
)
_URL = click.option(
    "--url",
    default=None,
    help="Address to print the sign-in links for (default: the one the study remembers, "
    "from study create --url or its last crmtui serve).",
)


def _link_base(study: Study, url: str | None) -> str:
    """The address links name: ``--url`` if given, else the study's."""
    from crmtui.study.address import check_url

    return study.served.url if url is None else check_url(url)


_QUALIFY = click.option(
    "--qualify",
    type=click.IntRange(min=1),
    default=None,
    metavar="K",
    help="Counted instances open only once K practice instances are answered right "
    "(an annotator who can no longer reach K does not qualify).",
)
_INSTRUCTIONS = click.option(
    "--instructions",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    default=None,
    metavar="FILE.md",
    help="Instructions (and consent), Markdown: shown before the first instance and recorded "
    "as accepted; an annotator who does not accept gets no instances.",
)


def _read_instructions(path: Path | None) -> str | None:
    if path is None:
        return None
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"--instructions: cannot read {path} as UTF-8 text: {exc}") from exc


@study.command("create")
@click.argument("name")
@click.option("--annotators", required=True, help="Comma-separated annotator names.")
@click.option("--tasks", default=None, metavar="SRC", help="Task source (default: the sample).")
@click.option("--org", default=None, metavar="PATH|NAME", help="Org (default: the sample org).")
@click.option(
    "--per-type",
    type=click.IntRange(min=1),
    default=None,
    help="Instances per task type, drawn by seed.",
)
@click.option("--idx", "idx", default=None, help="Or an explicit list of instances: 1,4,10-19.")
@click.option(
    "--overlap",
    type=click.IntRange(min=1),
    default=2,
    show_default=True,
    help="How many annotators do each shared instance.",
)
@click.option(
    "--shared",
    type=UNIT_FRACTION,
    default=0.25,
    show_default=True,
    help="Share of the instances that is shared (done by --overlap annotators).",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of every draw.")
@click.option(
    "--practice",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    help="Practice instances (answers revealed, not counted) before the counted ones.",
)
@click.option("--practice-idx", default=None, help="Or explicit practice instances: 3,7.")
@click.option("--aided", is_flag=True, help="Show metadata.optional (upstream's aided mode).")
@click.option(
    "--time-limit",
    default=None,
    metavar="DURATION",
    help="Active time allowed per instance (600, 90s, 10m); the answer as typed is then submitted.",
)
@click.option(
    "--reveal-gold",
    is_flag=True,
    help="Show the reward and gold answer after each counted submission (default: blind).",
)
@click.option(
    "--idle",
    type=POSITIVE_SECONDS,
    default=60.0,
    show_default=True,
    help="Seconds without input recorded as idle.",
)
@_QUALIFY
@_INSTRUCTIONS
@dialogue_options
@click.option(
    "--roles",
    default=None,
    metavar="LIST",
    help="Multi-turn: roles (agent, user) cycled over the annotators in order; "
    "e.g. agent,user makes the 1st, 3rd... annotators agents and the 2nd, 4th... users "
    "(implies --interactive; default: everyone plays the agent).",
)
@click.option(
    "--partners",
    type=click.Choice(["people", "models"]),
    default="people",
    show_default=True,
    help="Multi-turn: people: the k-th agent and the k-th user are paired (both on the same "
    "instances, in the same order); models: everyone talks to a model.",
)
@click.option(
    "--agent-model",
    default=None,
    metavar="M",
    help="Multi-turn: the model agent of annotators in the user role without a person partner.",
)
@click.option("--agent-api-base", default=None, metavar="URL", help="Server of --agent-model.")
@click.option(
    "--agent-strategy",
    type=click.Choice(["react", "act"]),
    default="react",
    show_default=True,
    help="Strategy of --agent-model.",
)
@_CREATE_URL
@_FORMAT
def create(
    name: str,
    annotators: str,
    tasks: str | None,
    org: str | None,
    per_type: int | None,
    idx: str | None,
    overlap: int,
    shared: float,
    seed: int,
    practice: int,
    practice_idx: str | None,
    aided: bool,
    time_limit: str | None,
    reveal_gold: bool,
    idle: float,
    qualify: int | None,
    instructions: Path | None,
    roles: str | None,
    partners: str,
    agent_model: str | None,
    agent_api_base: str | None,
    agent_strategy: str,
    url: str,
    fmt: str,
    **dialogue: Any,
) -> None:
    """Create study NAME: draw its instances, assign them, print each annotator's token.

    Each annotator gets their instances balanced by task type in their own shuffled order,
    practice first. A share --shared of the instances is done by --overlap annotators (for
    agreement); the rest by one. Tokens are printed once and stored only as hashes:
    hand each annotator their link (or rotate a lost token with `crmtui study tokens`).

    \b
    Examples:
      crmtui study create pilot --annotators ann,ben,cat,dan,eve,fay --per-type 10 \\
          --overlap 2 --shared 0.33 --practice 2 --seed 1
      crmtui study create kqa --annotators a,b --idx 0-9 --shared 1 --time-limit 10m
      crmtui study create chat --org sample-b2b --annotators ann,ben --idx 0-9 \\
          --interactive --user-model openai/gpt-4o
      crmtui study create pairs --org sample-b2b --annotators ann,ben,cat --idx 0-9 \\
          --roles agent,user --agent-model openai/gpt-4o --shared 0

    With --interactive (or --roles) every instance is a conversation (CRMArena-Pro's
    multi-turn mode): see --roles and --partners for who talks to whom. The study keeps
    the models' names and servers, never a key.
    """
    from crmtui.study import Settings, StudyRequest, create_study
    from crmtui.study.roles import parse_roles

    conversation = _conversation(
        dialogue, tasks, roles, partners, agent_model, agent_api_base, agent_strategy
    )
    names = [n.strip() for n in annotators.split(",") if n.strip()]
    request = StudyRequest(
        name=name,
        annotators=names,
        tasks=tasks,
        org=org,
        per_type=per_type,
        idx=_idx_list(idx, "--idx"),
        overlap=overlap,
        shared=shared,
        seed=seed,
        practice=practice,
        practice_idx=_idx_list(practice_idx, "--practice-idx"),
        settings=Settings(
            aided=aided,
            reveal_gold=reveal_gold,
            time_limit_s=_seconds(time_limit),
            idle_s=idle,
            qualify=qualify,
        ),
        instructions=_read_instructions(instructions),
        conversation=conversation,
        roles=None if roles is None else parse_roles(roles),
        url=url,
    )
    made, tokens = create_study(request)
    if fmt == "table":
        design = made.design
        click.echo(
            f"Created study {made.name} in {made.folder}: {len(design.types)} instances "
            f"({len(design.shared)} shared by {design.overlap}), {len(names)} annotators, "
            f"{len(made.practice)} practice, {'reveals gold' if reveal_gold else 'blind'}"
            + (f", {qualify} practice right to go on" if qualify else "")
            + (", instructions to accept first" if instructions else "")
            + ("." if conversation is None else ", multi-turn:")
        )
        for who in made.annotators if conversation is not None else ():
            talks_to = made.partner_text(who)
            click.echo(f"  {who} plays the {made.role_of(who)}, talking to {talks_to}")
    _print_tokens(made.name, made.folder, tokens, made.served.url, fmt, _counts(made))
    if fmt == "table":
        click.echo(f"Serve it with: {made.served.serve_command(name)}")


def _conversation(
    dialogue: dict[str, Any],
    tasks: str | None,
    roles: str | None,
    partners: str,
    agent_model: str | None,
    agent_api_base: str | None,
    agent_strategy: str,
) -> Any:
    """The multi-turn settings of ``study create`` (None: a single-turn study)."""
    from crmtui.study.roles import Conversation

    settings = dialogue_settings(dialogue, tasks)
    if settings.user_brief is not None:
        raise click.UsageError(
            "--user-brief is for run, watch and play: a study's simulated user gets crmtui's "
            "brief (rich)"
        )
    if not settings.interactive and roles is None:
        if agent_model is not None:
            raise click.UsageError("--agent-model is for multi-turn studies: add --interactive")
        return None
    return Conversation(
        user_model=settings.user_model,
        user_api_base=settings.user_api_base,
        user_temperature=settings.user_temperature,
        max_user_turns=settings.max_user_turns,
        agent_model=agent_model,
        agent_api_base=agent_api_base,
        agent_strategy=agent_strategy,
        partners=partners,
    )


@study.command("set")
@click.argument("name")
@click.option(
    "--qualify",
    type=click.IntRange(min=0),
    default=None,
    metavar="K",
    help="Practice instances to answer right before the counted ones open (0: no gate).",
)
@click.option(
    "--instructions",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    default=None,
    metavar="FILE.md",
    help="Replace the instructions (annotators accept the new text before their next instance).",
)
@click.option("--no-instructions", is_flag=True, help="Remove the instructions page.")
def set_cmd(
    name: str, qualify: int | None, instructions: Path | None, no_instructions: bool
) -> None:
    """Change study NAME's qualification gate or instructions while it runs.

    Running sessions see the change at the annotator's next instance; `study status`
    and `report` show who qualified and who accepted which text.

    \b
    Examples:
      crmtui study set pilot --qualify 2
      crmtui study set pilot --instructions instructions-v2.md
    """
    from crmtui.study import load_study, set_instructions, set_qualify

    if qualify is None and instructions is None and not no_instructions:
        raise click.UsageError(
            "nothing to change: give --qualify, --instructions or --no-instructions"
        )
    if instructions is not None and no_instructions:
        raise click.UsageError("--instructions and --no-instructions contradict each other")
    target = load_study(name)
    if qualify is not None:
        target = set_qualify(name, qualify or None)
        click.echo(
            f"Study {target.name}: counted instances open after {qualify} practice answer(s) right."
            if qualify
            else f"Study {target.name}: practice no longer gates the counted instances."
        )
    if instructions is not None or no_instructions:
        set_instructions(name, None if no_instructions else _read_instructions(instructions))
        click.echo(
            f"Study {target.name}: instructions removed."
            if no_instructions
            else f"Study {target.name}: instructions replaced; annotators accept them again."
        )


@study.command("add-annotator")
@click.argument("name")
@click.argument("annotator")
@click.option(
    "--count",
    type=click.IntRange(min=0),
    default=None,
    help="Counted instances to give them (default: the mean of the others).",
)
@click.option(
    "--role",
    type=click.Choice(["agent", "user"]),
    default=None,
    help="Multi-turn studies: their role (default: agent); they talk to a model.",
)
@_URL
@_FORMAT
def add_annotator_cmd(
    name: str, annotator: str, count: int | None, role: str | None, url: str, fmt: str
) -> None:
    """Add ANNOTATOR to study NAME and print their token.

    Nobody else's assignment changes. The newcomer's instances are spread over the task
    types and taken where the fewest annotators are, adding overlap where there is least.
    """
    from crmtui.study import add_annotator
    from crmtui.study.address import check_url

    url = None if url is None else check_url(url)  # before anything changes
    updated, _, token = add_annotator(name, annotator, count=count, role=role)
    base = _link_base(updated, url)
    _print_tokens(updated.name, updated.folder, {annotator: token}, base, fmt, _counts(updated))


@study.command("tokens")
@click.argument("name")
@click.option(
    "--rotate",
    "rotate",
    multiple=True,
    metavar="ANNOTATOR",
    help="Make a new token for this annotator (repeatable); the old one and its sign-ins "
    "stop working.",
)
@click.option("--rotate-all", is_flag=True, help="New tokens for every annotator.")
@click.option(
    "--revoke",
    "revoke",
    multiple=True,
    metavar="ANNOTATOR",
    help="Take this annotator's token away (repeatable): their link and sign-ins stop "
    "working and a running server ends their session within seconds; --rotate gives a new one.",
)
@_URL
@_FORMAT
def tokens_cmd(
    name: str,
    rotate: tuple[str, ...],
    rotate_all: bool,
    revoke: tuple[str, ...],
    url: str,
    fmt: str,
) -> None:
    """List who has a token, rotate tokens (printing the new ones once) or revoke them.

    Tokens are stored only as salted hashes, so a lost token cannot be shown again:
    rotate it. A rotated or revoked token also ends the annotator's live browser session
    (saved, resumable) within a few seconds.
    """
    from crmtui.study import TokenStore, load_study, revoke_tokens, rotate_tokens
    from crmtui.study.address import check_url

    url = None if url is None else check_url(url)  # before any token changes
    target = load_study(name)
    names = list(target.annotators) if rotate_all else list(rotate)
    if revoke:
        if names:
            raise click.UsageError("--revoke cannot be combined with --rotate or --rotate-all")
        revoke_tokens(name, list(revoke))
        for who in revoke:
            click.echo(f"{who}: token revoked (rotate it to give them a new one)")
        return
    if names:
        updated, tokens = rotate_tokens(name, names)
        base = _link_base(updated, url)
        _print_tokens(updated.name, updated.folder, tokens, base, fmt, _counts(updated))
        return
    entries = TokenStore(target.tokens_path).entries()
    rows = [
        {
            "annotator": who,
            "has_token": who in entries and not entries[who].revoked,
            "revoked": who in entries and entries[who].revoked,
            "created_at": entries[who].created_at if who in entries else None,
            "rotations": entries[who].generation - 1 if who in entries else None,
        }
        for who in target.annotators
    ]
    if fmt == "json":
        click.echo(json.dumps({"study": target.name, "annotators": rows}, indent=2))
        return
    for row in rows:
        if row["has_token"]:
            state = f"token made {row['created_at']}, rotated {row['rotations']} time(s)"
        elif row["revoked"]:
            state = f"token revoked {row['created_at']} (rotate to make a new one)"
        else:
            state = "no token (rotate to make one)"
        click.echo(f"{row['annotator']}: {state}")


def _table_console() -> Any:
    """A console for tables: a terminal's width, but piped (no terminal, no $COLUMNS) as
    wide as the tables need, so a script or a file gets whole words, not cells folded
    at 80 columns ("Annotat/or")."""
    import os

    from rich.console import Console

    console = Console()
    if not console.is_terminal and not os.environ.get("COLUMNS"):
        console = Console(width=1000)
    return console


@study.command("status")
@click.argument("name")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json"]),
    default="table",
    show_default=True,
    help="table for people, json for scripts.",
)
@click.option("--tui", is_flag=True, help="Open the status screen (refreshes every few seconds).")
def status_cmd(name: str, fmt: str, tui: bool) -> None:
    """Progress: per annotator done / in progress / left, active time, last activity;
    per instance how many of its annotators finished it.

    A quick read of every recording in the study (hash chains are checked by
    `crmtui study report` and `crmtui verify`).
    """
    from crmtui.study import load_study, study_status

    target = load_study(name)
    if tui:
        from crmtui.factory import build_study_status_app, run_app

        run_app(build_study_status_app(target))
        return
    status = study_status(target)
    if fmt == "json":
        click.echo(json.dumps(status.to_dict(), indent=2))
        return
    from crmtui.study.render import print_grids, status_grids, status_summary

    console = _table_console()
    print_grids(status_grids(status), console)
    console.print(status_summary(status), markup=False, highlight=False)


@study.command("report")
@click.argument("name")
@click.option(
    "--models",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="A folder of model recordings (e.g. crmtui run's OUT/recordings) to compare with.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json", "md", "html"]),
    default="table",
    show_default=True,
    help="table: rich tables; json: everything; md: Markdown; html: one self-contained page "
    "with figures (accuracy with 95% intervals, annotator agreement, people versus models, "
    "time) and the tables, opening offline.",
)
@report_out_option
@figures_option
@click.option(
    "--bootstrap",
    "resamples",
    type=click.IntRange(min=1, max=100_000),
    default=1000,
    show_default=True,
    help="Bootstrap resamples of the shared instances for alpha's 95% interval.",
)
@click.option(
    "--seed", type=int, default=0, show_default=True, help="Seed of the bootstrap's generator."
)
def report_cmd(
    name: str,
    models: Path | None,
    fmt: str,
    out: Path | None,
    figures_dir: Path | None,
    resamples: int,
    seed: int,
) -> None:
    """The report over the study: the usual tables restricted to the annotators' counted
    instances (practice left out), agreement on the shared instances (pairwise and
    Krippendorff's alpha with a seeded bootstrap 95% interval, on correctness and on
    exact-match answers), the disagreeing instances for adjudication (each annotator's
    answer and the gold), each annotator's accuracy and time distribution, who qualified and
    who accepted the instructions, and with --models humans versus models per instance.

    Every recording is verified; tampered ones are skipped and listed. With --format html
    the same numbers are drawn as figures in one page that opens offline.
    """
    from crmtui.commands.report import emit
    from crmtui.study import load_study, report_study
    from crmtui.study.render import print_study_report, study_report_json, study_report_markdown

    if figures_dir is not None and fmt != "html":
        raise click.UsageError("--figures needs --format html")
    if out is not None and fmt == "table":
        raise click.UsageError("--out needs --format json, md or html")
    result = report_study(load_study(name), models, resamples=resamples, seed=seed)
    if fmt == "html":
        from crmtui.review.report_html import write_figures
        from crmtui.study.report_html import study_report_html

        page, figures = study_report_html(result)
        emit(page, out)
        if figures_dir is not None:
            written = write_figures(figures, figures_dir)
            click.echo(f"Wrote {len(written)} figure file(s) to {figures_dir}", err=True)
    elif fmt == "json":
        emit(study_report_json(result) + "\n", out)
    elif fmt == "md":
        emit(study_report_markdown(result), out)
    else:
        print_study_report(result, _table_console())


@study.command("export")
@click.argument("name")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["hf", "jsonl", "csv", "inspect"]),
    required=True,
    help="hf: Parquet dataset; jsonl: the same rows; csv: per-instance results; inspect: "
    "Inspect AI eval logs, one per annotator (needs pip install -e '.[inspect]').",
)
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    required=True,
    help="Output file (a folder for hf or inspect); an existing file is replaced only if it "
    "is an earlier export in the same format and --force is given.",
)
@click.option(
    "--force",
    is_flag=True,
    help="Replace an earlier crmtui export at --out (recognised by its marker; nothing else).",
)
def export_cmd(name: str, fmt: str, out: Path, force: bool) -> None:
    """Export the study's sessions (as `crmtui export` does for a folder).

    Practice sessions are left out, as in `crmtui study report`, so the `counted`
    column marks exactly the sessions the report counts.
    """
    from crmtui.review.export import export_folder
    from crmtui.study import load_study
    from crmtui.study.report import excluded_reason

    study = load_study(name)
    result = export_folder(
        study.recordings,
        fmt,
        out,
        exclude=lambda summary: excluded_reason(study, summary),
        force=force,
    )
    for skipped in result.skipped:
        click.echo(f"Skipped {printable(str(skipped.path))}: {printable(skipped.reason)}", err=True)
    for path in result.files:
        click.echo(f"Wrote {printable(str(path))}")
    click.echo(f"Exported {result.sessions} session(s) to {result.path}")
    if result.excluded:
        left = ", ".join(f"{n} {reason}" for reason, n in sorted(result.excluded.items()))
        click.echo(f"Left out (as in the report): {left}")
