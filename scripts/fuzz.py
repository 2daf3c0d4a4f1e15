"""Fuzz the query engine: >= 100,000 generated, mutated and hostile queries, with a summary.

Queries come from the grammar-aware generator the CI fuzz tests use
(``tests/property/fuzzgen.py``), built from the org's own schema; half run on the org as
built (FTS5 search) and half on a raw copy of it (upstream's layout: no FTS tables, no
metadata, schema inferred), so both search paths and both schema sources are exercised.

Every query ends in one outcome: ``ok``, ``QueryError:<CODE>``, or a failure: ``leak`` (a
message quoting Python/SQLite internals), ``bug`` (UNKNOWN_EXCEPTION), ``crash`` (another
exception escaped) or ``slow`` (judged on the CPU time spent, so a loaded machine does not
make a query "slow"; a query past its 30 s budget still ends as QUERY_TIMEOUT). The summary
counts each, lists a few examples of every failure, and the exit status is 1 if there was
any failure::

    .venv/bin/python scripts/fuzz.py                    # 100,000 queries on the sample org
    .venv/bin/python scripts/fuzz.py -n 5000 --seed 3 --json summary.json

The other entry points (``tests/property/fuzz_inputs.py``): ``--tasks N`` hostile task files
loaded as ``--tasks`` would, ``--recordings N`` hostile recordings (byte-mutated, or
structurally mutated and re-chained) through verify, load, replay and the summaries, and
``--cli N`` hostile command lines run in process (``query``, ``tasks``, ``verify``,
``compare``, ``report``, ``export``, ``org build``), ``--replies N`` agent episodes of
hostile model replies (``tests/property/fuzz_agent.py``), ``--tampered N`` recordings edited
as text and ``--orgs N`` damaged org files under ``org info`` and ``query``
(``tests/property/fuzz_damage.py``), and ``--http N`` hostile requests to a running
serve-rest (``tests/property/fuzz_http.py``). Their failures: ``crash``, ``disagree`` (verify
and load disagree), ``unnamed`` (a tampered recording verified as intact and finished),
``traceback``, ``internal``, ``exit`` (a status outside crmtui/exit_codes.py), ``silent``,
``raw`` (a control or bidi character reached the terminal), ``slow``; for replies
``harness``, ``lost`` (the recording fails verify), ``leaked`` (an echoed key was recorded);
for HTTP ``hung``, ``stderr``, ``python``, ``down``::

    .venv/bin/python scripts/fuzz.py -n 0 --tasks 20000 --recordings 20000 --cli 1000 \
        --replies 1000 --tampered 5000 --orgs 500 --http 3000
"""

from __future__ import annotations

import argparse
import collections
import datetime as dt
import json
import multiprocessing
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.property.fuzz_agent import AGENT_FAILURES, ReplyFuzzer, run_episode  # noqa: E402
from tests.property.fuzz_damage import (  # noqa: E402
    check_tampered,
    damaged_org,
    damaged_org_argv,
    tampered_recording,
)
from tests.property.fuzz_http import HTTP_FAILURES, check_http, hostile_request  # noqa: E402
from tests.property.fuzz_inputs import (  # noqa: E402
    INPUT_FAILURES,
    InputFuzzer,
    check_recording,
    check_task_file,
    cli_argv,
    run_cli,
)
from tests.property.fuzzgen import FAILURES, QueryFuzzer, classify  # noqa: E402

TODAY = dt.date(2024, 5, 1)


def _print_outcomes(outcomes: Any, failure_kinds: Any, failed: int) -> None:
    """One line per outcome, most common first, failures marked; then the failure count."""
    for outcome, count in outcomes.most_common():
        marker = "  <- FAILURE" if outcome in failure_kinds else ""
        print(f"  {count:>8,}  {outcome}{marker}")
    print(f"failures: {failed}")


#: Failure outcomes of the non-engine targets.
FAILED = frozenset(INPUT_FAILURES) | frozenset(AGENT_FAILURES) | frozenset(HTTP_FAILURES)


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
    parser.add_argument(
        "--progress", type=Path, default=None, help="folder for per-worker progress snapshots"
    )
    parser.add_argument("--jobs", type=int, default=1, help="processes for the engine queries")
    parser.add_argument("--tasks", type=int, default=0, help="hostile task files to load")
    parser.add_argument("--recordings", type=int, default=0, help="hostile recordings to read")
    parser.add_argument("--cli", type=int, default=0, help="hostile command lines to run")
    parser.add_argument("--replies", type=int, default=0, help="agent episodes of hostile replies")
    parser.add_argument("--tampered", type=int, default=0, help="recordings edited as text")
    parser.add_argument("--orgs", type=int, default=0, help="damaged org files to open")
    parser.add_argument("--http", type=int, default=0, help="hostile requests to serve-rest")
    args = parser.parse_args(argv)
    summaries = {}
    if args.count:
        summaries["engine"] = fuzz_engine(args)
    inputs = (args.tasks, args.recordings, args.cli, args.replies, args.tampered, args.orgs)
    if any(inputs) or args.http:
        summaries.update(fuzz_inputs(args))
    if args.json is not None:
        args.json.write_text(json.dumps(summaries, indent=2, ensure_ascii=False), encoding="utf-8")
    return 1 if any(s["failures"] for s in summaries.values()) else 0


