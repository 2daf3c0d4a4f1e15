"""The REST API as a pure function, the request log, plain HTTP and parallel clients."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
import requests

from crmtui.org import Org
from crmtui.query import run
from crmtui.query.wire import with_api_version
from crmtui.rest import PAGE_SIZE, CursorStore, RestApi, RestServer, read_log, serve
from crmtui.rest.cursors import page_size_from, split_locator

from .conftest import SESSION_ID, local_session

AUTH = {"Authorization": f"Bearer {SESSION_ID}"}
BASE = "/services/data/v59.0"


@pytest.fixture
def api(small_org: Org) -> RestApi:
    return RestApi(small_org, SESSION_ID)


def test_versions_need_no_session(api: RestApi) -> None:
    reply = api.handle("GET", "/services/data/", {}, {})
    assert reply.status == 200
    assert {"label": "Winter '24", "url": "/services/data/v59.0", "version": "59.0"} in reply.body


def test_unknown_version_and_path_are_not_found(api: RestApi) -> None:
    assert api.handle("GET", "/services/data/v12.0/query", {"q": "x"}, AUTH).status == 404
    assert api.handle("GET", f"{BASE}/tooling/query", {}, AUTH).status == 404
    assert api.handle("GET", "/elsewhere", {}, AUTH).status == 404


def test_oauth_scheme_is_accepted_and_others_refused(api: RestApi) -> None:
    params = {"q": "SELECT Id FROM Case LIMIT 1"}
    ok = api.handle("GET", f"{BASE}/query", params, {"authorization": f"OAuth {SESSION_ID}"})
    assert ok.status == 200
    for header in ({}, {"Authorization": SESSION_ID}, {"Authorization": "Bearer nope"}):
        reply = api.handle("GET", f"{BASE}/query", params, header)
        assert reply.status == 401 and reply.error_code == "INVALID_SESSION_ID"


def test_missing_query_text_is_malformed(api: RestApi) -> None:
    reply = api.handle("GET", f"{BASE}/query", {}, AUTH)
    assert reply.status == 400 and reply.body[0]["errorCode"] == "MALFORMED_QUERY"
    reply = api.handle("GET", f"{BASE}/search", {"q": "SELECT Id FROM Case"}, AUTH)
    assert reply.status == 400 and reply.body[0]["errorCode"] == "MALFORMED_SEARCH"


def test_default_page_is_two_thousand_records(small_org: Org) -> None:
    assert PAGE_SIZE == 2000
    # A cross join of small objects gives more than one page on the sample org.
    text = "SELECT Id FROM OrderItem"
    total = small_org.count("OrderItem")
    api = RestApi(small_org, SESSION_ID)
    reply = api.handle(
        "GET", f"{BASE}/queryAll", {"q": text}, {**AUTH, "Sforce-Query-Options": "batchSize=9"}
    )
    # Below Salesforce's minimum of 200, the batch size is raised to 200.
    assert reply.rows == min(200, total)
    assert reply.body["nextRecordsUrl"].startswith(f"{BASE}/queryAll/01g")
    assert reply.body["nextRecordsUrl"].endswith("-200")
    assert page_size_from("batchSize=5000") == PAGE_SIZE
    assert page_size_from(None) == PAGE_SIZE


def test_locators() -> None:
    assert split_locator("01gABC-4000") == ("01gABC", 4000)
    assert split_locator("01gABC") is None
    assert split_locator("01gABC-x") is None
    now = [0.0]
    store = CursorStore(capacity=2, lifetime_s=10, clock=lambda: now[0])
    first = store.open([{"a": 1}], 1, 200, "q1")
    assert store.get(first) is not None
    now[0] = 11
    assert store.get(first) is None  # expired
    ids = [store.open([], 0, 200, f"q{i}") for i in range(3)]
    assert store.get(ids[0]) is None and store.get(ids[2]) is not None  # oldest dropped


def test_plain_http_and_request_log(small_org: Org, tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    server, tls = serve(small_org, https=False, session_id=SESSION_ID, log_path=log)
    assert tls is None and server.instance_url.startswith("http://127.0.0.1:")
    try:
        session = requests.Session()
        session.trust_env = False
        url = f"{server.instance_url}{BASE}/query/"
        ok = session.get(url, params={"q": "SELECT Id FROM Case LIMIT 3"}, headers=AUTH)
        bad = session.get(url, params={"q": "SELECT Nope FROM Case"}, headers=AUTH)
        write = session.post(f"{server.instance_url}{BASE}/sobjects/Case/", json={}, headers=AUTH)
    finally:
        server.stop()
    assert ok.status_code == 200 and len(ok.json()["records"]) == 3
    assert bad.status_code == 400 and bad.json()[0]["errorCode"] == "INVALID_FIELD"
    assert write.status_code == 403
    entries = list(read_log(log))
    assert [e["status"] for e in entries] == [200, 400, 403]
    first = entries[0]
    assert first["endpoint"] == "query" and first["query"] == "SELECT Id FROM Case LIMIT 3"
    assert first["rows"] == 3 and first["total"] == 3 and first["ms"] >= 0
    assert first["t"].endswith("Z") and first["method"] == "GET"
    assert (
        entries[1]["error_code"] == "INVALID_FIELD"
        and entries[1]["query"] == "SELECT Nope FROM Case"
    )
    assert entries[2]["endpoint"] == "sobject" and entries[2]["method"] == "POST"


def test_parallel_clients_get_their_own_answers(
    https_server: tuple[RestServer, Path], small_org: Org
) -> None:
    server, ca_path = https_server
    texts = [
        f"SELECT Id, Subject FROM Case WHERE Priority = '{p}' ORDER BY Id"
        for p in ("High", "Medium", "Low", "Critical")
    ]
    expected = {t: with_api_version(run(small_org, t).records, "v59.0") for t in texts}
    failures: list[str] = []

    def client(text: str) -> None:
        session = local_session(ca_path)
        for _ in range(5):
            got = session.get(
                f"{server.instance_url}{BASE}/query/", params={"q": text}, headers=AUTH
            ).json()
            if got["records"] != expected[text]:
                failures.append(text)

    threads = [threading.Thread(target=client, args=(t,)) for t in texts * 2]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert failures == []


def test_an_untrusting_client_does_not_stop_the_server(
    https_server: tuple[RestServer, Path],
) -> None:
    server, ca_path = https_server
    session = requests.Session()
    session.trust_env = False
    with pytest.raises(requests.exceptions.SSLError):
        session.get(f"{server.instance_url}/services/data/", verify=True)
    good = local_session(ca_path).get(f"{server.instance_url}/services/data/")
    assert good.status_code == 200 and json.loads(good.text)[0]["version"] == "31.0"
