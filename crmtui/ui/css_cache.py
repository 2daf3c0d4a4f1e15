"""Parsed CSS shared by every play app of a process (and of its forked copies).

Textual parses each stylesheet source (the app's ``.tcss`` files, every widget class's
default CSS) into rule sets and caches them per ``Stylesheet``: every new app, and every
re-parse after a screen brings new CSS, parses it all again. A served study's copies are
forked from one standby process (:mod:`crmtui.ui.standby`) that has already run the app
once, so with the cache shared across the process they start with every rule parsed
(the saving is in docs/performance.md).

Rules depend on the CSS variables (the theme) as well as on the text, so both are in the
key. Textual treats parsed rule sets as read-only; sharing them between stylesheets is
what its own per-stylesheet cache already does between re-parses.

**Across processes.** A cold ``crmtui play`` parsed its CSS afresh every time, a good part
of its first frame. The parses are kept in a pickle under the cache folder
(:func:`save_parsed`, after the first frame and at exit) and read back on the first parse
of the next process, much faster than parsing. A
parse is looked up by its CSS text and variables as before, so edited CSS or another theme
is parsed again; the file is named after Python's version and Textual's installed files,
so another Textual never reads it; a file that cannot be read is ignored.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import sys
import tempfile
from pathlib import Path
from typing import Any, ClassVar

import textual
from textual.css.model import RuleSet
from textual.css.stylesheet import Stylesheet


class SharedStylesheet(Stylesheet):
    """A :class:`~textual.css.stylesheet.Stylesheet` whose parses are kept for the process."""

    _shared: ClassVar[dict[tuple[Any, ...], list[RuleSet]]] = {}
    #: The parses on disk have been read (or tried) in this process.
    _disk_read: ClassVar[bool] = False
    #: Parses made since the file was last read or written.
    _dirty: ClassVar[bool] = False

    def __init__(self, *, variables: dict[str, str] | None = None) -> None:
        super().__init__(variables=variables)
        self._variables_key: tuple[tuple[str, str], ...] | None = None

    def _key_of_variables(self) -> tuple[tuple[str, str], ...]:
        if self._variables_key is None:
            self._variables_key = tuple(sorted(self._variables.items()))
        return self._variables_key

    def set_variables(self, variables: dict[str, str]) -> None:
        super().set_variables(variables)
        self._variables_key = None

    def _parse_rules(
        self,
        css: str,
        read_from: Any,
        is_default_rules: bool = False,
        tie_breaker: int = 0,
        scope: str = "",
    ) -> list[RuleSet]:
        key = (self._key_of_variables(), css, read_from, is_default_rules, tie_breaker, scope)
        rules = self._shared.get(key)
        if rules is None and not SharedStylesheet._disk_read:
            read_parsed()
            rules = self._shared.get(key)
        if rules is None:
            rules = super()._parse_rules(css, read_from, is_default_rules, tie_breaker, scope)
            self._shared[key] = rules
            SharedStylesheet._dirty = True
        return rules

    def copy(self) -> SharedStylesheet:
        stylesheet = SharedStylesheet(variables=self._variables.copy())
        stylesheet.source = self.source.copy()
        return stylesheet

    def reparse(self) -> None:
        # Textual's reparse, in a SharedStylesheet rather than a plain one (so the fresh
        # parse it does on a screen's new CSS finds the rules already parsed).
        stylesheet = SharedStylesheet(variables=self._variables)
        for read_from, (css, is_defaults, tie_breaker, scope) in self.source.items():
            stylesheet.add_source(
                css,
                read_from=read_from,
                is_default_css=is_defaults,
                tie_breaker=tie_breaker,
                scope=scope,
            )
        try:
            stylesheet.parse()
        except Exception:
            self._invalid_css.update(stylesheet._invalid_css)
            raise
        self._rules = stylesheet.rules
        self._rules_map = None
        self.source = stylesheet.source
        self._require_parse = False


def parsed_css_path() -> Path:
    """The file the parses are kept in: one per Python version and installed Textual."""
    from crmtui.paths import cache_dir

    # Textual's own files stand for its version (importlib.metadata costs ~5 ms a start).
    stat = Path(textual.__file__).with_name("css").joinpath("model.py").stat()
    tag = (
        f"py{sys.version_info[0]}{sys.version_info[1]}-textual{stat.st_mtime_ns:x}{stat.st_size:x}"
    )
    return cache_dir() / f"parsed-css-{tag}.pickle"


def read_parsed() -> int:
    """Read the kept parses into the process's cache; how many were read (0: none, or a
    file that could not be read, which is left to be overwritten)."""
    SharedStylesheet._disk_read = True
    try:
        with open(parsed_css_path(), "rb") as file:
            kept = pickle.load(file)
    except Exception:  # missing, truncated, from another Textual: parse as if never kept
        return 0
    if not isinstance(kept, dict):
        return 0
    for key, rules in kept.items():
        SharedStylesheet._shared.setdefault(key, rules)
    return len(kept)


def save_parsed() -> bool:
    """Write the process's parses to disk if it made any since the last read or write.

    Atomic (a whole file or the old one): sessions that start at once read a complete file.
    Never raises (a full or read-only disk leaves the next start to parse again).
    """
    if not SharedStylesheet._dirty:
        return False
    with contextlib.suppress(Exception):
        path = parsed_css_path()
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".parsed-css-")
        try:
            with os.fdopen(fd, "wb") as file:
                pickle.dump(SharedStylesheet._shared, file, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        SharedStylesheet._dirty = False
        return True
    return False
