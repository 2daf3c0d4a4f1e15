"""Secret scrubbing: the one function every writer passes text through before it is kept.

API keys must never reach a recording, a results file, an export or an error message, even
when a model echoes its key back or a provider's error quotes it. :func:`scrub` replaces

* the values of environment variables whose names say they hold a secret (``*KEY*``,
  ``*TOKEN*``, ``*SECRET*``, ``*PASSWORD*``), when they are at least 8 characters long and
  not plain words (a placeholder such as ``OPENAI_API_KEY=anything`` for a local server would
  otherwise erase the word "anything" from every recording);
* secrets registered at run time with :func:`register` (an explicit ``api_key``);
* key-shaped tokens whatever their source: OpenAI/Anthropic ``sk-...``, Google ``AIza...``,
  Groq ``gsk_...``, Hugging Face ``hf_...``, GitHub ``ghp_...``, AWS ``AKIA...``, Slack
  ``xox?-...``, ``Bearer`` tokens, and the password in ``scheme://user:password@host``;

by :data:`REDACTED`. The replacement and every pattern avoid quotes and backslashes, so
scrubbing the text of a JSON document leaves valid JSON (the recorder relies on this).

Callers: the recorder (headers and events), the agent runner's results file, exports, and
the model client's error messages. Low level on purpose: it imports nothing from crmtui.
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Iterable

#: What a secret is replaced by.
REDACTED = "***"
#: Environment values shorter than this are not treated as secrets.
MIN_SECRET_CHARS = 8

_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL", re.IGNORECASE)
# (a marker that must occur in the text, the pattern): the marker test is a fast substring
# search, so text without any key-shaped token costs a few microseconds, not a regex scan.
_KEY_SHAPES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (marker, re.compile(pattern))
    for marker, pattern in (
        ("sk-", r"\bsk-[A-Za-z0-9_\-]{8,}"),  # OpenAI, Anthropic (sk-ant-...), sk-proj-...
        ("AIza", r"\bAIza[0-9A-Za-z_\-]{10,}"),  # Google
        ("gsk_", r"\bgsk_[A-Za-z0-9]{8,}"),  # Groq
        ("hf_", r"\bhf_[A-Za-z0-9]{20,}"),  # Hugging Face
        ("gh", r"\bgh[pousr]_[A-Za-z0-9]{20,}"),  # GitHub
        ("AKIA", r"\bAKIA[0-9A-Z]{16}"),  # AWS access key id
        ("xox", r"\bxox[abprs]-[A-Za-z0-9\-]{10,}"),  # Slack
        ("earer ", r"(?<=[Bb]earer )[A-Za-z0-9._~+/\-]{16,}=*"),  # HTTP bearer tokens
        ("://", r"(?<=://)[^\s:/@\"\\]+:[^\s@/\"\\]+(?=@)"),  # user:password@ in a URL
    )
)

_registered: set[str] = set()
_lock = threading.Lock()
# (secrets) -> compiled alternation; rebuilt only when the set of secrets changes.
_literal_cache: tuple[frozenset[str], re.Pattern[str] | None] = (frozenset(), None)
_env_cache: tuple[tuple[object, ...], frozenset[str]] = ((), frozenset())


def register(secret: str | None) -> None:
    """Treat ``secret`` (e.g. an ``api_key`` given in code) as a secret from now on."""
    if secret and len(secret) >= 4:
        with _lock:
            _registered.add(secret)


def is_secret(name: str, value: str) -> bool:
    """Whether the environment variable ``name=value`` holds a secret worth scrubbing."""
    return bool(
        value
        and _SECRET_NAME.search(name)
        and len(value) >= MIN_SECRET_CHARS
        and not value.isalpha()
    )


def _environment_secrets() -> frozenset[str]:
    global _env_cache
    # os.environ decodes every value on access (~70 us for a typical environment); its raw
    # store is compared instead and the decoded secrets are reused while it is unchanged.
    raw = getattr(os.environ, "_data", None)
    snapshot = tuple(raw.items()) if isinstance(raw, dict) else tuple(os.environ.items())
    cached_for, secrets = _env_cache
    if cached_for == snapshot:
        return secrets
    secrets = frozenset(value for name, value in os.environ.items() if is_secret(name, value))
    _env_cache = (snapshot, secrets)
    return secrets


def known_secrets(extra: Iterable[str] = ()) -> frozenset[str]:
    """The literal secrets scrubbed now: environment values, registered ones and ``extra``."""
    found = _environment_secrets()
    more = {s for s in extra if s}
    if _registered:
        more.update(_registered)
    return found | more if more else found


def _literal_pattern(secrets: frozenset[str]) -> re.Pattern[str] | None:
    global _literal_cache
    cached_for, pattern = _literal_cache
    if cached_for == secrets:
        return pattern
    forms: set[str] = set()
    for secret in secrets:
        forms.add(secret)
        # The form the secret takes inside JSON text (quotes and backslashes escaped).
        forms.add(json.dumps(secret, ensure_ascii=False)[1:-1])
    pattern = (
        re.compile("|".join(re.escape(f) for f in sorted(forms, key=len, reverse=True)))
        if forms
        else None
    )
    _literal_cache = (secrets, pattern)
    return pattern


def scrub(text: str, extra: Iterable[str] = ()) -> str:
    """``text`` with every secret replaced by :data:`REDACTED`.

    Args:
        text: Any text (a JSON document's text stays valid JSON).
        extra: Further literal secrets for this call (e.g. the key a client was given).
    """
    if not text:
        return text
    pattern = _literal_pattern(known_secrets(extra))
    if pattern is not None:
        text = pattern.sub(REDACTED, text)
    for marker, shape in _KEY_SHAPES:
        if marker in text:
            text = shape.sub(REDACTED, text)
    return text


def scrub_json(value: object) -> object:
    """A copy of a JSON-shaped value (dicts, lists, strings, numbers) with secrets scrubbed.

    Keys are scrubbed too. Values that are not JSON-shaped are returned unchanged.
    """
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, dict):
        return {scrub(k) if isinstance(k, str) else k: scrub_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [scrub_json(v) for v in value]
    return value
