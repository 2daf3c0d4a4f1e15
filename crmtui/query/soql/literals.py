"""Quoted SOQL string literals: escape decoding and the fast path for plain string lists."""

from __future__ import annotations

import re

from crmtui.query.errors import MALFORMED_QUERY, QueryError
from crmtui.query.soql import ast
from crmtui.query.soql.lalr import Token

_SIMPLE_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "b": "\b", "f": "\f", '"': '"', "'": "'"}


def _pos(token: Token) -> tuple[int, int]:
    return (token.line or 1, token.column or 1)


_PLAIN_STRING = re.compile(r"'([^'\\]*)'")


def string_list(token: Token) -> tuple[ast.Value, ...]:
    """The values of a ``STRING_LIST`` token (plain strings: no escapes to decode)."""
    text = str(token)
    line, column = _pos(token)
    values = []
    line_start = -column  # offset of the token's line start, relative to the token
    scanned = 0
    for match in _PLAIN_STRING.finditer(text):
        start = match.start()
        # Count newlines incrementally (a string may span lines): linear in the token.
        newlines = text.count("\n", scanned, start)
        if newlines:
            line += newlines
            line_start = text.rfind("\n", scanned, start)
        scanned = match.end()
        body = match.group(1)
        values.append(
            ast.Value("string", body, match.group(0), line, start - line_start, like_pattern=body)
        )
        newlines = body.count("\n")
        if newlines:
            line += newlines
            line_start = text.rfind("\n", start, scanned)
    return tuple(values)


def decode_string(token: Token) -> tuple[str, str]:
    """Decode a quoted SOQL string into (value, LIKE pattern for ESCAPE '\\')."""
    body = str(token)[1:-1]
    if "\\" not in body:
        return body, body
    value: list[str] = []
    pattern: list[str] = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch != "\\":
            value.append(ch)
            pattern.append(ch)
            i += 1
            continue
        nxt = body[i + 1] if i + 1 < len(body) else ""
        low = nxt.lower()
        if low in _SIMPLE_ESCAPES and nxt not in ('"', "'"):
            value.append(_SIMPLE_ESCAPES[low])
            pattern.append(_SIMPLE_ESCAPES[low])
        elif nxt in ('"', "'"):
            value.append(nxt)
            pattern.append(nxt)
        elif nxt == "\\":
            value.append("\\")
            pattern.append("\\\\")
        elif nxt in ("%", "_"):
            # Literal wildcard characters; only meaningful inside LIKE patterns.
            value.append(nxt)
            pattern.append("\\" + nxt)
        else:
            line, column = _pos(token)
            raise QueryError(
                MALFORMED_QUERY,
                f"Invalid string literal '{body}'. Illegal character sequence "
                f"'\\{nxt}' in string literal.",
                line=line,
                column=column,
            )
        i += 2
    return "".join(value), "".join(pattern)
