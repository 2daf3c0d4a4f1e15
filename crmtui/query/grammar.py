"""Building the lark parsers, with their LALR tables cached on disk.

SOSL's parser is built here (SOQL's runs from tables generated once: :mod:`.soql.lalr`).
Building a parser's tables is slow (docs/performance.md), and every fresh process would pay
it on its first search. lark can pickle the built parser:
the cache file
lives in crmtui's cache directory and its name carries lark's version and a hash of the
grammar and options, so an upgrade or a grammar edit never loads stale tables.
"""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path
from typing import Any

import lark
from lark import Lark

from crmtui.errors import CrmtuiError

log = logging.getLogger(__name__)


def build_parser(grammar_path: Path, **options: Any) -> Lark:
    """Build (or load from the cache) a LALR parser for the grammar file ``grammar_path``.

    Each language keeps its grammar beside its parser (``soql/soql.lark``, ``sosl/sosl.lark``).
    """
    grammar_file = grammar_path.name
    grammar = grammar_path.read_text("utf-8")
    options = {"parser": "lalr", **options}
    key = hashlib.sha256(f"{grammar}\0{sorted(options.items())!r}".encode()).hexdigest()[:16]
    try:
        from crmtui.paths import cache_dir

        cache_file = cache_dir() / f"lark-{lark.__version__}-{grammar_file}-{key}.pickle"
    except (OSError, CrmtuiError) as exc:  # an unwritable CRMTUI_HOME must not stop queries
        log.debug("no parser cache: %s", exc)
        return Lark(grammar, **options)
    try:
        return Lark(grammar, cache=str(cache_file), **options)
    except Exception as exc:  # noqa: BLE001 - a corrupt cache file: rebuild without it
        log.debug("parser cache %s unusable (%s); rebuilding", cache_file, exc)
        cache_file.unlink(missing_ok=True)
        return Lark(grammar, **options)
