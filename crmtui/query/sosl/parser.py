"""Parse SOSL text into a small syntax tree (grammar: ``sosl.lark``).

The statement is parsed once with the ``query`` start symbol; the search term between the
braces (or quotes) is parsed again with ``search_expr``, and every error position is mapped
back into the original text. RETURNING ``WHERE`` conditions are kept as text slices for the
SOQL engine.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import Path
from typing import Literal

from lark import Lark, Token, Tree
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedEOF, UnexpectedInput

from crmtui.query.errors import QueryError
from crmtui.query.grammar import build_parser

#: The SOSL grammar, beside this module.
GRAMMAR = Path(__file__).with_name("sosl.lark")

Scope = Literal["ALL", "NAME", "EMAIL", "PHONE"]
DEFAULT_LIMIT = 2000
MAX_LIMIT = 2000


# ------------------------------------------------------------------------------ term tree --


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


# ------------------------------------------------------------------------- statement tree --


@dataclass
class ReturningSpec:
    """One ``Obj(fields WHERE ... ORDER BY ... LIMIT n OFFSET m)`` entry of RETURNING.

    Attributes:
        object: Object name as written.
        fields: Field names as written; empty means ``Id`` only.
        fields_text: The field list exactly as written (copied into the generated SOQL).
        where: The condition's text (for the SOQL engine), or None.
        order_by: The ORDER BY items' text, or None.
        limit: Per-object LIMIT, or None.
        offset: Per-object OFFSET, or None.
        position: Offset of the object name in the statement (for error messages).
        fields_position: Offset of the field list's first character.
        where_position: Offset of the condition's first character.
        order_position: Offset of the first ORDER BY item.
    """

    object: str
    fields: list[str] = field(default_factory=list)
    fields_text: str = ""
    where: str | None = None
    order_by: str | None = None
    limit: int | None = None
    offset: int | None = None
    position: int = 0
    fields_position: int = 0
    where_position: int = 0
    order_position: int = 0


@dataclass
class SoslQuery:
    """A parsed SOSL statement."""

    text: str
    term: TermExpr
    scope: Scope = "ALL"
    returning: list[ReturningSpec] | None = None
    limit: int = DEFAULT_LIMIT


# ---------------------------------------------------------------------------------- parse --


@cache
def _parser() -> Lark:
    return build_parser(
        GRAMMAR,
        start=["query", "search_expr"],
        propagate_positions=True,
        maybe_placeholders=False,
    )


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


def _describe(exc: UnexpectedInput, text: str, base: int) -> tuple[str, int]:
    pos = getattr(exc, "pos_in_stream", None)
    at = base + (pos or 0)
    if text[at - base : at - base + 1] in {"{", "'"} and base == 0:
        return "search term is not closed (missing '}' or quote)", at
    if isinstance(exc, UnexpectedCharacters):
        return f"unexpected character {text[exc.pos_in_stream]!r}", base + exc.pos_in_stream
    if isinstance(exc, UnexpectedEOF):
        return "unexpected end of search", base + len(text)
    token = getattr(exc, "token", None)
    if isinstance(token, Token):
        if token.type == "$END":
            return "unexpected end of search", base + len(text)
        return f"unexpected token '{token.value}'", base + (token.start_pos or 0)
    return "malformed search", base + (pos or 0)


def parse_sosl(text: str) -> SoslQuery:
    """Parse a SOSL statement (cached by text: treat the result as read-only).

    Raises:
        QueryError: ``MALFORMED_SEARCH`` with the line and column of the problem.
    """
    return _parse_cached(text)


def clear_parse_cache() -> None:
    """Forget cached parses (benchmarks use it to time cold parsing)."""
    _parse_cached.cache_clear()


@lru_cache(maxsize=256)
def _parse_cached(text: str) -> SoslQuery:
    if "\x00" in text:
        raise malformed(text, "search contains a NUL character", text.index("\x00"))
    try:
        tree = _parser().parse(text, start="query")
    except UnexpectedInput as exc:
        message, offset = _describe(exc, text, 0)
        raise malformed(text, message, offset) from None
    except (LarkError, RecursionError) as exc:
        raise malformed(text, f"malformed search ({type(exc).__name__})", None) from None
    query = SoslQuery(text=text, term=Term((), ""))
    for child in tree.children:
        if not isinstance(child, Tree):
            continue
        if child.data == "search_string":
            token = child.children[0]
            assert isinstance(token, Token)
            query.term = parse_term(text, token.start_pos + 1, token.value[1:-1])
        elif child.data == "scope":
            words = str(child.children[0]).split()
            query.scope = words[1].upper()  # type: ignore[assignment]
        elif child.data == "returning":
            query.returning = [
                _returning(text, spec) for spec in child.children if isinstance(spec, Tree)
            ]
        elif child.data == "limit_clause":
            query.limit = _limit(text, child)
    return query


def _limit(text: str, clause: Tree) -> int:
    token = clause.children[-1]
    assert isinstance(token, Token)
    value = int(token.value)
    if value < 1 or value > MAX_LIMIT:
        raise malformed(text, f"LIMIT must be between 1 and {MAX_LIMIT}", token.start_pos)
    return value


def _returning(text: str, spec: Tree) -> ReturningSpec:
    name = spec.children[0]
    assert isinstance(name, Token)
    result = ReturningSpec(object=name.value, position=name.start_pos or 0)
    if len(spec.children) < 2:
        return result
    body = spec.children[1]
    assert isinstance(body, Tree)
    for part in body.children:
        if not isinstance(part, Tree):
            continue
        if part.data == "field_list":
            result.fields = [str(f.children[0]) for f in part.children if isinstance(f, Tree)]
            result.fields_position = part.meta.start_pos
            result.fields_text = text[part.meta.start_pos : part.meta.end_pos]
        elif part.data == "where_clause":
            condition = part.children[-1]
            assert isinstance(condition, Tree)
            result.where = text[condition.meta.start_pos : condition.meta.end_pos]
            result.where_position = condition.meta.start_pos
        elif part.data == "order_clause":
            items = [c for c in part.children if isinstance(c, Tree)]
            result.order_by = text[items[0].meta.start_pos : items[-1].meta.end_pos]
            result.order_position = items[0].meta.start_pos
        elif part.data == "limit_clause":
            result.limit = _limit(text, part)
        elif part.data == "offset_clause":
            token = part.children[-1]
            assert isinstance(token, Token)
            result.offset = int(token.value)
    return result


# ------------------------------------------------------------------------------- the term --


def parse_term(text: str, base: int, body: str) -> TermExpr:
    """Parse the search term ``body`` found at offset ``base`` of the statement ``text``."""
    if not body.strip():
        raise malformed(text, "search term must be longer than one character", base)
    try:
        tree = _parser().parse(body, start="search_expr")
    except UnexpectedInput as exc:
        message, offset = _describe(exc, body, base)
        raise malformed(text, message, offset) from None
    except (LarkError, RecursionError) as exc:
        raise malformed(text, f"malformed search term ({type(exc).__name__})", base) from None
    try:
        expr = _build(tree, text, base)
    except RecursionError:
        raise malformed(text, "search term is nested too deeply", base) from None
    if expr is None or not any(len(tok.literal) >= 2 for t in terms(expr) for tok in t.tokens):
        raise malformed(text, "search term must be longer than one character", base)
    return expr


def terms(expr: TermExpr) -> list[Term]:
    """Every word or phrase of a term expression, left to right."""
    if isinstance(expr, Term):
        return [expr]
    return terms(expr.left) + terms(expr.right)


def _build(node: Tree | Token, text: str, base: int) -> TermExpr | None:
    """Turn the term's parse tree into a :data:`TermExpr`; None for a term with no words."""
    if isinstance(node, Token):
        raise malformed(text, f"unexpected token '{node.value}'", base + (node.start_pos or 0))
    kind = node.data
    if kind in {"word", "phrase"}:
        token = node.children[0]
        assert isinstance(token, Token)
        raw = token.value[1:-1] if kind == "phrase" else token.value
        term = _term(raw, text, base + (token.start_pos or 0), phrase=kind == "phrase")
        # Punctuation-only words ("--") carry no token: they constrain nothing.
        return term if term.tokens else None
    if kind == "or_terms":
        result = _build(node.children[0], text, base)
        for child in node.children[1:]:
            right = _build(child, text, base)
            result = right if result is None else result if right is None else Or(result, right)
        return result
    if kind == "and_terms":
        result = _build(node.children[0], text, base)
        for child in node.children[1:]:
            assert isinstance(child, Tree)
            right = _build(child.children[0], text, base)
            if right is None:
                continue
            if child.data == "and_not_term":
                if result is None:
                    raise malformed(text, "AND NOT needs a term before it", base)
                result = AndNot(result, right)
            else:
                result = right if result is None else And(result, right)
        return result
    raise malformed(text, "malformed search term", base)


