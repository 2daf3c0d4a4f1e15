"""A small generated org served over HTTPS by the local REST API, and clients for it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from crmtui.org import Org
from crmtui.rest import RestServer, serve

SESSION_ID = "00DTEST000000001!test-session"


@pytest.fixture(scope="session")
def small_org(tmp_path_factory: pytest.TempPathFactory) -> Org:
    """The sample-sized generated org (seed 7), built once for the session."""
    from crmtui.org.build import build_org

    out = tmp_path_factory.mktemp("rest-org") / "rest-sample.db"
    build_org(out, seed=7, scale="small", name="rest-sample")
    return Org.open(out)


@pytest.fixture(scope="module")
def https_server(
    small_org: Org, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[RestServer, Path]]:
    """The org served over HTTPS on 127.0.0.1 (any port), with a request log."""
    folder = tmp_path_factory.mktemp("rest")
    server, tls = serve(
        small_org,
        session_id=SESSION_ID,
        ca_path=folder / "ca.pem",
        log_path=folder / "requests.jsonl",
    )
    assert tls is not None
    try:
        yield server, tls.ca_path
    finally:
        server.stop()


def local_session(ca_path: Path) -> Any:
    """A requests session that trusts only the local CA and ignores proxy/CA variables."""
    import requests

    session = requests.Session()
    session.trust_env = False
    session.verify = str(ca_path)
    return session


@pytest.fixture
def sf(https_server: tuple[RestServer, Path]) -> Any:
    """A real simple-salesforce client connected to the local API."""
    from simple_salesforce import Salesforce

    server, ca_path = https_server
    return Salesforce(
        instance_url=server.instance_url, session_id=SESSION_ID, session=local_session(ca_path)
    )
