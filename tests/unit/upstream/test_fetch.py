"""``crmtui org fetch`` against a loopback HTTP server serving a fixture org."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from crmtui.cli import main
from crmtui.errors import OrgError
from crmtui.upstream.fetch import ORG_FILES, fetch_org, git_blob_id
from tests.waiting import PATIENCE_S, promptly


class _Files(BaseHTTPRequestHandler):
    """Serves ``content`` with Range support; ``cut`` stops the first reply after n bytes."""

    content = b""
    cut: int | None = None
    ranges: list[str | None] = []

    def do_GET(self) -> None:  # noqa: N802 - stdlib name
        type(self).ranges.append(self.headers.get("Range"))
        start = 0
        if self.headers.get("Range"):
            start = int(self.headers["Range"].split("=")[1].split("-")[0])
        body = self.content[start:]
        self.send_response(206 if start else 200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.cut is not None:
            self.wfile.write(body[: self.cut])
            type(self).cut = None
            self.wfile.flush()
            self.connection.shutdown(2)
            return
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def fixture_org(tmp_path: Path) -> bytes:
    from crmtui.org.build import build_org

    out = tmp_path / "fixture.db"
    build_org(out, seed=3, scale="small", name="fixture")
    return out.read_bytes()


@pytest.fixture
def server(fixture_org: bytes) -> Iterator[tuple[str, type[_Files]]]:
    handler = type("Files", (_Files,), {"content": fixture_org, "cut": None, "ranges": []})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/crmarena_data.db", handler
    finally:
        httpd.shutdown()
        httpd.server_close()


def _blob(data: bytes, tmp_path: Path) -> str:
    path = tmp_path / "blob"
    path.write_bytes(data)
    return git_blob_id(path)


def test_blob_id_is_git_s() -> None:
    import hashlib

    assert ORG_FILES["crmarena"].blob == "86cf4c611eb93e674d3af6047ed1aeb9a7f07416"
    data = b"hello\n"
    assert (
        hashlib.sha1(b"blob 6\0" + data).hexdigest() == "ce013625030ba8dba906f756967f9e9ca394464a"
    )


def test_fetch_verifies_and_imports(server, fixture_org: bytes, tmp_path: Path) -> None:
    url, handler = server
    seen: list[tuple[int, int | None]] = []
    org = fetch_org(
        "crmarena",
        url=url,
        expected_blob=_blob(fixture_org, tmp_path),
        progress=lambda done, total: seen.append((done, total)),
    )
    assert org.name == "crmarena" and org.count("Case") > 0
    assert seen[-1] == (len(fixture_org), len(fixture_org))


def test_corrupted_file_is_refused(server, fixture_org: bytes, tmp_path: Path) -> None:
    url, _ = server
    with pytest.raises(OrgError, match="git blob id .* expected 0000"):
        fetch_org("crmarena", url=url, expected_blob="0" * 40)
    from crmtui import paths

    assert not (paths.home() / "downloads" / "crmarena_data.db").exists()
    assert not paths.org_path("crmarena").exists()


def test_interrupted_download_resumes(server, fixture_org: bytes, tmp_path: Path) -> None:
    url, handler = server
    handler.cut = 100_000
    blob = _blob(fixture_org, tmp_path)
    with pytest.raises(OrgError, match="cannot download"):
        fetch_org("crmarena", url=url, expected_blob=blob)
    org = fetch_org("crmarena", url=url, expected_blob=blob)
    assert handler.ranges == [None, "bytes=100000-"]
    assert org.count("Case") > 0


def test_offline_fails_fast_and_says_how_to_import(capsys: pytest.CaptureFixture[str]) -> None:
    import time

    start = time.monotonic()
    with pytest.raises(SystemExit):
        main(["org", "fetch", "crmarenapro-b2b", "--url", "http://127.0.0.1:9/none.db"])
    assert time.monotonic() - start < promptly(5.0, instead=PATIENCE_S)  # not a retrying wait
    err = capsys.readouterr().err
    assert "Error: cannot download http://127.0.0.1:9/none.db" in err
    assert "crmtui org import crmarenapro_b2b_data.db --name crmarenapro-b2b" in err
    assert "--schema " in err and "crmtui/data/crmarenapro_b2b_schema.json`" in err
