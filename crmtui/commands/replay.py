"""``crmtui replay FILE``: step through a recorded session in the TUI."""

from __future__ import annotations

from pathlib import Path

import click

from crmtui.errors import OrgError
from crmtui.sanitise import printable


@click.command("replay")
@click.argument("file", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--org",
    "org",
    default=None,
    metavar="PATH|NAME",
    help="Org to re-run queries on (default: the one the recording names).",
)
@click.option(
    "--strict",
    is_flag=True,
    help="Refuse to replay when the org is missing or differs from the recorded one.",
)
@click.option("-y", "--yes", is_flag=True, help="Do not ask before replaying on a changed org.")
@click.option("--start", type=int, default=1, show_default=True, help="Event seq to open at.")
@click.option(
    "--check",
    "check_only",
    is_flag=True,
    help="Verify, fold and check the org, print a summary, and exit (no TUI).",
)
def replay(
    file: Path | None, org: str | None, strict: bool, yes: bool, start: int, check_only: bool
) -> None:
    """Step through a recorded session (a human's or a model's).

    Without FILE, the recording written last under CRMTUI_HOME/recordings (where play
    records) is replayed.

    The recording is verified first; a changed, deleted or reordered line is refused with
    its line number. Queries and records are re-run on the org the recording names (or
    --org), checked against the org digest in the recording; when the org is missing the
    events still replay without re-running anything, and when it changed you are asked
    whether to go on (at a terminal; elsewhere a warning is printed) and the screen keeps a
    warning banner.

    \b
    Keys: ←/→ step · Home/End · Space play/pause · +/- speed · q next query ·
          e next error · s submit · c next view/copy/compute/notes step ·
          Enter on the event list jumps there ·
          F2 Browse · F3 Console · F4 events · Ctrl+O task context · Esc quits.
    At 80x24 the task context and the event list are tabs beside Browse and Console.

    \b
    Examples:
      crmtui replay
      crmtui replay recordings/alice/20260102-030405-idx3-0123abcd.jsonl
      crmtui replay run.jsonl --org ~/orgs/sample.db
    """
    from crmtui.review.replay_org import prepare_replay

    if file is None:
        file = _newest_recording()
        click.echo(f"Replaying {file}", err=True)
    source = prepare_replay(file, org)
    if not source.check.ok:
        if strict:
            raise OrgError(source.check.message)
        click.echo(f"Warning: {printable(source.check.message)}", err=True)
        if source.check.status == "changed" and not (yes or check_only) and _interactive():
            click.confirm("Replay on this org anyway?", default=True, abort=True)
    frames = source.replay.frames
    if check_only:
        last = frames[-1] if frames else None
        header = source.replay.recording.header
        actor = printable(f"{header['actor']['kind']} {header['actor']['id']}")
        click.echo(
            f"{printable(str(file))}: {len(frames)} events · {actor} · "
            f"idx {header['instance']['idx']}"
        )
        if last is not None:
            sub = last.submission
            answer = (
                "not submitted"
                if sub is None
                else f"answer {printable(repr(sub.answer))}, reward {sub.reward}"
            )
            click.echo(
                f"final: {answer} · {last.queries} queries ({last.errors} failed) · "
                f"active {last.active_ms / 1000:.1f} s"
            )
        click.echo(f"org: {printable(source.check.message)}")
        return
    from crmtui.factory import build_replay_app, run_app

    run_app(build_replay_app(source, start=max(0, start - 1)))


def _newest_recording() -> Path:
    """The recording written last under CRMTUI_HOME/recordings."""
    from crmtui.errors import ConfigError
    from crmtui.paths import recordings_dir

    root = recordings_dir()
    found = [(path.stat().st_mtime_ns, str(path), path) for path in root.rglob("*.jsonl")]
    if not found:
        raise ConfigError(f"no recordings in {root}; give a FILE to replay")
    return max(found)[2]


def _interactive() -> bool:
    import sys

    return sys.stdin.isatty() and sys.stdout.isatty()
