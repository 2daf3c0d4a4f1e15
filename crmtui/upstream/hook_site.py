"""Startup hook for upstream's harness, installed as ``sitecustomize.py`` in the child.

``crmtui upstream run`` copies this file, as ``sitecustomize.py``, into a folder it puts first
on the child Python's ``PYTHONPATH``; Python imports it at start-up, before upstream's code.
It must stand alone (the child may be a venv without crmtui) and it changes nothing on disk.
It redirects two things at the boundary, when (and only if) their modules are imported:

* ``simple_salesforce.Salesforce``: constructed with any arguments (username, password and
  token included), it connects to the local REST API with the session id it was given, over
  a requests session that trusts the local CA and ignores proxy and CA-bundle variables;
* ``datasets.load_dataset``: a call whose dataset, config and split are in the config's
  ``datasets`` table returns those rows (``Dataset.from_list``, so rows take the shapes the
  hub's loader gives them); any other call goes to the real function.

It also times, without changing, every ``litellm.completion`` call (the model calls of
upstream's agents and of its evaluator): one line per call with its start and end, whether it
returned, the task index (``idx``, read from ``run_tasks.py``'s loop) and who called
(``agent`` from ``crm_sandbox/agents``, ``evaluator`` from elsewhere in ``crm_sandbox``), so
imported recordings can place model calls on the time line between the API's requests.

The config is a JSON file named by ``CRMTUI_UPSTREAM_HOOK``; each redirection is appended as
one JSON line to the config's ``log`` file. Another ``sitecustomize`` further on ``sys.path``
(a distribution's own) still runs afterwards.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
import threading
import time
from typing import Any

CONFIG_ENV = "CRMTUI_UPSTREAM_HOOK"


def _load_config() -> dict[str, Any] | None:
    path = os.environ.get(CONFIG_ENV)
    if not path:
        return None
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def _note(config: dict[str, Any], entry: dict[str, Any]) -> None:
    log = config.get("log")
    if log:
        with open(log, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(entry) + "\n")


def _patch_simple_salesforce(module: Any, config: dict[str, Any]) -> None:
    import requests

    original = module.Salesforce
    api = sys.modules.get("simple_salesforce.api")

    class Salesforce(original):  # type: ignore[misc, valid-type]
        """simple-salesforce's client, connected to crmtui's local REST API."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            session = requests.Session()
            session.trust_env = False
            if config.get("ca_path"):
                session.verify = config["ca_path"]
            version = kwargs.get("version") or getattr(api, "DEFAULT_API_VERSION", "59.0")
            _note(config, {"redirected": "simple_salesforce.Salesforce", "version": version})
            super().__init__(
                instance_url=config["instance_url"],
                session_id=config["session_id"],
                session=session,
                version=version,
            )

    Salesforce.__module__ = original.__module__
    module.Salesforce = Salesforce
    if api is not None:
        api.Salesforce = Salesforce


def _patch_datasets(module: Any, config: dict[str, Any]) -> None:
    real = module.load_dataset
    table: dict[str, dict[str, dict[str, str]]] = config.get("datasets", {})

    def load_dataset(path: Any, name: Any = None, *args: Any, **kwargs: Any) -> Any:
        name = kwargs.pop("name", name)
        splits = table.get(str(path), {}).get(str(name)) if name is not None else None
        if splits is None:
            return real(path, name, *args, **kwargs)
        parts = {}
        for split, rows_path in splits.items():
            with open(rows_path, encoding="utf-8") as handle:
                parts[split] = module.Dataset.from_list(json.load(handle))
        _note(
            config,
            {
                "redirected": "datasets.load_dataset",
                "path": path,
                "name": name,
                "rows": {s: len(d) for s, d in parts.items()},
            },
        )
        wanted = kwargs.get("split")
        if wanted is not None:
            return parts[wanted]
        return module.DatasetDict(parts)

    module.load_dataset = load_dataset


def _stamp(moment: float) -> str:
    """The request log's time format: ISO 8601 UTC, milliseconds, ``Z``."""
    whole = int(moment)
    millis = int((moment - whole) * 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole)) + f".{millis:03d}Z"


def _who_called() -> tuple[Any, str]:
    """(task index of run_tasks.py's loop, ``agent``/``evaluator``/``other``) of a model call."""
    task, caller = None, "other"
    frame = sys._getframe(2)
    while frame is not None:
        filename = frame.f_code.co_filename.replace(os.sep, "/")
        if caller == "other" and "/crm_sandbox/" in filename:
            caller = "agent" if "/crm_sandbox/agents/" in filename else "evaluator"
        if frame.f_code.co_name == "run" and filename.endswith("/run_tasks.py"):
            idx = frame.f_locals.get("idx")
            task = idx if isinstance(idx, int | str) else None
            break
        frame = frame.f_back
    return task, caller


def _patch_litellm(module: Any, config: dict[str, Any]) -> None:
    real = module.completion
    depth = threading.local()

    def completion(*args: Any, **kwargs: Any) -> Any:
        # litellm may call itself (fallbacks, retries): only the outermost call is a model call.
        if getattr(depth, "n", 0):
            return real(*args, **kwargs)
        task, caller = _who_called()
        start = time.time()
        ok = False
        depth.n = 1
        try:
            result = real(*args, **kwargs)
            ok = True
            return result
        finally:
            depth.n = 0
            entry = {"event": "model_call", "task_id": task, "caller": caller, "ok": ok}
            entry.update(start=_stamp(start), end=_stamp(time.time()))
            _note(config, entry)

    completion.__wrapped__ = real  # type: ignore[attr-defined]
    module.completion = completion


class _PatchingLoader(importlib.abc.Loader):
    """Runs the real loader, then the patch; everything else goes to the real loader."""

    def __init__(self, loader: Any, patch: Any) -> None:
        self._loader = loader
        self._patch = patch

    def create_module(self, spec: Any) -> Any:
        return self._loader.create_module(spec)

    def exec_module(self, module: Any) -> None:
        self._loader.exec_module(module)
        self._patch(module)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._loader, name)


class _AfterImport(importlib.abc.MetaPathFinder):
    """Finds the named top-level modules as usual and patches them once they are loaded."""

    def __init__(self, patches: dict[str, Any]) -> None:
        self._patches = patches

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        patch = self._patches.get(fullname)
        if patch is None:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.loader is None:
            return None
        spec.loader = _PatchingLoader(spec.loader, patch)
        return spec


def _run_next_sitecustomize() -> None:
    here = os.path.dirname(os.path.abspath(__file__))
    rest = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is not None and spec.loader is not None:
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)


def install() -> None:
    """Install the redirections named by the config (nothing without one)."""
    config = _load_config()
    if config is None:
        return
    sys.meta_path.insert(
        0,
        _AfterImport(
            {
                "simple_salesforce": lambda m: _patch_simple_salesforce(m, config),
                "datasets": lambda m: _patch_datasets(m, config),
                "litellm": lambda m: _patch_litellm(m, config),
            }
        ),
    )


install()
_run_next_sitecustomize()
