"""No method of the UI is called by a name held in a string (#33).

A method found by ``hasattr(screen, "note_activity")`` and called through ``getattr`` is a
route no type checker or reader can follow from the caller to the implementations; rename the
method and the call silently does nothing. The UI reaches screens through types instead
(:mod:`crmtui.ui.screen_roles`). This test states the rule for every module under crmtui/ui:
no attribute is looked up by a computed name, and no literal name looked up is a method
defined in the UI.
"""

from __future__ import annotations

import ast
from pathlib import Path

UI = Path(__file__).resolve().parents[2] / "crmtui" / "ui"
LOOKUPS = ("getattr", "hasattr", "setattr", "delattr")


def _is_property(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(
        (isinstance(d, ast.Name) and d.id in ("property", "cached_property"))
        or (isinstance(d, ast.Attribute) and d.attr in ("setter", "getter", "cached_property"))
        for d in node.decorator_list
    )


def ui_methods(trees: dict[Path, ast.Module]) -> set[str]:
    """Names of the methods (not properties) of every class defined under crmtui/ui."""
    names: set[str] = set()
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                names |= {
                    item.name
                    for item in node.body
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
                    and not _is_property(item)
                    and not item.name.startswith("__")
                }
    return names


def lookups_by_name(tree: ast.Module, methods: set[str]) -> list[tuple[int, str]]:
    """(line, call) of each lookup by a computed name or by the literal name of a UI method."""
    found = []
    for node in ast.walk(tree):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in LOOKUPS
            and len(node.args) >= 2
        ):
            continue
        name = node.args[1]
        literal = isinstance(name, ast.Constant) and isinstance(name.value, str)
        if not literal or name.value in methods:
            found.append((node.lineno, ast.unparse(node)))
    return found


def _parse(paths: list[Path]) -> dict[Path, ast.Module]:
    return {path: ast.parse(path.read_text(encoding="utf-8")) for path in paths}


def test_no_ui_method_is_looked_up_by_name() -> None:
    trees = _parse(sorted(UI.rglob("*.py")))
    methods = ui_methods(trees)
    assert "note_activity" in methods and "goto_record" in methods  # the scan sees the UI
    found = [
        f"{path.relative_to(UI.parent.parent)}:{line}: {call}"
        for path, tree in trees.items()
        for line, call in lookups_by_name(tree, methods)
    ]
    assert found == []


def test_the_rule_catches_both_forms() -> None:
    tree = ast.parse(
        "def f(screen, method):\n"
        "    if hasattr(screen, method):\n"
        "        getattr(screen, method)()\n"
        "    if hasattr(screen, 'goto_record'):\n"
        "        screen.goto_record('x')\n"
        "    return getattr(screen, 'cursor_blink', False)\n"
    )
    found = lookups_by_name(tree, {"goto_record"})
    assert sorted(line for line, _ in found) == [2, 3, 4]
