"""Side by side: upstream's own harnesses and ``crmtui run --preset naacl|head``.

One scripted model (a 127.0.0.1 OpenAI-compatible server) sends the same replies, empty and
malformed ones included, through upstream's NAACL and HEAD code (``crmtui upstream run``,
unchanged) and through crmtui's presets, for react, act, tool_call and tool_call_flex (the
scripts and configurations of ``tests/unit/upstream/test_fidelity.py``; HEAD's react scored
with ``head_as_is``). For each configuration it prints how many agent requests were
identical (messages, tools and parameters), and whether observations, rewards, end reasons
and ``crmtui report``'s cells agree, with each side's wall time.

Needs ../shared/crmarena (upstream's harness snapshots) and the overlay folder the test makes
(``.pytest_cache/d/upstream-overlay``: run ``tests/unit/upstream/test_fidelity.py`` once).

Usage::

    .venv/bin/python benchmarks/bench_fidelity.py
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from crmtui.data.instances import TaskSet  # noqa: E402
from crmtui.review.report import report_folder  # noqa: E402
from tests.unit.upstream.test_cross_check import (  # noqa: E402
    NOSLEEP,
    _crmtui_rows,
    _observations,
    _upstream_rows,
)
from tests.unit.upstream.test_fidelity import (  # noqa: E402
    CONFIGS,
    _instances,
    _react_script,
    _requests_by_instance,
    _tool_script,
    extracting,
    scoring_for,
)

SHARED = ROOT.parent / "shared" / "crmarena"


def _cells(folder: Path) -> dict[str, tuple[float | None, int]]:
    rows = report_folder(folder).rows
    return {code: (c.value, c.n) for code, c in rows[0].accuracy.items()} if rows else {}


def main() -> int:
    overlay = ROOT / ".pytest_cache" / "d" / "upstream-overlay"
    if not SHARED.is_dir() or not overlay.is_dir():
        print("Error: needs ../shared/crmarena and the test's overlay folder (see the docstring)")
        return 2
    os.environ["PYTHONPATH"] = os.pathsep.join([str(overlay), str(NOSLEEP)])
    os.environ.setdefault("OPENAI_API_KEY", "sk-bench")
    os.environ["CRMTUI_UPSTREAM_DIR"] = os.pathsep.join(
        str(SHARED / n) for n in ("upstream-harness", "upstream-harness-naacl")
    )
    os.environ["CRMTUI_HOME"] = tempfile.mkdtemp(prefix="bench-fidelity-")
    everything = _instances()
    print(f"{'config':<22} {'requests':>9} {'obs':>4} {'reward':>6} {'end':>4} {'report':>6}"
          f" {'upstream s':>10} {'crmtui s':>9}")  # fmt: skip
    for version, strategy in CONFIGS:
        answer = "submit" if version == "naacl" else "respond"

        def scripts(s=strategy, a=answer):  # type: ignore[no-untyped-def]
            if s in ("react", "act"):
                return _react_script(a, everything)
            return _tool_script(a, everything, s == "tool_call_flex")

        tasks = TaskSet(list(scripts()), "sample")
        harness = SHARED / ("upstream-harness-naacl" if version == "naacl" else "upstream-harness")
        args = ["--agent_strategy", strategy, "--max_turns", "6"]
        if version == "head":
            args += ["--org_type", "original"]
        out = Path(tempfile.mkdtemp(prefix="bench-fidelity-run-"))
        sent_up: list = []
        sent_ours: list = []
        began = time.perf_counter()
        theirs = _upstream_rows(
            harness, out / "upstream", tasks, scripts(), args, sent_up, extracting
        )
        middle = time.perf_counter()
        scoring = scoring_for(version, strategy)
        ours = _crmtui_rows(
            out / "crmtui", tasks, scripts(), strategy, version, sent_ours, 6, extracting, scoring
        )
        ended = time.perf_counter()
        up, mine = _requests_by_instance(sent_up, tasks), _requests_by_instance(sent_ours, tasks)
        same_requests = sum(
            1 for idx in up for a, b in zip(up[idx], mine[idx], strict=False) if a == b
        )
        total = sum(len(v) for v in up.values())
        obs = all(_observations(ours[i]) == _observations(theirs[i]) for i in theirs)
        reward = all(ours[i]["reward"] == theirs[i]["reward"] for i in theirs)
        end = all(
            ours[i]["agent_info"].get("end_reason", ours[i]["agent_info"])
            == theirs[i]["agent_info"].get("end_reason", theirs[i]["agent_info"])
            for i in theirs
        )
        report = _cells(out / "upstream") == _cells(out / "crmtui")
        print(
            f"{version + ' ' + strategy:<22} {f'{same_requests}/{total}':>9} {obs!s:>4} "
            f"{reward!s:>6} {end!s:>4} {report!s:>6} {middle - began:>10.1f} "
            f"{ended - middle:>9.1f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
