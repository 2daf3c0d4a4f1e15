"""Pre-forked worker processes: shared paging cursors, one request log, clean stop."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
import requests

from crmtui.org import Org
from crmtui.rest import RequestLog, SharedCursorStore, read_log, serve
from crmtui.rest.cursors import split_locator

SESSION_ID = "00DTEST000000001!test-session"
AUTH = {"Authorization": f"Bearer {SESSION_ID}"}
BASE = "/services/data/v59.0"


def test_shared_cursors_are_seen_by_another_store_on_the_folder(tmp_path: Path) -> None:
    opener, reader = SharedCursorStore(tmp_path), SharedCursorStore(tmp_path)
    locator = opener.open([{"Id": "500A"}, {"Id": "500B"}], 2, 200, "SELECT Id FROM Case")
    cursor = reader.get(locator)
    assert cursor is not None and cursor.records[1] == {"Id": "500B"}
    assert (cursor.total, cursor.page_size, cursor.text) == (2, 200, "SELECT Id FROM Case")
    assert reader.get("01gnotthere0000000") is None and reader.get("../x") is None
    assert not list(tmp_path.glob(".*.tmp"))  # written under a scratch name, then renamed


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
