"""Load task sets and schemas from local files, the Hugging Face hub or the sample org.

This is the only module that imports ``datasets``, always inside functions, so commands that
never load tasks stay fast to start.

Task sources (the ``--tasks`` option):

* a local file in the HF row format: a JSON list, JSONL, or Parquet;
* ``hf:Salesforce/CRMArena`` (config ``CRMArena``, split ``test``) or
  ``hf:Salesforce/CRMArenaPro[:split]`` (config ``CRMArenaPro``; split ``b2b`` by default, or
  ``b2c``, ``b2b_interactive``, ``b2c_interactive``);
* ``sample`` or ``None``: the tasks generated with the built-in sample org. Building the
  sample is not this package's job: the caller passes ``sample_tasks``
  (:func:`crmtui.org.sample.sample_tasks_path`) to have a missing sample built.

Local files go through ``datasets.load_dataset("json" | "parquet", ...)`` like hub data does.
Arrow infers one type per column, which rows of mixed shape can defeat: ``answer`` is a string
or null in CRMArena but a list in CRMArena-Pro, and a bad value can coerce a whole column (one
float ``idx`` makes every ``idx`` a float). datasets 5 stores irreconcilable columns as its
``Json`` feature; where it still fails, or where its rows do not validate, the file is re-read
with the json module (pyarrow for Parquet) so the error names the row that is really at fault.
"""

from __future__ import annotations

import functools
import os
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from crmtui import paths
from crmtui.data.instances import TaskSet
from crmtui.data.task_files import check_regular_file, read_json_rows
from crmtui.errors import DatasetError, OrgError
from crmtui.value_class import FrozenValue

HF_PREFIX = "hf:"
SAMPLE_SOURCE = "sample"
#: Seconds to wait for a TCP connection to the hub before declaring it unreachable.
HUB_CONNECT_TIMEOUT = 2.0

_JSON_SUFFIXES = {".json": "json", ".jsonl": "json", ".ndjson": "json", ".parquet": "parquet"}


class HubSource(FrozenValue):
    """A parsed ``hf:`` source.

    Attributes:
        repo: Dataset repository, e.g. ``Salesforce/CRMArena``.
        config: Dataset config name (``None``: the repository's default).
        split: Split to load.
    """

    FIELDS = ("repo", "config", "split")

    repo: str
    config: str | None
    split: str

    def __init__(self, repo: str, config: str | None, split: str) -> None:
        self._set(repo=repo, config=config, split=split)


# repo -> (task config, default split, allowed splits); other repos are loaded as given.
_KNOWN_REPOS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "Salesforce/CRMArena": ("CRMArena", "test", ("test",)),
    "Salesforce/CRMArenaPro": (
        "CRMArenaPro",
        "b2b",
        ("b2b", "b2c", "b2b_interactive", "b2c_interactive"),
    ),
}


def parse_hub_source(source: str) -> HubSource:
    """Parse ``hf:REPO[:SPLIT]`` into repository, config and split.

    Raises:
        DatasetError: The repository part is missing, or the split is not one of the known
            repository's splits.
    """
    spec = source[len(HF_PREFIX) :] if source.startswith(HF_PREFIX) else source
    repo, _, split = spec.partition(":")
    repo = repo.strip()
    if repo.count("/") != 1 or not all(repo.split("/")):
        raise DatasetError(f"bad hub source {source!r}; expected hf:OWNER/NAME[:SPLIT]")
    known = _KNOWN_REPOS.get(repo)
    if known is None:
        return HubSource(repo, None, split or "test")
    config, default_split, splits = known
    split = split or default_split
    if split not in splits:
        raise DatasetError(f"{repo} has no split {split!r}; valid splits: {', '.join(splits)}")
    return HubSource(repo, config, split)


def load_tasks(
    source: str | os.PathLike[str] | None = None,
    *,
    sample_tasks: Callable[[], Path] | None = None,
    via_datasets: bool = True,
) -> TaskSet:
    """Load a task set from a local file, the hub, or the sample org.

    Args:
        source: A file path, ``hf:REPO[:SPLIT]``, ``sample``, or ``None`` (the sample).
        sample_tasks: For the sample source when its tasks file is missing: returns the
            file after building the sample (:func:`crmtui.org.sample.sample_tasks_path`).
            Without it a missing sample is an :class:`OrgError`.
        via_datasets: Read local files through ``datasets`` like hub data (default), or
            with the json module / pyarrow only (fast, for looking instances up).

    Raises:
        DatasetError: The file is missing or unreadable, a row is invalid (naming its idx or
            position and the field), or the hub cannot be reached.
        OrgError: The sample org's tasks are missing and cannot be built.
    """
    if source is None or (isinstance(source, str) and source.strip() == SAMPLE_SOURCE):
        path = _sample_tasks_path(sample_tasks)
        # The sample's tasks are crmtui's own JSON: read them directly so that starting
        # the app does not pay for importing datasets (1.5-3 s on this machine).
        return _load_file(path, f"sample org tasks ({path})", via_datasets=False)
    text = os.fspath(source)
    if isinstance(source, str) and text.startswith(HF_PREFIX):
        hub = parse_hub_source(text)
        rows = _hub_rows(hub, hub.config, hub.split)
        return _build(rows, text, None)
    path = Path(text).expanduser()
    return _load_file(path, str(path), via_datasets=via_datasets)


