"""Where crmtui keeps its data: the ``CRMTUI_HOME`` directory.

``CRMTUI_HOME`` overrides the location (tests always point it at a tmp dir); otherwise the
per-user data directory from platformdirs is used. Nothing is created at import time.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from crmtui.errors import ConfigError
from crmtui.sanitise import printable as printable  # re-exported; the one sanitiser

SAMPLE_ORG_NAME = "sample"
#: Longest org name accepted (it becomes a file name).
MAX_ORG_NAME = 100
# ASCII only: no path separators, no "..", no control, bidi or look-alike characters.
_ORG_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def check_org_name(name: str) -> str:
    """Return ``name`` if it is a valid org name, else raise.

    The one check for every org name (build, import, lookup): it becomes a file name in
    ``orgs_dir()``, so it must stay inside that folder and print as itself.

    Raises:
        ConfigError: The name is empty, too long, or has characters other than ASCII
            letters, digits, ``.``, ``_`` and ``-`` (or starts with ``.``, ``_`` or ``-``).
    """
    if not isinstance(name, str) or not _ORG_NAME.fullmatch(name) or len(name) > MAX_ORG_NAME:
        shown = printable(str(name))
        if len(shown) > 60:
            shown = shown[:59] + "…"
        raise ConfigError(
            f"invalid org name '{shown}': use up to {MAX_ORG_NAME} ASCII letters, digits, "
            "'.', '_' or '-', starting with a letter or digit"
        )
    return name


def home() -> Path:
    """Return the crmtui data directory (created on first use).

    Raises:
        ConfigError: It cannot be created (a read-only or full disk, a file in the way).
    """
    override = os.environ.get("CRMTUI_HOME")
    if override:
        path = Path(override).expanduser()
    else:
        from platformdirs import user_data_dir

        path = Path(user_data_dir("crmtui", appauthor=False))
    return _folder(path)


def _folder(path: Path) -> Path:
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(
            f"cannot create the data folder {path} (CRMTUI_HOME): {exc.strerror or exc}"
        ) from None
    return path


def orgs_dir() -> Path:
    """Directory holding built and imported orgs (``<name>.db``) and their tasks."""
    return _folder(home() / "orgs")


def recordings_dir() -> Path:
    """Where sessions are recorded by default: ``CRMTUI_HOME/recordings/<actor>/...``.

    Under the data directory, not the working directory, so an annotator's progress and
    resumable sessions are found wherever ``crmtui`` is started (``--recordings`` overrides;
    a study records into its own folder).
    """
    path = home() / "recordings"
    path.mkdir(parents=True, exist_ok=True)
    return path


def cache_dir() -> Path:
    """Directory for caches (the ``datasets`` cache among them)."""
    return _folder(home() / "cache")


def org_path(name: str) -> Path:
    """Path of the org called ``name`` inside the data directory.

    Raises:
        ConfigError: ``name`` is not a valid org name (see :func:`check_org_name`).
    """
    return orgs_dir() / f"{check_org_name(name)}.db"


def org_tasks_path(name: str) -> Path:
    """Path of the tasks file generated with the org called ``name``.

    Raises:
        ConfigError: ``name`` is not a valid org name (see :func:`check_org_name`).
    """
    return orgs_dir() / f"{check_org_name(name)}.tasks.json"


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
