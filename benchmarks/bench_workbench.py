"""Benchmark the annotator workbench: the value viewer and the compute tool.

Two measurements, each against the target from the workbench issue (#9)::

    .venv/bin/python benchmarks/bench_workbench.py              # both; builds the full org once
    .venv/bin/python benchmarks/bench_workbench.py --only viewer --opens 15

(a) ``viewer``: a 100 KB value (2,000 lines of chat-like text) opened in the value viewer
    inside a headless Textual app at 160x48: the time from ``push_screen`` until the
    viewer's first frame has been drawn, median of ``--opens`` runs, target < 50 ms. The
    same is measured for a 6 KB value, one screenful (what drawing a full modal of text
    costs whatever the value's size), and the difference is reported as the price of the
    value's size. The pure part (wrapping the 100 KB to the screen width and finding every
    match of a word) is timed on its own.
(b) ``compute``: on the ``full`` org (71,000 OrderItems; built once with
    ``build_org(scale="full")`` and cached under ``--cache``), ``run_compute`` of
    sum(Quantity) per Product2Id over every OrderItem, through the engine (the browser
    view's full-row SOQL), median of ``--computes`` runs, target < 200 ms; beside it the
    engine's own time for that query (the floor the computation adds to), and
    avg(ClosedDate - CreatedDate) per OwnerId over every Case.

Prints a table, then one JSON line with every number (``"bench": "workbench"``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

TARGETS_MS = {"viewer_open_100kb": 50.0, "compute_orderitems_by_product": 200.0}
Row = tuple[str, str, str, str, str]


def _text(size: int, seed: int = 1) -> str:
    rng = random.Random(seed)
    words = [
        "the",
        "customer",
        "asked",
        "about",
        "a",
        "refund",
        "for",
        "the",
        "order",
        "shipping",
        "delayed",
        "agent",
    ]
    lines, total, n = [], 0, 0
    while total < size:
        who = "Agent" if n % 2 else "Customer"
        line = f"{who}: " + " ".join(rng.choice(words) for _ in range(rng.randint(3, 30)))
        lines.append(line)
        total += len(line) + 1
        n += 1
    return "\n".join(lines)[:size]


# -- (a) the value viewer ------------------------------------------------------------------


async def _open_times(texts: dict[str, str], opens: int) -> dict[str, list[float]]:
    """Open times per text, plus ``bare``: a one-label modal, Textual's own floor."""
    from textual.app import App
    from textual.screen import ModalScreen
    from textual.widgets import Label

    from crmtui.play.cells import ValueRef
    from crmtui.ui.screens.viewer import ValueViewerScreen

    class Timed(ValueViewerScreen):
        # CSS_PATH is relative to the defining module: point at the real stylesheet.
        CSS_PATH = str(
            Path(__file__).resolve().parents[1] / "crmtui" / "ui" / "screens" / "viewer.tcss"
        )

        def __init__(self, text: str, painted: asyncio.Future[float]) -> None:
            super().__init__(text, ValueRef("record", "Body", "LiveChatTranscript", "570x"))
            self.painted = painted

        def on_mount(self) -> None:
            super().on_mount()
            self.call_after_refresh(lambda: self.painted.set_result(time.perf_counter()))

    class Bare(ModalScreen[None]):
        """A modal with one label: what Textual itself costs to show any screen."""

        def __init__(self, painted: asyncio.Future[float]) -> None:
            super().__init__()
            self.painted = painted

        def compose(self) -> Any:
            yield Label("a modal screen")

        def on_mount(self) -> None:
            self.call_after_refresh(lambda: self.painted.set_result(time.perf_counter()))

    class Bench(App[None]):
        pass

    times: dict[str, list[float]] = {name: [] for name in [*texts, "bare"]}
    app = Bench()
    async with app.run_test(size=(160, 48)) as pilot:
        for _ in range(opens + 1):  # the first round warms up CSS parsing and imports
            for name, text in [*texts.items(), ("bare", None)]:
                painted: asyncio.Future[float] = asyncio.get_running_loop().create_future()
                started = time.perf_counter()
                app.push_screen(Timed(text, painted) if text is not None else Bare(painted))
                done = await painted
                times[name].append((done - started) * 1000)
                app.pop_screen()
                await pilot.pause()
    return {name: values[1:] for name, values in times.items()}


