"""Benchmark the annotator workbench: the value viewer and the compute tool.

Two measurements, each against the target from the workbench issue (#9)::

    .venv/bin/python benchmarks/bench_workbench.py              # both; builds the full org once
    .venv/bin/python benchmarks/bench_workbench.py --only viewer --opens 15

(a) ``viewer``: a 100 KB value (2,000 lines of chat-like text) opened in the value viewer
    of the real play app at 160x48: the time from the ``v`` key until the viewer's first
    frame showing the value has been composed, median of ``--opens`` runs, target < 50 ms;
    the app's first open (its viewer mounted ahead, while the record is read) on its own
    line, and beside them a one-label modal built and pushed over the same screen (what a
    new screen costs in Textual). The pure part (wrapping the 100 KB to the screen width
    and finding every match of a word) is timed on its own.
(b) ``compute``: on the ``full`` org (71,000 OrderItems; built once with
    ``build_org(scale="full")`` and cached under ``--cache``), ``run_compute`` of
    sum(Quantity) per Product2Id over every OrderItem, through the engine (the browser
    view's SOQL without paging, selecting the two columns), median of ``--computes`` runs
    with its CPU time, target < 200 ms; beside it the engine's time to return that query
    as records (``run``: what computing cost before it read columns straight from the
    rows), and avg(ClosedDate - CreatedDate) per OwnerId over every Case.

Prints a table, then one JSON line with every number (``"bench": "workbench"``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
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


def viewer_home(cache: Path, size: int) -> tuple[Path, str]:
    """A CRMTUI_HOME whose sample org has one chat transcript of ``size`` characters.

    Returns the home and the Id of the Case whose transcript it is (the first policy-violation
    instance's case). Built once under ``cache``.
    """
    import os
    import sqlite3

    home = cache / "viewer-home"
    os.environ["CRMTUI_HOME"] = str(home)
    from crmtui.org.sample import ensure_sample
    from crmtui.org.task_match import load_sources

    org = ensure_sample()
    tasks = load_sources(None, None, force=False, progress=lambda *_: None).tasks
    inst = next(i for i in tasks if i.task == "policy_violation_identification")
    case_id = inst.context_ids["Case Id"]
    conn = sqlite3.connect(org.path)
    with conn:
        conn.execute(
            "UPDATE LiveChatTranscript SET Body = ? WHERE CaseId = ?", (_text(size), case_id)
        )
    conn.close()
    return home, case_id


async def _open_times(cache: Path, opens: int, profiler: Any = None) -> dict[str, Any]:
    """Wall and CPU milliseconds from the ``v`` key to the viewer's first frame.

    The real play app on the sample org at 160x48, a policy-violation instance open, the
    record panel of its chat transcript focused on the 100 KB Body: each round posts the key
    (as the terminal driver does), waits until a frame of the viewer showing that text has
    been composed (the viewer screen's compositor refresh, which in a terminal is the write
    of the frame), then closes it with Escape. Beside it, a one-label modal pushed over the
    same play screen: what Textual itself costs to build and show any modal there. The
    first open (the viewer mounted ahead while the annotator reads, as in the app) is
    reported on its own; the median is over the ``opens`` rounds after it.
    """
    from textual import events
    from textual.screen import ModalScreen, Screen
    from textual.widgets import Label

    from crmtui.config import PlayConfig
    from crmtui.factory import build_play_app
    from crmtui.play.views import RecordView
    from crmtui.play.workspace import load_workspace
    from crmtui.ui import scenes
    from crmtui.ui.screens.viewer import VIEWER, ValueViewerScreen
    from crmtui.ui.widgets.value_view import ValueView

    painted: list[asyncio.Future[float]] = []

    def viewer_drawn(screen: Any) -> bool:
        views = screen.query(ValueView)
        if not views:
            return False
        view = views.first()
        visible = view in screen._compositor.visible_widgets and view.region.height > 5
        return visible and bool(view.rows) and len(view.text) == 100_000

    def bare_drawn(screen: Any) -> bool:
        return any(w in screen._compositor.visible_widgets for w in screen.query(Label))

    def hook(cls: type[Screen[Any]], drawn: Any) -> None:
        original = cls._compositor_refresh

        def refresh(self: Screen[Any]) -> None:
            original(self)
            pending = painted and not painted[-1].done()
            if pending and self is self.app.screen and drawn(self):
                painted[-1].set_result(time.perf_counter())

        cls._compositor_refresh = refresh  # type: ignore[method-assign]

    class Bare(ModalScreen[None]):
        def compose(self) -> Any:
            yield Label("a modal screen")

    hook(ValueViewerScreen, viewer_drawn)
    hook(Bare, bare_drawn)
    home, case_id = viewer_home(cache, 100_000)
    with tempfile.TemporaryDirectory(prefix="wb-bench-") as tmp:
        config = PlayConfig(annotator="bench", recordings=Path(tmp), fsync=False)
        app = build_play_app(config, workspace=load_workspace(config))
        times: dict[str, Any] = {"big": [], "big_cpu": [], "bare": [], "bare_cpu": []}
        async with app.run_test(size=(160, 48)) as pilot:
            idx = scenes._first_of(pilot, "policy_violation_identification")
            screen = await scenes._open(pilot, idx)
            chat = _chat_id(app, case_id)
            screen.query_one("#record-browser").show(RecordView("LiveChatTranscript", chat))
            panel = screen.query_one("#record-panel")
            await scenes.wait_for(pilot, lambda: panel.row_count > 0)
            panel.focus()
            panel.move_cursor(row=[f.name for f in panel.detail.fields].index("Body"))
            # The annotator reads the transcript's record first: the viewer is mounted then.
            await scenes.wait_for(
                pilot,
                lambda: app.is_screen_installed(VIEWER) and app.get_screen(VIEWER).is_mounted,
            )
            await scenes.settle(pilot)
            loop = asyncio.get_running_loop()
            for round_ in range(opens + 1):
                for name in ("big", "bare"):
                    painted.append(loop.create_future())
                    if profiler is not None and round_ and name == "big":
                        profiler.enable()
                    cpu, started = time.process_time(), time.perf_counter()
                    if name == "big":
                        app.post_message(events.Key("v", "v"))
                    else:
                        app.push_screen(Bare())
                    done = await painted[-1]
                    cpu_ms = (time.process_time() - cpu) * 1000
                    if profiler is not None:
                        profiler.disable()
                    assert isinstance(app.screen, ValueViewerScreen if name == "big" else Bare)
                    wall_ms = (done - started) * 1000
                    if not round_:
                        times[f"{name}_first"] = wall_ms
                    else:
                        times[name].append(wall_ms)
                        times[f"{name}_cpu"].append(cpu_ms)
                    if name == "big":
                        await pilot.press("escape")
                    else:
                        app.pop_screen()
                    # The play screen redraws whole when it is back (40-80 ms): done before
                    # the next open, as it is for a person, who reads before pressing v.
                    await scenes.settle(pilot, 4)
    del ValueViewerScreen._compositor_refresh  # type: ignore[attr-defined]
    return times


def _chat_id(app: Any, case_id: str) -> str:
    from crmtui.query import run

    soql = f"SELECT Id FROM LiveChatTranscript WHERE CaseId = '{case_id}'"
    return str(run(app.workspace.org, soql).records[0]["Id"])


def bench_viewer(args: argparse.Namespace) -> tuple[dict[str, Any], list[Row]]:
    from crmtui.play.textview import find_all, wrap

    big = _text(100_000)
    pure = []
    for _ in range(20):
        started = time.perf_counter()
        wrap(big, 150)
        find_all(big, "refund")
        pure.append((time.perf_counter() - started) * 1000)
    profiler = None
    if args.profile:
        import cProfile

        profiler = cProfile.Profile()
    times = asyncio.run(_open_times(args.cache, args.opens, profiler))
    if profiler is not None:
        import pstats

        pstats.Stats(profiler, stream=sys.stderr).sort_stats("cumulative").print_stats(40)
    large, bare = statistics.median(times["big"]), statistics.median(times["bare"])
    large_cpu, bare_cpu = statistics.median(times["big_cpu"]), statistics.median(times["bare_cpu"])
    data = {
        "viewer_open_100kb": round(large, 2),
        "viewer_open_100kb_cpu": round(large_cpu, 2),
        "viewer_open_100kb_runs": [round(t, 1) for t in times["big"]],
        "viewer_first_open_100kb": round(times["big_first"], 2),
        "bare_modal": round(bare, 2),
        "bare_modal_cpu": round(bare_cpu, 2),
        "wrap_and_find_100kb": round(statistics.median(pure), 2),
        "runs": len(times["big"]),
    }
    target = TARGETS_MS["viewer_open_100kb"]
    rows: list[Row] = [
        ("viewer: v key to first frame, 100 KB value", f"{large:.1f} ms", f"< {target:.0f} ms",
         "ok" if large < target else "MISSED",
         f"median of {len(times['big'])}, CPU {large_cpu:.1f} ms"),
        ("viewer: the first open of the app", f"{times['big_first']:.1f} ms",
         f"< {target:.0f} ms", "ok" if times["big_first"] < target else "MISSED",
         "mounted ahead, while the record is read"),
        ("a one-label modal built and pushed there", f"{bare:.1f} ms", "", "",
         f"a new screen's cost, CPU {bare_cpu:.1f} ms"),
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


CPU_MS: dict[int, float] = {}


def _median_ms(fn: Any, runs: int) -> tuple[float, Any]:
    """Median wall ms of ``fn()`` (its median CPU ms goes to ``CPU_MS[id(fn)]``)."""
    fn()  # warm-up: grammar and plan cached, pages in the OS cache
    times, cpu, last = [], [], None
    for _ in range(runs):
        started, cpu_started = time.perf_counter(), time.process_time()
        last = fn()
        times.append((time.perf_counter() - started) * 1000)
        cpu.append((time.process_time() - cpu_started) * 1000)
    CPU_MS[id(fn)] = statistics.median(cpu)
    return statistics.median(times), last


def bench_compute(args: argparse.Namespace) -> tuple[dict[str, Any], list[Row]]:
    from crmtui.org.store import Org
    from crmtui.play.compute import ComputeSpec, run_compute, view_query
    from crmtui.play.views import TableView
    from crmtui.query import run

    org = Org.open(full_org(args.cache))
    items = ComputeSpec("sum", group_by="Product2Id", field="Quantity")
    query = view_query(org.schema, TableView("OrderItem"), items)

    def compute_items() -> Any:
        return run_compute(org, query, items)

    def engine_items() -> Any:
        return run(org, query)

    ms_items, run_items = _median_ms(compute_items, args.computes)
    ms_engine, _ = _median_ms(engine_items, args.computes)
    cpu_items, cpu_engine = CPU_MS[id(compute_items)], CPU_MS[id(engine_items)]
    cases = ComputeSpec("avg", group_by="OwnerId", start="CreatedDate", end="ClosedDate")
    case_query = view_query(org.schema, TableView("Case"), cases)
    ms_cases, run_cases = _median_ms(lambda: run_compute(org, case_query, cases), args.computes)
    target = TARGETS_MS["compute_orderitems_by_product"]
    data = {
        "compute_orderitems_by_product": round(ms_items, 2),
        "compute_orderitems_by_product_cpu": round(cpu_items, 2),
        "engine_query_alone": round(ms_engine, 2),
        "engine_query_alone_cpu": round(cpu_engine, 2),
        "orderitems": run_items.result.input_rows,
        "products": len(run_items.result.rows),
        "compute_case_duration_by_owner": round(ms_cases, 2),
        "cases": run_cases.result.input_rows,
    }
    rows: list[Row] = [
        (f"compute: sum(Quantity) by Product2Id, {run_items.result.input_rows:,} OrderItems",
         f"{ms_items:.1f} ms", f"< {target:.0f} ms", "ok" if ms_items < target else "MISSED",
         f"{len(run_items.result.rows)} groups, median of {args.computes}, CPU {cpu_items:.1f} ms"),
        ("  the engine's query as records (run)", f"{ms_engine:.1f} ms", "", "",
         f"compute = {ms_items / ms_engine:.2f}x, CPU {cpu_engine:.1f} ms"),
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
    parser.add_argument(
        "--profile", action="store_true", help="cProfile the viewer opens (to stderr)"
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
