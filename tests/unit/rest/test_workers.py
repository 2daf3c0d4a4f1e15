"""Pre-forked worker processes: shared paging cursors, one request log, clean stop."""

from __future__ import annotations

import http.client
import os
import sys
from pathlib import Path

import pytest
import requests

from crmtui.org import Org
from crmtui.query import execute_soql
from crmtui.query.wire import with_api_version
from crmtui.rest import RequestLog, RestApi, SharedCursorStore, read_log, serve
from crmtui.rest.cursors import split_locator

SESSION_ID = "00DTEST000000001!test-session"
AUTH = {"Authorization": f"Bearer {SESSION_ID}"}
BASE = "/services/data/v59.0"


def test_shared_cursors_are_seen_by_another_store_on_the_folder(tmp_path: Path) -> None:
    opener, reader = SharedCursorStore(tmp_path), SharedCursorStore(tmp_path)
    records = [{"Id": f"500{i:012d}", "Subject": "x" * 200} for i in range(500)]
    locator = opener.open(records, 500, 200, "SELECT Id FROM Case")
    held = opener.get(locator)
    assert held is not None and held.records is records  # the opener keeps them in memory
    cursor = reader.get(locator)  # another worker: the note only, the API runs the query again
    assert cursor is not None and cursor.records is None
    assert (cursor.total, cursor.page_size, cursor.text) == (500, 200, "SELECT Id FROM Case")
    assert (tmp_path / f"{locator}.json").stat().st_size < 200  # no records written
    assert reader.get("01gnotthere0000000") is None and reader.get("../x") is None
    assert not list(tmp_path.glob(".*.tmp"))  # written under a scratch name, then renamed


def test_query_more_on_another_worker_runs_the_query_again(small_org: Org, tmp_path: Path) -> None:
    first_worker = RestApi(small_org, SESSION_ID, cursors=SharedCursorStore(tmp_path))
    other_worker = RestApi(small_org, SESSION_ID, cursors=SharedCursorStore(tmp_path))
    text = "SELECT Id, Quantity FROM OrderItem ORDER BY Id"
    headers = {**AUTH, "Sforce-Query-Options": "batchSize=200"}
    reply = first_worker.handle("GET", f"{BASE}/query/", {"q": text}, headers)
    records, next_url, turn = list(reply.body["records"]), reply.body["nextRecordsUrl"], 0
    while next_url:  # alternate workers page by page
        worker = (other_worker, first_worker)[turn % 2]
        page = worker.handle("GET", next_url, {}, AUTH)
        assert page.status == 200 and page.query == text
        records += page.body["records"]
        next_url, turn = page.body.get("nextRecordsUrl"), turn + 1
    expected = first_worker.handle("GET", f"{BASE}/query/", {"q": text}, AUTH).body["records"]
    engine = with_api_version(execute_soql(small_org, text).records, "v59.0")
    assert turn >= 2 and records == expected == engine
    locator = reply.body["nextRecordsUrl"].rsplit("/", 1)[1].split("-")[0]
    kept = other_worker.cursors.get(locator)
    assert kept is not None and kept.records is not None  # the other worker now holds them


def test_shared_cursors_expire_and_keep_a_bounded_number(tmp_path: Path) -> None:
    store = SharedCursorStore(tmp_path, capacity=2, lifetime_s=60)
    first = store.open([], 0, 200, "q0")
    old = (tmp_path / f"{first}.json").stat().st_mtime - 120
    os.utime(tmp_path / f"{first}.json", (old, old))
    assert store.get(first) is None  # older than its lifetime
    ids = [store.open([], 0, 200, f"q{i}") for i in range(3)]
    assert len(store) == 2 and store.get(ids[2]) is not None


def test_request_log_lines_from_two_writers_stay_whole(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    a, b = RequestLog(path), RequestLog(path)  # as two worker processes would hold it
    for i in range(50):
        a.write({"i": i, "who": "a", "pad": "x" * 5000})
        b.write({"i": i, "who": "b"})
    a.close()
    b.close()
    entries = list(read_log(path))
    assert len(entries) == 100 and sum(e["who"] == "a" for e in entries) == 50


@pytest.mark.skipif(not hasattr(os, "fork") or sys.platform != "linux", reason="needs fork")
def test_two_workers_serve_pages_and_log_every_request(small_org: Org, tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    server, _ = serve(small_org, https=False, session_id=SESSION_ID, log_path=log, workers=2)
    folder = server.api.cursors.folder
    try:
        assert len(server._children) == 1
        url = f"{server.instance_url}{BASE}/query/"
        text = "SELECT Id FROM OrderItem ORDER BY Id"
        first = requests.get(
            url, params={"q": text}, headers={**AUTH, "Sforce-Query-Options": "batchSize=200"}
        ).json()
        records = list(first["records"])
        next_url = first.get("nextRecordsUrl")
        while next_url:  # a fresh connection per page: any worker may answer it
            page = requests.get(server.instance_url + next_url, headers=AUTH).json()
            records += page["records"]
            next_url = page.get("nextRecordsUrl")
        counts = [
            requests.get(url, params={"q": "SELECT COUNT() FROM Case"}, headers=AUTH).json()
            for _ in range(10)
        ]
    finally:
        server.stop()
    assert len(records) == first["totalSize"] == small_org.count("OrderItem") > 200
    assert split_locator(first["nextRecordsUrl"].rsplit("/", 1)[1]) is not None
    assert {c["totalSize"] for c in counts} == {small_org.count("Case")}
    pages = -(-len(records) // 200)
    entries = list(read_log(log))
    assert len(entries) == pages + 10 and all(e["status"] == 200 for e in entries)
    assert not folder.exists()  # the cursor folder goes with the server
    assert server._children == []


@pytest.mark.skipif(not hasattr(os, "fork") or sys.platform != "linux", reason="needs fork")
def test_keep_alive_connections_are_spread_over_the_workers(
    small_org: Org, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A long grace so that even on a loaded machine the idle worker takes its turn in time.
    monkeypatch.setattr("crmtui.rest.balance.GRACE_S", 5.0)
    server, _ = serve(small_org, https=False, session_id=SESSION_ID, workers=2)
    conns = []
    try:
        for _ in range(4):  # one after the other, as agents connecting over a minute would
            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
            conn.request("GET", f"{BASE}/query/?q=SELECT+COUNT()+FROM+Case", headers=AUTH)
            assert conn.getresponse().read()
            conns.append(conn)
        counts = server._httpd.balance.counts()
    finally:
        for conn in conns:
            conn.close()
        server.stop()
    assert counts == [2, 2]
