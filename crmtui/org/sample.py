"""The built-in sample org: generated on first use, then reused.

``crmtui`` with no ``--org`` works on the sample org, a small generated org (seed 7, scale
``small``) kept in the data directory. It is built the first time it is needed and reopened
afterwards; a missing or unreadable file is rebuilt. The CRMArena-Pro samples ``sample-b2b``
and ``sample-b2c`` (``--org sample-b2b``) are found or built the same way.

The store (:mod:`crmtui.org.store`) only opens orgs and the task loaders
(:mod:`crmtui.data.loaders`) only read files: finding or building the sample is this
module's job, called by the commands, the play workspace, the batch runner and replay.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from crmtui import paths
from crmtui.errors import OrgError
from crmtui.org.store import FORMAT_VERSION, Org, open_org

SAMPLE_SEED = 7
SAMPLE_SCALE = "small"
#: The CRMArena-Pro sample orgs by name, with their org type.
PRO_SAMPLES = {f"{paths.SAMPLE_ORG_NAME}-b2b": "b2b", f"{paths.SAMPLE_ORG_NAME}-b2c": "b2c"}

Progress = Callable[[str, float], None]


def ensure_sample(progress: Progress | None = None, org_type: str | None = None) -> Org:
    """Open the sample org, building it first if it is missing or invalid.

    Args:
        progress: Called with ``(stage, fraction)`` while the org is being built.
        org_type: ``b2b`` or ``b2c`` for a CRMArena-Pro sample (``sample-b2b``,
            ``sample-b2c``); None for the CRMArena sample.

    Returns:
        The sample org, opened read-only.
    """
    name = paths.SAMPLE_ORG_NAME if org_type is None else f"{paths.SAMPLE_ORG_NAME}-{org_type}"
    path = paths.org_path(name)
    org = _just_opened.pop(path, None)
    if org is not None:
        return org
    if path.exists():
        try:
            org = Org.open(path)
        except OrgError:
            org = None  # unreadable (e.g. damaged): rebuild it below
        if org is not None and org.meta.get("format_version") == FORMAT_VERSION:
            return org
    # Imported lazily: the generator is only needed the first time.
    from crmtui.org.build import build_org

    pro = {"org_type": org_type} if org_type is not None else {}
    result = build_org(
        path, seed=SAMPLE_SEED, scale=SAMPLE_SCALE, name=name, progress=progress, **pro
    )
    return Org.open(result.path)


#: The sample org :func:`sample_ready` found current, for the next :func:`ensure_sample` (once):
#: ``crmtui play`` asks one, then the other, and opening it twice cost ~1.7 ms of a cold start.
_just_opened: dict[Path, Org] = {}


def sample_ready() -> bool:
    """Whether the sample org is built and current (opening it will not rebuild it)."""
    path = paths.org_path(paths.SAMPLE_ORG_NAME)
    _just_opened.pop(path, None)
    if not path.exists():
        return False
    try:
        org = Org.open(path)
    except OrgError:
        return False
    if org.meta.get("format_version") != FORMAT_VERSION:
        return False
    _just_opened[path] = org
    return True


def open_org_or_sample(
    spec: str | os.PathLike[str] | None = None, progress: Progress | None = None
) -> Org:
    """Open the org ``spec`` names; for ``None`` or ``sample`` (or ``sample-b2b``,
    ``sample-b2c``), that sample, built if needed.

    Raises:
        OrgError: The org file is not a readable org.
        ConfigError: ``spec`` names no known org.
    """
    if spec is None or os.fspath(spec) == paths.SAMPLE_ORG_NAME:
        return ensure_sample(progress)
    if os.fspath(spec) in PRO_SAMPLES:
        return ensure_sample(progress, PRO_SAMPLES[os.fspath(spec)])
    return open_org(spec)


def sample_tasks_path() -> Path:
    """The sample org's tasks file, building the sample first when the file is missing.

    Pass it to :func:`crmtui.data.loaders.load_tasks` as ``sample_tasks``.

    Raises:
        OrgError: The sample was built but wrote no tasks file.
    """
    path = paths.org_tasks_path(paths.SAMPLE_ORG_NAME)
    if path.exists():
        return path
    ensure_sample()
    if not path.exists():
        raise OrgError(
            f"the sample org was built but its tasks file {path} is missing; "
            "run `crmtui org build` again"
        )
    return path
