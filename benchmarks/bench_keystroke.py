"""CPU per keystroke of one served play app (no web server): where a key's time goes.

Starts ``crmtui play --study ... --annotator ...`` exactly as textual-serve does (the web
driver, 60 fps, truecolor) through textual-serve's own :class:`AppService`, opens the first
instance, focuses a text field (the answer box or the console editor) and types at a
steady rate, waiting for each key to be drawn. The app process's CPU time is read from
``/proc`` before and after; an equally long idle stretch (no keys) is measured too, so the
report separates per-key work from background work (clock ticks, cursor blink).

With ``--profile FILE`` the app runs under a CPU-time cProfile that covers the typing
stretch only, and its top functions are printed.

Usage::

    .venv/bin/python benchmarks/bench_keystroke.py [--target answer|console] [--keys 200]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shlex
import signal
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.serve.terminal import Terminal  # noqa: E402


def _cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _app_pid(shell_pid: int) -> int:
    """textual-serve runs the command through ``sh -c``: find the python running the app."""

    def cmdline(pid: int) -> bytes:
        try:
            return Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            return b""

    def is_app(pid: int) -> bool:
        line = cmdline(pid)
        return (b"crmtui.cli" in line or b"--as-app" in line) and not line.startswith(b"/bin/sh")

    if is_app(shell_pid):
        return shell_pid  # sh exec'd the command itself
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parent = int(stat.rsplit(")", 1)[1].split()[1])
            if parent == shell_pid and is_app(int(entry.name)):
                return int(entry.name)
    return shell_pid


class Screen:
    """Applies the app's output to a terminal grid and waits for text to appear on it."""

    def __init__(self, width: int, height: int) -> None:
        self.terminal = Terminal(width, height)
        self.changed = asyncio.Event()

    async def write_bytes(self, data: bytes) -> bool:
        self.terminal.feed(data)
        self.changed.set()
        return True

    async def write_str(self, data: str) -> bool:
        return True

    async def close(self) -> None:
        self.changed.set()

    async def wait_for(
        self, needle: str, row: int | None = None, more_than: int = 0, timeout: float = 60
    ) -> None:
        """Until ``needle`` is on the screen more than ``more_than`` times, or on ``row`` if
        given (-1: the cursor's row)."""

        def shown() -> bool:
            term = self.terminal
            if row is None:
                return term.text.count(needle) > more_than
            return needle in term.line(term.y if row == -1 else row)

        try:
            async with asyncio.timeout(timeout):
                while not shown():
                    self.changed.clear()
                    await self.changed.wait()
        except TimeoutError:
            line = self.terminal.line(self.terminal.y).strip()[:100]
            raise SystemExit(
                f"Error: {needle!r} not on screen within {timeout:g} s (cursor row: {line!r})"
            ) from None


