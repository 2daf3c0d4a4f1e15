"""Keeping API keys out of everything the agent side writes: errors, recordings, results.

A thin face over :mod:`crmtui.secrets`, the one scrubber every writer uses (the recorder
scrubs every event with it too): :class:`Scrubber` carries the secrets of one run or session
(an explicit ``api_key``) on top of what ``crmtui.secrets`` always scrubs (secret
environment values and key-shaped tokens), for text and for JSON-like values.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

from crmtui import secrets as _secrets

__all__ = ["MASK", "Scrubber", "scrub_secrets", "secret_values"]

MASK = _secrets.REDACTED


def secret_values(environ: Mapping[str, str] | None = None) -> list[str]:
    """Values of environment variables whose names say they hold a secret."""
    env = os.environ if environ is None else environ
    return [value for name, value in env.items() if _secrets.is_secret(name, value)]


class Scrubber:
    """Replaces secrets in text and in JSON-like values.

    Args:
        extra: Further secret values (an explicit ``api_key``).
        environ: An environment to take secret values from besides ``os.environ``.
    """

    def __init__(self, extra: Iterable[str] = (), environ: Mapping[str, str] | None = None) -> None:
        found = [v for v in extra if v]
        if environ is not None:
            found += secret_values(environ)
        self._extra = tuple(sorted(set(found)))

    def text(self, value: str) -> str:
        """``value`` with every known secret and key-shaped token replaced by ``***``."""
        return _secrets.scrub(value, self._extra)

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
    return _secrets.scrub(text, extra)
