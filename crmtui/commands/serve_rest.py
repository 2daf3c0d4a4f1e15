"""``crmtui serve-rest``: an org as a local, read-only Salesforce REST API.

A thin layer over :func:`crmtui.rest.serve`; prints what a client needs (instance URL,
session id, CA file) and serves until Ctrl-C.
"""

from __future__ import annotations

import datetime as dt
import threading
from pathlib import Path

import click

from crmtui import paths
from crmtui.commands.options import POSITIVE_SECONDS
from crmtui.errors import ConfigError
from crmtui.org.sample import open_org_or_sample


def parse_today(text: str | None) -> dt.date | None:
    """``--today YYYY-MM-DD`` as a date (None when not given)."""
    if text is None:
        return None
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise ConfigError(f"--today must be YYYY-MM-DD, not {text!r}") from None


def default_workers() -> int:
    """One worker process per CPU, at most 4 (threads share one GIL; see crmtui.rest.server)."""
    import os

    return max(1, min(os.cpu_count() or 1, 4))


def client_hint(instance_url: str, session_id: str, *, https: bool) -> str:
    """The line telling a user how to reach the server from a client.

    simple-salesforce always builds ``https://`` URLs from ``instance_url`` (it strips any
    scheme), so over ``--http`` it cannot connect: the hint is then a plain HTTP request.

    Args:
        instance_url: The server's base URL.
        session_id: The session id clients must send.
        https: Whether the server speaks HTTPS.

    Returns:
        One line, indented like the rest of the start-up banner.
    """
    if https:
        return (
            f'  Python:       Salesforce(instance_url="{instance_url}", session_id="{session_id}")'
        )
    return (
        f'  curl:         curl -H "Authorization: Bearer {session_id}" '
        f'"{instance_url}/services/data/v59.0/query?q=SELECT+Id+FROM+Case+LIMIT+1"'
        "  (simple-salesforce needs HTTPS: drop --http for it)"
    )


@click.command("serve-rest")
@click.option(
    "--org", "spec", default=None, metavar="PATH|NAME", help="Org to serve (default: sample)."
)
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=8443,
    show_default=True,
    help="Port (0: any free one).",
)
@click.option(
    "--http", "plain", is_flag=True, help="Plain HTTP instead of HTTPS (not for simple-salesforce)."
)
@click.option("--session-id", default=None, help="Session id clients must send (default: random).")
@click.option(
    "--ca",
    "ca_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Where to write the local CA certificate (default: <data dir>/rest/ca.pem).",
)
@click.option(
    "--log",
    "log_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="JSONL request log, appended (default: <data dir>/rest/requests.jsonl).",
)
@click.option(
    "--today", default=None, metavar="YYYY-MM-DD", help="Date that LAST_N_DAYS etc. refer to."
)
@click.option(
    "--workers",
    type=click.IntRange(1, 64),
    default=None,
    help="Processes serving requests (default: one per CPU, at most 4; 1 = threads only).",
)
@click.option(
    "--timeout",
    "timeout",
    type=POSITIVE_SECONDS,
    default=None,
    metavar="S",
    help="Close a connection that has not sent a whole request S seconds after its last "
    "answer or after connecting (idle keep-alive, slow headers or body). Default: 20.",
)
def serve_rest(
    spec: str | None,
    host: str,
    port: int,
    plain: bool,
    session_id: str | None,
    ca_path: Path | None,
    log_path: Path | None,
    today: str | None,
    workers: int | None,
    timeout: float | None,
) -> None:
    """Serve an org as a read-only Salesforce REST API (query, search, describe, ...).

    Any Salesforce client, simple-salesforce included, can then query the org with the
    printed instance URL and session id.
    """
    from crmtui.rest import REQUEST_TIMEOUT_S, serve

    org = open_org_or_sample(spec)
    rest_dir = paths.home() / "rest"
    server, tls = serve(
        org,
        host=host,
        port=port,
        session_id=session_id,
        https=not plain,
        ca_path=ca_path or rest_dir / "ca.pem",
        log_path=log_path or rest_dir / "requests.jsonl",
        today=parse_today(today),
        workers=workers or default_workers(),
        request_timeout_s=timeout or REQUEST_TIMEOUT_S,
    )
    sid = server.api.session_id
    click.echo(f"Serving org {org.name!r} ({org.path}) read-only as a Salesforce REST API")
    click.echo(f"  Instance URL: {server.instance_url}")
    click.echo(f"  Session id:   {sid}")
    if tls is not None:
        click.echo(f"  CA:           {tls.ca_path}")
        click.echo(f"                export REQUESTS_CA_BUNDLE={tls.ca_path}")
    if server.request_log is not None:
        click.echo(f"  Request log:  {server.request_log.path}")
    click.echo(f"  Workers:      {server.workers} process(es), a thread per connection in each")
    click.echo(f"  Timeout:      {timeout or REQUEST_TIMEOUT_S:g} s to send a request, then closed")
    click.echo(client_hint(server.instance_url, sid, https=tls is not None))
    click.echo("Ctrl-C stops.")
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        click.echo("Stopped.", err=True)
    finally:
        server.stop()
