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
