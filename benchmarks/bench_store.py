"""Benchmark the org store: write throughput, open, digest, FTS match and point lookups.

Synthetic rows (no generator needed) are spread over five builtin objects so writing also
exercises the reference indexes and the full-text tables::

    .venv/bin/python benchmarks/bench_store.py                # 100k and 1M rows
    .venv/bin/python benchmarks/bench_store.py --rows 100000  # one size

Each size is written to a temp dir that is removed afterwards.
"""

from __future__ import annotations

import argparse
import random
import shutil
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from crmtui.data.schema import builtin_schema
from crmtui.org.digest import compute_digest
from crmtui.org.store import Org, write_org

# Share of the rows each object gets.
SHARES = {"Account": 0.1, "Case": 0.2, "CaseHistory__c": 0.1, "EmailMessage": 0.2, "OrderItem": 0.4}
WORDS = [
    "zipper",
    "broken",
    "delayed",
    "delivery",
    "refund",
    "size",
    "chart",
    "mismatch",
    "wrong",
    "item",
    "jacket",
    "shoes",
    "tent",
    "return",
    "label",
    "damaged",
    "transit",
    "color",
    "photos",
    "missing",
    "parts",
    "fabric",
    "pilling",
    "order",
    "status",
]


def _id(prefix: str, i: int) -> str:
    return f"{prefix}Ws{i:013d}"


def _text(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def _date(i: int) -> str:
    return f"2024-{i % 12 + 1:02d}-{i % 28 + 1:02d}T{i % 24:02d}:15:00.000+0000"


def tables(total: int, seed: int = 1) -> dict[str, Iterator[dict[str, str | None]]]:
    """Row generators for ``total`` rows in all (streamed, never held in memory).

    Texts come from small pre-drawn pools so that generating rows costs far less than
    storing them: the benchmark measures the store, not ``random``.
    """
    rng = random.Random(seed)
    n = {name: max(1, int(total * share)) for name, share in SHARES.items()}
    pool = 4096
    subjects = [_text(rng, 4) for _ in range(pool)]
    bodies = [_text(rng, 20) for _ in range(pool)]
    emails = [_text(rng, 40) for _ in range(pool)]
    names = [w.title() for w in WORDS]

    def accounts() -> Iterator[dict[str, str | None]]:
        for i in range(n["Account"]):
            yield {
                "Id": _id("001", i),
                "FirstName": names[i % len(names)],
                "LastName": names[(i * 7) % len(names)],
                "ShippingState": ("CA", "TX", "NY", "WA")[i % 4],
            }

    def cases() -> Iterator[dict[str, str | None]]:
        for i in range(n["Case"]):
            yield {
                "Id": _id("500", i),
                "AccountId": _id("001", i % n["Account"]),
                "CreatedDate": _date(i),
                "Subject": subjects[(i * 7919) % pool],
                "Description": bodies[(i * 104729) % pool],
                "Status": ("New", "Working", "Closed")[i % 3],
            }

    def history() -> Iterator[dict[str, str | None]]:
        for i in range(n["CaseHistory__c"]):
            yield {
                "Id": _id("a0H", i),
                "CaseId__c": _id("500", i % n["Case"]),
                "CreatedDate": _date(i),
                "Field__c": "Case Creation",
            }

    def messages() -> Iterator[dict[str, str | None]]:
        for i in range(n["EmailMessage"]):
            yield {
                "Id": _id("02s", i),
                "ParentId": _id("500", i % n["Case"]),
                "Subject": subjects[(i * 31) % pool],
                "TextBody": emails[(i * 7919) % pool],
                "MessageDate": _date(i),
            }

    def items() -> Iterator[dict[str, str | None]]:
        for i in range(n["OrderItem"]):
            yield {
                "Id": _id("802", i),
                "OrderId": _id("801", i // 3),
                "Product2Id": _id("01t", i % 50),
                "Quantity": f"{i % 5 + 1}.0",
                "UnitPrice": f"{(i % 400) + 0.99:.2f}",
            }

    return {
        "Account": accounts(),
        "Case": cases(),
        "CaseHistory__c": history(),
        "EmailMessage": messages(),
        "OrderItem": items(),
    }


def _median_ms(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def bench(total: int, workdir: Path) -> dict[str, float]:
    """Run every measurement for one org size."""
    path = workdir / f"bench-{total}.db"
    start = time.perf_counter()
    generated = sum(1 for rows in tables(total).values() for _ in rows)
    generate_s = time.perf_counter() - start
    start = time.perf_counter()
    org = write_org(path, builtin_schema(), tables(total), {"created_at": "bench"})
    write_s = time.perf_counter() - start
    rows = sum(org.count(name) for name in SHARES)
    assert rows == generated

    open_ms = _median_ms(lambda: Org.open(path), 5)

    conn = org.connect()
    digest_ms = _median_ms(lambda: compute_digest(conn), 1 if total > 200_000 else 3)
    fts_sql = 'SELECT Id FROM "_fts_Case" WHERE "_fts_Case" MATCH ? LIMIT 200'
    fts_ms = _median_ms(lambda: conn.execute(fts_sql, ("zipper refund",)).fetchall(), 20)
    count_sql = 'SELECT count(*) FROM "_fts_EmailMessage" WHERE "_fts_EmailMessage" MATCH ?'
    fts_count_ms = _median_ms(lambda: conn.execute(count_sql, ('"wrong item"',)).fetchone(), 5)
    rng = random.Random(3)
    ids = [_id("500", rng.randrange(int(total * SHARES["Case"]))) for _ in range(2000)]
    lookup = 'SELECT * FROM "Case" WHERE Id = ?'
    start = time.perf_counter()
    for case_id in ids:
        conn.execute(lookup, (case_id,)).fetchone()
    lookup_ms = (time.perf_counter() - start) * 1000 / len(ids)
    child_sql = 'SELECT count(*) FROM "EmailMessage" WHERE ParentId = ?'
    child_ms = _median_ms(lambda: conn.execute(child_sql, (ids[0],)).fetchone(), 50)
    conn.close()
    return {
        "rows": rows,
        "write_s": write_s,
        "rows_per_s": rows / write_s,
        "generate_s": generate_s,
        "store_rows_per_s": rows / max(write_s - generate_s, 1e-9),
        "size_mb": path.stat().st_size / 1e6,
        "open_ms": open_ms,
        "digest_ms": digest_ms,
        "fts_match_ms": fts_ms,
        "fts_phrase_count_ms": fts_count_ms,
        "id_lookup_ms": lookup_ms,
        "child_by_ref_ms": child_ms,
    }


def main() -> None:
    """Parse arguments, run the sizes, print one table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="*", default=[100_000, 1_000_000])
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="crmtui-bench-store-"))
    try:
        results = [bench(total, workdir) for total in args.rows]
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print(f"SQLite {sqlite3.sqlite_version}")
    keys = list(results[0])
    print("metric".ljust(22) + "".join(f"{r['rows']:>16,.0f}" for r in results))
    for key in keys[1:]:
        print(key.ljust(22) + "".join(f"{r[key]:>16,.3f}" for r in results))


if __name__ == "__main__":
    main()
