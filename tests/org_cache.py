"""Orgs built once per test run: ``build_org`` with the same arguments makes the same files.

A test home is fresh for every test (``CRMTUI_HOME``), so every test that opens the sample
org without ``--org`` built it again: 140 builds a run, 107 of them the same seed-7 sample,
about 90 CPU seconds (63 in ``tests/unit/upstream/test_exact_helpers.py`` alone). The
generator is deterministic (its own tests say so: ``tests/unit/generator``), so the first
build of each set of arguments is kept in a folder every xdist worker of the run shares, and
later builds copy its three files (the org, its tasks, its solutions) into place, atomically
as ``build_org`` writes them.

Not cached: a build that reports progress (the tests of the progress screen and of the
build itself watch it happen), and anything not built through
``crmtui.org.build.build_org`` (a test that patches the generator calls it directly).
The cache lives in the run's own temp folder, so no run ever sees another run's code.
"""

from __future__ import annotations

import contextlib
import fcntl
import inspect
import json
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

#: The three files ``build_org`` writes, as suffixes of the org path.
SUFFIXES = ("", ".tasks.json", ".solutions.json")


def cached_builder(real: Callable[..., Any], folder: Path) -> Callable[..., Any]:
    """Wrap ``crmtui.org.build.build_org`` so that each set of arguments is built once.

    Args:
        real: The real ``build_org``.
        folder: Where built orgs are kept (shared by the run's workers).
    """
    signature = inspect.signature(real)

    def build_org(out: Any, *args: Any, **kwargs: Any) -> Any:
        bound = signature.bind(out, *args, **kwargs)
        bound.apply_defaults()
        values = dict(bound.arguments)
        out = Path(values.pop("out")).expanduser()
        if values.get("progress") is not None or type(values.get("seed")) is not int:
            return real(*bound.args, **bound.kwargs)  # watched, or an error to raise
        values.pop("progress")
        values["name"] = values["name"] if values["name"] is not None else out.stem
        key = "-".join(f"{k}={values[k]}" for k in sorted(values))
        kept = folder / key / "org.db"
        done = kept.with_suffix(".done")
        with _locked(folder / f"{key}.lock"):
            if not done.exists():
                kept.parent.mkdir(parents=True, exist_ok=True)
                built = real(kept, **(bound.kwargs | {"name": values["name"]}))
                facts = {"counts": built.counts, "seconds": built.seconds, "digest": built.digest}
                done.write_text(json.dumps(facts), encoding="utf-8")
        return _copy(kept, out, json.loads(done.read_text(encoding="utf-8")))

    def _copy(kept: Path, out: Path, facts: dict[str, Any]) -> Any:
        from crmtui.org.build import BuildResult

        out.parent.mkdir(parents=True, exist_ok=True)
        for suffix in SUFFIXES:
            source = kept.with_suffix(suffix) if suffix else kept
            target = out.with_suffix(suffix) if suffix else out
            partial = target.with_name(f".{target.name}.{os.getpid()}.copy")
            shutil.copyfile(source, partial)
            os.replace(partial, target)
        return BuildResult(
            path=out,
            tasks_path=out.with_suffix(".tasks.json"),
            solutions_path=out.with_suffix(".solutions.json"),
            **facts,
        )

    build_org.__wrapped__ = real  # type: ignore[attr-defined]
    return build_org


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """An exclusive lock on a file (two workers asking for one org build it once)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)  # released when the file is closed
        yield
