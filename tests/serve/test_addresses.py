"""A study remembers where it is served, so every link a command prints works; a server that
cannot start says why in one line; a page that ends a session says truthfully what next."""

from __future__ import annotations

import errno
import os
import re
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer
from click.testing import CliRunner

from crmtui.cli import cli
from crmtui.serve import pages
from crmtui.serve.run import listen_error
from crmtui.study import load_study, read_cookie, revoke_tokens, rotate_tokens
from crmtui.study.address import Served, check_url
from crmtui.ui.web import COOKIE_NAME, StudyServer
from tests.serve.browser import stop_server
from tests.waiting import PATIENCE_S

LINK = re.compile(r"(https?://[^\s/]+)/\?token=([\w-]+)")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _sign_in_status(link: str) -> int:
    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: Any) -> None:
            return None

    opener = urllib.request.build_opener(NoRedirect)
    try:
        with opener.open(link, timeout=PATIENCE_S) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


def _serve(study: str, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "crmtui.cli", "serve", "--study", study, *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=dict(os.environ),
    )


def _wait_listening(process: subprocess.Popen[str]) -> list[str]:
    assert process.stdout is not None
    lines = []
    while True:
        line = process.stdout.readline()
        if not line:
            raise AssertionError("crmtui serve ended: " + "".join(lines))
        lines.append(line)
        if line.startswith("Annotators sign in at"):
            return lines


def test_every_command_prints_links_to_where_the_study_is_served(
    sample_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CRMTUI_STUDIES", str(tmp_path / "studies"))
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    runner = CliRunner()
    made = runner.invoke(
        cli,
        ["study", "create", "pilot", "--annotators", "ann,ben", "--per-type", "1",
         "--shared", "0", "--overlap", "1", "--url", base],
    )  # fmt: skip
    assert made.exit_code == 0, made.output
    assert f"Serve it with: crmtui serve --study pilot --port {port}\n" in made.output
    links = dict(zip(("ann", "ben"), LINK.findall(made.output), strict=True))
    added = runner.invoke(cli, ["study", "add-annotator", "pilot", "cat", "--count", "2"])
    rotated = runner.invoke(cli, ["study", "tokens", "pilot", "--rotate", "ben"])
    [links["cat"]] = LINK.findall(added.output)
    [links["ben"]] = LINK.findall(rotated.output)
    assert {where for where, _ in links.values()} == {base}

    # `crmtui serve --study pilot`, as create said: every printed link signs in.
    server = _serve("pilot", "--standby", "0")
    try:
        said = _wait_listening(server)
        assert f"Serving study pilot on {base}/" in said[0]
        for where, token in links.values():
            assert _sign_in_status(f"{where}/?token={token}") == 303
    finally:
        stop_server(server)

    # Served elsewhere (--port), the study follows: the next links name the new port.
    other = _free_port()
    server = _serve("pilot", "--standby", "0", "--port", str(other))
    try:
        _wait_listening(server)
        assert load_study("pilot").served.url == f"http://127.0.0.1:{other}"
        again = runner.invoke(cli, ["study", "tokens", "pilot", "--rotate", "ann"])
        [(where, token)] = LINK.findall(again.output)
        assert where == f"http://127.0.0.1:{other}"
        assert _sign_in_status(f"{where}/?token={token}") == 303
    finally:
        stop_server(server)


def test_the_remembered_address_and_serve_line() -> None:
    assert check_url("https://study.example.org:8443/") == "https://study.example.org:8443"
    for bad in ("study.example.org", "ftp://x", "http://x/path", "http://x:99999"):
        with pytest.raises(Exception, match="--url"):
            check_url(bad)
    public = Served(url="https://study.example.org:8443")
    assert public.serve_command("pilot") == (
        "crmtui serve --study pilot --host 0.0.0.0 --certfile CERT.pem --keyfile KEY.pem "
        "--port 8443"
    )
    assert Served().serve_command("pilot") == "crmtui serve --study pilot"
    # A proxy's address is kept; a loopback one follows the server.
    kept = public.after_serving(served_url="http://0.0.0.0:9000", host="0.0.0.0", port=9000,
                                certfile=None, keyfile=None, url=None)  # fmt: skip
    assert kept.url == public.url
    moved = Served().after_serving(served_url="http://127.0.0.1:9001", host="127.0.0.1",
                                   port=9001, certfile=None, keyfile=None, url=None)  # fmt: skip
    assert moved.url == "http://127.0.0.1:9001" and moved.listen_port == 9001


@pytest.mark.parametrize(
    ("code", "hint"),
    [(errno.EADDRINUSE, "--port"), (errno.EACCES, "above 1023"), (errno.EADDRNOTAVAIL, "--host")],
)
def test_a_server_that_cannot_listen_says_why_in_one_line(code: int, hint: str) -> None:
    error = listen_error(OSError(code, os.strerror(code)), "127.0.0.1", 80)
    text = str(error)
    assert text.startswith("cannot listen on 127.0.0.1:80: ") and hint in text
    assert "\n" not in text and "internal" not in text


def test_serve_start_up_failures_are_one_line_errors(served_study: Any, tmp_path: Path) -> None:
    study, _ = served_study
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        server = _serve(str(study.folder), "--port", str(port))  # with standby processes
        out, _ = server.communicate(timeout=PATIENCE_S)
    assert server.returncode != 0
    assert re.fullmatch(rf"Error: cannot listen on 127\.0\.0\.1:{port}: [^\n]+\n", out), out
    # A certificate that is not one: refused before anything loads.
    (tmp_path / "cert.pem").write_text("not a certificate")
    (tmp_path / "key.pem").write_text("not a key")
    bad = _crmtui("serve", "--study", str(study.folder), "--certfile",
                  str(tmp_path / "cert.pem"), "--keyfile", str(tmp_path / "key.pem"))  # fmt: skip
    assert bad.returncode != 0
    assert re.fullmatch(r"Error: cannot load the TLS certificate [^\n]+\n", bad.stderr), bad
    # serve-rest shares the rule.
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        rest = _crmtui("serve-rest", "--port", str(busy.getsockname()[1]))
    assert rest.returncode != 0
    assert re.fullmatch(r"Error: cannot listen on [^\n]+\n", rest.stderr), rest


def _crmtui(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "crmtui.cli", *args],
        capture_output=True,
        text=True,
        timeout=PATIENCE_S,
        env=dict(os.environ),
    )


