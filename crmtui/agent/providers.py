"""Which environment variable holds each provider's API key, known without litellm.

A table of the common providers (kept in step with ``litellm.validate_environment`` by a
test), so that a missing key is found, and a refused one explained, without importing
litellm (seconds).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

__all__ = ["PROVIDER_KEYS", "key_hint", "provider_of"]

#: Provider -> the environment variables litellm reads its key from (any one suffices).
PROVIDER_KEYS: dict[str, tuple[str, ...]] = {
    "openai": ("OPENAI_API_KEY",),
    "anthropic": ("ANTHROPIC_API_KEY",),
    "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    "together_ai": ("TOGETHERAI_API_KEY",),
    "deepseek": ("DEEPSEEK_API_KEY",),
    "groq": ("GROQ_API_KEY",),
    "mistral": ("MISTRAL_API_KEY",),
}

# Bare model names litellm routes to a provider without a prefix.
_BARE_PREFIXES = {
    "gpt-": "openai",
    "chatgpt": "openai",
    "o1": "openai",
    "o3": "openai",
    "o4": "openai",
    "claude-": "anthropic",
}


def provider_of(model: str) -> str | None:
    """The provider of a model name when crmtui knows it without litellm, else ``None``."""
    name = model.strip()
    if "/" in name:
        prefix = name.split("/", 1)[0].lower()
        return prefix if prefix in PROVIDER_KEYS else None
    lowered = name.lower()
    for start, provider in _BARE_PREFIXES.items():
        if lowered.startswith(start):
            return provider
    return None


def key_hint(
    model: str, *, explicit_key: bool = False, environ: Mapping[str, str] | None = None
) -> str:
    """What to do about a refused key, naming the variable when crmtui knows it."""
    if explicit_key:
        return "the API key given was refused"
    env = os.environ if environ is None else environ
    names = PROVIDER_KEYS.get(provider_of(model) or "", ())
    present = [n for n in names if env.get(n)]
    if present:
        return f"the key in {present[0]} was refused; check its value"
    if names:
        return "set " + " or ".join(names)
    return "check the API key for this provider"
