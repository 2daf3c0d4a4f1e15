"""Fuzz the query engine: >= 100,000 generated, mutated and hostile queries, with a summary.

Queries come from the grammar-aware generator the CI fuzz tests use
(``tests/property/fuzzgen.py``), built from the org's own schema; half run on the org as
built (FTS5 search) and half on a raw copy of it (upstream's layout: no FTS tables, no
metadata, schema inferred), so both search paths and both schema sources are exercised.

Every query ends in one outcome: ``ok``, ``QueryError:<CODE>``, or a failure: ``leak`` (a
message quoting Python/SQLite internals), ``bug`` (UNKNOWN_EXCEPTION), ``crash`` (another
exception escaped) or ``slow``. The summary counts each, lists a few examples of every
failure, and the exit status is 1 if there was any failure::

    .venv/bin/python scripts/fuzz.py                    # 100,000 queries on the sample org
    .venv/bin/python scripts/fuzz.py -n 5000 --seed 3 --json summary.json
"""

from __future__ import annotations

import argparse
import collections
import datetime as dt
import json
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.property.fuzzgen import FAILURES, QueryFuzzer, classify  # noqa: E402

TODAY = dt.date(2024, 5, 1)


def raw_copy(org_path: Path, into: Path) -> Path:
    """A copy of an org in upstream's raw layout: FTS tables and crmtui's metadata dropped."""
    target = into / "raw.db"
    shutil.copyfile(org_path, target)
    conn = sqlite3.connect(target)
    try:
        names = [
            name
            for (name,) in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND "
                "(name LIKE '\\_fts\\_%' ESCAPE '\\' OR name LIKE '\\_crmtui%' ESCAPE '\\')"
            )
        ]
        for name in names:
            conn.execute(f'DROP TABLE IF EXISTS "{name}"')
        conn.commit()
        conn.execute("VACUUM")
    finally:
        conn.close()
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", "--count", type=int, default=100_000, help="queries to run")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--org", default=None, help="org name or path (default: the sample)")
    parser.add_argument("--examples", type=int, default=5, help="examples kept per failure")
    parser.add_argument("--json", type=Path, default=None, help="also write the summary here")
    args = parser.parse_args(argv)

    from crmtui.org.sample import open_org_or_sample
    from crmtui.org.store import Org
    from crmtui.query import QueryBudget, run

    built = open_org_or_sample(args.org)
    budget = QueryBudget(timeout_s=30.0)
    outcomes: collections.Counter[str] = collections.Counter()
    failures: dict[str, list[dict[str, str]]] = collections.defaultdict(list)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        raw = Org.open(raw_copy(Path(built.path), Path(tmp)))
        orgs = [("fts", built, QueryFuzzer(built.schema, args.seed)),
                ("raw", raw, QueryFuzzer(raw.schema, args.seed + 1))]  # fmt: skip
        for i in range(args.count):
            label, org, fuzzer = orgs[i % 2]
            text = fuzzer.next()
            outcome, detail = classify(
                lambda t, org=org: run(org, t, today=TODAY, budget=budget), text
            )
            outcomes[outcome] += 1
            if outcome in FAILURES and len(failures[outcome]) < args.examples:
                failures[outcome].append({"org": label, "query": text[:500], "detail": detail})
            if (i + 1) % 10_000 == 0:
                rate = (i + 1) / (time.perf_counter() - started)
                print(f"  {i + 1:,} queries ({rate:.0f}/s)", file=sys.stderr)
    elapsed = time.perf_counter() - started
    failed = sum(outcomes[f] for f in FAILURES)
    summary: dict[str, Any] = {
        "queries": args.count,
        "seed": args.seed,
        "org": str(built.path),
        "seconds": round(elapsed, 1),
        "outcomes": dict(outcomes.most_common()),
        "ok": outcomes["ok"],
        "query_errors": sum(v for k, v in outcomes.items() if k.startswith("QueryError:")),
        "failures": failed,
        "failure_examples": failures,
    }
    print(f"{args.count:,} queries in {elapsed:.0f} s (seed {args.seed}, org {built.path})")
    for outcome, count in outcomes.most_common():
        marker = "  <- FAILURE" if outcome in FAILURES else ""
        print(f"  {count:>8,}  {outcome}{marker}")
    print(f"failures: {failed}")
    for outcome, examples in failures.items():
        for example in examples:
            print(f"  {outcome} [{example['org']}] {example['detail'][:200]}")
            print(f"      {example['query'][:200]!r}")
    if args.json is not None:
        args.json.write_text(json.dumps(summary, indent=2, ensure_ascii=False), encoding="utf-8")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
