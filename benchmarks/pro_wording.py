"""Per task type, how many different question texts a task file holds, beside the real file's.

Usage: python benchmarks/pro_wording.py REAL_TASKS.json OURS.tasks.json [MORE.tasks.json ...]

Issue #32 holds each type's count within a factor of 3 of the real CRMArena-Pro b2b file's
(its text is read here, never copied). A count is of distinct ``query`` strings per type, so
a question that names a product or a period counts each filling; the record-based types
(whose queries name nothing) count their phrasings.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path


def distinct_queries(path: Path) -> dict[str, int]:
    """Task type -> distinct query texts in the task file at ``path``."""
    seen: dict[str, set[str]] = defaultdict(set)
    for row in json.loads(path.read_text(encoding="utf-8")):
        seen[row["task"]].add(row["query"])
    return {task: len(texts) for task, texts in seen.items()}


def main(argv: list[str]) -> int:
    """Print one line per type: the real count, ours per file, and the widest ratio."""
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[2])
        return 2
    real = distinct_queries(Path(argv[0]))
    ours = [distinct_queries(Path(p)) for p in argv[1:]]
    worst = 0.0
    for task, count in real.items():
        counts = [o.get(task, 0) for o in ours]
        ratio = max(max(count, c) / max(1, min(count, c)) for c in counts)
        worst = max(worst, ratio)
        print(f"{task:34} real {count:3}  ours {' '.join(f'{c:3}' for c in counts)}  x{ratio:.1f}")
    print(f"widest ratio: x{worst:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
