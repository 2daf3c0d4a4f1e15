"""One live session per annotator and instance, across processes: a lock next to the recordings.

Two terminals, or two ``crmtui serve`` processes on one study folder, must not let one
annotator work on the same instance twice at once (each would record its own attempt). Before
a session on an instance starts, the app claims ``<recordings>/<actor>/.claims/idx<N>-<src>.lock``
with an exclusive ``flock`` (:mod:`crmtui.flock`; not enforced where there is none): the
operating system drops the lock when the process exits, however
it exits (a crash, a kill), so a claim is never left held by a dead process. The file itself
stays (a few bytes naming the last holder); removing it would race with a process about to lock it.

A claim is per process and per open: a second claim of the same instance in the same process
fails too (``flock`` locks belong to open files), which is what the play app wants.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from pathlib import Path
from types import TracebackType

from crmtui.errors import CrmtuiError
from crmtui.flock import holder_text, read_holder, try_lock, write_holder
from crmtui.record.format import slugify

CLAIMS_DIR = ".claims"


class InstanceInUse(CrmtuiError):
    """Another live session (another process or tab) holds this annotator's instance."""


def claim_path(recordings: Path, actor_id: str, tasks_source: str, idx: int) -> Path:
    """Where the claim of ``actor_id`` on instance ``idx`` of ``tasks_source`` lives."""
    source = hashlib.sha256(tasks_source.encode("utf-8", "replace")).hexdigest()[:12]
    return Path(recordings) / slugify(actor_id) / CLAIMS_DIR / f"idx{idx}-{source}.lock"


class Claim:
    """A held claim; :meth:`release` (or leaving a ``with`` block) lets it go.

    Build one with :func:`claim_instance`.
    """

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self._fd: int | None = fd

    @property
    def held(self) -> bool:
        """Whether this claim still holds its lock."""
        return self._fd is not None

    def release(self) -> None:
        """Let the lock go (idempotent)."""
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)  # also drops the flock

    def __enter__(self) -> Claim:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()

    def __del__(self) -> None:  # a forgotten claim must not hold the instance
        self.release()


def claim_instance(recordings: Path, actor_id: str, tasks_source: str, idx: int) -> Claim:
    """Claim instance ``idx`` for ``actor_id``, or say who holds it.

    Raises:
        InstanceInUse: Another live session holds it (named by pid, host and start time).
        CrmtuiError: The claims folder cannot be written.
    """
    path = claim_path(recordings, actor_id, tasks_source, idx)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise CrmtuiError(f"cannot write {path.parent}: {exc.strerror}") from exc
    if not try_lock(fd):
        holder = read_holder(fd)
        os.close(fd)
        raise InstanceInUse(
            f"instance {idx} is open in another crmtui session"
            f"{f' ({holder_text(holder)})' if holder else ''}; finish or quit it there first"
        )
    with contextlib.suppress(OSError):  # the lock is what matters; the note helps the message
        write_holder(fd)
    return Claim(path, fd)
