"""What the child's startup hook serves: its config, the task rows and the schema rows.

Upstream's ``crm_sandbox/data/assets.py`` loads five datasets at import. Each is answered from
local files written here, in the row shapes the hub gives:

========================================  ================  ================================
dataset, config                           split(s)          rows
========================================  ================  ================================
Salesforce/CRMArena, CRMArena             test              the tasks (answer: str or null)
Salesforce/CRMArena, schema               test              the org's schema
Salesforce/CRMArenaPro, CRMArenaPro       b2b, b2b_inter-   the tasks (answer: a list, as in
                                          active, b2c,      CRMArena-Pro rows)
                                          b2c_interactive
Salesforce/CRMArenaPro, b2b_schema        b2b_schema        the org's schema
Salesforce/CRMArenaPro, b2c_schema        b2c_schema        the org's schema
========================================  ================  ================================

Every split gets the same tasks, so whichever ``--org_type`` and ``--interactive`` upstream is
run with, it reads the tasks it was given (and the one org it is served).
"""

from __future__ import annotations

import json
import shutil
from importlib import resources
from pathlib import Path
from typing import Any

from crmtui.data.instances import TaskSet
from crmtui.data.schema import Schema

HOOK_ENV = "CRMTUI_UPSTREAM_HOOK"
ORIGINAL = "Salesforce/CRMArena"
PRO = "Salesforce/CRMArenaPro"
PRO_SPLITS = ("b2b", "b2b_interactive", "b2c", "b2c_interactive")


def schema_rows(schema: Schema) -> list[dict[str, Any]]:
    """The schema as the hub's schema configs give it: object, then field -> description.

    Fields are the ones upstream's prompt lists (``listed``), alphabetically, as in its files.
    """
    return [
        {"object": obj.name, "fields": {f.name: f.description for f in obj.listed_fields}}
        for obj in schema
    ]


def task_rows(tasks: TaskSet, *, pro: bool) -> list[dict[str, Any]]:
    """The tasks as HF rows; CRMArena-Pro rows carry the answer as a list."""
    rows = []
    for instance in tasks:
        row = instance.to_row()
        if pro and not isinstance(row["answer"], list):
            row["answer"] = [row["answer"]]
        rows.append(row)
    return rows


def write_hook(
    folder: Path,
    *,
    tasks: TaskSet,
    schema: Schema,
    instance_url: str,
    session_id: str,
    ca_path: Path | None,
) -> Path:
    """Write ``sitecustomize.py``, its config and the rows into ``folder``; return the config.

    ``folder`` goes first on the child's ``PYTHONPATH`` and the config's path into
    :data:`HOOK_ENV`.
    """
    folder.mkdir(parents=True, exist_ok=True)
    source = resources.files("crmtui.upstream").joinpath("hook_site.py")
    with resources.as_file(source) as hook_file:
        shutil.copyfile(hook_file, folder / "sitecustomize.py")
    data = folder / "data"
    data.mkdir(exist_ok=True)

    def dump(name: str, rows: list[dict[str, Any]]) -> str:
        path = data / name
        path.write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")
        return str(path)

    original = dump("tasks_crmarena.json", task_rows(tasks, pro=False))
    pro = dump("tasks_crmarenapro.json", task_rows(tasks, pro=True))
    schema_file = dump("schema.json", schema_rows(schema))
    config = {
        "instance_url": instance_url,
        "session_id": session_id,
        "ca_path": str(ca_path) if ca_path else None,
        "log": str(folder / "hook.jsonl"),
        "datasets": {
            ORIGINAL: {"CRMArena": {"test": original}, "schema": {"test": schema_file}},
            PRO: {
                "CRMArenaPro": {split: pro for split in PRO_SPLITS},
                "b2b_schema": {"b2b_schema": schema_file},
                "b2c_schema": {"b2c_schema": schema_file},
            },
        },
    }
    path = folder / "config.json"
    path.write_text(json.dumps(config, indent=2), encoding="utf-8")
    return path