def fuzz_engine(args: argparse.Namespace) -> dict[str, Any]:
    """Run ``args.count`` queries on the org as built and on its raw copy.

    With ``--jobs N`` the count is split over N processes, each with its own seed
    (``seed``, ``seed + 2``, ...), so the total is the same queries a single run with those
    seeds would make.
    """
    from crmtui.org.sample import open_org_or_sample

    built = open_org_or_sample(args.org)  # built once here, not raced by the workers
    jobs = max(1, args.jobs)
    shares = [args.count // jobs + (1 if j < args.count % jobs else 0) for j in range(jobs)]
    progress = str(args.progress) if args.progress else ""
    parts = [
        (str(built.path), args.seed + 2 * j, n, args.examples, progress)
        for j, n in enumerate(shares)
    ]
    started = time.perf_counter()
    if jobs == 1:
        results = [_engine_part(*parts[0])]
    else:
        with multiprocessing.get_context("spawn").Pool(jobs) as pool:
            results = pool.starmap(_engine_part, parts)
    elapsed = time.perf_counter() - started
    outcomes: collections.Counter[str] = collections.Counter()
    failures: dict[str, list[dict[str, str]]] = collections.defaultdict(list)
    for counts, found in results:
        outcomes.update(counts)
        for outcome, examples in found.items():
            failures[outcome].extend(examples[: args.examples - len(failures[outcome])])
    failed = sum(outcomes[f] for f in FAILURES)
    summary: dict[str, Any] = {
        "queries": args.count,
        "seed": args.seed,
        "jobs": jobs,
        "org": str(built.path),
        "seconds": round(elapsed, 1),
        "outcomes": dict(outcomes.most_common()),
        "ok": outcomes["ok"],
        "query_errors": sum(v for k, v in outcomes.items() if k.startswith("QueryError:")),
        "failures": failed,
        "failure_examples": failures,
    }
    print(
        f"{args.count:,} queries in {elapsed:.0f} s "
        f"(seed {args.seed}, {jobs} job(s), org {built.path})"
    )
    _print_outcomes(outcomes, FAILURES, failed)
    for outcome, examples in failures.items():
        for example in examples:
            print(f"  {outcome} [{example['org']}] {example['detail'][:200]}")
            print(f"      {example['query'][:200]!r}")
    return summary


def _engine_part(
    org_path: str, seed: int, count: int, keep: int, progress: str = ""
) -> tuple[dict[str, int], dict[str, list[dict[str, str]]]]:
    """One worker's share: ``count`` queries alternating between the built and raw org."""
    from crmtui.org.store import Org
    from crmtui.query import QueryBudget, run

    built = Org.open(Path(org_path))
    budget = QueryBudget(timeout_s=30.0)
    outcomes: collections.Counter[str] = collections.Counter()
    failures: dict[str, list[dict[str, str]]] = collections.defaultdict(list)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        raw = Org.open(raw_copy(Path(org_path), Path(tmp)))
        orgs = [("fts", built, QueryFuzzer(built.schema, seed)),
                ("raw", raw, QueryFuzzer(raw.schema, seed + 1))]  # fmt: skip
        for i in range(count):
            label, org, fuzzer = orgs[i % 2]
            text = fuzzer.next()
            outcome, detail = classify(
                lambda t, org=org: run(org, t, today=TODAY, budget=budget),
                text,
                clock=time.thread_time,  # CPU spent: the machine may be loaded
            )
            outcomes[outcome] += 1
            if outcome in FAILURES and len(failures[outcome]) < keep:
                failures[outcome].append({"org": label, "query": text[:500], "detail": detail})
            if progress and (i + 1) % 1_000 == 0:
                # A snapshot per worker: a run cut short still has its counts.
                snapshot = {"seed": seed, "done": i + 1, "of": count, "outcomes": outcomes,
                            "failure_examples": failures,
                            "seconds": round(time.perf_counter() - started, 1)}  # fmt: skip
                Path(progress, f"seed-{seed}.json").write_text(json.dumps(snapshot))
            if (i + 1) % 10_000 == 0:
                rate = (i + 1) / (time.perf_counter() - started)
                print(f"  seed {seed}: {i + 1:,} queries ({rate:.0f}/s)", file=sys.stderr)
    return dict(outcomes), dict(failures)


def fuzz_inputs(args: argparse.Namespace) -> dict[str, dict[str, Any]]:
    """Hostile task files, recordings and command lines, each with its own summary."""
    from crmtui.data.instances import Instance
    from crmtui.org.sample import open_org_or_sample, sample_tasks_path

    org = open_org_or_sample(args.org)
    rows = json.loads(sample_tasks_path().read_text(encoding="utf-8"))
    seeds = sorted((Path(__file__).resolve().parents[1] / "recordings").rglob("*.jsonl"))
    fuzzer = InputFuzzer(rows[:20], [p.read_bytes() for p in seeds], args.seed)
    queries = QueryFuzzer(org.schema, args.seed)
    summaries = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        recs = root / "recs"
        recs.mkdir()
        files = {"tasks": root / "tasks.json", "recording": recs / "r.jsonl",
                 "recordings": recs, "out": root / "out.jsonl"}  # fmt: skip

        def task_case(i: int) -> tuple[tuple[str, str], str]:
            suffix, data = fuzzer.task_file()
            path = root / f"tasks{suffix}"
            path.write_bytes(data)
            return check_task_file(path), repr(data[:300])

        def recording_case(i: int) -> tuple[tuple[str, str], str]:
            data = fuzzer.recording()
            files["recording"].write_bytes(data)
            return check_recording(files["recording"]), repr(data[:300])

        def cli_case(i: int) -> tuple[tuple[str, str], str]:
            files["tasks"].write_bytes(fuzzer.task_file()[1])
            files["recording"].write_bytes(fuzzer.recording())
            argv, stdin = cli_argv(fuzzer.rng, queries.next, files)
            if argv[0] == "query":
                argv[1:1] = ["--org", str(org.path), "--today", "2024-05-01"]
            return run_cli(argv, stdin=stdin), repr(argv)[:300]

        instance = Instance.from_row(rows[0])
        replies = ReplyFuzzer(queries.next, args.seed)
        (root / "episodes").mkdir()

        def reply_case(i: int) -> tuple[tuple[str, str], str]:
            strategy = ("react", "act", "tool_call")[i % 3]
            result = run_episode(replies, instance, org, root / "episodes", strategy)
            return result, strategy

        def tampered_case(i: int) -> tuple[tuple[str, str], str]:
            what, data = tampered_recording(fuzzer.rng, fuzzer.recordings)
            files["recording"].write_bytes(data)
            return check_tampered(files["recording"]), what

        def org_case(i: int) -> tuple[tuple[str, str], str]:
            what = damaged_org(fuzzer.rng, Path(org.path), root / "damaged.db")
            argv = damaged_org_argv(fuzzer.rng, root / "damaged.db", queries.next)
            return run_cli(argv), f"{what}: {argv!r}"[:300]

        server = None
        if args.http:
            from crmtui.rest import RestApi, RestServer

            server = RestServer(RestApi(org, "00DFUZZ!fuzz"), request_timeout_s=0.5).start()

        def http_case(i: int) -> tuple[tuple[str, str], str]:
            data, hang_up = hostile_request(fuzzer.rng, "00DFUZZ!fuzz")
            return check_http(server, data, hang_up, "00DFUZZ!fuzz"), repr(data[:200])

        try:
            for name, count, case in (("tasks", args.tasks, task_case),
                                      ("recordings", args.recordings, recording_case),
                                      ("tampered", args.tampered, tampered_case),
                                      ("orgs", args.orgs, org_case),
                                      ("cli", args.cli, cli_case),
                                      ("replies", args.replies, reply_case),
                                      ("http", args.http, http_case)):  # fmt: skip
                if count:
                    summaries[name] = _run_cases(name, count, case, args.examples)
        finally:
            if server is not None:
                server.stop()
    return summaries


def _run_cases(name: str, count: int, case: Any, keep: int) -> dict[str, Any]:
    outcomes: collections.Counter[str] = collections.Counter()
    failures: dict[str, list[dict[str, str]]] = collections.defaultdict(list)
    started = time.perf_counter()
    for i in range(count):
        (outcome, detail), what = case(i)
        outcomes[outcome] += 1
        if outcome in FAILED and len(failures[outcome]) < keep:
            failures[outcome].append({"input": what, "detail": detail[:500]})
    elapsed = time.perf_counter() - started
    failed = sum(outcomes[f] for f in FAILED)
    print(f"{name}: {count:,} inputs in {elapsed:.0f} s")
    _print_outcomes(outcomes, FAILED, failed)
    for outcome, examples in failures.items():
        for example in examples:
            print(f"  {outcome} {example['detail'][:200]}\n      {example['input'][:200]}")
    return {"inputs": count, "seconds": round(elapsed, 1), "outcomes": dict(outcomes),
            "failures": failed, "failure_examples": failures}  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