async def test_what_an_ended_page_says_about_the_link_is_true(served_study: Any) -> None:
    """For each way a sign-in ends, the page says "sign in again with your link" exactly
    when that link still signs in."""
    study, tokens = served_study
    server = StudyServer(study)
    client = TestClient(TestServer(await server._make_app()))
    await client.start_server()

    async def sign_in(token: str) -> Any:
        signed = await client.get(f"/?token={token}", allow_redirects=False)
        assert signed.status == 303
        raw = signed.cookies[COOKIE_NAME].value
        return read_cookie(server.secret, raw), raw

    async def link_works(token: str) -> bool:
        return (await client.get(f"/?token={token}", allow_redirects=False)).status == 303

    try:
        seen: dict[str, bool] = {}  # reason -> whether the old link still signs in

        async def ended(claims: Any, token: str) -> None:
            seen[server.revoked(claims)] = await link_works(token)
            client.session.cookie_jar.clear()

        claims, _ = await sign_in(tokens["ann"])  # the client keeps this cookie
        assert (await client.post("/signout", allow_redirects=False)).status == 200
        await ended(claims, tokens["ann"])
        claims, _ = await sign_in(tokens["ann"])
        _, fresh = rotate_tokens(str(study.folder), ["ann"])
        await ended(claims, tokens["ann"])
        claims, _ = await sign_in(fresh["ann"])
        revoke_tokens(str(study.folder), ["ann"])
        await ended(claims, fresh["ann"])
        assert set(seen) == {pages.SIGNED_OUT, pages.TOKEN_ROTATED, pages.TOKEN_REVOKED}
        for reason, works in seen.items():
            text, _ = pages.ended_text(reason)
            assert ("sign in again with your link" in text) == works, reason
            assert ("new one" in text) == (not works), reason
            assert reason in text and "saved" in text
        page = pages.app_page(title="t", static_url="/s/", websocket_url="ws://h/ws", font_size=16)
        assert all(pages.NEXT_STEP[reason][0] in page for reason in seen)
    finally:
        await client.close()
