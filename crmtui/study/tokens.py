"""Access tokens and sign-in cookies for a study.

A token is 32 random bytes (URL-safe text), shown once when made and stored only as a salted
SHA-256 hash: tokens carry 256 random bits, so a slow password hash would add nothing but
sign-in latency. Each annotator's entry has a *generation* that rotating increments; cookies
name the generation they were issued for, so rotating a token also signs out every browser
holding a cookie made with the old one.

A cookie is ``base64url(json) + "." + base64url(HMAC-SHA256(server.key, json))`` naming the
annotator, the generation, the issue time and a random nonce. The server checks the
signature, the generation, the age and that the nonce was not signed out
(:mod:`crmtui.study.signouts`) on every request, and every second for each live session.

Revoking a token (``crmtui study tokens --revoke``) keeps its entry, with no digest (no token
matches it) and the generation incremented: every cookie made before is refused, and a later
rotation continues the count, so an old cookie can never become valid again.
"""

from __future__ import annotations

import base64
import contextlib
import datetime as dt
import hashlib
import hmac
import json
import os
import secrets
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from crmtui.study.definition import StudyError

TOKEN_BYTES = 32
#: How long a sign-in cookie stays valid.
COOKIE_MAX_AGE_S = 12 * 3600


@dataclass(frozen=True)
class TokenEntry:
    """What is stored about one annotator's token.

    Attributes:
        salt: Random hex salt.
        digest: sha256 hex of salt + token.
        generation: Increments on every rotation and revocation.
        created_at: When this token was made (or revoked) (ISO UTC).
        revoked: The annotator has no valid token (until a rotation makes one).
    """

    salt: str
    digest: str
    generation: int
    created_at: str
    revoked: bool = False

    def matches(self, token: str) -> bool:
        """Whether ``token`` is this entry's token (constant-time comparison)."""
        if self.revoked:
            return False
        return hmac.compare_digest(_digest(self.salt, token), self.digest)


def _digest(salt: str, token: str) -> str:
    return hashlib.sha256((salt + token).encode("utf-8")).hexdigest()


def new_token() -> str:
    """A fresh access token."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def _write_private(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` readable by the owner only, atomically."""
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    with contextlib.suppress(OSError):  # not every filesystem has modes
        os.chmod(tmp, 0o600)
    os.replace(tmp, path)


class TokenStore:
    """The ``tokens.json`` of one study.

    Reads are cheap and re-done when the file changes, so a running server sees rotations
    without a restart.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._stamp: tuple[int, int, int] | None = None
        self._entries: dict[str, TokenEntry] = {}

    def entries(self) -> dict[str, TokenEntry]:
        """Annotator name to token entry, as on disk now.

        Raises:
            StudyError: The file is unreadable or malformed.
        """
        try:
            stat = self.path.stat()
        except FileNotFoundError:
            return {}
        # The inode too: every write replaces the file, and a rotation within one tick of the
        # file system's clock writes the same size at the same mtime.
        stamp = (stat.st_ino, stat.st_mtime_ns, stat.st_size)
        if stamp != self._stamp:
            try:
                doc = json.loads(self.path.read_text(encoding="utf-8"))
                self._entries = {
                    name: TokenEntry(**item) for name, item in doc["annotators"].items()
                }
            except (OSError, ValueError, KeyError, TypeError) as exc:
                raise StudyError(f"cannot read the tokens in {self.path}: {exc}") from exc
            self._stamp = stamp
        return dict(self._entries)

    def issue(self, names: Iterable[str], now: dt.datetime | None = None) -> dict[str, str]:
        """Make new tokens for ``names`` (replacing any they had) and return them.

        The tokens are returned once and never stored; print them or hand them out now.
        """
        entries = self.entries()
        moment = (now or dt.datetime.now(dt.UTC)).astimezone(dt.UTC)
        issued: dict[str, str] = {}
        for name in names:
            token = new_token()
            salt = secrets.token_hex(16)
            previous = entries.get(name)
            entries[name] = TokenEntry(
                salt=salt,
                digest=_digest(salt, token),
                generation=(previous.generation + 1) if previous else 1,
                created_at=moment.strftime("%Y-%m-%dT%H:%M:%SZ"),
            )
            issued[name] = token
        self._write(entries)
        return issued

    def revoke(self, names: Iterable[str], now: dt.datetime | None = None) -> None:
        """Take these annotators' tokens away: their links and sign-ins stop working (a
        server ends their live sessions within seconds) until a rotation makes a new one."""
        entries = self.entries()
        moment = (now or dt.datetime.now(dt.UTC)).astimezone(dt.UTC)
        for name in names:
            previous = entries.get(name)
            entries[name] = TokenEntry(
                salt="",
                digest="",
                generation=(previous.generation + 1) if previous else 1,
                created_at=moment.strftime("%Y-%m-%dT%H:%M:%SZ"),
                revoked=True,
            )
        self._write(entries)

    def _write(self, entries: dict[str, TokenEntry]) -> None:
        doc = {
            "format": "crmtui-study-tokens",
            "version": 1,
            "annotators": {name: vars(entry) for name, entry in entries.items()},
        }
        _write_private(self.path, json.dumps(doc, indent=2, sort_keys=True) + "\n")
        self._stamp = None

    def who(self, token: str) -> str | None:
        """The annotator whose token this is, or None (every entry is compared)."""
        found = None
        for name, entry in self.entries().items():
            if entry.matches(token):  # no early exit: timing does not tell how far we got
                found = name
        return found

    def generation(self, annotator: str) -> int | None:
        """The annotator's current token generation (None: no valid token)."""
        entry = self.entries().get(annotator)
        return None if entry is None or entry.revoked else entry.generation


