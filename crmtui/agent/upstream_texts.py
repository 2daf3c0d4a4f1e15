"""Upstream's own texts, read at run time from an upstream harness folder the user has.

Upstream's harness (SalesforceAIResearch/CRMArena) is CC BY-NC 4.0: crmtui carries none of
its text. Where ``--preset naacl|head`` must send upstream's exact words (the 25 helper
tools' function schemas, and the two query tools ``tool_call_flex`` adds), they are read
from the user's copy of upstream's code by parsing its modules (``ast``; nothing of it is
imported or run, so its dependencies need not be installed).

The folder is, in this order: the one named (``--upstream-dir``), the folders in
``CRMTUI_UPSTREAM_DIR`` (several, separated by ``os.pathsep``), the folders
``crmtui upstream setup`` prepared, and the versions it exported from a clone. A folder
holds one version; the paper's code (``naacl``) answers with ``submit``, HEAD with
``respond``, and that is how the two are told apart here.
"""

from __future__ import annotations

import ast
import json
import os
from functools import lru_cache
from pathlib import Path
from typing import Any

from crmtui import paths
from crmtui.errors import ConfigError

__all__ = ["ENV_VAR", "find_harness", "harness_version", "upstream_tool_specs"]

#: Folders holding upstream's harness, separated by ``os.pathsep``.
ENV_VAR = "CRMTUI_UPSTREAM_DIR"
_FUNCTIONS = Path("crm_sandbox", "env", "functions.py")
_TOOL_LISTS = Path("crm_sandbox", "env", "__init__.py")


def _missing(version: str, sends: str) -> ConfigError:
    return ConfigError(
        f"--preset {version} sends upstream's own {sends}, read from upstream's harness: "
        "clone https://github.com/SalesforceAIResearch/CRMArena and run `crmtui upstream setup "
        f"<folder>{' --version naacl' if version == 'naacl' else ''}`, or name the folder with "
        f"--upstream-dir (or {ENV_VAR})"
    )


def _tool_lists(folder: Path) -> dict[str, list[str]]:
    """``TOOLS`` and ``TOOLS_FULL`` of upstream's ``crm_sandbox/env/__init__.py``, by name."""
    tree = ast.parse((folder / _TOOL_LISTS).read_text(encoding="utf-8"))
    lists: dict[str, list[str]] = {}

    def names(node: ast.expr) -> list[str]:
        if isinstance(node, ast.List):
            return [n.id for n in node.elts if isinstance(n, ast.Name)]
        if isinstance(node, ast.Name):
            return list(lists.get(node.id, []))
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return names(node.left) + names(node.right)
        raise ConfigError(f"cannot read the tool lists of {folder / _TOOL_LISTS}")

    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name) and target.id in ("TOOLS", "TOOLS_FULL"):
                lists[target.id] = names(node.value)
    if "TOOLS" not in lists or "TOOLS_FULL" not in lists:
        raise ConfigError(f"{folder / _TOOL_LISTS} has no TOOLS and TOOLS_FULL lists")
    return lists


def _tool_infos(folder: Path) -> dict[str, dict[str, Any]]:
    """Every ``<function>.__info__ = {...}`` literal of upstream's ``functions.py``."""
    tree = ast.parse((folder / _FUNCTIONS).read_text(encoding="utf-8"))
    infos: dict[str, dict[str, Any]] = {}
    for node in tree.body:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
            continue
        target = node.targets[0]
        if (
            isinstance(target, ast.Attribute)
            and target.attr == "__info__"
            and isinstance(target.value, ast.Name)
        ):
            try:
                infos[target.value.id] = ast.literal_eval(node.value)
            except ValueError:
                raise ConfigError(
                    f"cannot read {target.value.id}.__info__ in {folder / _FUNCTIONS}"
                ) from None
    return infos


def harness_version(folder: Path) -> str | None:
    """``naacl`` or ``head`` for an upstream harness folder (``None``: not one)."""
    try:
        tools = _tool_lists(folder)["TOOLS"]
    except (OSError, SyntaxError, ConfigError):
        return None
    if "submit" in tools:
        return "naacl"
    return "head" if "respond" in tools else None


def _candidates(named: str | Path | None) -> list[Path]:
    if named is not None:
        return [Path(named).expanduser()]
    found = [Path(p).expanduser() for p in os.environ.get(ENV_VAR, "").split(os.pathsep) if p]
    base = paths.home() / "upstream"
    if base.is_dir():
        for environment in sorted(base.glob("*/crmtui-environment.json")):
            try:
                folder = json.loads(environment.read_text(encoding="utf-8")).get("folder")
            except (OSError, ValueError, AttributeError):
                continue
            if isinstance(folder, str):
                found.append(Path(folder))
        found += sorted((base / "src").glob("*")) if (base / "src").is_dir() else []
    return found


def find_harness(
    version: str, named: str | Path | None = None, *, sends: str = "tool schemas"
) -> Path:
    """The upstream harness folder holding ``version`` (``naacl`` or ``head``).

    Args:
        version: The harness version wanted.
        named: A folder the user named (``--upstream-dir``); only it is looked at.
        sends: What the caller reads from the harness, for the message when there is none
            ("--preset head sends upstream's own <sends>, ...").

    Raises:
        ConfigError: No such folder (one line saying how to get one), or the named folder
            is not upstream's or holds the other version.
    """
    for folder in _candidates(named):
        found = harness_version(folder)
        if found == version:
            return folder.resolve()
        if named is not None:
            what = "is not upstream's CRMArena harness" if found is None else f"holds {found}"
            raise ConfigError(
                f"--upstream-dir {folder} {what}, not upstream's {version} code "
                f"(crm_sandbox/env/functions.py and __init__.py)"
            )
    raise _missing(version, sends)


@lru_cache(maxsize=8)
def _specs(folder: str, full: bool) -> str:
    lists = _tool_lists(Path(folder))
    infos = _tool_infos(Path(folder))
    names = lists["TOOLS_FULL" if full else "TOOLS"]
    absent = [name for name in names if name not in infos]
    if absent:
        raise ConfigError(f"{folder} has no tool schema for {', '.join(absent)}")
    return json.dumps([infos[name] for name in names])


def upstream_tool_specs(
    version: str, *, full: bool = False, named: str | Path | None = None
) -> list[dict[str, Any]]:
    """Upstream's ``env.tools_info``: the function schemas its ToolEnv sends, in its order.

    Args:
        version: ``naacl`` or ``head``.
        full: ``TOOLS_FULL`` (``tool_call_flex``: the helpers plus the two query tools).
        named: The folder the user named, if any.

    Returns:
        A fresh list of ``{"type": "function", "function": {...}}`` dicts.
    """
    folder = find_harness(version, named)
    specs: list[dict[str, Any]] = json.loads(_specs(str(folder), full))
    return specs
