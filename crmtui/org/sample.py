"""The built-in sample org: generated on first use, then reused.

``crmtui`` with no ``--org`` works on the sample org, a small generated org (seed 7, scale
``small``) kept in the data directory. It is built the first time it is needed and reopened
afterwards; a missing or unreadable file is rebuilt.
"""

from __future__ import annotations

from collections.abc import Callable

from crmtui import paths
from crmtui.errors import OrgError
from crmtui.org.store import FORMAT_VERSION, Org

SAMPLE_SEED = 7
SAMPLE_SCALE = "small"


def ensure_sample(progress: Callable[[str, float], None] | None = None) -> Org:
    """Open the sample org, building it first if it is missing or invalid.

    Args:
        progress: Called with ``(stage, fraction)`` while the org is being built.

    Returns:
        The sample org, opened read-only.
    """
    path = paths.org_path(paths.SAMPLE_ORG_NAME)
    if path.exists():
        try:
            org = Org.open(path)
        except OrgError:
            org = None  # unreadable (e.g. damaged): rebuild it below
        if org is not None and org.meta.get("format_version") == FORMAT_VERSION:
            return org
    # Imported lazily: the generator is only needed the first time.
    from crmtui.org.build import build_org

    result = build_org(
        path,
        seed=SAMPLE_SEED,
        scale=SAMPLE_SCALE,
        name=paths.SAMPLE_ORG_NAME,
        progress=progress,
    )
    return Org.open(result.path)
