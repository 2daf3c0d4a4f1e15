"""Several model servers for one run: litellm's Router over ``--api-base`` repeated or a file.

One OpenAI-compatible server serves one request at a time well; a run of 1,170 instances
wants several (copies of a local model on other GPUs, several provider keys or regions).
``crmtui run --api-base URL --api-base URL ...`` or ``--deployments FILE`` puts them behind
one ``litellm.Router``: calls spread over the deployments (weighted by their ``rpm``/``tpm``,
which the router also keeps each one under), a failing deployment is retried elsewhere and
cooled down, and ``fallback`` deployments are used only when every other one failed. The
deployment that answered is read from the response and recorded with every model call.

The file is JSON: a list of deployments, or ``{"deployments": [...], "retries": n,
"cooldown_s": s, "strategy": "simple-shuffle"}``. A deployment::

    {"api_base": "http://gpu1:8000/v1", "name": "gpu1", "model": "openai/local",
     "rpm": 60, "tpm": 200000, "api_key_env": "GPU1_KEY", "fallback": false}

Only ``api_base`` is required; ``model`` defaults to ``--model``. ``--api-base`` values take
``URL`` or ``URL,rpm=60,tpm=100000,name=gpu1``.
"""

from __future__ import annotations

import json
import math
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from crmtui.errors import ConfigError

__all__ = [
    "Deployment",
    "DeploymentSet",
    "build_router",
    "parse_api_base",
    "read_deployments",
]

#: The router's name for the agent's model group (and its fallback group).
GROUP = "crmtui-agent"
FALLBACK_GROUP = "crmtui-agent-fallback"
STRATEGIES = ("simple-shuffle", "least-busy", "usage-based-routing-v2", "latency-based-routing")


@dataclass(frozen=True)
class Deployment:
    """One model server.

    Attributes:
        api_base: Its OpenAI-compatible base URL.
        name: How recordings name it (default: the URL).
        model: litellm model name (default: the run's ``--model``).
        rpm: Requests per minute it takes (a weight and a limit).
        tpm: Tokens per minute it takes.
        api_key_env: Environment variable holding its key (default: the provider's).
        fallback: Used only when every other deployment failed.
    """

    api_base: str
    name: str | None = None
    model: str | None = None
    rpm: int | None = None
    tpm: int | None = None
    api_key_env: str | None = None
    fallback: bool = False

    @property
    def label(self) -> str:
        """The name recorded for it."""
        return self.name or self.api_base

    def to_json(self) -> dict[str, Any]:
        """As recorded in settings (no key, only the variable's name)."""
        return {k: v for k, v in self.__dict__.items() if v not in (None, False)}


@dataclass(frozen=True)
class DeploymentSet:
    """The deployments of a run and how the router treats them.

    Attributes:
        deployments: The servers.
        retries: Retries of one call across deployments.
        cooldown_s: How long a failing deployment is left out.
        strategy: litellm's routing strategy.
    """

    deployments: tuple[Deployment, ...]
    retries: int = 2
    cooldown_s: float = 30.0
    strategy: str = "simple-shuffle"
    options: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """As recorded in a run's settings."""
        return {
            "deployments": [d.to_json() for d in self.deployments],
            "retries": self.retries,
            "cooldown_s": self.cooldown_s,
            "strategy": self.strategy,
        }


