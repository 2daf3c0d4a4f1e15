"""Damage as a disk, a careless copy or an editor does it, for the fuzzers.

* :func:`damaged_org`: bytes flipped anywhere past the SQLite file header, the file cut
  short, an object's table dropped; ``org info`` and ``query`` must answer in one line
  (judged by :func:`~tests.property.fuzz_inputs.run_cli`).
* :func:`tampered_recording`: a real, finished recording edited as text and not re-chained:
  its last lines deleted, only its header kept, CRLF endings or spaces added; it must never
  verify as intact and finished (:func:`check_tampered`; failure ``unnamed``).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import Any


def _pick(rng: random.Random, items: list[Any]) -> Any:
    return items[rng.randrange(len(items))]


def tampered_recording(rng: random.Random, recordings: list[bytes]) -> tuple[str, bytes]:
    """(what was done, bytes) of a real, finished recording edited as text, not re-chained:
    the last lines deleted, only the header kept, CRLF endings or spaces added to lines.
    """
    lines = recordings[rng.randrange(len(recordings))].split(b"\n")[:-1]
    k = rng.randrange(len(lines))
    edits = {
        "delete the last lines": lambda: lines[: -rng.randint(1, max(1, len(lines) - 1))],
        "keep only the header": lambda: lines[:1],
        "CRLF endings": lambda: [line + b"\r" for line in lines],
        "CRLF on one line": lambda: [x + b"\r" if i == k else x for i, x in enumerate(lines)],
        "trailing spaces": lambda: [x + b" " * rng.randint(1, 3) for x in lines],
        "leading space on one line": lambda: [
            b" " + x if i == k else x for i, x in enumerate(lines)
        ],
        "a tab before the newline": lambda: [
            x + b"\t" if i == k else x for i, x in enumerate(lines)
        ],
    }
    what = _pick(rng, sorted(edits))
    return what, b"".join(line + b"\n" for line in edits[what]())


def check_tampered(path: Path) -> tuple[str, str]:
    """A textually tampered recording must not verify as intact and finished."""
    from crmtui.record import verify

    report = verify(path)
    if report.ok and report.finished:
        return "unnamed", "verifies as intact and finished"
    return ("unfinished" if report.ok else "named"), str(report.problem)


def damaged_org(rng: random.Random, source: Path, target: Path) -> str:
    """Write a damaged copy of the org ``source`` to ``target``; return what was done."""
    import sqlite3

    data = bytearray(source.read_bytes())
    roll = rng.random()
    if roll < 0.6:
        flips = rng.choice([1, 10, 300, 3000])
        for _ in range(flips):
            at = rng.randrange(100, len(data))  # past the 100-byte file header
            data[at] ^= rng.randrange(1, 256)
        target.write_bytes(bytes(data))
        return f"{flips} flipped bytes"
    if roll < 0.75:
        cut = rng.randrange(100, len(data))
        target.write_bytes(bytes(data[:cut]))
        return f"cut at byte {cut}"
    target.write_bytes(bytes(data))
    conn = sqlite3.connect(target)
    try:
        names = [n for (n,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        name = _pick(rng, [n for n in names if not n.startswith("_fts_")] or names)
        conn.execute(f'DROP TABLE "{name}"')
        conn.commit()
    finally:
        conn.close()
    return f"table {name} dropped"


def damaged_org_argv(rng: random.Random, path: Path, query: Callable[[], str]) -> list[str]:
    """``org info`` or a ``query`` (generated, or a plain one) on a damaged org file."""
    if rng.random() < 0.4:
        return ["org", "info", str(path)]
    text = query() if rng.random() < 0.5 else "SELECT Id, Subject, Description FROM Case LIMIT 50"
    return ["query", "--org", str(path), "--format", _pick(rng, ["table", "json"]), text]
