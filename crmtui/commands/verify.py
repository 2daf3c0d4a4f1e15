"""``crmtui verify FILE...``: check recordings' hash chains."""

from __future__ import annotations

from pathlib import Path

import click

from crmtui import exit_codes
from crmtui.record.errors import RecordingError
from crmtui.record.sessions import discard_unwritten, held_elsewhere, is_unwritten
from crmtui.record.verify import verify as verify_file
from crmtui.sanitise import printable


def _expand(paths: tuple[Path, ...]) -> list[Path]:
    files: list[Path] = []
    for path in paths:
        files.extend(sorted(path.rglob("*.jsonl")) if path.is_dir() else [path])
    return files


@click.command("verify")
@click.argument(
    "files",
    nargs=-1,
    required=True,
    type=click.Path(exists=True, dir_okay=True, path_type=Path),
)
@click.option("-q", "--quiet", is_flag=True, help="Print only recordings that fail.")
@click.option(
    "--repair",
    is_flag=True,
    help="Cut a partial final line (a write cut short by a crash) off the recordings that "
    "have one, keeping the intact lines before it, and remove recordings whose header was "
    "never written whole (a full disk: nothing was recorded). Nothing else is ever changed.",
)
@click.pass_context
def verify(ctx: click.Context, files: tuple[Path, ...], quiet: bool, repair: bool) -> None:
    """Check that recordings are intact: every line parses, the header comes first,
    seq numbers are contiguous, and each line's hash and prev link hold.

    FILES are recording files (.jsonl) or folders searched recursively for them. Prints
    "OK" with the event count for a good recording, or the first bad line and what is
    wrong with it: a changed, deleted, inserted or reordered line, and a line rewritten in
    another form (CRLF line endings, trailing spaces). A recording without an end event is
    UNFINISHED unless a running session holds it: an interrupted session and one whose last
    lines were removed look alike. Exits with status 1 if any recording is bad or
    unfinished.

    A file whose last line is only partly written (the process died mid-write) is BAD here
    and refused by replay, compare, report and export alike; --repair cuts that line off
    (the lines before it are intact) so the session can be used again. Files are read one
    line at a time; devices and FIFOs are refused.

    \b
    Examples:
      crmtui verify recordings/alice/20260102-030405-idx3-0123abcd.jsonl
      crmtui verify recordings/
    """
    targets = _expand(files)
    if not targets:
        raise click.UsageError("no .jsonl recordings found in the given folders")
    bad = unfinished = removed = 0
    for path in targets:
        shown = printable(str(path))
        try:
            report = verify_file(path)
            if repair and not report.ok and discard_unwritten(path):
                removed += 1
                click.echo(
                    f"{shown}: removed (its header was never written whole, "
                    "e.g. on a full disk: nothing was recorded)"
                )
                continue
            if repair and report.truncated:
                from crmtui.record.recorder import repair as repair_file

                cut = repair_file(path)
                click.echo(f"{shown}: repaired (cut {cut} bytes of a partial final line)")
                report = verify_file(path)
        except RecordingError as exc:
            bad += 1
            click.echo(f"{shown}: BAD {printable(exc.problem)}")
            continue
        if not report.ok:
            bad += 1
            hint = "; nothing was recorded, --repair removes it" if is_unwritten(path) else ""
            click.echo(f"{shown}: BAD {printable(report.describe())}{hint}")
        elif not report.finished and not held_elsewhere(path):
            # Intact as far as it goes, but it never ended: an interrupted session, or a
            # finished one whose last lines (its end event) were removed. The two look the
            # same, so neither is OK.
            unfinished += 1
            click.echo(f"{shown}: UNFINISHED {unfinished_reason(report.events)}")
        elif not quiet:
            state = "finished" if report.finished else "in progress: a live session holds it"
            click.echo(f"{shown}: OK ({report.events} events, {state})")
    if len(targets) > 1 and not quiet:
        counts = [f"{len(targets) - bad - unfinished - removed} OK"]
        if unfinished:
            counts.append(f"{unfinished} unfinished")
        counts.append(f"{bad} bad")
        click.echo(", ".join(counts))
    if bad or unfinished:
        ctx.exit(exit_codes.ERROR)


def unfinished_reason(events: int) -> str:
    """Why an intact recording without an ``end`` event is not OK, for ``verify``."""
    what = "the header alone, no events" if events == 0 else f"{events} events"
    return (
        f"after line {events + 1} ({what}; no end event): the session was interrupted "
        "(crmtui play or crmtui run resumes it) or its last lines were removed"
    )
