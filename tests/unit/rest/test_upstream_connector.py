"""Upstream's own connector (``SalesforceConnector.run_query``) against ``serve-rest``.

It is imported from ../shared/crmarena/upstream-harness (skipped when absent) and used
unchanged: its observations must equal what crmtui's engine shows its own agents.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from crmtui.org import Org
from crmtui.query import QueryError, format_observation, observation_rows, run
from crmtui.rest import RestServer

from .conftest import SESSION_ID

TEXTS = [
    "SELECT Id, Subject, Status FROM Case ORDER BY Id LIMIT 5",
    "SELECT Id, Account.ShippingState FROM Case ORDER BY Id LIMIT 3",
    "SELECT COUNT(Id) FROM Case",
    "SELECT COUNT() FROM Case",
    "```sql\nSELECT Id FROM Issue__c ORDER BY Id\n```",
    "FIND {refund} IN ALL FIELDS RETURNING Knowledge__kav(Id, Title)",
    "SELECT Id FROM Case WHERE Status = 'Nope'",
]


@pytest.fixture
def connector(
    shared_dir: Path, https_server: tuple[RestServer, Path], monkeypatch: pytest.MonkeyPatch
) -> Any:
    pytest.importorskip("pandas")
    pytest.importorskip("tqdm")
    pytest.importorskip("dotenv")
    harness = shared_dir / "upstream-harness"
    server, ca_path = https_server
    monkeypatch.syspath_prepend(str(harness))
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(ca_path))
    for name in [m for m in sys.modules if m.startswith("crm_sandbox")]:
        monkeypatch.delitem(sys.modules, name)
    from crm_sandbox.env.connect_sandbox import SalesforceConnector

    return SalesforceConnector(
        auth={"instance_url": server.instance_url, "session_id": SESSION_ID}, org_type="original"
    )


@pytest.mark.parametrize("text", TEXTS)
def test_observations_equal_crmtui_s(connector: Any, small_org: Org, text: str) -> None:
    rows, status = connector.run_query(text)
    result = run(small_org, text)
    assert status == 1
    assert json.loads(json.dumps(rows)) == observation_rows(result)
    if "." not in text.split("FROM")[0]:
        # Flat rows print the same; nested parents stay OrderedDicts upstream, which crmtui's
        # observation text renders as plain dicts (see crmtui.query.observation).
        assert str(rows) == format_observation(result)


def test_errors_read_back_as_code_and_message(connector: Any, small_org: Org) -> None:
    text = "SELECT Id FROM Case WHERE Nope = 1"
    observation, status = connector.run_query(text)
    with pytest.raises(QueryError) as caught:
        run(small_org, text)
    assert status == 0
    assert observation.startswith(f"{caught.value.code}: \nSELECT Id FROM Case WHERE Nope = 1\n")
    assert observation.endswith(caught.value.message)
