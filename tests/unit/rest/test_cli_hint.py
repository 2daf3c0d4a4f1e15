"""The start-up banner of ``crmtui serve-rest`` names a client call that works."""

from __future__ import annotations

import re
import shlex

import requests
from simple_salesforce import Salesforce

from crmtui.commands.serve_rest import client_hint
from crmtui.org import Org
from crmtui.rest import serve

from .conftest import SESSION_ID


def test_https_hint_is_a_simple_salesforce_call() -> None:
    line = client_hint("https://127.0.0.1:8443", "sid", https=True)
    assert 'Salesforce(instance_url="https://127.0.0.1:8443", session_id="sid")' in line


def test_plain_http_hint_is_not_simple_salesforce_and_works(small_org: Org) -> None:
    # simple-salesforce rewrites any instance URL to https://, so it cannot be the hint.
    assert Salesforce(instance_url="http://h:1", session_id="s").base_url.startswith("https://")
    server, _ = serve(small_org, https=False, session_id=SESSION_ID, log_path=None)
    try:
        line = client_hint(server.instance_url, SESSION_ID, https=False)
        assert "Salesforce(" not in line
        words = shlex.split(re.sub(r"^\s*curl:\s*", "", line).split("  (")[0])
        assert words[0] == "curl" and words[1] == "-H"
        session = requests.Session()
        session.trust_env = False
        name, value = words[2].split(": ", 1)
        reply = session.get(words[3], headers={name: value}, timeout=10)
    finally:
        server.stop()
    assert reply.status_code == 200 and reply.json()["totalSize"] == 1