def _positive_int(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ConfigError(f"{what} must be a whole number, got {value!r}")
    try:
        number = int(value)
    except ValueError:
        raise ConfigError(f"{what} must be a whole number, got {value!r}") from None
    if number < 1:
        raise ConfigError(f"{what} must be at least 1, got {number}")
    return number


def _deployment(entry: Any, where: str) -> Deployment:
    if not isinstance(entry, dict):
        raise ConfigError(f"{where}: a deployment is an object with api_base, got {entry!r}")
    unknown = set(entry) - set(Deployment.__dataclass_fields__)
    if unknown:
        raise ConfigError(f"{where}: unknown field(s) {', '.join(sorted(unknown))}")
    base = entry.get("api_base")
    if not isinstance(base, str) or not base.startswith(("http://", "https://")):
        raise ConfigError(f"{where}: api_base must be an http(s) URL, got {base!r}")
    limits = {k: _positive_int(entry[k], f"{where}: {k}") for k in ("rpm", "tpm") if k in entry}
    for key in ("name", "model", "api_key_env"):
        if key in entry and not isinstance(entry[key], str):
            raise ConfigError(f"{where}: {key} must be text")
    return Deployment(
        api_base=base,
        name=entry.get("name"),
        model=entry.get("model"),
        api_key_env=entry.get("api_key_env"),
        fallback=bool(entry.get("fallback", False)),
        **limits,
    )


def parse_api_base(text: str) -> Deployment:
    """One ``--api-base`` value: ``URL`` or ``URL,rpm=N,tpm=N,name=X``."""
    base, *pairs = [part.strip() for part in text.split(",")]
    entry: dict[str, Any] = {"api_base": base}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or key not in ("rpm", "tpm", "name", "model", "api_key_env"):
            raise ConfigError(f"--api-base {text!r}: expected URL[,rpm=N][,tpm=N][,name=X]")
        entry[key] = value
    return _deployment(entry, f"--api-base {text!r}")


#: Longest cooldown a deployment may be given (a day).
MAX_COOLDOWN_S = 86_400.0
#: Largest deployments file read (a real one is a few hundred bytes).
MAX_FILE_BYTES = 1_000_000
#: Most deployments one file may list.
MAX_DEPLOYMENTS = 1000
#: Deepest nesting of lists/objects accepted (a real file is 3 deep).
MAX_DEPTH = 8


def _depth(value: Any, limit: int) -> int:
    """Nesting depth of ``value``, counting no further than ``limit + 1``."""
    if limit < 0 or not isinstance(value, dict | list):
        return 0
    children = value.values() if isinstance(value, dict) else value
    return 1 + max((_depth(child, limit - 1) for child in children), default=0)


def _read_bounded(where: Path) -> str:
    """The file's text: a regular file (a FIFO or device is refused at once, never waited
    on), at most :data:`MAX_FILE_BYTES`, UTF-8."""
    try:
        fd = os.open(where, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise ConfigError(f"cannot read {where}: {exc.strerror or exc}") from exc
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ConfigError(f"{where} is not a regular file (a FIFO, device or folder)")
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise ConfigError(f"cannot read {where}: {exc.strerror or exc}") from exc
    finally:
        os.close(fd)
    if len(data) > MAX_FILE_BYTES:
        raise ConfigError(f"{where} is larger than {MAX_FILE_BYTES:,} bytes")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{where} is not UTF-8 text (byte 0x{data[exc.start]:02x})") from None


def read_deployments(path: str | os.PathLike[str]) -> DeploymentSet:
    """The deployments file (see the module docstring).

    Bounded before anything is built: a regular UTF-8 file of at most
    :data:`MAX_FILE_BYTES`, nesting at most :data:`MAX_DEPTH`, at most
    :data:`MAX_DEPLOYMENTS` entries; ``NaN`` and infinities are refused where JSON reads them.

    Raises:
        ConfigError: Unreadable, not a regular file, too large, not UTF-8, not JSON, too
            deep, too many entries, or a bad entry (named by its position).
    """
    where = Path(path)
    text = _read_bounded(where)

    def no_constant(name: str) -> Any:
        raise ConfigError(f"{where}: {name} is not a number a deployments file may hold")

    try:
        data = json.loads(text, parse_constant=no_constant)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{where} is not JSON: {exc.msg} at line {exc.lineno}") from exc
    except (RecursionError, ValueError):
        raise ConfigError(
            f"{where} is not usable JSON (nested too deeply or a huge number)"
        ) from None
    if _depth(data, MAX_DEPTH) > MAX_DEPTH:
        raise ConfigError(f"{where} is nested more than {MAX_DEPTH} levels deep")
    options: dict[str, Any] = {}
    if isinstance(data, dict):
        options = {k: v for k, v in data.items() if k != "deployments"}
        data = data.get("deployments")
    if not isinstance(data, list) or not data:
        raise ConfigError(f"{where}: expected a non-empty list of deployments")
    if len(data) > MAX_DEPLOYMENTS:
        raise ConfigError(
            f"{where}: {len(data):,} deployments; a file lists at most {MAX_DEPLOYMENTS:,}"
        )
    deployments = tuple(_deployment(e, f"{where} deployment {i}") for i, e in enumerate(data, 1))
    return make_set(deployments, **options, where=str(where))


def make_set(
    deployments: Sequence[Deployment],
    *,
    retries: Any = 2,
    cooldown_s: Any = 30.0,
    strategy: Any = "simple-shuffle",
    where: str = "deployments",
    **unknown: Any,
) -> DeploymentSet:
    """A checked :class:`DeploymentSet`."""
    if unknown:
        raise ConfigError(f"{where}: unknown option(s) {', '.join(sorted(unknown))}")
    if strategy not in STRATEGIES:
        raise ConfigError(f"{where}: strategy must be one of {', '.join(STRATEGIES)}")
    if all(d.fallback for d in deployments):
        raise ConfigError(f"{where}: every deployment is a fallback; make one a primary")
    if isinstance(retries, bool) or not isinstance(retries, int) or not 0 <= retries <= 100:
        raise ConfigError(f"{where}: retries must be a whole number from 0 to 100")
    if (
        isinstance(cooldown_s, bool)
        or not isinstance(cooldown_s, int | float)
        or not math.isfinite(cooldown_s)
        or not 0 <= cooldown_s <= MAX_COOLDOWN_S
    ):
        raise ConfigError(
            f"{where}: cooldown_s must be a number of seconds from 0 to {MAX_COOLDOWN_S:g}"
        )
    names = [d.label for d in deployments]
    if len(set(names)) != len(names):
        raise ConfigError(f"{where}: two deployments share a name or URL")
    return DeploymentSet(tuple(deployments), retries, float(cooldown_s), strategy)


def build_router(
    litellm: Any, model: str, spec: DeploymentSet, *, api_key: str | None = None
) -> Any:
    """A ``litellm.Router`` over ``spec`` for ``model``.

    Args:
        litellm: The loaded litellm module (``crmtui.agent.client.load_litellm()``).
        model: The run's model (deployments without their own ``model`` use it).
        spec: The deployments.
        api_key: Key for deployments without ``api_key_env`` (else the provider's variable).
    """
    model_list = []
    for deployment in spec.deployments:
        params: dict[str, Any] = {
            "model": deployment.model or model,
            "api_base": deployment.api_base,
        }
        key = os.environ.get(deployment.api_key_env) if deployment.api_key_env else api_key
        if key:
            params["api_key"] = key
        for limit in ("rpm", "tpm"):
            if getattr(deployment, limit) is not None:
                params[limit] = getattr(deployment, limit)
        model_list.append(
            {
                "model_name": FALLBACK_GROUP if deployment.fallback else GROUP,
                "litellm_params": params,
                "model_info": {"id": deployment.label},
            }
        )
    fallbacks = [{GROUP: [FALLBACK_GROUP]}] if any(d.fallback for d in spec.deployments) else []
    # The Router registers each deployment's model in litellm's price map with no price, and
    # litellm then prices its calls at 0.0; the client reports those as unknown instead.
    unpriced = frozenset(
        str(entry["litellm_params"]["model"])
        for entry in model_list
        if not _has_price(litellm, str(entry["litellm_params"]["model"]))
    )
    router = litellm.Router(
        model_list=model_list,
        num_retries=spec.retries,
        allowed_fails=0,
        cooldown_time=spec.cooldown_s,
        retry_after=0,
        routing_strategy=spec.strategy,
        fallbacks=fallbacks,
    )
    router.crmtui_unpriced = unpriced
    return router


def _has_price(litellm: Any, model: str) -> bool:
    """Whether litellm knows a price for ``model`` (it raises for a model it cannot price)."""
    try:
        info = litellm.get_model_info(model)
    except Exception:  # noqa: BLE001 - litellm raises several kinds for unknown models
        return False
    return info.get("input_cost_per_token") is not None
