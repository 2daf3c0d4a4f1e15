"""The settings file beside a results file: how it was produced, and which run it belongs to.

``results_X.json`` gets ``settings_X.json`` beside it (not ``results_*``, so scripts that
glob for results files never pick it up), holding the run's id, when it started and
every resolved setting (:meth:`crmtui.agent.presets.Resolved.to_json`). Running again on the
same ``--out`` resumes that run only when every setting in
:attr:`~crmtui.agent.presets.Resolved.RESUME_KEYS` is the same; otherwise it refuses, naming
each difference, unless ``--fresh``, which keeps the old pair under a ``.replaced-<time>``
name and starts a new run. Recordings carry the run id in their header, so a fresh run never
mistakes an old run's recordings for its own.

The file also lists recordings a run voided: attempts that ended in model errors when the
first instances all did (a misconfiguration, not the model's ability); a resumed run runs
those instances again.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from crmtui.errors import ConfigError, CrmtuiError

__all__ = ["RunState", "open_run", "settings_path"]

SETTINGS_FORMAT = "crmtui-run-settings"


def settings_path(results_path: Path) -> Path:
    """``settings_X.json`` beside ``results_X.json``."""
    name = results_path.name
    stem = name[len("results_") :] if name.startswith("results_") else name
    return results_path.with_name("settings_" + stem)


@dataclass
class RunState:
    """One run's identity and settings, as kept beside its results file.

    Attributes:
        path: The settings file.
        run_id: The run's id (recorded in every header of its recordings).
        created_at: When the run started (first invocation).
        settings: The resolved settings.
        voided: Session ids of recordings that no longer count (run again on resume).
        resumed: Whether an earlier invocation of the same run existed.
    """

    path: Path
    run_id: str
    created_at: str
    settings: dict[str, Any]
    voided: list[str] = field(default_factory=list)
    resumed: bool = False

    def to_json(self) -> dict[str, Any]:
        """The file's content."""
        return {
            "format": SETTINGS_FORMAT,
            "run_id": self.run_id,
            "created_at": self.created_at,
            "settings": self.settings,
            "voided_sessions": list(self.voided),
        }

    def write(self) -> None:
        """Write atomically (temp file, fsync, rename)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        text = json.dumps(self.to_json(), indent=2, ensure_ascii=False) + "\n"
        try:
            with tmp.open("w", encoding="utf-8") as handle:
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, self.path)
        except OSError as exc:
            raise CrmtuiError(f"cannot write {self.path}: {exc.strerror or exc}") from None

    def void(self, session_ids: list[str]) -> None:
        """Mark recordings as not counting (their instances run again on resume)."""
        self.voided.extend(s for s in session_ids if s not in self.voided)
        self.write()


def _show(value: Any) -> str:
    return json.dumps(value) if not isinstance(value, str) else value


#: Values a setting had before it was recorded (runs made by older crmtui versions).
RECORDED_LATER = {"observations": "crmtui"}


def differences(old: Mapping[str, Any], new: Mapping[str, Any], keys: tuple[str, ...]) -> list[str]:
    """``"name old -> new"`` for every key whose values differ."""
    before = {key: old.get(key, RECORDED_LATER.get(key)) for key in keys}
    return [
        f"{key} {_show(before[key])} -> {_show(new.get(key))}"
        for key in keys
        if before[key] != new.get(key)
    ]


def _read(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}; pass --fresh to start over") from None
    if not isinstance(data, dict) or data.get("format") != SETTINGS_FORMAT:
        raise ConfigError(f"{path} is not a crmtui run settings file; pass --fresh to start over")
    return data


def _set_aside(paths: list[Path], stamp: str) -> None:
    for path in paths:
        if path.exists():
            os.replace(path, path.with_name(f"{path.name}.replaced-{stamp}"))


def open_run(
    results_path: Path,
    settings: Mapping[str, Any],
    keys: tuple[str, ...],
    *,
    fresh: bool = False,
    now: dt.datetime | None = None,
) -> RunState:
    """The run to write ``results_path`` for: resumed, refused, or new.

    Args:
        results_path: The results file.
        settings: The resolved settings of this invocation.
        keys: The settings a resume must match.
        fresh: Start a new run even when one exists (the old files are kept aside).
        now: The current time (tests).

    Raises:
        ConfigError: An earlier run with other settings (naming each), or a results file
            without a settings file (written by an older crmtui), and not ``fresh``.
    """
    moment = now or dt.datetime.now(dt.UTC)
    path = settings_path(results_path)
    if fresh:
        _set_aside([results_path, path], moment.strftime("%Y%m%d-%H%M%S"))
    elif path.exists():
        data = _read(path)
        old = data.get("settings") or {}
        changed = differences(old, settings, keys)
        if changed:
            raise ConfigError(
                f"{results_path} was made with other settings: {'; '.join(changed)}. Run with "
                "the same settings to resume it, or pass --fresh to start a new results file "
                "(the old one is kept)"
            )
        state = RunState(
            path,
            str(data.get("run_id") or uuid.uuid4().hex),
            str(data.get("created_at") or ""),
            dict(settings),
            [str(s) for s in data.get("voided_sessions") or []],
            resumed=True,
        )
        state.write()  # records settings outside the resume keys as they are now
        return state
    elif results_path.exists():
        raise ConfigError(
            f"{results_path} has no settings file beside it (an older crmtui wrote it), so a "
            "resume cannot be checked; pass --fresh to start a new results file (the old one "
            "is kept)"
        )
    state = RunState(path, uuid.uuid4().hex, moment.isoformat(timespec="seconds"), dict(settings))
    state.write()
    return state
