"""``crmtui org fetch``: upstream's published org files, downloaded, verified and imported.

Upstream keeps its orgs as plain SQLite files under ``local_data/`` in its repository (regular
git blobs, not LFS). A download resumes a partial file with an HTTP ``Range`` request, is
checked against the git blob id upstream's tree records for the file (sha1 over
``blob <size>\\0<bytes>``), refused when it differs, and imported under the org's name with
its schema (crmtui's own CRMArena-Pro schemas for the Pro files).
"""

from __future__ import annotations

import hashlib
import os
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from crmtui import paths
from crmtui.errors import ConfigError, OrgError

BASE_URL = "https://raw.githubusercontent.com/SalesforceAIResearch/CRMArena/main/local_data/"
CHUNK = 1 << 16
TIMEOUT_S = 8.0


@dataclass(frozen=True)
class OrgFile:
    """One published org file.

    Attributes:
        filename: Its name under ``local_data/``.
        blob: The git blob id upstream's tree records for it.
        schema: crmtui's schema file for it (None: the builtin CRMArena schema).
    """

    filename: str
    blob: str
    schema: str | None = None


ORG_FILES: dict[str, OrgFile] = {
    "crmarena": OrgFile("crmarena_data.db", "86cf4c611eb93e674d3af6047ed1aeb9a7f07416"),
    "crmarenapro-b2b": OrgFile(
        "crmarenapro_b2b_data.db",
        "6e1978093efd0a7a7c97b65c124d12d098bb917f",
        "crmarenapro_b2b_schema.json",
    ),
    "crmarenapro-b2c": OrgFile(
        "crmarenapro_b2c_data.db",
        "dd0434bfd849dc8212c41d6095e3365ad75a1ce2",
        "crmarenapro_b2c_schema.json",
    ),
}

Progress = Callable[[int, int | None], None]


def git_blob_id(path: Path) -> str:
    """sha1 of ``blob <size>\\0`` + the file's bytes: the id git gives the file's content."""
    digest = hashlib.sha1(f"blob {path.stat().st_size}\0".encode())
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _offline(url: str, why: object, spec: OrgFile, name: str) -> OrgError:
    schema = ""
    if spec.schema:
        schema = f" --schema {resources.files('crmtui.data').joinpath(spec.schema)}"
    return OrgError(
        f"cannot download {url}: {why}. Without network, copy {spec.filename} from upstream's "
        f"local_data/ by other means and run `crmtui org import {spec.filename} --name {name}"
        f"{schema}`"
    )


def download(
    url: str, target: Path, *, progress: Progress | None = None, timeout: float = TIMEOUT_S
) -> Path:
    """Download ``url`` to ``target``, resuming ``target.part`` when it exists.

    Raises:
        urllib.error.URLError / OSError: The transfer failed (the partial file is kept).
    """
    part = target.with_name(target.name + ".part")
    have = part.stat().st_size if part.exists() else 0
    request = urllib.request.Request(url, headers={"User-Agent": "crmtui"})
    if have:
        request.add_header("Range", f"bytes={have}-")
    try:
        response = urllib.request.urlopen(request, timeout=timeout)  # noqa: S310 - https/http URL
    except urllib.error.HTTPError as exc:
        if exc.code != 416 or not have:  # 416: the part file is already complete
            raise
        part.replace(target)
        return target
    with response:
        resumed = response.status == 206
        length = response.headers.get("Content-Length")
        total = (int(length) + (have if resumed else 0)) if length else None
        done = have if resumed else 0
        with part.open("ab" if resumed else "wb") as out:
            if progress:
                progress(done, total)
            for chunk in iter(lambda: response.read(CHUNK), b""):
                out.write(chunk)
                done += len(chunk)
                if progress:
                    progress(done, total)
    if total is not None and done < total:
        raise OSError(f"connection closed after {done:,} of {total:,} bytes")
    part.replace(target)
    return target


def fetch_org(
    which: str,
    *,
    url: str | None = None,
    name: str | None = None,
    force: bool = False,
    progress: Progress | None = None,
    expected_blob: str | None = None,
    schema: str | None = None,
    extra_columns: str = "keep",
) -> Any:
    """Download, verify and import one of upstream's orgs; return the imported org.

    Args:
        which: ``crmarena``, ``crmarenapro-b2b`` or ``crmarenapro-b2c``.
        schema: The schema whose descriptions the prompts show (``hf``, ``hf:FILE``, a file;
            default: crmtui's own schema for the file).
        extra_columns: See :func:`crmtui.org.importer.import_org`.
        url: Where to download from (default: upstream's repository).
        name: Org name (default: ``which``).
        force: Replace an org of that name.
        progress: ``progress(bytes_done, bytes_total_or_None)``.
        expected_blob: Blob id to check against (default: upstream's, for tests of mirrors).

    Raises:
        ConfigError: Unknown org.
        OrgError: Download failed (with how to import a copy), blob id mismatch, import failed.
    """
    spec = ORG_FILES.get(which)
    if spec is None:
        raise ConfigError(f"unknown org {which!r} (choose from {', '.join(ORG_FILES)})")
    org_name = name or which
    if paths.org_path(org_name).exists() and not force:
        raise ConfigError(f"org {org_name!r} already exists; pass --force to replace it")
    source = url or BASE_URL + spec.filename
    folder = paths.home() / "downloads"
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / spec.filename
    try:
        download(source, target, progress=progress)
    except (urllib.error.URLError, OSError, ValueError) as exc:
        why = getattr(exc, "reason", None) or exc
        raise _offline(source, why, spec, org_name) from exc
    blob = git_blob_id(target)
    wanted = expected_blob or spec.blob
    if blob != wanted:
        target.unlink(missing_ok=True)
        raise OrgError(
            f"{source} is not upstream's {spec.filename}: git blob id {blob}, expected {wanted}; "
            "the download was deleted"
        )
    from crmtui.org.importer import import_org

    options = {"force": force, "extra_columns": extra_columns}
    if schema is not None:
        return import_org(target, name=org_name, schema=schema, **options)  # type: ignore[arg-type]
    if spec.schema:
        with resources.as_file(resources.files("crmtui.data").joinpath(spec.schema)) as path:
            own = Path(os.fspath(path))
            return import_org(target, name=org_name, schema=own, **options)  # type: ignore[arg-type]
    return import_org(target, name=org_name, **options)  # type: ignore[arg-type]