async def run(args: argparse.Namespace, folder: Path, annotator: str) -> None:
    from textual_serve.app_service import AppService
    from textual_serve.download_manager import DownloadManager

    if args.profile:  # CPU-time profile of the typing stretch only (SIGUSR1 .. SIGUSR2)
        os.environ["CRMTUI_BENCH_PROFILE"] = str(Path(args.profile).resolve())
        prefix = [sys.executable, str(Path(__file__).resolve()), "--as-app"]
    else:
        prefix = [sys.executable, "-m", "crmtui.cli"]
    command = prefix + ["play", "--study", str(folder)]
    command += ["--annotator", annotator]
    screen = Screen(args.width, args.height)
    service = AppService(
        " ".join(shlex.quote(c) for c in command),
        write_bytes=screen.write_bytes,
        write_str=screen.write_str,
        close=screen.close,
        download_manager=DownloadManager(),
    )
    await service.start(args.width, args.height)
    assert service._process is not None
    pid = _app_pid(service._process.pid)
    await screen.wait_for(f"Annotator: {annotator}")
    await service.send_bytes(b"n")
    await screen.wait_for("Task context")
    await asyncio.sleep(1.0)
    # F4 moves the text cursor to the answer box's row (its Submit button beside it); F3
    # makes the footer offer the console's keys.
    if args.target == "answer":
        await service.send_bytes(b"\x1bOS")
        await screen.wait_for("Submit", row=-1)
    else:
        await service.send_bytes(b"\x1bOR")
        await screen.wait_for("Run query", row=args.height - 1)
    await asyncio.sleep(1.0)

    gap = 1.0 / args.rate
    idle_before = _cpu_s(pid)
    await asyncio.sleep(args.keys * gap)
    idle_cpu = _cpu_s(pid) - idle_before

    letters = "bcdghjkmpqrtvwxz"
    rng = random.Random(1)  # random letters: no 8-letter run repeats, each key is new text
    typed = "▊  " if args.target == "answer" else "▊ "  # the box's left edge, then the text
    latencies = []
    if args.profile:
        os.kill(pid, signal.SIGUSR1)
        await asyncio.sleep(0.2)
    cpu_before = _cpu_s(pid)
    wall = time.perf_counter()
    for _ in range(args.keys):
        letter = rng.choice(letters)
        typed += letter
        before = screen.terminal.text.count(typed[-8:])
        sent = time.perf_counter()
        await service.send_bytes(letter.encode())
        await screen.wait_for(typed[-8:], more_than=before)
        latencies.append((time.perf_counter() - sent) * 1000)
        await asyncio.sleep(max(0.0, gap - (time.perf_counter() - sent)))
    typing_s = time.perf_counter() - wall
    typing_cpu = _cpu_s(pid) - cpu_before
    if args.profile:
        os.kill(pid, signal.SIGUSR2)
        await asyncio.sleep(1.0)
    # Ctrl+Q asks first with an instance open; Ctrl+Q again quits (the profile is written).
    await service.send_bytes(b"\x11")
    await asyncio.sleep(0.5)
    await service.send_bytes(b"\x11")
    await asyncio.wait_for(service._process.wait(), timeout=60)
    await service.stop()

    latencies.sort()
    per_key = (typing_cpu - idle_cpu * typing_s / (args.keys * gap)) * 1000 / args.keys
    print(
        f"{args.target}: {args.keys} keys at {args.rate:g}/s: app CPU {typing_cpu:.2f} s while "
        f"typing vs {idle_cpu:.2f} s idle for as long -> {per_key:.1f} ms per key "
        f"({typing_cpu * 1000 / args.keys:.1f} ms gross); key-to-screen p50 "
        f"{latencies[len(latencies) // 2]:.0f} ms, p95 {latencies[int(len(latencies) * 0.95)]:.0f}"
        f" ms; load average {os.getloadavg()[0]:.1f}"
    )


def as_app(argv: list[str]) -> None:
    """Run ``crmtui`` with a CPU-time profiler that SIGUSR1 starts and SIGUSR2 stops."""
    import cProfile
    import runpy

    profiler = cProfile.Profile(time.process_time)

    def stop(*_: object) -> None:
        profiler.disable()
        profiler.dump_stats(os.environ["CRMTUI_BENCH_PROFILE"])

    signal.signal(signal.SIGUSR1, lambda *_: profiler.enable())
    signal.signal(signal.SIGUSR2, stop)
    sys.argv = ["crmtui", *argv]
    runpy.run_module("crmtui.cli", run_name="__main__")


def main() -> int:
    if sys.argv[1:2] == ["--as-app"]:
        as_app(sys.argv[2:])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", choices=["answer", "console"], default="answer")
    parser.add_argument("--keys", type=int, default=100)
    parser.add_argument("--rate", type=float, default=5.0, help="keys per second")
    parser.add_argument("--width", type=int, default=160)
    parser.add_argument("--height", type=int, default=48)
    parser.add_argument("--profile", help="write a cProfile of the app here and summarize it")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="crmtui-bench-key-") as tmp:
        root = Path(tmp)
        os.environ.update(CRMTUI_HOME=str(root / "home"), CRMTUI_STUDIES=str(root / "studies"))
        from crmtui.org.sample import ensure_sample
        from crmtui.study import StudyRequest, create_study

        ensure_sample()
        study, _ = create_study(
            StudyRequest(name="keys", annotators=["ann"], per_type=2, shared=0.0, overlap=1)
        )
        asyncio.run(run(args, study.folder, "ann"))
    if args.profile:
        import pstats

        stats = pstats.Stats(args.profile)
        stats.sort_stats("cumulative").print_stats(45)
        stats.sort_stats("tottime").print_stats(25)
    return 0


if __name__ == "__main__":
    sys.exit(main())
