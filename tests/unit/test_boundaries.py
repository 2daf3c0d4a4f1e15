"""Architecture rules checked mechanically: layers, no import cycles, heavy imports, cold start."""

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
        "for pkg in ('data', 'org', 'query', 'record', 'scoring', 'play', 'agent', 'review',\n"
        "            'study', 'study.report', 'study.render', 'serve', 'ui.web'):\n"
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


# ---------------------------------------------------------------------------------------
# layers: each module imports only its own layer or layers below it

#: Bottom to top. A module may import modules of its own layer and of the layers below it,
#: never above. ``crmtui.x`` covers that module or package and everything under it (the
#: longest match wins); ``=crmtui.x`` covers that module (or package ``__init__``) alone.
LAYERS: list[tuple[str, ...]] = [
    (
        "=crmtui",
        "crmtui.errors",
        "crmtui.exit_codes",
        "crmtui.paths",
        "crmtui.config",
        "crmtui.limits",
        "crmtui.flock",
        "crmtui.secrets",
        "crmtui.crash",
        "crmtui.startup",
        "crmtui.sanitise",
        "crmtui.value_class",
    ),
    ("crmtui.data",),
    ("crmtui.org",),
    # query: what both languages share, then SOQL, then SOSL (built on SOQL), then run()
    (
        "crmtui.query.value_class",
        "crmtui.query.lark_setup",
        "crmtui.query.errors",
        "crmtui.query.boundary",
        "crmtui.query.budget",
        "crmtui.query.results",
        "crmtui.query.observation",
        "crmtui.query.grammar",
        "crmtui.query.connection",
    ),
    ("crmtui.query.soql",),
    ("crmtui.query.sosl",),
    ("=crmtui.query", "crmtui.query.dispatch", "crmtui.query.wire"),
    ("crmtui.record",),
    ("crmtui.scoring",),
    ("crmtui.play",),
    ("crmtui.agent",),
    # the local Salesforce REST API over the engine, then upstream's harness driven through it
    ("crmtui.rest",),
    ("crmtui.upstream",),
    ("crmtui.review",),
    ("crmtui.study",),
    ("crmtui.serve",),
    ("crmtui.ui",),
    ("=crmtui.factory",),
    ("crmtui.commands",),
    ("=crmtui.cli",),
]

#: Packages that sit side by side although the table lists one above the other: neither
#: may import the other.
INDEPENDENT: list[tuple[str, str]] = [
    ("crmtui.org", "crmtui.query"),
    ("crmtui.record", "crmtui.query"),
    ("crmtui.record", "crmtui.scoring"),
]

_IMPORT_CALLS = {"import_module", "__import__", "find_spec"}


def _all_modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        name = _module_name(path)
        found[name.removesuffix(".__init__")] = path
    return found


def _target(name: str, modules: dict[str, Path]) -> str | None:
    """The crmtui module an imported name lands in (a submodule, else its package)."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def _module_imports(module: str, path: Path, modules: dict[str, Path]) -> dict[str, int]:
    """crmtui modules ``module`` imports -> first line, counting every import statement.

    Function-level and ``TYPE_CHECKING`` imports count, and so do
    ``importlib.import_module("crmtui...")`` (and ``__import__``, ``find_spec``) calls with a
    literal name: a dependency is a dependency wherever it is written.
    """
    tree = ast.parse(path.read_text(encoding="utf-8"))
    is_package = path.name == "__init__.py"
    found: dict[str, int] = {}

    def add(name: str, line: int) -> None:
        target = _target(name, modules) if name.split(".")[0] == "crmtui" else None
        if target is not None and target != module:
            found.setdefault(target, line)

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = module.split(".")[: len(module.split(".")) - node.level + is_package]
                base = ".".join([*parts, base] if base else parts)
            for alias in node.names:
                full = f"{base}.{alias.name}"
                add(full if full in modules else base, node.lineno)
        elif isinstance(node, ast.Call) and node.args:
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            first = node.args[0]
            if (
                called in _IMPORT_CALLS
                and isinstance(first, ast.Constant)
                and isinstance(first.value, str)
            ):
                add(first.value, node.lineno)
    return found


def _import_graph() -> dict[str, dict[str, int]]:
    modules = _all_modules()
    return {name: _module_imports(name, path, modules) for name, path in modules.items()}


def _covers(pattern: str, module: str) -> bool:
    if pattern.startswith("="):
        return module == pattern[1:]
    return module == pattern or module.startswith(pattern + ".")


def _layer_of(module: str) -> int | None:
    best: tuple[int, int] | None = None  # (pattern length, layer)
    for layer, patterns in enumerate(LAYERS):
        for pattern in patterns:
            if _covers(pattern, module) and (best is None or len(pattern) > best[0]):
                best = (len(pattern), layer)
    return None if best is None else best[1]


def test_every_module_has_a_layer() -> None:
    missing = sorted(m for m in _all_modules() if _layer_of(m) is None)
    assert missing == [], "add these modules to LAYERS in tests/unit/test_boundaries.py"


def upward_imports(graph: dict[str, dict[str, int]]) -> list[str]:
    """Every import of a module in a higher layer, or across an INDEPENDENT pair."""
    offenders = []
    for module, imports in sorted(graph.items()):
        layer = _layer_of(module)
        for target, line in sorted(imports.items()):
            other = _layer_of(target)
            if layer is not None and other is not None and other > layer:
                offenders.append(f"{module}:{line} imports {target} (a higher layer)")
            for a, b in INDEPENDENT:
                for mine, theirs in ((a, b), (b, a)):
                    if _covers(mine, module) and _covers(theirs, target):
                        offenders.append(f"{module}:{line} imports {target} ({mine} | {theirs})")
    return offenders


def test_no_module_imports_a_higher_layer() -> None:
    assert upward_imports(_import_graph()) == []


def import_cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, {}):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                cycles.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(cycles)


def test_no_import_cycles() -> None:
    # A package __init__ that re-exports its modules is part of the graph: a module that
    # imports its own package's face (``from crmtui.record import X`` inside record/) closes a
    # cycle through it, which this catches too.
    assert import_cycles(_import_graph()) == []


def test_the_checks_see_hidden_and_function_level_imports(tmp_path: Path) -> None:
    graph = {
        "crmtui.data.loaders": {"crmtui.org.sample": 1},
        "crmtui.org.sample": {"crmtui.org.store": 1},
        "crmtui.org.store": {"crmtui.org.sample": 2},
    }
    assert upward_imports(graph) == [
        "crmtui.data.loaders:1 imports crmtui.org.sample (a higher layer)"
    ]
    assert import_cycles(graph) == [["crmtui.org.sample", "crmtui.org.store"]]
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import importlib\n"
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from crmtui.review.compare import Comparison\n"
        "def f():\n    from crmtui.play import views\n"
        "    return importlib.import_module('crmtui.org.sample')\n",
        encoding="utf-8",
    )
    found = _module_imports("crmtui.data.probe", probe, _all_modules())
    assert found == {"crmtui.review.compare": 4, "crmtui.play.views": 6, "crmtui.org.sample": 7}
