"""Looking back at a session on local JSON tasks never imports datasets or pandas.

Replaying, comparing and reporting recordings, finding their instance, and opening an org
with its own tasks file (play, watch and run on a built org) read crmtui's own JSON;
importing ``datasets`` (which brings pandas and pyarrow) cost replay 1-2 s of its start.
Checked in a fresh interpreter, as a user's command runs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

HEAVY = ("datasets", "pandas", "pyarrow")

CHILD = f"""
import json, sys
from pathlib import Path
from crmtui.cli import main
from crmtui.org.task_match import load_sources
from crmtui.review.replay_org import prepare_replay

recording, org = sys.argv[1], sys.argv[2]
for argv in (
    ["replay", "--check", recording],
    ["compare", "--format", "json", recording, recording],
    ["report", "--format", "json", str(Path(recording).parent)],
):
    try:
        main(argv)
    except SystemExit as exc:
        assert not exc.code, (argv, exc.code)
found = prepare_replay(recording).instance
sources = load_sources(org, None)
print(json.dumps({{
    "instance": None if found is None else found.idx,
    "tasks": len(sources.tasks),
    "heavy": [name for name in {HEAVY!r} if name in sys.modules],
}}))
"""


def test_replay_and_own_tasks_do_not_import_datasets(make_recording, clocks, org_path, org):
    tasks_file = org_path.with_suffix(".tasks.json")
    row = json.loads(tasks_file.read_text(encoding="utf-8"))[0]
    rec = make_recording(
        instance={
            "idx": row["idx"],
            "task": row["task"],
            "query": row["query"],
            "reward_metric": row["reward_metric"],
        },
        org={"path": str(org_path), "digest": org.digest, "name": "replay-sample"},
        tasks_source=str(tasks_file),
    )
    clocks.advance(1)
    rec.emit("open_object", {"object": "Case", "query": "SELECT Id FROM Case"})
    rec.close("finished", 1.0)
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(rec.path), str(org_path)],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
    ).stdout
    result = json.loads(out.strip().splitlines()[-1])
    # The lookups did their work (the instance was found, the tasks loaded) ...
    assert result["instance"] == row["idx"]
    assert result["tasks"] == len(json.loads(tasks_file.read_text(encoding="utf-8")))
    # ... without the heavy packages.
    assert result["heavy"] == []