def load_schema_source(source: str | os.PathLike[str] | None = None) -> Any:
    """Load an org schema: ``hf:Salesforce/CRMArena[Pro[:b2b|b2c]]``, a file, or the builtin.

    Args:
        source: ``hf`` or ``hf:Salesforce/CRMArena`` (config ``schema``),
            ``hf:Salesforce/CRMArenaPro`` (config ``b2b_schema``; ``:b2c`` for
            ``b2c_schema``), ``hf:FILE`` (a local JSON/Parquet copy of such a config, read
            through ``datasets`` too), a schema file in either format :meth:`Schema.load`
            reads, or ``None`` / ``builtin`` for the builtin schema.

    Returns:
        A :class:`crmtui.data.schema.Schema`.

    Raises:
        DatasetError: The hub cannot be reached or the source is not a known schema config.
        SchemaError: The schema file or rows are invalid.
    """
    from crmtui.data.schema import Schema, builtin_schema

    if source is None or (isinstance(source, str) and source.strip() == "builtin"):
        return builtin_schema()
    text = os.fspath(source)
    if text == "hf":
        text = f"{HF_PREFIX}Salesforce/CRMArena"
    if isinstance(source, str) and text.startswith(HF_PREFIX):
        local = Path(text[len(HF_PREFIX) :]).expanduser()
        if local.suffix.lower() in _JSON_SUFFIXES and local.is_file():
            # A local copy of the hub's schema config, read through datasets as the hub's is.
            builder = _JSON_SUFFIXES[local.suffix.lower()]
            return Schema.from_json(schema_rows_from_dataset(_datasets_rows(local, builder)))
        repo, _, variant = text[len(HF_PREFIX) :].partition(":")
        if repo == "Salesforce/CRMArena" and variant in ("", "schema"):
            config = split = "schema"
        elif repo == "Salesforce/CRMArenaPro" and variant in ("", "b2b", "b2c"):
            config = split = f"{variant or 'b2b'}_schema"
        else:
            raise DatasetError(
                f"unknown schema source {text!r}; use hf:Salesforce/CRMArena, "
                "hf:Salesforce/CRMArenaPro[:b2b|b2c], or a schema file"
            )
        rows = _hub_rows(HubSource(repo, config, split), config, split)
        return Schema.from_json(schema_rows_from_dataset(rows))
    return Schema.load(Path(text).expanduser())


