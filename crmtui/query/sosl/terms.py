"""SOSL search terms: the term tree, splitting words into token patterns, and folding.

A term (the text between the braces of ``FIND {...}``) is words, "quoted phrases" and
``AND`` / ``OR`` / ``AND NOT``; :mod:`.parser` parses it with the grammar and builds the tree
with :func:`split_term` and :func:`balanced`, and :mod:`.search` matches it (FTS5 or a scan).
Splitting is linear in the term's length and chains are balanced, so a 100,000-character
word or a 200-word search stays cheap and shallow.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from crmtui.query.errors import QueryError


@dataclass(frozen=True)
class Token_:
    """One word-token pattern of a term: literal text with ``*`` / ``?`` wildcards.

    Attributes:
        parts: Literal runs and wildcards in order, e.g. ``("jo", "*", "n")``; literals are
            lower-cased alphanumeric text.
    """

    parts: tuple[str, ...]

    @property
    def literal(self) -> str:
        """The token's characters without wildcards."""
        return "".join(p for p in self.parts if p not in {"*", "?"})

    @property
    def is_exact(self) -> bool:
        """No wildcard at all."""
        return all(p not in {"*", "?"} for p in self.parts)

    @property
    def is_prefix(self) -> bool:
        """Literal text followed only by ``*`` (what FTS5 prefix queries express)."""
        return len(self.parts) == 2 and self.parts[1] == "*" and self.parts[0] not in {"*", "?"}

    @property
    def lead(self) -> str:
        """Literal text before the first wildcard (may be empty)."""
        return "" if not self.parts or self.parts[0] in {"*", "?"} else self.parts[0]


@dataclass(frozen=True)
class Term:
    """A word or quoted phrase: consecutive tokens that must appear in one field."""

    tokens: tuple[Token_, ...]
    text: str


@dataclass(frozen=True)
class And:
    """Both sides match the record (the default between juxtaposed terms)."""

    left: TermExpr
    right: TermExpr


@dataclass(frozen=True)
class Or:
    """Either side matches the record."""

    left: TermExpr
    right: TermExpr


@dataclass(frozen=True)
class AndNot:
    """``left AND NOT right``: the left side matches and the right side does not."""

    left: TermExpr
    right: TermExpr


TermExpr = Term | And | Or | AndNot


def line_col(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of a character offset in ``text``."""
    offset = max(0, min(offset, len(text)))
    line = text.count("\n", 0, offset) + 1
    start = text.rfind("\n", 0, offset) + 1
    return line, offset - start + 1


def malformed(text: str, message: str, offset: int | None) -> QueryError:
    """A MALFORMED_SEARCH error at ``offset`` of ``text``."""
    if offset is None:
        return QueryError("MALFORMED_SEARCH", message)
    line, column = line_col(text, offset)
    return QueryError("MALFORMED_SEARCH", message, line=line, column=column)


def terms(expr: TermExpr) -> list[Term]:
    """Every word or phrase of a term expression, left to right."""
    found: list[Term] = []
    stack: list[TermExpr] = [expr]
    while stack:  # iterative: an AND NOT chain nests as deep as it is long
        node = stack.pop()
        if isinstance(node, Term):
            found.append(node)
        else:
            stack += (node.right, node.left)
    return found


def balanced(items: list[TermExpr], kind: type[And] | type[Or]) -> TermExpr:
    """``items`` joined by ``kind`` as a balanced tree (same meaning, both are associative).

    A left-deep chain of 150 words would nest 150 levels deep in the FTS5 expression and in
    every recursive walk; balanced, it nests about 8.
    """
    while len(items) > 1:
        items = [
            kind(items[i], items[i + 1]) if i + 1 < len(items) else items[i]
            for i in range(0, len(items), 2)
        ]
    return items[0]


def fold(text: str) -> str:
    """Case- and accent-fold text the way FTS5's ``unicode61 remove_diacritics 2`` does."""
    if text.isascii():
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).lower()


_WILDCARDS = frozenset("*?")


def split_term(raw: str, text: str, offset: int, *, phrase: bool) -> Term:
    """Split one word/phrase into token patterns (wildcards kept, escapes resolved).

    Linear in the length of ``raw``: a term of 100,000 characters splits in milliseconds.
    """
    # Runs of literal characters (escapes resolved) and single wildcards, in order.
    pieces: list[tuple[str, bool]] = []  # (text, is_wildcard)
    run: list[str] = []
    i = 0
    while i < len(raw):
        ch = raw[i]
        if ch == "\\" and i + 1 < len(raw):
            run.append(raw[i + 1])
            i += 2
            continue
        if ch in _WILDCARDS:
            if run:
                pieces.append(("".join(run), False))
                run = []
            pieces.append((ch, True))
        else:
            run.append(ch)
        i += 1
    if run:
        pieces.append(("".join(run), False))
    tokens: list[Token_] = []
    current: list[str] = []  # the token being built: literal runs and wildcards
    literal: list[str] = []  # characters of the literal run being built

    def end_literal() -> None:
        if literal:
            current.append("".join(literal))
            literal.clear()

    def end_token() -> None:
        end_literal()
        if current:
            tokens.append(Token_(tuple(current)))
            current.clear()

    for piece, wild in pieces:
        if wild:
            end_literal()
            if not (current and current[-1] == "*" and piece == "*"):  # ** means *
                current.append(piece)
            continue
        for ch in fold(piece):
            if ch.isalnum():
                literal.append(ch)
            else:
                end_token()
    end_token()
    for tok in tokens:
        if not tok.literal:
            raise malformed(text, "a wildcard must be part of a word", offset)
        if not tok.is_exact and len(tok.literal) < 2:
            raise malformed(text, "search term must be longer than one character", offset)
    return Term(tuple(tokens), raw if not phrase else f'"{raw}"')
