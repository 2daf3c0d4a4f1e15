"""The report as one self-contained HTML file with figures, and the figures as SVG and PNG.

The figures (:mod:`crmtui.review.figures`) are Vega-Lite specs drawn to SVG by
``vl-convert-python`` (Vega and a JavaScript engine inside one wheel: no browser, no
network), and inlined. The page holds no script and loads nothing: a Content Security
Policy of ``default-src 'none'`` says so to the browser, and its numbers, the same mapping
``crmtui report --format json`` prints, ride along as an inert JSON block
(``<script type="application/json" id="crmtui-report-data">``) for anyone who wants them.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from crmtui.errors import ConfigError
from crmtui.review.figures import Figure
from crmtui.sanitise import printable

#: No request may leave the file: no script, no fetch, no remote font or image.
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
DATA_ID = "crmtui-report-data"
PNG_SCALE = 2

_STYLE = """
body { font-family: "DejaVu Sans", "Liberation Sans", Arial, sans-serif; margin: 2rem auto;
       max-width: 1100px; padding: 0 1.5rem; color: #1d1d1d; line-height: 1.45; }
h1 { font-size: 1.6rem; margin-bottom: .2rem; }
h2 { font-size: 1.25rem; margin-top: 2.2rem; border-bottom: 1px solid #ddd; }
figure { margin: 1rem 0 1.6rem; }
figure svg { max-width: 100%; height: auto; }
figcaption { color: #444; font-size: .92rem; max-width: 860px; }
table { border-collapse: collapse; font-size: .85rem; margin: .6rem 0 1.2rem; }
th, td { border: 1px solid #ddd; padding: .25rem .5rem; text-align: right; }
th:first-child, td:first-child { text-align: left; }
caption { text-align: left; font-weight: bold; padding: .3rem 0; }
.meta, .notes { color: #555; font-size: .88rem; }
"""


def _vl() -> Any:
    try:
        import vl_convert
    except ImportError as exc:  # a broken install; it is a dependency of crmtui
        raise ConfigError(
            "drawing figures needs vl-convert-python: pip install vl-convert-python"
        ) from exc
    return vl_convert


def _unique_ids(svg: str, prefix: str) -> str:
    """Prefix every id (and its references) so several SVGs can share one page."""
    ids = set(re.findall(r'\bid="([^"]+)"', svg))
    for name in sorted(ids, key=len, reverse=True):
        new = f"{prefix}-{name}"
        svg = svg.replace(f'id="{name}"', f'id="{new}"')
        svg = svg.replace(f"url(#{name})", f"url(#{new})")
        svg = svg.replace(f'href="#{name}"', f'href="#{new}"')
    return svg


def figure_svg(figure: Figure) -> str:
    """The figure drawn as a standalone SVG document (no external reference)."""
    return str(_vl().vegalite_to_svg(figure.spec))


def figure_png(figure: Figure, scale: int = PNG_SCALE) -> bytes:
    """The figure drawn as PNG (``scale`` times its size)."""
    return bytes(_vl().vegalite_to_png(figure.spec, scale=scale))


def write_figures(figures: Sequence[Figure], folder: Path, *, png: bool = True) -> list[Path]:
    """Write each figure as ``NAME.svg`` (and ``NAME.png``) into ``folder``.

    Raises:
        ConfigError: The folder cannot be written.
    """
    written = []
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for figure in figures:
            path = folder / f"{figure.name}.svg"
            path.write_text(figure_svg(figure), encoding="utf-8")
            written.append(path)
            if png:
                path = folder / f"{figure.name}.png"
                path.write_bytes(figure_png(figure))
                written.append(path)
    except OSError as exc:
        raise ConfigError(f"cannot write figures to {folder}: {exc.strerror}") from exc
    return written


def _table(title: str, headers: Sequence[str], body: Sequence[Sequence[str]]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
    rows = "".join(
        "<tr>" + "".join(f"<td>{html.escape(cell)}</td>" for cell in row) + "</tr>" for row in body
    )
    return (
        f"<table><caption>{html.escape(title)}</caption>"
        f"<thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"
    )


def _data_block(data: dict[str, Any]) -> str:
    text = json.dumps(data, ensure_ascii=True, sort_keys=False)
    # Inert data, never run; "</" could close the element early.
    text = text.replace("</", "<\\/")
    return f'<script type="application/json" id="{DATA_ID}">{text}</script>'


def html_page(
    *,
    title: str,
    meta: str,
    figures: Sequence[Figure],
    tables: Sequence[tuple[str, list[str], list[list[str]]]],
    notes: Sequence[str],
    data: dict[str, Any],
) -> str:
    """One self-contained HTML page: figures (inline SVG), the tables, the notes, the data.

    Args:
        title: The page heading.
        meta: A line under it (folder, counts).
        figures: Figures to draw, in order.
        tables: The report's tables as (title, headers, formatted rows).
        notes: The report's notes.
        data: The JSON rendering's mapping, embedded inert.
    """
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head><body>",
        f"<h1>{html.escape(title)}</h1>",
        f'<p class="meta">{html.escape(meta)}</p>',
    ]
    if not figures:
        parts.append("<p>No counted sessions: nothing to draw.</p>")
    for n, figure in enumerate(figures):
        svg = _unique_ids(figure_svg(figure), f"f{n}")
        svg = re.sub(r"^<\?xml[^>]*>\s*", "", svg)
        parts += [
            f'<h2 id="{figure.name}">{html.escape(figure.title)}</h2>',
            f'<figure data-figure="{figure.name}">{svg}',
            f"<figcaption>{html.escape(figure.caption)}</figcaption></figure>",
        ]
    if tables:
        parts.append("<h2>Tables</h2>")
        parts += [_table(*table) for table in tables]
    if notes:
        parts.append('<h2>Notes</h2><ul class="notes">')
        parts += [f"<li>{html.escape(note)}</li>" for note in notes]
        parts.append("</ul>")
    parts += [_data_block(data), "</body></html>"]
    return "\n".join(parts) + "\n"


def report_html(report: Any) -> tuple[str, list[Figure]]:
    """The report page and its figures (see :func:`html_page`)."""
    from crmtui.review.figures import report_figures
    from crmtui.review.report_format import report_notes, report_tables, to_dict

    figures = report_figures(report)
    page = html_page(
        title="crmtui report",
        meta=f"{len(report.sessions)} counted session(s) from {report.files} file(s) in "
        f"{printable(str(report.root))}.",
        figures=figures,
        tables=report_tables(report),
        notes=report_notes(report),
        data=to_dict(report),
    )
    return page, figures
