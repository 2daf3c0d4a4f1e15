"""The one sanitiser for text that reaches a terminal: task, org and recording text, shown
as itself and never acting on the terminal.

A task's query, a record's field, an annotator's name or a model's answer can hold a terminal
escape (``ESC[2J`` clears the screen, ``ESC]52;c;...`` writes the clipboard, ``ESC]8;;...``
makes a hyperlink, ``ESC]0;...`` sets the title), a C1 control (``\\x9b`` is a one-byte CSI
to many terminals), NUL, a right-to-left override (U+202E reorders the rest of the line) or a
lone surrogate (which no UTF-8 stream can write). Three renderings, one character class:

* :func:`printable` for human-readable output (tables, Markdown, CSV, ``Error:`` lines):
  every control, format (bidi) or other invisible character is escaped as ``\\x1b`` or
  ``\\u202e``; :func:`printable_text` keeps line breaks and tabs (a task's query panel).
* :func:`printable_json` for JSON printed to a terminal: the same characters become JSON's
  own ``\\u`` escapes, so the document is unchanged for a parser (lossless).
* :data:`SCREEN_TRANSLATION` for the TUI (:mod:`crmtui.ui.terminal`): each unsafe character
  becomes one visible character (its control picture such as ``␛``, else ``�``), so text keeps
  its length and a widget's cursor and highlight offsets stay right.

:func:`encodable` makes text writable as UTF-8 (a lone surrogate becomes U+FFFD): for text
that enters from a model or a paste and is then kept or drawn.

Low level on purpose: it imports nothing from crmtui.
"""

from __future__ import annotations

import re
from typing import Any

REPLACEMENT = "\ufffd"

# Characters that act on a terminal or reorder what follows: C0 controls but tab and line
# feed, DEL, C1 controls, the bidi embeddings, overrides, isolates and marks, and lone
# surrogates. Every other character is drawn as itself by a terminal.
_BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_UNSAFE_CLASS = f"\x00-\x08\x0b-\x1f\x7f-\x9f{_BIDI}\ud800-\udfff"
UNSAFE = re.compile(f"[{_UNSAFE_CLASS}]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _escape(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """``text`` with control, format (bidi) and other invisible characters escaped.

    For one-line output: names read from files (org names, actor ids), table cells, error
    lines. A terminal escape shows as ``\\x1b[2J`` and a right-to-left override as
    ``\\u202e`` instead of acting on the terminal or reordering the line. Line breaks are
    escaped too (``\\x0a``); use :func:`printable_text` to keep them.
    """
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() else _escape(char) for char in text)


def printable_text(text: str) -> str:
    """Like :func:`printable`, but line breaks and tabs stay (multi-line panels)."""
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() or char in "\n\t" else _escape(char) for char in text)


def _json_escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code > 0xFFFF:  # pragma: no cover - the class holds BMP characters only
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


def printable_json(text: str) -> str:
    """JSON text (from ``json.dumps``) with every unsafe character as a ``\\u`` escape.

    Outside strings ``json.dumps`` writes only spaces and line breaks, so every unsafe
    character is inside a string, where the escape means the same character: a parser reads
    the same document. Lone surrogates become escapes too, so the text encodes as UTF-8.
    """
    # Two C loops (a copy, a scan) instead of a regex over every character: 63 MB of query
    # output is checked in a tenth of the time.
    if text.replace("\n", "").isprintable():
        return text
    return UNSAFE.sub(_json_escape, text)


def encodable(text: str) -> str:
    """``text`` with lone surrogates (not writable as UTF-8) replaced by U+FFFD."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub(REPLACEMENT, text)
    return text


def _screen_character(code: int) -> str:
    if code < 0x20:
        return chr(0x2400 + code)  # ␀ .. ␟
    if code == 0x7F:
        return "\u2421"  # ␡
    return REPLACEMENT


# Rich and Textual already remove these five (BEL, BS, VT, FF, CR): kept so, or every CRLF
# line of a record's text would end in a visible mark.
_REMOVED = (0x07, 0x08, 0x0B, 0x0C, 0x0D)


def _screen_translation() -> dict[int, str]:
    table: dict[int, str] = {}
    for code in [*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0)]:
        table[code] = "" if code in _REMOVED else _screen_character(code)
    for code in [0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)]:
        table[code] = REPLACEMENT
    for code in range(0xD800, 0xE000):
        table[code] = REPLACEMENT
    return table


#: ``str.translate`` table for text drawn by the TUI: one visible character per unsafe
#: character (tab and line feed stay), so lengths and offsets are kept; BEL, BS, VT, FF and
#: CR are removed, as Rich and Textual always did.
SCREEN_TRANSLATION: dict[int, str] = _screen_translation()


def on_screen(text: str) -> str:
    """``text`` as the TUI draws it (see :data:`SCREEN_TRANSLATION`)."""
    return text.translate(SCREEN_TRANSLATION)


def install_rich_guard() -> None:
    """Make Rich draw every unsafe character of a ``Text`` as :func:`on_screen` does.

    Rich removes five control characters (BEL, BS, VT, FF, CR) when a ``Text`` is made and
    lets ESC, C1 and bidi controls through to the terminal; its table of removals is
    extended with :data:`SCREEN_TRANSLATION`, so every table, panel and line the CLI prints
    through Rich is safe even where a caller forgot :func:`printable`. Idempotent.
    """
    from rich import control

    table: Any = control._CONTROL_STRIP_TRANSLATE  # typed as removals only; now replacements too
    table.update(SCREEN_TRANSLATION)


class _RichGuardHook:
    """A ``sys.meta_path`` finder that installs the guard as ``rich.control`` is imported.

    Commands that print plainly never import Rich (slow to import: docs/performance.md);
    those that do get the guard
    before their first table, wherever the import happens.
    """

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        if name != "rich.control":
            return None
        import importlib.machinery

        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        load = spec.loader.exec_module

        def exec_module(module: Any) -> None:
            load(module)
            table: Any = module._CONTROL_STRIP_TRANSLATE
            table.update(SCREEN_TRANSLATION)

        spec.loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def install_rich_guard_on_import() -> None:
    """:func:`install_rich_guard` now if Rich is loaded, else as soon as it is. Idempotent."""
    import sys

    if "rich.control" in sys.modules:
        install_rich_guard()
    elif not any(isinstance(finder, _RichGuardHook) for finder in sys.meta_path):
        sys.meta_path.insert(0, _RichGuardHook())
