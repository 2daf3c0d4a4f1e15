"""Docstrings say why, docs/performance.md says how much (#33).

Measured numbers go stale as the code and the machine change; quoted in a docstring they
are read as facts long after. Every measurement lives on the performance page, with the
machine and load it was taken at; a docstring refers to it. This test finds docstrings under
crmtui/ that quote one: a duration in ms or µs, CPU time, a speed-up, a load average, a
percentile or median, or gigabytes.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "crmtui"
MEASUREMENT = re.compile(
    r"\d ?(ms|µs)\b"
    r"|\d(\.\d+)? ?s of CPU"
    r"|\d+(\.\d+)?x (faster|slower)"
    r"|\bload (average )?\d"
    r"|\bp95\b|\bmedian \d"
    r"|\d(\.\d+)? ?GB\b"
)


def measurements(source: str) -> list[tuple[str, str]]:
    """(name, quoted number) of each docstring in ``source`` that quotes a measurement."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=False) or ""
            found += [
                (getattr(node, "name", "<module>"), m.group(0)) for m in MEASUREMENT.finditer(doc)
            ]
    return found


def test_no_docstring_quotes_a_measurement() -> None:
    quoted = [
        f"{path.relative_to(PACKAGE.parent)}: {name}: {number!r}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for name, number in measurements(path.read_text(encoding="utf-8"))
    ]
    assert quoted == []


def test_the_rule_sees_a_measurement() -> None:
    source = '"""Opens in ~30 ms (load 2.1), 3x faster."""\ndef f():\n    """p95 25 ms."""\n'
    assert [n for _, n in measurements(source)] == ["0 ms", "load 2", "3x faster", "p95", "5 ms"]
