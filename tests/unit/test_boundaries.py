"""Architecture rules checked mechanically: import boundaries and a fast cold start."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import crmtui

PACKAGE = Path(crmtui.__file__).parent

# module prefix -> packages that only it may import
OWNERS = {
    "textual": "crmtui.ui",
    "datasets": "crmtui.data",
    "litellm": "crmtui.agent",
}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def _module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    return ".".join(rel.parts)


def test_heavy_imports_stay_in_their_package() -> None:
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        module = _module_name(path)
        for imported in _imports(path):
            owner = OWNERS.get(imported)
            if owner and not (module == owner or module.startswith(owner + ".")):
                offenders.append(f"{module} imports {imported}")
    assert offenders == []


def test_help_does_not_import_heavy_packages() -> None:
    code = (
        "import sys; from crmtui.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "heavy = [m for m in ('textual', 'datasets', 'litellm') if m in sys.modules]\n"
        "print('HEAVY=' + ','.join(heavy))"
    )
    out = (
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
        .stdout.strip()
        .splitlines()[-1]
    )
    assert out == "HEAVY="


def test_core_packages_do_not_load_textual() -> None:
    code = (
        "import sys, importlib, pkgutil, crmtui\n"
        "for pkg in ('data', 'org', 'query', 'record', 'scoring', 'agent'):\n"
        "    importlib.import_module('crmtui.' + pkg)\n"
        "print('textual' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == "False"


def _lazy_violations(path: Path, names: set[str]) -> list[str]:
    """Imports of ``names`` that are not statements directly in a function's body."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    allowed: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            allowed.update(id(stmt) for stmt in node.body)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules = [alias.name.split(".")[0] for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            modules = [node.module.split(".")[0]]
        else:
            continue
        if set(modules) & names and id(node) not in allowed:
            found.append(f"{_module_name(path)}:{node.lineno}")
    return found


def test_slow_imports_happen_only_inside_functions() -> None:
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        offenders += _lazy_violations(path, {"litellm", "datasets"})
    assert offenders == []