def bench_viewer(args: argparse.Namespace) -> tuple[dict[str, Any], list[Row]]:
    from crmtui.play.textview import find_all, wrap

    big = _text(100_000)
    pure = []
    for _ in range(20):
        started = time.perf_counter()
        wrap(big, 150)
        find_all(big, "refund")
        pure.append((time.perf_counter() - started) * 1000)
    times = asyncio.run(_open_times({"small": _text(6_000), "big": big}, args.opens))
    small, large = statistics.median(times["small"]), statistics.median(times["big"])
    data = {
        "viewer_open_100kb": round(large, 2),
        "viewer_open_6kb_screenful": round(small, 2),
        "viewer_size_cost": round(large - small, 2),
        "bare_modal": round(statistics.median(times["bare"]), 2),
        "wrap_and_find_100kb": round(statistics.median(pure), 2),
        "runs": len(times["big"]),
    }
    target = TARGETS_MS["viewer_open_100kb"]
    rows: list[Row] = [
        ("viewer: open 100 KB, first frame", f"{large:.1f} ms", f"< {target:.0f} ms",
         "ok" if large < target else "MISSED", f"median of {len(times['big'])}"),
        ("viewer: open 6 KB (one screenful)", f"{small:.1f} ms", "", "", "baseline"),
        ("viewer: cost of the 100 KB", f"{large - small:.1f} ms", "", "", "difference"),
        ("a bare one-label modal (Textual's floor)", f"{statistics.median(times['bare']):.1f} ms",
         "", "", "same run"),
        ("wrap 100 KB to 150 cols + find a word", f"{statistics.median(pure):.2f} ms", "", "",
         "pure core"),
    ]  # fmt: skip
    return data, rows


# -- (b) the compute tool ------------------------------------------------------------------


def full_org(cache: Path) -> Path:
    """The full org under ``cache``, built the first time (a few seconds)."""
    from crmtui.org.build import build_org

    path = cache / "full.db"
    if path.exists():
        return path
    cache.mkdir(parents=True, exist_ok=True)
    print(f"building the full org in {path} ...", file=sys.stderr)
    build_org(path, scale="full", name="full")
    return path


def _median_ms(fn: Any, runs: int) -> tuple[float, Any]:
    fn()  # warm-up: grammar and plan cached, pages in the OS cache
    times, last = [], None
    for _ in range(runs):
        started = time.perf_counter()
        last = fn()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times), last


def bench_compute(args: argparse.Namespace) -> tuple[dict[str, Any], list[Row]]:
    from crmtui.org.store import Org
    from crmtui.play.compute import ComputeSpec, run_compute, view_query
    from crmtui.play.views import TableView
    from crmtui.query import run

    org = Org.open(full_org(args.cache))
    items = ComputeSpec("sum", group_by="Product2Id", field="Quantity")
    query = view_query(org.schema, TableView("OrderItem"), items)
    ms_items, run_items = _median_ms(lambda: run_compute(org, query, items), args.computes)
    ms_engine, _ = _median_ms(lambda: run(org, query), args.computes)
    cases = ComputeSpec("avg", group_by="OwnerId", start="CreatedDate", end="ClosedDate")
    case_query = view_query(org.schema, TableView("Case"), cases)
    ms_cases, run_cases = _median_ms(lambda: run_compute(org, case_query, cases), args.computes)
    target = TARGETS_MS["compute_orderitems_by_product"]
    data = {
        "compute_orderitems_by_product": round(ms_items, 2),
        "engine_query_alone": round(ms_engine, 2),
        "orderitems": run_items.result.input_rows,
        "products": len(run_items.result.rows),
        "compute_case_duration_by_owner": round(ms_cases, 2),
        "cases": run_cases.result.input_rows,
    }
    rows: list[Row] = [
        (f"compute: sum(Quantity) by Product2Id, {run_items.result.input_rows:,} OrderItems",
         f"{ms_items:.1f} ms", f"< {target:.0f} ms", "ok" if ms_items < target else "MISSED",
         f"{len(run_items.result.rows)} groups, median of {args.computes}"),
        ("  the engine's query alone (its rows)", f"{ms_engine:.1f} ms", "", "",
         f"compute = {ms_items / ms_engine:.2f}x"),
        (f"compute: avg(Closed - Created) by OwnerId, {run_cases.result.input_rows:,} Cases",
         f"{ms_cases:.1f} ms", "", "", f"{len(run_cases.result.rows)} groups"),
    ]  # fmt: skip
    return data, rows


PARTS = {"viewer": ("viewer", bench_viewer), "compute": ("compute", bench_compute)}


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--opens", type=int, default=9, help="viewer opens to time")
    parser.add_argument("--computes", type=int, default=9, help="computations to time")
    parser.add_argument(
        "--cache", type=Path, default=Path("/tmp/crmtui-bench"), help="where orgs are cached"
    )
    parser.add_argument("--only", default=",".join(PARTS), help="comma list of parts to run")
    args = parser.parse_args()
    wanted = [p.strip() for p in args.only.split(",") if p.strip()]
    unknown = [p for p in wanted if p not in PARTS]
    if unknown:
        parser.error(f"unknown part {unknown[0]!r} (choose from {', '.join(PARTS)})")
    rows: list[Row] = []
    result: dict[str, Any] = {"bench": "workbench"}
    for part in PARTS:
        if part in wanted:
            key, run = PARTS[part]
            result[key], part_rows = run(args)
            rows.extend(part_rows)
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    for r in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(r[:4], widths, strict=True)), r[4])
    result["targets_met"] = all(r[3] == "ok" for r in rows if r[3])
    print(json.dumps(result, sort_keys=True))


if __name__ == "__main__":
    main()
