"""The org a recording was made on: find it, open it, and check it is still the same.

A recording's header names the org's path, name and content digest. Replaying against a
missing org still shows every event (nothing can be re-run); against a changed org the
re-run results may differ from what the actor saw, so the replay says so.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from crmtui.record.errors import RecordingError
from crmtui.record.verify import Recording, scan
from crmtui.review.replay import Replay, replay


@dataclass(frozen=True)
class OrgCheck:
    """Whether the org at hand is the one the recording was made on.

    Attributes:
        status: ``ok``, ``missing`` (no org file: queries cannot be re-run), ``changed``
            (its digest differs: re-run results may differ from what the actor saw) or
            ``unknown`` (the header has no digest to compare with).
        message: One line for humans.
        path: The org file used or looked for.
        expected: The digest in the recording's header.
        actual: The digest of the org at hand (None when missing).
    """

    status: str
    message: str
    path: str | None
    expected: str | None
    actual: str | None

    @property
    def ok(self) -> bool:
        """True when the org is present and its digest matches the header's."""
        return self.status == "ok"

    @property
    def available(self) -> bool:
        """True when there is an org to re-run queries on (matching or not)."""
        return self.status != "missing"


def check_org(
    recording: Recording, org: Any, *, path: str | os.PathLike[str] | None = None
) -> OrgCheck:
    """Compare the header's org digest with ``org``'s.

    Args:
        recording: The recording.
        org: The org to replay against (anything with ``digest`` and ``path``), or None
            when it could not be found or opened.
        path: Where the org was looked for (for the message when ``org`` is None).
    """
    header_org = recording.header.get("org") or {}
    expected = header_org.get("digest")
    where = os.fspath(path) if path is not None else header_org.get("path")
    if org is None:
        return OrgCheck(
            "missing",
            f"org not found: {where or '(no path recorded)'}; the events replay, "
            "but queries and records cannot be re-run",
            where,
            expected,
            None,
        )
    actual = str(org.digest)
    where = os.fspath(getattr(org, "path", where) or "") or where
    if not expected:
        return OrgCheck(
            "unknown",
            f"the recording names no org digest; cannot tell whether {where} is the same org",
            where,
            None,
            actual,
        )
    if actual != expected:
        return OrgCheck(
            "changed",
            f"org {where} changed since the recording (digest {actual[:12]}… is not the "
            f"recorded {expected[:12]}…); re-run results may differ from what was seen",
            where,
            expected,
            actual,
        )
    return OrgCheck("ok", f"org {where} matches the recording", where, expected, actual)


def open_recorded_org(
    recording: Recording, spec: str | os.PathLike[str] | None = None
) -> tuple[Any, OrgCheck]:
    """Open the org to replay against and check it: ``spec`` if given, else the header's.

    When the header's path is gone but an org of the recorded name exists in the data
    directory (recordings moved between machines), that one is used.

    Returns:
        The opened org (None when missing) and the check.

    Raises:
        CrmtuiError: When ``spec`` names no org or the file is not a readable org.
    """
    from crmtui import paths
    from crmtui.errors import ConfigError, OrgError
    from crmtui.org.store import Org

    if spec is not None:
        target = paths.resolve_org(spec)
        return_org = Org.open(target)
        return return_org, check_org(recording, return_org, path=target)
    header_org = recording.header.get("org") or {}
    candidates: list[Path] = []
    if header_org.get("path"):
        candidates.append(Path(header_org["path"]).expanduser())
    if header_org.get("name"):
        # A recorded name is data from a file: an invalid one just names no org here.
        with contextlib.suppress(ConfigError):
            candidates.append(paths.org_path(str(header_org["name"])))
    for candidate in candidates:
        if candidate.is_file():
            try:
                org = Org.open(candidate)
            except OrgError:
                continue
            return org, check_org(recording, org, path=candidate)
    if header_org.get("name") == paths.SAMPLE_ORG_NAME:
        # The sample org is deterministic: a fresh machine rebuilds the very same one (its
        # digest is checked below), so shipped example recordings replay anywhere.
        from crmtui.org.sample import ensure_sample

        org = ensure_sample()
        return org, check_org(recording, org, path=org.path)
    return None, check_org(recording, None, path=candidates[0] if candidates else None)


@dataclass(frozen=True)
class ReplaySource:
    """Everything a replay needs: the verified recording folded, the org and its check.

    Attributes:
        replay: The folded recording.
        org: The org to re-run queries on, or None when it is missing.
        check: How that org compares with the recorded one.
        instance: The task instance (for its context), when its task file is at hand.
    """

    replay: Replay
    org: Any
    check: OrgCheck
    instance: Any = None


def find_instance(recording: Recording, org: Any = None) -> Any:
    """The recorded instance from a local task file, or None (never fetches anything).

    Looks at the header's tasks source when it is a file, the sample tasks when the source
    is ``sample``, and the tasks files beside the opened and the recorded org (see
    :class:`~crmtui.review.recheck.TaskLookup`: read without importing ``datasets``). The
    instance must have the recorded idx and query.
    """
    from crmtui.review.recheck import TaskLookup

    return TaskLookup().find(recording.header, getattr(org, "path", None))


def prepare_replay(
    path: str | os.PathLike[str], org: str | os.PathLike[str] | None = None
) -> ReplaySource:
    """Load and verify a recording, fold it, and open and check its org.

    Args:
        path: The recording file.
        org: An org path or name overriding the one in the header.

    Raises:
        RecordingError: The recording is unreadable or tampered with (naming the line).
        CrmtuiError: ``org`` names no readable org.
    """
    report, header, events = scan(path)
    if header is None or not report.ok:
        # One rule with verify, compare, report and export: a damaged file is refused; a
        # partial final line (a crash mid-write) is the one fault `verify --repair` fixes.
        hint = ""
        if report.truncated and report.first_bad_line is not None:
            hint = (
                f" (lines 1-{report.first_bad_line - 1} are intact; "
                f"`crmtui verify --repair {path}` cuts the partial line off)"
            )
        raise RecordingError(
            f"refusing to replay: {report.problem}{hint}",
            path=report.path,
            line=report.first_bad_line,
        )
    recording = Recording(report.path, header, events)
    opened, check = open_recorded_org(recording, org)
    return ReplaySource(replay(recording), opened, check, find_instance(recording, opened))
