"""Claims: one live session per annotator and instance, across processes, never left held."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from crmtui.record.claims import InstanceInUse, claim_instance, claim_path

pytest.importorskip("fcntl", reason="claims are flock locks (POSIX)")

_HOLDER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from crmtui.record.claims import claim_instance
    claim = claim_instance(Path(sys.argv[1]), "ann", "sample", 5)
    print("held", flush=True)
    time.sleep(60)
    """
)


def _holder(root: Path) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(root)], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    return proc


def test_two_processes_cannot_both_hold_the_instance_and_a_killed_holder_lets_go(
    tmp_path: Path,
) -> None:
    proc = _holder(tmp_path)
    try:
        with pytest.raises(InstanceInUse, match=rf"instance 5 .*pid {proc.pid}"):
            claim_instance(tmp_path, "ann", "sample", 5)
        # Others are free: another instance, another annotator, another task source.
        for args in (("ann", "sample", 6), ("ben", "sample", 5), ("ann", "tasks.json", 5)):
            claim_instance(tmp_path, *args).release()
    finally:
        os.kill(proc.pid, signal.SIGKILL)  # a crash: no release, no clean-up
        proc.wait(timeout=10)
    with claim_instance(tmp_path, "ann", "sample", 5) as claim:
        assert claim.held
    assert not claim.held


def test_one_process_holds_an_instance_once_until_it_lets_go(tmp_path: Path) -> None:
    first = claim_instance(tmp_path, "ann", "sample", 5)
    with pytest.raises(InstanceInUse):
        claim_instance(tmp_path, "ann", "sample", 5)
    first.release()
    first.release()  # idempotent
    claim_instance(tmp_path, "ann", "sample", 5).release()


def test_claims_live_next_to_the_annotator_recordings_and_are_no_recordings(
    tmp_path: Path,
) -> None:
    path = claim_path(tmp_path, "Ann Smith", "sample", 5)
    assert path.parent == tmp_path / "Ann-Smith" / ".claims"
    claim_instance(tmp_path, "Ann Smith", "sample", 5).release()
    assert path.is_file() and not list(tmp_path.rglob("*.jsonl"))
