"""Checks before the first model call: credentials present, ``--api-base`` reachable.

A missing key or a dead server used to cost every instance five retries and fill the results
file with zeros. These checks run before any instance (and before litellm is imported for the
common providers, so a misconfigured run ends in well under three seconds) and raise
:class:`~crmtui.errors.ConfigError` with one line naming the variable or the URL.

* :func:`check_credentials`: the provider's key variables, from a table of common providers
  (kept in step with ``litellm.validate_environment`` by a test); other models ask litellm.
* :func:`probe_api_base`: a TCP connection to ``--api-base`` and a cheap ``GET /models``
  within ~2 s; refused connections, unknown hosts and a 401/403 are configuration errors.
"""

from __future__ import annotations

import os
import socket
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from crmtui.agent.providers import PROVIDER_KEYS, key_hint, provider_of
from crmtui.errors import ConfigError

__all__ = [
    "PROBE_TIMEOUT_S",
    "check_agent_settings",
    "PROVIDER_KEYS",
    "check_credentials",
    "key_hint",
    "probe_api_base",
    "provider_of",
]

#: Seconds the reachability probe may take in all (connect + one request).
PROBE_TIMEOUT_S = 2.0


def check_credentials(
    model: str,
    *,
    api_base: str | None = None,
    api_key: str | None = None,
    environ: Mapping[str, str] | None = None,
    role: str = "--model",
) -> None:
    """Raise :class:`ConfigError` when ``model``'s provider lacks its key or is unknown.

    Args:
        model: The litellm model name.
        api_base: ``--api-base``; it stands in for a provider's ``*_API_BASE`` variable.
        api_key: An explicit key (tests, programmatic use): nothing to check then.
        environ: The environment (default ``os.environ``).
        role: Which option named the model, for the message (``--extract-model`` ...).
    """
    if api_key:
        return
    env = os.environ if environ is None else environ
    provider = provider_of(model)
    if provider is not None:
        names = PROVIDER_KEYS[provider]
        if not any(env.get(name) for name in names):
            raise ConfigError(_missing_message(model, names, api_base, role))
        return
    missing = _litellm_missing_keys(model, api_base, role)
    if api_base:
        missing = [name for name in missing if not name.endswith("_API_BASE")]
    present = [name for name in missing if env.get(name)]
    missing = [name for name in missing if name not in present]
    if missing:
        raise ConfigError(_missing_message(model, tuple(missing), api_base, role, every=True))


def _missing_message(
    model: str, names: tuple[str, ...], api_base: str | None, role: str, *, every: bool = False
) -> str:
    joined = (" and " if every else " or ").join(names)
    verb = "are" if every and len(names) > 1 else "is"
    message = f"{joined} {verb} not set: {role} {model} needs it to call the provider"
    if api_base and "OPENAI_API_KEY" in names:
        message += (
            " (a local server that checks no key accepts any value, e.g. OPENAI_API_KEY=none)"
        )
    return message


def _litellm_missing_keys(model: str, api_base: str | None, role: str) -> list[str]:
    """litellm's view: raises when no provider serves ``model``, else the missing variables."""
    from crmtui.agent.client import load_litellm

    litellm = load_litellm()
    try:
        litellm.get_llm_provider(model=model, api_base=api_base)
    except Exception:  # noqa: BLE001 - litellm raises BadRequestError and others here
        raise ConfigError(
            f"{role} {model}: litellm knows no provider for this name; prefix it with one "
            "(openai/..., anthropic/..., gemini/..., ollama/...)"
        ) from None
    try:
        found = litellm.validate_environment(model=model, api_base=api_base)
    except Exception:  # noqa: BLE001 - validation is advice; the first call will tell
        return []
    return [str(name) for name in found.get("missing_keys") or []]


def probe_api_base(
    api_base: str,
    *,
    api_key: str | None = None,
    timeout: float = PROBE_TIMEOUT_S,
) -> None:
    """Raise :class:`ConfigError` unless a server answers at ``api_base``.

    A TCP connection first (refused, unknown host, unroutable: an error naming the URL),
    then ``GET <api_base>/models`` with the key as a bearer token: 401 or 403 is an error,
    any other answer (or none within the time left) counts as reachable, since servers
    differ in what they serve there.
    """
    parts = urlsplit(api_base)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"--api-base {api_base!r} is not an http(s) URL")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise ConfigError(f"--api-base {api_base!r} has a bad port") from None
    began = time.monotonic()
    try:
        with socket.create_connection((parts.hostname, port), timeout=timeout):
            pass
    except OSError as exc:
        why = exc.strerror or type(exc).__name__
        if isinstance(exc, TimeoutError | socket.timeout):
            why = f"no connection within {timeout:g} s"
        raise ConfigError(f"cannot reach --api-base {api_base}: {why}") from None
    left = timeout - (time.monotonic() - began)
    if left <= 0.05:
        return
    request = urllib.request.Request(api_base.rstrip("/") + "/models", method="GET")
    if api_key:
        request.add_header("Authorization", f"Bearer {api_key}")
    try:
        with urllib.request.urlopen(request, timeout=left):  # noqa: S310 - user's own URL
            return
    except urllib.error.HTTPError as exc:
        if exc.code in (401, 403):
            raise ConfigError(
                f"the server at --api-base {api_base} refused the API key (HTTP {exc.code})"
            ) from None
    except (OSError, ValueError):
        return  # slow, TLS trouble, odd replies: the run's own calls will say more


def _probe_key(model: str, api_key: str | None) -> str | None:
    """The key an OpenAI-compatible server at ``--api-base`` will be sent."""
    if api_key:
        return api_key
    if provider_of(model) == "openai":
        return os.environ.get("OPENAI_API_KEY") or None
    return None


def check_agent_settings(settings: Any) -> None:
    """All preflight checks for :class:`~crmtui.agent.settings.AgentSettings`.

    The agent's model (and the extraction model with ``--llm-extract``): credentials, then
    the reachability of their servers.

    Raises:
        ConfigError: Naming the variable or the URL.
    """
    api_key = settings.client_options.get("api_key")
    deployments = getattr(settings, "deployments", None)
    if deployments is not None:
        _check_deployments(settings.model, deployments, api_key)
    else:
        check_credentials(settings.model, api_base=settings.api_base, api_key=api_key)
        if settings.api_base:
            probe_api_base(settings.api_base, api_key=_probe_key(settings.model, api_key))
    resolved = settings.resolved
    extractor = resolved.extract_model
    if extractor is None or extractor == settings.model:
        return
    base = settings.extract_api_base
    check_credentials(extractor, api_base=base, api_key=api_key, role="--extract-model")
    if base:
        probe_api_base(base, api_key=_probe_key(extractor, api_key))


def _check_deployments(model: str, spec: Any, api_key: str | None) -> None:
    """Every deployment's credentials; their servers: at least one must answer (the router
    leaves out the others, which a run's recordings then never name)."""
    failures = []
    for deployment in spec.deployments:
        name = deployment.model or model
        key = os.environ.get(deployment.api_key_env) if deployment.api_key_env else api_key
        check_credentials(name, api_base=deployment.api_base, api_key=key)
        try:
            probe_api_base(deployment.api_base, api_key=_probe_key(name, key))
        except ConfigError as exc:
            failures.append(exc)
    if len(failures) == len(spec.deployments):
        raise failures[0]
