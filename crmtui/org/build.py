"""Build a generated org file and its task files: generate -> write org -> build tasks.

``build_org(out)`` writes three files side by side: ``out`` (the SQLite org),
``out.with_suffix(".tasks.json")`` (task rows in the Hugging Face format) and
``out.with_suffix(".solutions.json")`` (how each gold answer was computed). With ``org_type``
(``b2b`` or ``b2c``) the org is a CRMArena-Pro one: 27 objects
(:mod:`crmtui.org.generator.pro`) and the 22 Pro task types (:mod:`crmtui.org.pro_tasks`).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from crmtui import paths
from crmtui.errors import ConfigError
from crmtui.org.generator.config import scale_config

Progress = Callable[[str, float], None]

#: Task instances per type for each scale (small keeps the sample org quick to build).
PER_TYPE = {"small": 10, "full": 130, "stress": 130}


@dataclass(frozen=True)
class BuildResult:
    """What :func:`build_org` produced.

    Attributes:
        path: The org file.
        tasks_path: The task rows (JSON list).
        solutions_path: Solver name, parameters and evidence per task idx (JSON object).
        counts: Rows per object.
        seconds: Wall time of the whole build.
        digest: Content digest of the org's tables.
    """

    path: Path
    tasks_path: Path
    solutions_path: Path
    counts: dict[str, int]
    seconds: float
    digest: str


def build_org(
    out: Path,
    *,
    seed: int = 7,
    scale: str = "small",
    name: str | None = None,
    progress: Progress | None = None,
    org_type: str | None = None,
    details: str = "full",
) -> BuildResult:
    """Generate an org, write it to ``out`` and build its tasks beside it.

    Args:
        out: Destination org file (replaced atomically if it exists).
        seed: Generator and task seed.
        scale: ``small``, ``full`` or ``stress``.
        name: Org name stored in the org's meta (default: the file stem).
        progress: Called with ``(stage label, fraction 0..1)`` as the build advances.
        org_type: ``b2b`` or ``b2c`` for a CRMArena-Pro org (scale ``small`` or ``full``);
            None for a CRMArena org.
        details: A Pro org's Domain Details, ``full`` or ``short`` (see
            :func:`crmtui.org.pro_tasks.build_pro_tasks`).

    Returns:
        Paths, row counts, elapsed seconds and the org digest.

    Raises:
        ConfigError: Unknown scale or org type, a seed that is not an integer, or an invalid
            org name (:func:`crmtui.paths.check_org_name`; the default name is the file stem).
        OrgError: The org file cannot be written.
        CrmtuiError: The task builder cannot make enough instances.
    """
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ConfigError(f"seed must be an integer, got {seed!r}")
    scale_config(scale)  # fail on a bad scale before any work
    if org_type is not None:
        from crmtui.org.generator.pro.config import check_org_type, pro_scale

        check_org_type(org_type)
        pro_scale(scale)
    out = Path(out).expanduser()
    org_name = paths.check_org_name(name if name is not None else out.stem)
    # Imported here: store and tasks pull in SQLite/FTS and solver code the CLI may not need.
    from crmtui.data.schema import builtin_schema
    from crmtui.org.generator import generate
    from crmtui.org.generator.pro.config import pro_schema
    from crmtui.org.store import write_org
    from crmtui.org.tasks import build_tasks

    report = progress or (lambda stage, fraction: None)
    started = time.perf_counter()

    report("Generating data", 0.0)
    if org_type is None:
        generated = generate(seed=seed, scale=scale)
        schema = builtin_schema()
    else:
        from crmtui.org.generator.pro import generate_pro

        generated = generate_pro(seed=seed, scale=scale, org_type=org_type)
        schema = pro_schema(org_type)
    report("Writing org", 0.3)
    meta = {
        "seed": str(seed),
        "scale": scale,
        "source": "crmtui generator" + (f" (CRMArena-Pro {org_type})" if org_type else ""),
        "name": org_name,
    }
    if org_type is not None:
        meta["org_type"] = org_type
    org = write_org(out, schema, generated.tables, meta=meta)
    report("Building tasks", 0.7)
    if org_type is None:
        rows, solutions = build_tasks(generated, seed=seed, per_type=PER_TYPE[scale])
    else:
        from crmtui.org.pro_tasks import build_pro_tasks

        cfg = pro_scale(scale)
        rows, solutions = build_pro_tasks(
            generated,
            seed=seed,
            per_type=cfg.per_type,
            per_privacy=cfg.per_privacy,
            details=details,
        )
    report("Writing tasks", 0.9)
    tasks_path = out.with_suffix(".tasks.json")
    solutions_path = out.with_suffix(".solutions.json")
    _write_json(tasks_path, rows)
    _write_json(solutions_path, solutions)
    report("Done", 1.0)
    return BuildResult(
        path=out,
        tasks_path=tasks_path,
        solutions_path=solutions_path,
        counts=generated.counts(),
        seconds=time.perf_counter() - started,
        digest=org.digest,
    )


def _write_json(path: Path, data: Any) -> None:
    """Write JSON atomically so a reader never sees half a task file."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
