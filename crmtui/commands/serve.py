"""``crmtui serve``: the play app in annotators' web browsers, one signed-in session each."""

from __future__ import annotations

import sys
from pathlib import Path

import click


@click.command("serve")
@click.option("--study", "study", required=True, metavar="NAME", help="The study to serve.")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=8000,
    show_default=True,
    help="Port (0: any free port).",
)
@click.option(
    "--certfile",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="TLS certificate (PEM); needed on any non-loopback address.",
)
@click.option(
    "--keyfile",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="TLS private key (PEM).",
)
@click.option(
    "--insecure",
    is_flag=True,
    help="Allow plain HTTP on a non-loopback address (only on a network you trust).",
)
@click.option(
    "--max-sessions",
    type=click.IntRange(min=1),
    default=20,
    show_default=True,
    help="Browser sessions allowed at once; others see a 'server full' page.",
)
@click.option(
    "--standby",
    type=click.IntRange(min=0),
    default=4,
    show_default=True,
    help="App processes kept started and waiting, each handed to the next annotator who "
    "opens their link (forked from one process that loaded the study once; 0: each "
    "session starts its own).",
)
def serve(
    study: str,
    host: str,
    port: int,
    certfile: Path | None,
    keyfile: Path | None,
    insecure: bool,
    max_sessions: int,
    standby: int,
) -> None:
    """Serve a study: annotators open the sign-in link (BASE/?token=...) in a browser and
    work in the same play app, bound to their own assignment. Recordings are written into
    the study folder on this machine. Ctrl-C ends every session cleanly.

    \b
    Examples:
      crmtui serve --study pilot
      crmtui serve --study pilot --host 0.0.0.0 --port 8443 \\
          --certfile cert.pem --keyfile key.pem
    """
    from crmtui.serve import ServeOptions, check_options
    from crmtui.study import load_study
    from crmtui.ui.web import serve_study

    options = ServeOptions(
        host=host,
        port=port,
        certfile=certfile,
        keyfile=keyfile,
        insecure=insecure,
        max_sessions=max_sessions,
        standby=standby,
    )
    check_options(options)
    target = load_study(study)
    if not target.annotators:
        raise click.UsageError(f"study {target.name} has no annotators yet")
    from crmtui.study.launch import check_models, open_seat

    # Fail here, with one Error: line, rather than in every annotator's browser: the org
    # and tasks must load and still hold the study's instances unchanged, and the models
    # a multi-turn study's seats talk to need their keys and servers.
    open_seat(str(target.folder), target.annotators[0])
    check_models(target, target.annotators)

    def ready(url: str) -> None:
        click.echo(f"Serving study {target.name} on {url}/ (Ctrl-C to stop)", err=False)
        click.echo(
            f"Annotators sign in at {url}/signin or with their link {url}/?token=...",
            err=False,
        )
        sys.stdout.flush()  # a supervisor (or a test) reading the URL should not wait

    serve_study(target, options, on_ready=ready)
