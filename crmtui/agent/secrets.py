"""Keeping API keys out of everything crmtui writes: errors, recordings, results files.

Keys reach crmtui through the environment (``OPENAI_API_KEY`` ...) or an explicit
``api_key``; a model can also echo one back in a reply. :class:`Scrubber` replaces the known
values and anything shaped like a provider key with ``***``. Build one per run or session:
it reads the environment once.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["MASK", "Scrubber", "scrub_secrets", "secret_values"]

MASK = "***"

#: Key shapes of common providers (OpenAI/Anthropic ``sk-``, Google ``AIza``, Groq ``gsk_``).
_KEY_PATTERN = re.compile(r"\b(sk-[A-Za-z0-9_\-]{3,}|AIza[0-9A-Za-z_\-]{10,}|gsk_[A-Za-z0-9]{8,})")
_SECRET_NAME_PARTS = ("KEY", "TOKEN", "SECRET", "PASSWORD")
#: Shorter values are too likely to occur in ordinary text to be replaced everywhere.
_MIN_SECRET_CHARS = 8


def secret_values(environ: Mapping[str, str] | None = None) -> list[str]:
    """Values of environment variables whose names say they hold a secret."""
    env = os.environ if environ is None else environ
    return [
        value
        for name, value in env.items()
        if value
        and len(value) >= _MIN_SECRET_CHARS
        and any(part in name.upper() for part in _SECRET_NAME_PARTS)
    ]


class Scrubber:
    """Replaces secrets in text and in JSON-like values.

    Args:
        extra: Further secret values (an explicit ``api_key``).
        environ: Environment to read secret values from (default: ``os.environ``).
    """

    def __init__(self, extra: Iterable[str] = (), environ: Mapping[str, str] | None = None):
        values = {v for v in [*secret_values(environ), *extra] if v}
        ordered = sorted(values, key=len, reverse=True)
        self._known = re.compile("|".join(re.escape(v) for v in ordered)) if ordered else None

    def text(self, value: str) -> str:
        """``value`` with every known secret and key-shaped token replaced by ``***``."""
        if self._known is not None:
            value = self._known.sub(MASK, value)
        return _KEY_PATTERN.sub(MASK, value)

    def value(self, obj: Any) -> Any:
        """A copy of a JSON-like value (dicts, lists, strings) with every string scrubbed."""
        if isinstance(obj, str):
            return self.text(obj)
        if isinstance(obj, Mapping):
            return {key: self.value(item) for key, item in obj.items()}
        if isinstance(obj, list | tuple):
            return [self.value(item) for item in obj]
        return obj


def scrub_secrets(text: str, extra: Iterable[str] = ()) -> str:
    """Replace API keys (known values from the environment and key-shaped tokens) by ``***``."""
    return Scrubber(extra).text(text)
