"""Sign-ins that were signed out: the server-side half of ``POST /signout``.

Cookies are signed, not stored, so forgetting one in the browser is not enough: a copy of
it (another tab's, a stolen one) would stay valid until it expires. Signing out appends the
cookie's nonce and expiry to ``signouts.jsonl`` in the study folder, one JSON line with a
single ``O_APPEND`` write, so several servers sharing the folder each append whole lines and
each sees every sign-out at its next check. A line is needed only until its cookie would
have expired anyway (12 h); older lines are ignored when read.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from crmtui.study.definition import StudyError
from crmtui.study.tokens import CookieClaims


class SignOuts:
    """The ``signouts.jsonl`` of one study, re-read when it changes."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._stamp: tuple[int, int] | None = None
        self._until: dict[str, float] = {}

    def add(self, claims: CookieClaims) -> None:
        """Record that the sign-in ``claims`` names has ended.

        Raises:
            StudyError: The file cannot be written.
        """
        line = json.dumps(
            {"a": claims.annotator, "n": claims.nonce, "until": claims.expires_at},
            sort_keys=True,
        )
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            try:
                os.write(fd, (line + "\n").encode("utf-8"))
            finally:
                os.close(fd)
        except OSError as exc:
            raise StudyError(f"cannot record the sign-out in {self.path}: {exc}") from exc
        self._until[claims.nonce] = claims.expires_at

    def _load(self) -> dict[str, float]:
        try:
            stat = self.path.stat()
        except FileNotFoundError:
            return self._until
        stamp = (stat.st_mtime_ns, stat.st_size)
        if stamp == self._stamp:
            return self._until
        found: dict[str, float] = {}
        try:
            text = self.path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return self._until  # keep what was known; the next change is read again
        now = time.time()
        for line in text.splitlines():
            try:
                item = json.loads(line)
                nonce, until = item["n"], float(item["until"])
            except (ValueError, KeyError, TypeError):
                continue  # a torn last line of another server's write: read next time
            if isinstance(nonce, str) and until > now:
                found[nonce] = until
        self._until, self._stamp = found, stamp
        return found

    def signed_out(self, claims: CookieClaims) -> bool:
        """Whether this sign-in was signed out."""
        return claims.nonce in self._load()
