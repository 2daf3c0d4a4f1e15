"""Fuzzing the entry points besides the engine: task files, recordings and the CLI.

Shared by the CI tests (``test_inputs_fuzz.py``, a few hundred inputs) and
``scripts/fuzz.py`` (tens of thousands, with a summary). Inputs start from real documents
(the sample's task rows, the example recordings) and are pushed to the edges in two ways:

* byte-level mutation: flipped and inserted bytes, invalid UTF-8, NULs, a byte order mark,
  100,000 open brackets, 5,000-digit numbers, ``NaN``/``Infinity``, cut-off tails;
* structural mutation of the parsed JSON: a leaf replaced by a hostile value (huge and
  negative integers, ``1e308``, NaN, 100 KB strings, lone surrogates, control characters,
  deep nesting, the wrong type), keys dropped or added, rows/events deleted, duplicated
  or swapped. A mutated recording is then *re-chained* (every hash recomputed, as a careful
  forger would), so it passes the hash chain and reaches payload validation, replay and
  the summaries behind report/compare/export.

Each run names its outcome: ``ok``, ``refused:<ErrorClass>`` (a one-line crmtui error) or a
failure: ``crash`` (any other exception escaped), ``disagree`` (``verify`` and loading
disagree about a recording), ``traceback`` / ``internal`` (the CLI printed a traceback or
an internal error), ``exit`` (an exit status outside :mod:`crmtui.exit_codes`), ``silent``
(a failing CLI command said nothing), ``raw`` (a control or bidi character from a task,
an org or a recording reached the terminal unescaped) or ``slow`` (judged on CPU time,
``time.process_time``: on a loaded machine wall time measures the wait for a core).

Damage as a disk or an editor does it (damaged orgs, recordings edited as text) is made by
``fuzz_damage``.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: Outcomes that are failures.
INPUT_FAILURES = (
    "crash",
    "disagree",
    "unnamed",
    "traceback",
    "internal",
    "exit",
    "silent",
    "raw",
    "slow",
)  # fmt: skip  (``unnamed``: a tampered recording verified as intact; see fuzz_damage)

HOSTILE_CHUNKS = [
    b"\xff", b"\xc3", b"\x80", b"\x00", b"\xef\xbb\xbf", b"null", b"NaN", b"Infinity",
    b"-Infinity", b"1e999", b"9" * 5000, b"[" * 100_000, b'{"a":' * 60, b'"\\ud800"',
    b'"\\u0000"', b"\r\n", b"\n\n", b"\\", b'"', b",", b"]", b"}", b"true", b"[]", b"{}",
    b'"idx": 1e30', b'"idx": -1', b'"idx": 100000000000000000000000000000', b"\x1b[2J",
    "\u202e".encode(), "\u2028".encode(),
]  # fmt: skip


def _deep(levels: int) -> Any:
    value: Any = 1
    for _ in range(levels):
        value = [value]
    return value


HOSTILE_VALUES: list[Any] = [
    None, True, False, 0, -1, 2**63, -(2**63) - 1, 10**30, 1e308, -1e308, 5e-324,
    float("nan"), float("inf"), "", "x" * 100_000, "\ud800", "a\x00b", "\x1b[2J\u202e",
    "2024-13-45", "9999-99-99T99:99:99.999Z", "NaN", [], {}, _deep(40), _deep(200),
    {"idx": 1}, [None], "005Ws000001aaaaIAA", "SELECT Id FROM Case", {"": {"": None}},
]  # fmt: skip


def _pick(rng: random.Random, items: list[Any]) -> Any:
    return items[rng.randrange(len(items))]


def _hostile(rng: random.Random) -> Any:
    """A fresh copy of a hostile value (a shared one could end up inside itself)."""
    return copy.deepcopy(_pick(rng, HOSTILE_VALUES))


# ---------------------------------------------------------------------- byte mutations --


def mutate_bytes(rng: random.Random, data: bytes, edits: int | None = None) -> bytes:
    """1-4 byte-level edits of ``data`` (or ``edits`` of them)."""
    buf = bytearray(data)
    for _ in range(edits if edits is not None else rng.randint(1, 4)):
        pos = rng.randrange(len(buf) + 1)
        op = rng.randrange(6)
        if op == 0 and buf:
            buf[min(pos, len(buf) - 1)] = rng.randrange(256)
        elif op == 1:
            buf[pos:pos] = _pick(rng, HOSTILE_CHUNKS)
        elif op == 2 and buf:
            del buf[pos : pos + rng.choice([1, 2, 10, 1000])]
        elif op == 3:
            del buf[pos:]  # cut off (a partial write)
        elif op == 4 and buf:
            start = rng.randrange(len(buf))
            buf[pos:pos] = buf[start : start + rng.choice([1, 50, 5000])]
        else:
            buf[:0] = _pick(rng, [b"\xef\xbb\xbf", b"\n", b" ", b"\xff\xfe"])
    return bytes(buf)


# ------------------------------------------------------------------ structural mutation --


def _containers(value: Any, limit: int = 2000) -> list[Any]:
    """Every dict and list inside ``value`` (breadth first, at most ``limit``)."""
    found: list[Any] = []
    queue = [value]
    while queue and len(found) < limit:
        item = queue.pop(0)
        if isinstance(item, dict | list):
            found.append(item)
            queue.extend(item.values() if isinstance(item, dict) else item)
    return found


def mutate_value(rng: random.Random, value: Any, edits: int | None = None) -> Any:
    """A deep copy of a JSON value with 1-3 structural edits."""
    value = copy.deepcopy(value)
    for _ in range(edits if edits is not None else rng.randint(1, 3)):
        containers = _containers(value)
        if not containers:
            return _hostile(rng)
        box = _pick(rng, containers)
        op = rng.randrange(4)
        if isinstance(box, dict):
            keys = list(box)
            if op == 0 and keys:
                del box[_pick(rng, keys)]
            elif op == 1:
                key = _pick(rng, ["extra", "idx", "", "\ud800", "payload", "type"])
                box[key] = _hostile(rng)
            elif keys:
                box[_pick(rng, keys)] = _hostile(rng)
        else:
            if op == 0 and box:
                del box[rng.randrange(len(box))]
            elif op == 1 and box:
                box.insert(rng.randrange(len(box) + 1), copy.deepcopy(_pick(rng, box)))
            elif op == 2 and len(box) > 1:
                i, j = rng.randrange(len(box)), rng.randrange(len(box))
                box[i], box[j] = box[j], box[i]
            elif box:
                box[rng.randrange(len(box))] = _hostile(rng)
            else:
                box.append(_hostile(rng))
    return value


def dumps_loosely(value: Any) -> bytes:
    """JSON text of ``value`` even when it holds NaN or lone surrogates (as a file might)."""
    return json.dumps(value, ensure_ascii=False, allow_nan=True).encode("utf-8", "surrogatepass")


def rechain(lines: list[dict[str, Any]]) -> bytes:
    """A recording's lines re-sealed in order: every ``prev`` and ``hash`` recomputed.

    A line that cannot be sealed (NaN, a lone surrogate) is written as is, loosely.
    """
    from crmtui.record.format import PayloadError, sealed_line

    out: list[bytes] = []
    prev = ""
    for number, obj in enumerate(lines):
        obj = dict(obj) if isinstance(obj, dict) else obj
        if isinstance(obj, dict) and number > 0:
            obj["prev"] = prev
        try:
            if not isinstance(obj, dict):
                raise PayloadError("not an object")
            sealed, text = sealed_line(obj)
            prev = sealed["hash"]
            out.append(text.encode("utf-8"))
        except (PayloadError, ValueError, TypeError):
            out.append(dumps_loosely(obj) + b"\n")
    return b"".join(out)


class InputFuzzer:
    """Hostile task files and recordings made from real ones (seeded, deterministic).

    Args:
        task_rows: Real task rows (the sample's) to start task files from.
        recordings: The bytes of real recordings to start from.
        seed: Random seed.
    """

    def __init__(self, task_rows: list[dict[str, Any]], recordings: list[bytes], seed: int = 0):
        self.rng = random.Random(seed)
        self.task_rows = task_rows
        self.recordings = recordings
        self._parsed = [[json.loads(line) for line in r.splitlines()] for r in recordings]

    def task_file(self) -> tuple[str, bytes]:
        """(suffix, content) of a hostile task file: JSON, JSON lines or odd top levels."""
        rng = self.rng
        rows = [copy.deepcopy(_pick(rng, self.task_rows)) for _ in range(rng.choice([1, 2, 5]))]
        roll = rng.random()
        if roll < 0.1:
            return ".json", dumps_loosely(_hostile(rng))
        if roll < 0.55:
            rows = mutate_value(rng, rows)
        as_lines = rng.random() < 0.3 and isinstance(rows, list)
        if as_lines:
            data = b"\n".join(dumps_loosely(row) for row in rows) + b"\n"
        else:
            data = dumps_loosely(rows)
        if roll >= 0.55 or rng.random() < 0.2:
            data = mutate_bytes(rng, data)
        return (".jsonl" if as_lines else ".json"), data

    def recording(self) -> bytes:
        """A hostile recording: byte-mutated, or structurally mutated and re-chained."""
        rng = self.rng
        which = rng.randrange(len(self.recordings))
        if rng.random() < 0.3:
            return mutate_bytes(rng, self.recordings[which])
        lines = copy.deepcopy(self._parsed[which])
        roll = rng.random()
        if roll < 0.2 and len(lines) > 2:  # delete, duplicate or swap whole events
            i = rng.randrange(1, len(lines))
            op = rng.randrange(3)
            if op == 0:
                del lines[i]
            elif op == 1:
                lines.insert(i, copy.deepcopy(lines[i]))
            else:
                j = rng.randrange(1, len(lines))
                lines[i], lines[j] = lines[j], lines[i]
        elif roll < 0.3 and len(lines) > 1:  # an event turned into another known type
            event = lines[rng.randrange(1, len(lines))]
            event["type"] = _pick(rng, sorted({str(line.get("type")) for line in lines[1:]}))
        else:
            i = 0 if rng.random() < 0.15 else rng.randrange(len(lines))
            lines[i] = mutate_value(rng, lines[i])
        return rechain(lines)


# ------------------------------------------------------------------------- the targets --


def _outcome_of(exc: BaseException) -> str:
    from crmtui.errors import CrmtuiError

    if isinstance(exc, CrmtuiError):
        return f"refused:{type(exc).__name__}"
    return "crash"


def timed(fn: Callable[[], str], slow_ms: float) -> tuple[str, str]:
    """Run ``fn`` (which names its outcome) and catch what escapes it."""
    started = time.process_time()
    try:
        outcome, detail = fn(), ""
    except Exception as exc:  # noqa: BLE001 - what the fuzzer exists to report
        outcome, detail = _outcome_of(exc), f"{type(exc).__name__}: {str(exc)[:300]}"
    elapsed = (time.process_time() - started) * 1000
    if elapsed > slow_ms:
        return "slow", f"{elapsed:.0f} ms ({outcome}) {detail}"
    return outcome, detail


def check_task_file(path: Path, *, slow_ms: float = 5000.0) -> tuple[str, str]:
    """Load a task file as ``crmtui tasks --tasks`` would (json module path)."""
    from crmtui.data.loaders import load_tasks

    def go() -> str:
        tasks = load_tasks(str(path), via_datasets=False)
        for instance in tasks:
            repr(instance)
        return "ok"

    return timed(go, slow_ms)


def check_recording(path: Path, *, slow_ms: float = 5000.0) -> tuple[str, str]:
    """verify, load, replay and summarize a recording; verify and load must agree."""
    from crmtui.record import verify
    from crmtui.record.verify import load
    from crmtui.review.replay import replay, summarize
    from crmtui.review.summary import summarize as summarize_session

    def go() -> str:
        report = verify(path)
        try:
            recording = load(path)
        except Exception:
            if report.ok:
                return "disagree"
            raise
        if not report.ok:
            return "disagree"
        replay(recording)
        for event in recording.events:
            summarize(event)
        summarize_session(recording)
        return "ok"

    return timed(go, slow_ms)


def run_cli(argv: list[str], *, stdin: str = "", slow_ms: float = 10_000.0) -> tuple[str, str]:
    """Run ``crmtui ARGV`` in this process and judge what a user would see."""
    from crmtui import exit_codes
    from crmtui.cli import main

    known = {
        exit_codes.OK, exit_codes.ERROR, exit_codes.USAGE, exit_codes.INSTANCE_ERRORS,
        exit_codes.INTERRUPTED,
    }  # fmt: skip
    out, err = io.StringIO(), io.StringIO()
    started = time.process_time()
    old_stdin = sys.stdin
    # A real standard input: the CLI reads its bytes (to refuse what is not UTF-8).
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin.encode("utf-8", "surrogatepass")))
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main(argv)
                code: Any = 0
            except SystemExit as exc:
                code = exc.code
    except Exception as exc:  # noqa: BLE001 - escaped even the CLI's last resort
        return "crash", f"{type(exc).__name__}: {exc}"
    finally:
        sys.stdin = old_stdin
    elapsed = (time.process_time() - started) * 1000
    code = 0 if code is None else code
    said = err.getvalue() + out.getvalue()
    detail = f"exit {code}: {err.getvalue().strip()[:300]}"
    if "Traceback (most recent call last)" in said:
        return "traceback", detail
    if "internal error" in err.getvalue():
        return "internal", detail
    if code not in known:
        return "exit", detail
    if code != 0 and not said.strip():
        return "silent", detail
    from crmtui.sanitise import UNSAFE

    found = UNSAFE.search(said)
    if found is not None:
        return "raw", f"{found.group()!r} in {said[max(0, found.start() - 80) :][:200]!r}"
    if elapsed > slow_ms:
        return "slow", f"{elapsed:.0f} ms {detail}"
    return f"exit:{code}", detail


# ------------------------------------------------------------------------------ the CLI --

HOSTILE_NAMES = [
    "../../etc/x", "/tmp/x", "a/b", "..", ".", "", "x\x00y", "x\u202ey", "x\ny", "\x1b[2J",
    "x" * 300, "con\\x", " ", "-x",
]  # fmt: skip
HOSTILE_OPTION_NUMBERS = ["nan", "inf", "-inf", "-1", "0", "1e999", "-0", "1" * 5000, "x", ""]
ODD_ARGS = ["\udcff", "caf\udce9", "\ud800", "\x00", "\u202e", "--", "-", "--help"]


def cli_argv(
    rng: random.Random, query: Callable[[], str], files: dict[str, Path]
) -> tuple[list[str], str]:
    """(argv, stdin) of one hostile but cheap ``crmtui`` command line.

    Args:
        rng: Random source.
        query: Makes a query text (the engine fuzzer's ``next``).
        files: ``tasks``, ``recording``, ``recordings`` (a folder) and ``out`` paths.
    """
    roll = rng.random()
    stdin = ""
    if roll < 0.4:
        argv = ["query"]
        if rng.random() < 0.3:
            argv += ["--timeout", _pick(rng, [*HOSTILE_OPTION_NUMBERS, "5"])]
        if rng.random() < 0.2:
            argv += ["--today", _pick(rng, ["2024-13-01", "0000-01-01", "x", "2024-05-01"])]
        if rng.random() < 0.2:
            argv += ["--format", _pick(rng, ["json", "observation", "table", "xml"])]
        text = query()
        if rng.random() < 0.2:
            argv.append("-")
            stdin = text
        else:
            argv.append(text + (_pick(rng, ODD_ARGS) if rng.random() < 0.1 else ""))
    elif roll < 0.55:
        argv = ["tasks", "list", "--tasks", str(files["tasks"]), "--show-answers"]
        if rng.random() < 0.3:
            argv += ["--limit", _pick(rng, HOSTILE_OPTION_NUMBERS)]
    elif roll < 0.62:
        idx = _pick(rng, ["0", "-1", "1" * 40, "1" * 5000, "x", "nan", "5", "1", "2"])
        argv = ["tasks", "show", idx, "--tasks", str(files["tasks"]), "--show-answer"]
    elif roll < 0.72:
        argv = ["verify", str(files["recording"])]
    elif roll < 0.8:
        fmt = _pick(rng, ["json", "md"])
        argv = ["compare", str(files["recording"]), str(files["recording"]), "--format", fmt]
    elif roll < 0.87:
        fmt = _pick(rng, ["json", "table", "md", "csv"])
        argv = ["report", str(files["recordings"]), "--format", fmt]
    elif roll < 0.92:
        argv = ["export", str(files["recordings"]), "--format", "jsonl"]
        argv += ["--out", str(files["out"])]
    elif roll < 0.97:
        argv = ["org", "build", "--name", _pick(rng, HOSTILE_NAMES)]
    else:
        argv = [_pick(rng, ["query", "verify", "tasks", "org", "report"]), _pick(rng, ODD_ARGS)]
    return argv, stdin
