"""Tokens are stored only as salted hashes; cookies are signed, expire and die on rotation."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from crmtui.study.tokens import TokenStore, load_secret, read_cookie, sign_cookie


def test_tokens_are_shown_once_and_stored_as_hashes(tmp_path: Path) -> None:
    store = TokenStore(tmp_path / "tokens.json")
    issued = store.issue(["ann", "ben"])
    text = (tmp_path / "tokens.json").read_text()
    for token in issued.values():
        assert len(token) >= 40
        assert token not in text
    doc = json.loads(text)
    assert set(doc["annotators"]) == {"ann", "ben"}
    assert stat.S_IMODE(os.stat(tmp_path / "tokens.json").st_mode) == 0o600
    assert store.who(issued["ann"]) == "ann"
    assert store.who(issued["ben"]) == "ben"
    assert store.who("not-a-token") is None
    assert store.who(issued["ann"][:-1]) is None


def test_rotation_replaces_the_token_and_bumps_the_generation(tmp_path: Path) -> None:
    store = TokenStore(tmp_path / "tokens.json")
    old = store.issue(["ann"])["ann"]
    assert store.generation("ann") == 1
    # A second store (another process, e.g. the server) sees the change on its next read.
    server_view = TokenStore(tmp_path / "tokens.json")
    assert server_view.who(old) == "ann"
    new = store.issue(["ann"])["ann"]
    assert new != old
    assert server_view.who(old) is None
    assert server_view.who(new) == "ann"
    assert server_view.generation("ann") == 2


def test_cookies_are_signed_and_expire(tmp_path: Path) -> None:
    secret = load_secret(tmp_path / "server.key")
    assert load_secret(tmp_path / "server.key") == secret  # made once, then reused
    assert stat.S_IMODE(os.stat(tmp_path / "server.key").st_mode) == 0o600
    value = sign_cookie(secret, "ann", 3, now=1000.0)
    claims = read_cookie(secret, value, now=1100.0)
    assert claims is not None and (claims.annotator, claims.generation) == ("ann", 3)
    assert read_cookie(secret, value, now=1000.0 + 13 * 3600) is None  # expired
    assert read_cookie(b"another secret", value, now=1100.0) is None
    body, mac = value.split(".")
    forged = sign_cookie(secret, "ben", 3, now=1000.0).split(".")[0] + "." + mac
    assert read_cookie(secret, forged, now=1100.0) is None
    assert read_cookie(secret, body, now=1100.0) is None
    assert read_cookie(secret, "", now=1100.0) is None
    assert read_cookie(secret, "a.b.c", now=1100.0) is None
    assert read_cookie(secret, "!!!.???", now=1100.0) is None
