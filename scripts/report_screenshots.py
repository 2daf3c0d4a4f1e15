"""Screenshots for docs/inspect-and-html-report.md, taken in Debian's Chromium.

1. ``assets/report-html.png``: ``crmtui study report --format html`` of a small study (two
   annotators on every instance) with a model run beside it, as Chromium draws it offline.
2. ``assets/inspect-view-list.png`` and ``assets/inspect-view-human.png``: ``inspect view``
   (Inspect AI's own viewer, its local server on 127.0.0.1) listing the logs that
   ``crmtui export --format inspect`` wrote from the shipped examples and the study, then
   opening a person's log. Checks on the way that the list names every exported log and
   that no request left 127.0.0.1.

Needs the ``inspect`` and ``test`` extras (inspect_ai, Playwright) and /usr/bin/chromium.

Usage: python scripts/report_screenshots.py [--out assets]
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from click.testing import CliRunner  # noqa: E402

from crmtui.cli import cli  # noqa: E402
from tests.serve.browser import CHROMIUM, CHROMIUM_FLAGS  # noqa: E402
from tests.serve.report_page import open_report  # noqa: E402
from tests.unit.report.html_scenes import make_study  # noqa: E402


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _run(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args))
    if result.exit_code != 0:
        raise SystemExit(f"crmtui {' '.join(args)} failed: {result.output}")
    return result.output


def report_picture(work: Path, out: Path) -> tuple[str, Path]:
    """The study report page, screenshotted; returns the study name and model folder."""
    os.environ["CRMTUI_STUDIES"] = str(work / "studies")
    study, models = make_study(work / "studies")
    page = work / "study.html"
    _run("study", "report", study.name, "--models", str(models), "--format", "html",
         "--out", str(page))  # fmt: skip
    shot = work / "full.png"
    check = open_report(page, shot, width=1100, until="h2:text('Tables')")
    assert check.requests == [page.resolve().as_uri()], check.requests
    assert all(f["marks"] > 0 for f in check.figures), check.figures
    shutil.copy(shot, out / "report-html.png")
    print(f"report-html.png: {len(check.figures)} figures drawn, no request outside the file")
    return study.name, study.folder


def inspect_pictures(work: Path, recordings: Path, out: Path) -> None:
    """Export logs, serve them with ``inspect view``, screenshot the list and a log."""
    from playwright.sync_api import sync_playwright

    logs = work / "logs"
    shutil.copytree(ROOT / "recordings", work / "all" / "examples")
    shutil.copytree(recordings / "recordings", work / "all" / "study")
    shutil.copytree(recordings / "model-runs", work / "all" / "model-runs")
    _run("export", str(work / "all"), "--format", "inspect", "--out", str(logs))
    names = sorted(p.name for p in logs.glob("*.eval"))
    port = _free_port()
    inspect = Path(sys.executable).parent / "inspect"
    server = subprocess.Popen(
        [str(inspect), "view", "--log-dir", str(logs), "--host", "127.0.0.1", "--port",
         str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(url, timeout=2).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise SystemExit("inspect view did not start") from None
                time.sleep(0.5)
        outside: list[str] = []
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
            context = browser.new_context(viewport={"width": 1400, "height": 860})
            context.on(
                "request",
                lambda r: (
                    None if r.url.startswith((url, "data:", "blob:")) else outside.append(r.url)
                ),
            )
            page = context.new_page()
            page.goto(url + "#/logs/", wait_until="networkidle")
            for name in names:  # the list names every exported log
                page.get_by_text(name.removesuffix(".eval"), exact=False).first.wait_for(
                    timeout=30_000
                )
            page.screenshot(path=str(out / "inspect-view-list.png"))
            # The shipped example person's log (one instance: it opens on its transcript).
            human = next(n for n in names if "-example-annotator_" in n)
            page.get_by_text(human.removesuffix(".eval"), exact=False).first.click()
            page.get_by_text("INFO: BROWSE").first.wait_for(timeout=30_000)
            page.wait_for_load_state("networkidle")
            page.wait_for_timeout(1000)  # let the transcript settle before the picture
            page.screenshot(path=str(out / "inspect-view-human.png"))
            browser.close()
        assert not outside, outside
        print(f"inspect view listed {len(names)} logs and opened {human}; no outside request")
    finally:
        server.terminate()
        server.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "assets")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        _, recordings = report_picture(work, args.out)
        inspect_pictures(work, recordings, args.out)


if __name__ == "__main__":
    main()
