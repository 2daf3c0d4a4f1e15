"""Where crmtui keeps its data: the ``CRMTUI_HOME`` directory.

``CRMTUI_HOME`` overrides the location (tests always point it at a tmp dir); otherwise the
per-user data directory from platformdirs is used. Nothing is created at import time.
"""

from __future__ import annotations

import os
from pathlib import Path

from crmtui.errors import ConfigError

SAMPLE_ORG_NAME = "sample"


def home() -> Path:
    """Return the crmtui data directory (created on first use)."""
    override = os.environ.get("CRMTUI_HOME")
    if override:
        path = Path(override).expanduser()
    else:
        from platformdirs import user_data_dir

        path = Path(user_data_dir("crmtui", appauthor=False))
    path.mkdir(parents=True, exist_ok=True)
    return path


def orgs_dir() -> Path:
    """Directory holding built and imported orgs (``<name>.db``) and their tasks."""
    path = home() / "orgs"
    path.mkdir(parents=True, exist_ok=True)
    return path


def cache_dir() -> Path:
    """Directory for caches (the ``datasets`` cache among them)."""
    path = home() / "cache"
    path.mkdir(parents=True, exist_ok=True)
    return path


def org_path(name: str) -> Path:
    """Path of the org called ``name`` inside the data directory."""
    return orgs_dir() / f"{name}.db"


def org_tasks_path(name: str) -> Path:
    """Path of the tasks file generated with the org called ``name``."""
    return orgs_dir() / f"{name}.tasks.json"


def resolve_org(spec: str | os.PathLike[str] | None) -> Path:
    """Turn an ``--org`` value (a path, or the name of a built/imported org) into a path.

    ``None`` means the built-in sample org. The file must exist, except for the sample org,
    which callers build on demand (see ``crmtui.org.sample.ensure_sample``).
    """
    if spec is None:
        return org_path(SAMPLE_ORG_NAME)
    text = os.fspath(spec)
    candidate = Path(text).expanduser()
    if candidate.suffix in {".db", ".sqlite", ".sqlite3"} or os.sep in text or candidate.exists():
        if not candidate.exists():
            raise ConfigError(f"org file not found: {candidate}")
        return candidate
    named = org_path(text)
    if not named.exists() and text != SAMPLE_ORG_NAME:
        known = sorted(p.stem for p in orgs_dir().glob("*.db"))
        hint = f" (known orgs: {', '.join(known)})" if known else ""
        raise ConfigError(f"no org named {text!r}{hint}; pass a .db path or run `crmtui org build`")
    return named
