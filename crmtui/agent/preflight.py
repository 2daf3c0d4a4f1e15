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
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import urlsplit

from crmtui.agent.providers import PROVIDER_KEYS, key_hint, provider_of
from crmtui.errors import ConfigError

__all__ = [
    "PROBE_TIMEOUT_S",
    "check_agent_settings",
    "check_scoring_models",
    "check_toolset_fits",
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
    flag: str = "--api-base",
) -> None:
    """Raise :class:`ConfigError` unless a server answers at ``api_base``.

    A TCP connection first (refused, unknown host, unroutable: an error naming the URL),
    then ``GET <api_base>/models`` with the key as a bearer token: 401 or 403 is an error,
    any other answer (or none within the time left) counts as reachable, since servers
    differ in what they serve there.
    """
    parts = urlsplit(api_base)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"{flag} {api_base!r} is not an http(s) URL")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise ConfigError(f"{flag} {api_base!r} has a bad port") from None
    began = time.monotonic()
    try:
        with socket.create_connection((parts.hostname, port), timeout=timeout):
            pass
    except OSError as exc:
        why = exc.strerror or type(exc).__name__
        if isinstance(exc, TimeoutError | socket.timeout):
            why = f"no connection within {timeout:g} s"
        raise ConfigError(f"cannot reach {flag} {api_base}: {why}") from None
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


def check_agent_settings(
    settings: Any, *, flags: tuple[str, str] = ("--model", "--api-base")
) -> None:
    """All preflight checks for :class:`~crmtui.agent.settings.AgentSettings`.

    The agent's model (and the extraction model with ``--llm-extract``): credentials, then
    the reachability of their servers. ``flags``: what the errors call the model and its
    server, as the person gave them (``play --as-user``: ``--agent-model``,
    ``--agent-api-base``; a study: its ``[dialogue]`` keys).

    Raises:
        ConfigError: Naming the variable or the URL.
    """
    api_key = settings.client_options.get("api_key")
    deployments = getattr(settings, "deployments", None)
    model_flag, base_flag = flags
    if deployments is not None:
        _check_deployments(settings.model, deployments, api_key)
    else:
        check_credentials(
            settings.model, api_base=settings.api_base, api_key=api_key, role=model_flag
        )
        if settings.api_base:
            probe_api_base(
                settings.api_base, api_key=_probe_key(settings.model, api_key), flag=base_flag
            )
    resolved = settings.resolved
    if resolved.scoring == "llm_extract":
        _check_extractor(settings)
    dialogue = getattr(settings, "dialogue", None)
    if dialogue is not None and dialogue.simulated:
        check_user_model(dialogue, api_key=api_key, probed=settings.api_base)


def check_user_model(
    dialogue: Any,
    *,
    api_key: str | None = None,
    probed: str | None = None,
    flags: tuple[str, str] = ("--user-model", "--user-api-base"),
) -> None:
    """The simulated user's model (the multi-turn mode): its key, then its server.

    Args:
        dialogue: A :class:`~crmtui.agent.dialogue_settings.DialogueSettings`.
        api_key: An explicit key (tests).
        probed: A server already checked (the agent's), not probed twice.

    Raises:
        ConfigError: Naming the variable or the URL.
    """
    model_flag, base_flag = flags
    check_credentials(
        dialogue.user_model, api_base=dialogue.user_api_base, api_key=api_key, role=model_flag
    )
    if dialogue.user_api_base and dialogue.user_api_base != probed:
        probe_api_base(
            dialogue.user_api_base,
            api_key=_probe_key(dialogue.user_model, api_key),
            flag=base_flag,
        )


def _check_scorer(settings: Any, model: str | None, base: str | None, role: str) -> None:
    """Credentials and server of a scoring model (the extractor's, the judge's)."""
    if model is None or model == settings.model:
        return
    api_key = settings.client_options.get("api_key")
    check_credentials(model, api_base=base, api_key=api_key, role=role)
    if base:
        probe_api_base(base, api_key=_probe_key(model, api_key))


def _check_extractor(settings: Any) -> None:
    model, base = settings.resolved.extract_model, settings.extract_api_base
    _check_scorer(settings, model, base, "--extract-model")


def check_scoring_models(settings: Any, instances: Iterable[Any]) -> None:
    """Check the extraction and judge models that scoring ``instances`` will call.

    A CRMArena-Pro row (list gold) scored by ``llm_extract`` needs the extraction model and
    a ``privacy_rejection`` row needs the judge model (unless the rules judge judges); rows
    that need neither never ask for their keys.

    Raises:
        ConfigError: Naming the variable or the URL.
    """
    resolved = settings.resolved
    rows = list(instances)
    lists = any(isinstance(i.answer, list) and i.reward_metric == "exact_match" for i in rows)
    if lists and resolved.list_scoring == "llm_extract":
        _check_extractor(settings)
    if resolved.judge != "rules" and any(i.reward_metric == "privacy_rejection" for i in rows):
        _check_scorer(settings, resolved.judge, settings.judge_api_base, "--judge-model")


def check_toolset_fits(settings: Any, instances: Iterable[Any]) -> None:
    """Refuse upstream's helper tools on CRMArena-Pro rows (list gold).

    Upstream's tool-calling strategies exist for the original CRMArena only: ``run_tasks.py``
    refuses them for ``--org_type b2b``/``b2c`` and its 25 helper tools answer service
    questions, not Pro's sales and CPQ ones. crmtui's own ``--toolset query`` (free SOQL/SOSL
    tools) works on Pro rows.

    Raises:
        ConfigError: Saying so, with the number of Pro rows selected.
    """
    if settings.strategy != "tool_call" or settings.resolved.toolset != "upstream":
        return
    pro = sum(1 for i in instances if isinstance(i.answer, list | tuple))
    if pro:
        raise ConfigError(
            f"upstream's helper tools (--toolset upstream) exist for the original CRMArena "
            f"tasks only (upstream's tool_call refuses CRMArena-Pro orgs); {pro} of the "
            "selected instances are CRMArena-Pro rows. Use --toolset query (crmtui's SOQL/SOSL "
            "tools) or --strategy react/act"
        )


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
