"""``crmtui serve``: the play app in annotators' web browsers, one signed-in session each."""

from __future__ import annotations

import sys
from pathlib import Path

import click


@click.command("serve")
@click.option("--study", "study", required=True, metavar="NAME", help="The study to serve.")
@click.option(
    "--host",
    default=None,
    help="Address to listen on (default: the study's last one, else 127.0.0.1).",
)
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=None,
    help="Port (0: any free port; default: the study's last one, else the port of its "
    "study create --url, 8000 without one).",
)
@click.option(
    "--certfile",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="TLS certificate (PEM); needed on any non-loopback address (default: the study's "
    "last one, when --host and --port are not given either).",
)
@click.option(
    "--keyfile",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="TLS private key (PEM).",
)
@click.option(
    "--url",
    default=None,
    help="Address annotators open, when not this server's own (a proxy in front); "
    "remembered by the study for the links its commands print.",
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
    host: str | None,
    port: int | None,
    certfile: Path | None,
    keyfile: Path | None,
    url: str | None,
    insecure: bool,
    max_sessions: int,
    standby: int,
) -> None:
    """Serve a study: annotators open the sign-in link (BASE/?token=...) in a browser and
    work in the same play app, bound to their own assignment. Recordings are written into
    the study folder on this machine. Ctrl-C ends every session cleanly.

    Without options it listens where the study's links point (study create --url) or
    where it was last served; the study remembers where it is served, so the links
    `study add-annotator` and `study tokens --rotate` print work.

    \b
    Examples:
      crmtui serve --study pilot
      crmtui serve --study pilot --host 0.0.0.0 --port 8443 \\
          --certfile cert.pem --keyfile key.pem
    """
    from crmtui.serve import ServeOptions, check_options, ssl_context
    from crmtui.study import load_study
    from crmtui.study.address import check_url
    from crmtui.study.create import remember_serving
    from crmtui.ui.web import serve_study

    url = None if url is None else check_url(url)
    target = load_study(study)
    served = target.served
    if certfile is None and keyfile is None and host is None and port is None:
        # The same server as last time, TLS included (a certificate given anew wins).
        certfile = None if served.certfile is None else Path(served.certfile)
        keyfile = None if served.keyfile is None else Path(served.keyfile)
    options = ServeOptions(
        host=host or served.listen_host,
        port=served.listen_port if port is None else port,
        certfile=certfile,
        keyfile=keyfile,
        insecure=insecure,
        max_sessions=max_sessions,
        standby=standby,
    )
    check_options(options)
    ssl_context(options)  # a bad certificate or key: one line now, not after loading
    if not target.annotators:
        raise click.UsageError(f"study {target.name} has no annotators yet")
    from crmtui.study.launch import check_models, open_seat

    # Fail here, with one Error: line, rather than in every annotator's browser: the org
    # and tasks must load and still hold the study's instances unchanged, and the models
    # a multi-turn study's seats talk to need their keys and servers.
    open_seat(str(target.folder), target.annotators[0])
    check_models(target, target.annotators)

    def ready(listening: str) -> None:
        now = served.after_serving(
            served_url=listening,
            host=options.host,
            port=int(listening.rsplit(":", 1)[1]),
            certfile=options.certfile,
            keyfile=options.keyfile,
            url=url,
        )
        remember_serving(target.folder, now)
        click.echo(f"Serving study {target.name} on {listening}/ (Ctrl-C to stop)", err=False)
        click.echo(
            f"Annotators sign in at {now.url}/signin or with their link {now.url}/?token=...",
            err=False,
        )
        problem = now.mismatch(listening, options.tls)
        if problem is not None:
            click.echo(f"Note: {problem}", err=False)
        sys.stdout.flush()  # a supervisor (or a test) reading the URL should not wait

    serve_study(target, options, on_ready=ready)
