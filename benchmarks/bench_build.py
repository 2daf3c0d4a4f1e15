"""Benchmark: build time and rows per object of the generated org at each scale.

Usage::

    .venv/bin/python benchmarks/bench_build.py            # small and full
    .venv/bin/python benchmarks/bench_build.py --stress   # also stress (10x full; slow)
    .venv/bin/python benchmarks/bench_build.py --scale small --repeat 3

Reports, per scale: generation seconds, whole build seconds (generate + write org + tasks),
peak RSS of this process, the org file size and rows per object. Target: the small scale
generates in under 3 s (a quiet machine; it was an assert in the test suite, where a loaded
machine broke it).
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

from crmtui.org.build import build_org
from crmtui.org.generator import generate

#: Generation time targets (seconds, a quiet machine), by scale.
TARGETS_S = {"small": 3.0}


def _peak_rss_mb() -> float:
    # ru_maxrss is KiB on Linux, bytes on macOS.
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def bench(scale: str, seed: int, repeat: int) -> None:
    """Time generation alone and the full build for one scale, print a small report."""
    gen_times = []
    for _ in range(repeat):
        started = time.perf_counter()
        generated = generate(seed=seed, scale=scale)
        gen_times.append(time.perf_counter() - started)
    counts = generated.counts()
    del generated
    build_times = []
    with tempfile.TemporaryDirectory() as tmp:
        for index in range(repeat):
            out = Path(tmp) / f"bench-{scale}-{index}.db"
            result = build_org(out, seed=seed, scale=scale)
            build_times.append(result.seconds)
            size_mb = out.stat().st_size / 1e6
    print(f"== {scale} (seed {seed}, best of {repeat})")
    if scale in TARGETS_S:
        met = "MET" if min(gen_times) < TARGETS_S[scale] else "MISSED"
        print(f"   target: generate under {TARGETS_S[scale]:.0f} s: {met}")
    print(
        f"   generate: {min(gen_times):.2f} s   build (generate+write+tasks): "
        f"{min(build_times):.2f} s   org file: {size_mb:.1f} MB   "
        f"peak RSS so far: {_peak_rss_mb():.0f} MB"
    )
    print(f"   rows: {sum(counts.values()):,} total")
    for name, count in counts.items():
        print(f"     {name:<24}{count:>10,}")


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark from the command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--scale",
        action="append",
        choices=["small", "full", "stress"],
        help="scale to run (repeatable; default: small and full)",
    )
    parser.add_argument("--stress", action="store_true", help="also run the stress scale")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args(argv)
    scales = args.scale or ["small", "full"]
    if args.stress and "stress" not in scales:
        scales.append("stress")
    for scale in scales:
        bench(scale, args.seed, max(1, args.repeat))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