def fold(text: str) -> str:
    """Case- and accent-fold text the way FTS5's ``unicode61 remove_diacritics 2`` does."""
    if text.isascii():
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).lower()


def _term(raw: str, text: str, offset: int, *, phrase: bool) -> Term:
    """Split one word/phrase into token patterns (wildcards kept, escapes resolved)."""
    chars: list[tuple[str, bool]] = []  # (character, is_wildcard)
    i = 0
    while i < len(raw):
        ch = raw[i]
        if ch == "\\" and i + 1 < len(raw):
            chars.append((raw[i + 1], False))
            i += 2
            continue
        chars.append((ch, ch in "*?"))
        i += 1
    chars = [(c, wild) if wild else (f, False) for c, wild in chars for f in fold(c)]
    tokens: list[Token_] = []
    current: list[str] = []
    for ch, wild in chars + [(" ", False)]:
        if wild:
            if current and current[-1] == "*" and ch == "*":
                continue  # ** means the same as *
            current.append(ch)
        elif ch.isalnum():
            if current and current[-1] not in {"*", "?"}:
                current[-1] += ch.lower()
            else:
                current.append(ch.lower())
        else:
            if current:
                tokens.append(Token_(tuple(current)))
            current = []
    for tok in tokens:
        if not tok.literal:
            raise malformed(text, "a wildcard must be part of a word", offset)
        if not tok.is_exact and len(tok.literal) < 2:
            raise malformed(text, "search term must be longer than one character", offset)
    return Term(tuple(tokens), raw if not phrase else f'"{raw}"')
