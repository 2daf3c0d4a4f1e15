"""Upstream's two harness versions: which one a folder holds, and a clean copy of either.

=========  ========  ==========================================================================
version    commit    what it is
=========  ========  ==========================================================================
``naacl``  17cbce8   the CRMArena paper's code (NAACL 2025; its code equals db1f54f, 2024-11-10):
                     react answers with ``<submit>``, ToolEnv and ChatEnv score by string
                     equality, no ``--org_type``
``head``   32b609a   upstream's current code (CRMArena-Pro added): ``<respond>``, an LLM answer
                     extractor in the react evaluator, ``--org_type``
=========  ========  ==========================================================================

A folder is recognised by its files (HEAD's ``run_tasks.py`` has ``--org_type``; the paper's
has not). Its commit is git's, or for a snapshot (a copy outside a clone) the one its
``SOURCE.md`` names. ``--version`` on a folder holding the other version works when the
folder is a git clone of upstream: that version's tree is exported (``git archive``) into
crmtui's data directory once and used from there; the clone is never changed.
"""

from __future__ import annotations

import io
import re
import subprocess
import tarfile
from dataclasses import dataclass
from pathlib import Path

from crmtui import paths
from crmtui.errors import ConfigError

__all__ = ["COMMITS", "VERSIONS", "Source", "detect_version", "resolve_source"]

VERSIONS = ("naacl", "head")
#: The commit each version names in upstream's repository.
COMMITS = {"naacl": "17cbce8", "head": "32b609a"}


@dataclass(frozen=True)
class Source:
    """Upstream's code to run.

    Attributes:
        folder: The folder holding ``run_tasks.py`` and ``crm_sandbox/``.
        version: ``naacl`` or ``head``.
        commit: The git commit the code is at, when known.
    """

    folder: Path
    version: str
    commit: str | None = None

    def to_json(self) -> dict[str, str | None]:
        """As recorded beside a run."""
        return {"folder": str(self.folder), "version": self.version, "commit": self.commit}


def detect_version(folder: Path) -> str:
    """``naacl`` or ``head``, read from the folder's ``run_tasks.py``.

    Raises:
        ConfigError: The folder is not upstream's.
    """
    script = folder / "run_tasks.py"
    if not script.is_file() or not (folder / "crm_sandbox").is_dir():
        raise ConfigError(
            f"{folder} is not upstream's CRMArena folder (expected run_tasks.py and crm_sandbox/)"
        )
    text = script.read_text(encoding="utf-8", errors="replace")
    return "head" if "--org_type" in text else "naacl"


def _git(folder: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["git", "-C", str(folder), *args], capture_output=True, check=False)


def _commit_of(folder: Path) -> str | None:
    result = _git(folder, "rev-parse", "--short=7", "HEAD")
    if result.returncode != 0:
        return None
    toplevel = _git(folder, "rev-parse", "--show-toplevel")
    if toplevel.returncode != 0 or Path(toplevel.stdout.decode().strip()) != folder:
        return None  # a folder inside another repository (crmtui's own, a shared snapshot)
    return result.stdout.decode().strip()


_SOURCE_COMMIT = re.compile(r"\bat commit\s+([0-9a-f]{7,40})\b")


def _snapshot_commit(folder: Path) -> str | None:
    """The commit a snapshot folder's ``SOURCE.md`` names ("... at commit 32b609a..."), short."""
    try:
        text = (folder / "SOURCE.md").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    found = _SOURCE_COMMIT.search(" ".join(text.split()))
    return found.group(1)[:7] if found else None


def resolve_source(folder: Path, version: str | None = None) -> Source:
    """The code for ``version`` (``None``: whatever ``folder`` holds).

    Raises:
        ConfigError: Not upstream's folder, an unknown version, or a folder holding the other
            version that is not a git clone with the wanted commit.
    """
    folder = folder.expanduser().resolve()
    found = detect_version(folder)
    if version is not None and version not in VERSIONS:
        raise ConfigError(f"unknown --version {version!r}: choose naacl or head")
    commit = _commit_of(folder)
    if version is None or version == found:
        return Source(folder, found, commit or _snapshot_commit(folder))
    if commit is None:
        raise ConfigError(
            f"{folder} holds upstream's {found} code, not {version}; give a folder with the "
            f"{version} code or a git clone of upstream (commit {COMMITS[version]} is exported "
            "from it)"
        )
    return _export(folder, version)


def _export(clone: Path, version: str) -> Source:
    """The version's tree exported from ``clone`` into crmtui's data directory (once)."""
    commit = COMMITS[version]
    target = paths.home() / "upstream" / "src" / f"{version}-{commit}"
    if (target / "run_tasks.py").is_file():
        return Source(target, version, commit)
    archive = _git(clone, "archive", "--format=tar", commit)
    if archive.returncode != 0:
        detail = archive.stderr.decode(errors="replace").strip().splitlines()[-1:] or [""]
        raise ConfigError(
            f"cannot export commit {commit} ({version}) from {clone}: {detail[0]} "
            "(fetch upstream's full history first: git fetch --unshallow)"
        )
    partial = target.with_name(target.name + ".partial")
    partial.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(partial, filter="data")
    partial.rename(target)
    if detect_version(target) != version:
        raise ConfigError(f"commit {commit} of {clone} does not hold the {version} code")
    return Source(target, version, commit)