def load_secret(path: Path) -> bytes:
    """The study's cookie-signing secret, made on first use.

    Raises:
        StudyError: The file exists but is unreadable.
    """
    try:
        text = path.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        text = secrets.token_hex(32)
        _write_private(path, text + "\n")
    except (OSError, UnicodeDecodeError) as exc:
        raise StudyError(f"cannot read the server key {path}: {exc}") from exc
    try:
        return bytes.fromhex(text)
    except ValueError as exc:
        raise StudyError(f"the server key {path} is not hex") from exc


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass(frozen=True)
class CookieClaims:
    """What a valid cookie says.

    Attributes:
        annotator: Who signed in.
        generation: The token generation it was issued for.
        issued_at: Unix time of issue.
        nonce: Random text naming this sign-in (signing out revokes it).
    """

    annotator: str
    generation: int
    issued_at: float
    nonce: str

    @property
    def expires_at(self) -> float:
        """When the cookie stops being valid anyway."""
        return self.issued_at + COOKIE_MAX_AGE_S


def sign_cookie(
    secret: bytes,
    annotator: str,
    generation: int,
    now: float | None = None,
    nonce: str | None = None,
) -> str:
    """A cookie value binding a browser to ``annotator`` (at this token generation)."""
    body = json.dumps(
        {
            "a": annotator,
            "g": generation,
            "n": nonce or secrets.token_urlsafe(16),
            "t": int(time.time() if now is None else now),
        },
        separators=(",", ":"),
        sort_keys=True,
    ).encode("utf-8")
    mac = hmac.new(secret, body, hashlib.sha256).digest()
    return f"{_b64(body)}.{_b64(mac)}"


def read_cookie(
    secret: bytes,
    value: str | None,
    *,
    now: float | None = None,
    max_age_s: float = COOKIE_MAX_AGE_S,
) -> CookieClaims | None:
    """The claims of a cookie that is authentic and not expired, else None.

    The caller still checks that the generation is the annotator's current one and that
    the nonce was not signed out. A cookie without a nonce (made before sign-outs were kept)
    is refused.
    """
    if not value or value.count(".") != 1:
        return None
    body_text, mac_text = value.split(".")
    try:
        body, mac = _unb64(body_text), _unb64(mac_text)
    except (ValueError, TypeError):
        return None
    if not hmac.compare_digest(hmac.new(secret, body, hashlib.sha256).digest(), mac):
        return None
    try:
        claims: Any = json.loads(body)
        nonce = claims["n"]
        if not isinstance(nonce, str) or not nonce:
            return None
        result = CookieClaims(str(claims["a"]), int(claims["g"]), float(claims["t"]), nonce)
    except (ValueError, KeyError, TypeError):
        return None
    age = (time.time() if now is None else now) - result.issued_at
    if age < -60 or age > max_age_s:  # a minute of clock skew allowed
        return None
    return result
