"""Opening an HTML report in Debian's Chromium: what was drawn, what was requested.

Used by tests/serve/test_report_browser.py and scripts/report_screenshots.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.serve.browser import CHROMIUM, CHROMIUM_FLAGS, patient

#: Per figure: its size on the page and the Vega marks with a visible box.
_MEASURE = """() => [...document.querySelectorAll('figure[data-figure]')].map(f => {
    const svg = f.querySelector(':scope > svg');
    if (!svg) return {name: f.dataset.figure, width: 0, height: 0, marks: 0, texts: 0};
    const box = svg.getBoundingClientRect();
    let marks = 0;
    for (const el of svg.querySelectorAll('.role-mark path, .role-mark line, .role-mark rect')) {
        const b = el.getBBox();
        if (b.width > 0 || b.height > 0) marks++;
    }
    return {name: f.dataset.figure, width: box.width, height: box.height, marks,
            texts: svg.querySelectorAll('text').length};
})"""


@dataclass
class PageCheck:
    """What Chromium did with the page.

    Attributes:
        figures: Per figure: name, width, height, visible marks, texts.
        requests: Every URL the page asked for (the file itself included).
        errors: Console errors and page errors (a CSP violation would be one).
    """

    figures: list[dict[str, Any]] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def open_report(
    path: Path, screenshot: Path | None = None, width: int = 1200, until: str | None = None
) -> PageCheck:
    """Load ``path`` in headless Chromium, measure it, optionally screenshot it (whole, or
    down to the element ``until`` selects)."""
    from playwright.sync_api import sync_playwright

    check = PageCheck()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        try:
            context = patient(browser.new_context(viewport={"width": width, "height": 900}))
            context.on("request", lambda request: check.requests.append(request.url))
            page = patient(context.new_page())
            page.on(
                "console",
                lambda message: (
                    check.errors.append(message.text) if message.type == "error" else None
                ),
            )
            page.on("pageerror", lambda error: check.errors.append(str(error)))
            page.goto(path.resolve().as_uri(), wait_until="load")
            check.figures = page.evaluate(_MEASURE)
            if screenshot is not None:
                screenshot.parent.mkdir(parents=True, exist_ok=True)
                clip = None
                if until is not None:
                    top = page.locator(until).first.bounding_box()
                    clip = {"x": 0, "y": 0, "width": width, "height": top["y"]} if top else None
                page.screenshot(path=str(screenshot), full_page=True, clip=clip)
        finally:
            browser.close()
    return check
