"""Upstream's own connector (``SalesforceConnector.run_query``) against ``serve-rest``.

It is imported from ../shared/crmarena/upstream-harness and upstream-harness-naacl (skipped
when absent) and used unchanged: its rows must equal the engine's, and its observation text
must equal, byte for byte, what ``--observations naacl|head`` shows crmtui's agents
(:class:`crmtui.agent.upstream_connector.UpstreamConnector`), for results, nested records,
errors and SOSL alike.
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


#: Every observation shape upstream's agents meet, byte for byte.
SHAPES = [
    *TEXTS,
    "SELECT Id, Account.ShippingState, Owner.FirstName FROM Case ORDER BY Id LIMIT 4",
    "SELECT Id, (SELECT Id, Subject FROM Cases) FROM Contact ORDER BY Id LIMIT 3",
    "SELECT Product2Id FROM OrderItem WHERE OrderItem.Order.Status = 'Activated' LIMIT 2",
    "SELECT Id, Nme FROM Case",
    "SELECT Id FROM Case WHERE CreatedDate > 2020-01-01",
    "find {refund} IN ALL FIELDS RETURNING Knowledge__kav(Id)",
    " FIND {refund} RETURNING Knowledge__kav(Id)",
    "```SOQL\nSELECT COUNT(Id) n\nFROM Case\n```",
    "```python\nSELECT Id FROM Issue__c\n```",
    "\n            SELECT Id, Name\n            FROM Issue__c WHER\n        ",
    "FIND {zzzznothing} IN ALL FIELDS RETURNING Product2(Id)",
    "SELECT Id FROM Case WHERE Id = 'x' AND Status IN ('a', \"b'c\")",
]


@pytest.fixture(params=["upstream-harness", "upstream-harness-naacl"])
def connector(
    shared_dir: Path,
    https_server: tuple[RestServer, Path],
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
) -> Any:
    pytest.importorskip("pandas")
    pytest.importorskip("tqdm")
    pytest.importorskip("dotenv")
    harness = shared_dir / request.param
    if not harness.is_dir():
        pytest.skip(f"../shared/crmarena/{request.param} is not present")
    server, ca_path = https_server
    monkeypatch.syspath_prepend(str(harness))
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(ca_path))
    for name in [m for m in sys.modules if m.startswith("crm_sandbox")]:
        monkeypatch.delitem(sys.modules, name)
    from crm_sandbox.env.connect_sandbox import SalesforceConnector

    auth = {"instance_url": server.instance_url, "session_id": SESSION_ID}
    if "org_type" in SalesforceConnector.__init__.__code__.co_varnames:
        return SalesforceConnector(auth=auth, org_type="original")
    return SalesforceConnector(auth=auth)


@pytest.mark.parametrize("text", TEXTS)
def test_observations_equal_crmtui_s(connector: Any, small_org: Org, text: str) -> None:
    rows, status = connector.run_query(text)
    result = run(small_org, text)
    assert status == 1
    assert json.loads(json.dumps(rows)) == json.loads(
        json.dumps(observation_rows(result)).replace("/v60.0/", "/v59.0/")
    )
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


@pytest.mark.parametrize("text", SHAPES)
def test_upstream_observations_byte_for_byte(connector: Any, small_org: Org, text: str) -> None:
    from crmtui.agent.result import UpstreamCrash
    from crmtui.agent.upstream_connector import UpstreamConnector

    ours = UpstreamConnector(small_org)
    try:
        theirs: Any = connector.run_query(text)
    except KeyError as exc:  # upstream's own loop fails on rows with different keys
        with pytest.raises(UpstreamCrash) as caught:
            ours.run_query(text)
        assert str(caught.value) == str(exc)
        return
    mine = ours.run_query(text)
    assert mine[1] == theirs[1]
    assert str(mine[0]) == str(theirs[0])


def test_rows_of_several_sosl_objects_crash_both(connector: Any, small_org: Org) -> None:
    from crmtui.agent.result import UpstreamCrash
    from crmtui.agent.upstream_connector import UpstreamConnector

    text = "FIND {shoe*} IN ALL FIELDS RETURNING Product2(Description), Knowledge__kav(Title)"
    with pytest.raises(KeyError) as theirs:
        connector.run_query(text)
    with pytest.raises(UpstreamCrash) as ours:
        UpstreamConnector(small_org).run_query(text)
    assert str(ours.value) == str(theirs.value)
