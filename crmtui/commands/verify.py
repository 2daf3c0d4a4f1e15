"""``crmtui verify FILE...``: check recordings' hash chains."""

from __future__ import annotations

from pathlib import Path

import click

from crmtui import exit_codes
from crmtui.record.errors import RecordingError
from crmtui.record.sessions import discard_unwritten, is_unwritten
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
    wrong with it. Exits with status 1 if any recording is bad.

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
    bad = 0
    for path in targets:
        try:
            report = verify_file(path)
            if repair and not report.ok and discard_unwritten(path):
                click.echo(
                    f"{printable(str(path))}: removed (its header was never written whole, "
                    "e.g. on a full disk: nothing was recorded)"
                )
                continue
            if repair and report.truncated:
                from crmtui.record.recorder import repair as repair_file

                cut = repair_file(path)
                click.echo(f"{path}: repaired (cut {cut} bytes of a partial final line)")
                report = verify_file(path)
        except RecordingError as exc:
            bad += 1
            click.echo(f"{printable(str(path))}: BAD {printable(exc.problem)}")
            continue
        if not report.ok:
            bad += 1
            hint = "; nothing was recorded, --repair removes it" if is_unwritten(path) else ""
            click.echo(f"{printable(str(path))}: BAD {printable(report.describe())}{hint}")
        elif not quiet:
            click.echo(f"{printable(str(path))}: {printable(report.describe())}")
    if len(targets) > 1 and not quiet:
        click.echo(f"{len(targets) - bad} OK, {bad} bad")
    if bad:
        ctx.exit(exit_codes.ERROR)
