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


def test_every_cookie_names_its_own_sign_in_and_one_without_is_refused(tmp_path: Path) -> None:
    import base64
    import hashlib
    import hmac

    secret = load_secret(tmp_path / "server.key")
    first = read_cookie(secret, sign_cookie(secret, "ann", 1, now=1000.0), now=1001.0)
    second = read_cookie(secret, sign_cookie(secret, "ann", 1, now=1000.0), now=1001.0)
    assert first is not None and second is not None and first.nonce != second.nonce
    assert first.expires_at == 1000.0 + 12 * 3600
    # A cookie made before sign-outs were kept (no nonce) is refused: it could not be
    # signed out.
    body = json.dumps({"a": "ann", "g": 1, "t": 1000}, separators=(",", ":"), sort_keys=True)
    mac = hmac.new(secret, body.encode(), hashlib.sha256).digest()

    def b64(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

    assert read_cookie(secret, f"{b64(body.encode())}.{b64(mac)}", now=1001.0) is None


def test_a_revoked_token_matches_nothing_and_its_generation_never_comes_back(
    tmp_path: Path,
) -> None:
    store = TokenStore(tmp_path / "tokens.json")
    old = store.issue(["ann", "ben"])["ann"]
    server_view = TokenStore(tmp_path / "tokens.json")
    store.revoke(["ann"])
    assert server_view.who(old) is None and server_view.generation("ann") is None
    assert server_view.entries()["ann"].revoked
    assert server_view.generation("ben") == 1  # nobody else is touched
    new = store.issue(["ann"])["ann"]
    # Generation 3, not 1: a cookie of generation 1 stays refused.
    assert server_view.who(new) == "ann" and server_view.generation("ann") == 3


def test_sign_outs_are_seen_by_every_reader_until_the_cookie_would_expire(
    tmp_path: Path,
) -> None:
    import time

    from crmtui.study.signouts import SignOuts

    secret = load_secret(tmp_path / "server.key")
    now = time.time()
    live = read_cookie(secret, sign_cookie(secret, "ann", 1, now=now), now=now)
    kept = read_cookie(secret, sign_cookie(secret, "ann", 1, now=now), now=now)
    stale = read_cookie(secret, sign_cookie(secret, "ben", 1, now=now - 13 * 3600), max_age_s=1e9)
    assert live is not None and kept is not None and stale is not None
    here, there = SignOuts(tmp_path / "signouts.jsonl"), SignOuts(tmp_path / "signouts.jsonl")
    assert not there.signed_out(live)
    here.add(live)
    here.add(stale)  # expired already: nobody needs to remember it
    with open(tmp_path / "signouts.jsonl", "a") as handle:
        handle.write('{"n": "torn')  # another server's write, half done
    assert there.signed_out(live) and here.signed_out(live)
    assert not there.signed_out(kept)  # another sign-in of the same annotator goes on
    assert not there.signed_out(stale)
    assert stat.S_IMODE(os.stat(tmp_path / "signouts.jsonl").st_mode) == 0o600


def test_a_rotation_with_the_same_size_and_mtime_is_still_seen(tmp_path: Path) -> None:
    """A server's store re-reads a replaced file even when the file system's clock did not
    tick between the two writes (the size of a rotated file is the same)."""
    path = tmp_path / "tokens.json"
    TokenStore(path).issue(["ann"])
    server = TokenStore(path)
    assert server.generation("ann") == 1
    before = path.stat()
    TokenStore(path).issue(["ann"])
    assert path.stat().st_size == before.st_size
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert server.generation("ann") == 2