def schema_rows_from_dataset(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Undo Arrow's struct unification on upstream schema rows.

    Arrow stores every object's ``fields`` as one struct holding the union of all objects'
    field names, filling absent ones with null; dropping the nulls gives back each object's
    own ``{name: description}`` mapping.
    """
    cleaned = []
    for row in rows:
        fields = row.get("fields")
        if isinstance(fields, dict):
            fields = {name: desc for name, desc in fields.items() if desc is not None}
        cleaned.append({**row, "fields": fields})
    return cleaned


# ---------------------------------------------------------------------------------------
# local files


def _sample_tasks_path(provider: Callable[[], Path] | None) -> Path:
    path = paths.org_tasks_path(paths.SAMPLE_ORG_NAME)
    if path.exists():
        return path
    if provider is None:
        raise OrgError("the sample org's tasks are missing; run `crmtui org build` to create them")
    return provider()


def _load_file(path: Path, description: str, *, via_datasets: bool = True) -> TaskSet:
    builder = _JSON_SUFFIXES.get(path.suffix.lower())
    check_regular_file(path)
    if builder is None:
        raise DatasetError(
            f"unsupported task file type {path.suffix or '(none)'!r} for {path}; "
            "use .json, .jsonl or .parquet"
        )
    if builder == "json":
        # Read and checked before datasets sees it: pyarrow's JSON reader crashes the
        # process on some inputs (see crmtui.data.task_files).
        plain = read_json_rows(path)
        reread: Callable[[], list[Any]] = functools.partial(list, plain)
        if not plain:
            via_datasets = False
    else:
        reread = functools.partial(_parquet_rows, path)
    if not via_datasets:
        return _build(None, description, reread)
    try:
        rows = _datasets_rows(path, builder)
    except Exception:  # noqa: BLE001 - any failure inside datasets/Arrow: re-read below
        # datasets gives up on some files Python's json reads fine (rows of irreconcilable
        # types); the plain reader then reports the exact problem.
        rows = None
    return _build(rows, description, reread)


def _build(
    rows: list[dict[str, Any]] | None,
    description: str,
    reread: Callable[[], list[Any]] | None,
) -> TaskSet:
    """Validate rows; on failure re-read them without Arrow to name the true culprit.

    Arrow unifies each column's type across rows, so one bad value can change the others
    (one float idx turns every idx into a float, e.g. ``0.0``) and the first error seen would
    blame an innocent row. Rows read with the json module keep their types as written.
    """
    if rows is not None:
        try:
            return _nonempty(TaskSet.from_rows(rows, description), description)
        except DatasetError as exc:
            if reread is None:
                raise _located(exc, description) from None
    assert reread is not None
    try:
        return _nonempty(TaskSet.from_rows(reread(), description), description)
    except DatasetError as exc:
        raise _located(exc, description) from None


def _nonempty(tasks: TaskSet, description: str) -> TaskSet:
    if len(tasks) == 0:
        raise DatasetError(f"no instances in {description}")
    return tasks


def _located(exc: DatasetError, description: str) -> DatasetError:
    if exc.args and not str(exc.args[0]).startswith(description):
        exc.args = (f"{description}: {exc.args[0]}",)
    return exc


def _parquet_rows(path: Path) -> list[Any]:
    """Read Parquet rows with pyarrow, keeping types as written."""
    import pyarrow.parquet as pq

    try:
        return pq.read_table(path).to_pylist()
    except Exception as exc:  # noqa: BLE001 - pyarrow raises many kinds
        raise DatasetError(f"cannot read Parquet file {path}: {exc}") from None


def _datasets_rows(path: Path, builder: str) -> list[dict[str, Any]]:
    datasets = _import_datasets()
    dataset = datasets.load_dataset(
        builder,
        data_files=str(path),
        split="train",
        cache_dir=str(paths.cache_dir() / "datasets"),
    )
    return dataset.to_list()


def _import_datasets() -> Any:
    # Local loads must not phone home: without these a load sends a download-count request
    # (PLATFORM-NOTES). setdefault keeps a user's explicit choice.
    os.environ.setdefault("HF_UPDATE_DOWNLOAD_COUNTS", "0")
    os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    import datasets

    datasets.disable_progress_bars()
    # datasets logs failed JSON parses at ERROR level before raising; crmtui reports the
    # problem itself (naming the row), so its own log line would be a second, noisier one.
    datasets.logging.set_verbosity(datasets.logging.CRITICAL)
    return datasets


# ---------------------------------------------------------------------------------------
# the hub


def _offline_flag() -> str | None:
    for name in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE"):
        if os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on"):
            return name
    return None


def _hub_address() -> tuple[str, int]:
    """Host and port of the hub (``HF_ENDPOINT`` when set, else huggingface.co:443)."""
    endpoint = os.environ.get("HF_ENDPOINT", "https://huggingface.co")
    parts = urlsplit(endpoint)
    port = parts.port or (80 if parts.scheme == "http" else 443)
    return parts.hostname or "huggingface.co", port


def _hub_unreachable(repo: str, why: str, config: str | None = None) -> DatasetError:
    if config is not None and config.endswith("schema"):
        advice = (
            "use a local copy of the schema config with --schema hf:FILE (e.g. "
            "hf:crmarena_schema.json), or a schema file with --schema FILE"
        )
    else:
        advice = (
            "use a local file with --tasks PATH.json or the built-in sample with --tasks sample"
        )
    return DatasetError(f"cannot reach the Hugging Face hub to load {repo} ({why}); {advice}")


def _check_hub_reachable(repo: str, config: str | None = None) -> None:
    """Fail within ~HUB_CONNECT_TIMEOUT seconds when the hub is unreachable.

    Without this, ``datasets`` retries for a long time before giving up on a dead network
    (docs/performance.md).
    """
    host, port = _hub_address()
    try:
        with socket.create_connection((host, port), timeout=HUB_CONNECT_TIMEOUT):
            pass
    except OSError as exc:
        raise _hub_unreachable(repo, f"{host}:{port}: {exc.strerror or exc}", config) from None


def _hub_rows(hub: HubSource, config: str | None, split: str) -> list[dict[str, Any]]:
    flag = _offline_flag()
    if flag is None:
        _check_hub_reachable(hub.repo, config)
    datasets = _import_datasets()
    try:
        dataset = datasets.load_dataset(
            hub.repo, config, split=split, cache_dir=str(paths.cache_dir() / "datasets")
        )
    except Exception as exc:  # noqa: BLE001 - hub/network/cache failures come in many types
        first_line = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        if flag is not None:
            # Offline mode can still serve a cached copy; reaching here usually means there
            # is none, but say what datasets said in case it is something else.
            raise _hub_unreachable(
                hub.repo, f"{flag} is set and no usable cached copy ({first_line[:160]})", config
            ) from None
        raise DatasetError(f"cannot load {hub.repo} ({config}, {split}): {first_line}") from None
    return dataset.to_list()
