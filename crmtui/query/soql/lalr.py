"""The SOQL grammar's LALR parser, run from generated tables without lark.

lark builds the parser for ``soql.lark``; ``scripts/gen_soql_tables.py`` writes what it built
to :mod:`.tables`, and this module runs it as lark does: the same contextual lexer, the same
LALR actions, the same tree shaping and the same two errors with the same positions.
Importing lark and loading its parser was most of a new ``crmtui query``'s time
(docs/performance.md); this module and its tables are a small part of that.

The tables (see :mod:`.tables`):

* ``TERMINALS``: ``(name, regex)`` in the order lark's lexer tries them (priority, then
  longest possible match, then name); the first one that matches at the position wins;
* ``STATES``: per state, ``{symbol: action}``; an action ``>= 0`` shifts to that state (or,
  for a rule's name, is the state after reducing to it), ``< 0`` reduces by rule
  ``-1 - action``. The terminals a state's lexer tries are the terminals among its symbols,
  plus ``IGNORED`` (white space): lark's contextual lexer;
* ``RULES``: ``(origin, size, tree name, single child stands for the tree, kept)`` where
  ``kept`` is None (all children) or ``(index, splice)`` pairs: punctuation and keywords
  (``"("``, ``_SELECT``) are dropped, helper rules (``__x_star_0``) spliced into the parent.

``tests/unit/query/test_lalr_parser.py`` checks the tables are current and that this parser
and lark give the same tree or the same error on thousands of generated queries.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from crmtui.query.soql.tables import END_STATE, IGNORED, NEWLINE_TERMINALS, RULES, STATES, TERMINALS

_NEWLINE = frozenset(NEWLINE_TERMINALS)
_IGNORED = frozenset(IGNORED)
_RANK = {name: i for i, (name, _) in enumerate(TERMINALS)}
#: Compiled on first use: a query meets a few of the terminals.
_matchers: dict[str, Callable[[str, int], Any]] = {}
#: Per state, the (name, match) pairs its lexer tries, in order (built on first use).
_lexers: dict[int, tuple[tuple[str, Callable[[str, int], Any]], ...]] = {}


class Token(str):
    """A token: its text, its terminal's name (``type``) and where it starts (1-based)."""

    type: str
    line: int
    column: int
    start_pos: int

    def __new__(cls, type_: str, value: str, start_pos: int, line: int, column: int) -> Token:
        self = super().__new__(cls, value)
        self.type = type_
        self.start_pos = start_pos
        self.line = line
        self.column = column
        return self

    @property
    def value(self) -> str:
        """The token's text."""
        return str(self)

    def __repr__(self) -> str:
        return f"Token({self.type!r}, {str(self)!r})"


class Tree:
    """A node of the parse tree: the rule (or alias) name, the kept children, and where its
    text starts (``line``/``column``: its first token, the dropped ones included)."""

    __slots__ = ("children", "column", "container", "data", "line")

    def __init__(self, data: str, children: list[Any], line: int, column: int) -> None:
        self.data = data
        self.children = children
        self.line = line
        self.column = column
        # Where the text it stands for starts, when a `?rule` handed it up as its only child.
        self.container = (line, column)

    @property
    def empty(self) -> bool:
        """Never: every rule of the grammar spans at least one token (lark's ``meta.empty``)."""
        return False

    def __repr__(self) -> str:
        return f"Tree({self.data!r}, {self.children!r})"


class ParseFault(Exception):
    """The text is not in the grammar; ``line``/``column`` say where (1-based)."""

    line: int
    column: int


class UnexpectedToken(ParseFault):
    """A token (``$END`` at the end of the text) that no rule allows where it stands."""

    def __init__(self, token: Token) -> None:
        super().__init__(f"unexpected token {token!r}")
        self.token = token
        self.line = token.line
        self.column = token.column


class UnexpectedCharacters(ParseFault):
    """Text where no terminal of the grammar starts."""

    def __init__(self, text: str, pos: int, line: int, column: int) -> None:
        super().__init__(f"unexpected character {text[pos]!r} at line {line} column {column}")
        self.char = text[pos]
        self.pos = pos
        self.line = line
        self.column = column


def _matcher(name: str) -> Callable[[str, int], Any]:
    found = _matchers.get(name)
    if found is None:
        found = _matchers[name] = re.compile(TERMINALS[_RANK[name]][1]).match
    return found


def _lexer(state: int) -> tuple[tuple[str, Callable[[str, int], Any]], ...]:
    found = _lexers.get(state)
    if found is None:
        names = [n for n in STATES[state] if n in _RANK and n not in _IGNORED]
        ranked = sorted([*names, *_IGNORED], key=_RANK.__getitem__)
        found = _lexers[state] = tuple((n, _matcher(n)) for n in ranked)
    return found


_ROOT = tuple(name for name, _ in TERMINALS)


class _Lexer:
    """lark's line counter and basic lexer: the next token for a state's terminals."""

    __slots__ = ("line", "line_start", "pos", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.line = 1
        self.line_start = 0

    def next(self, terminals: tuple[tuple[str, Callable[[str, int], Any]], ...]) -> Token | None:
        """The next token (white space skipped), None at the end of the text.

        Raises:
            UnexpectedCharacters: None of ``terminals`` matches here.
        """
        text = self.text
        while self.pos < len(text):
            for name, match in terminals:  # noqa: B007 - `name` is the one that matched
                found = match(text, self.pos)
                if found is not None:
                    break
            else:
                raise UnexpectedCharacters(
                    text, self.pos, self.line, self.pos - self.line_start + 1
                )
            value = found.group(0)
            token = None
            if name not in _IGNORED:
                token = Token(name, value, self.pos, self.line, self.pos - self.line_start + 1)
            if name in _NEWLINE:
                newlines = value.count("\n")
                if newlines:
                    self.line += newlines
                    self.line_start = self.pos + value.rindex("\n") + 1
            self.pos += len(value)
            if token is not None:
                return token
        return None


def _start(value: Any) -> tuple[int, int]:
    """Where the text a stack value stands for starts (lark's "container" position)."""
    if isinstance(value, Tree):
        return value.container
    return (value.line, value.column)


def _reduce(rule: tuple[Any, ...], children: list[Any]) -> Any:
    """The value lark's tree builder makes of a rule's ``children`` (raw, in order)."""
    _, _, name, single, kept = rule
    if kept is None:
        filtered = children
    else:
        filtered = []
        for index, splice in kept:
            child = children[index]
            if splice:
                filtered += child.children
            else:
                filtered.append(child)
    line, column = _start(children[0])
    if single and len(filtered) == 1:
        only = filtered[0]
        if isinstance(only, Tree):
            only.container = (line, column)
        return only
    return Tree(name, filtered, line, column)


def parse(text: str) -> Tree:
    """The parse tree of ``text`` (the grammar's ``start`` rule), as lark shapes it.

    Raises:
        UnexpectedToken: A token (or the end of the text) where the grammar allows none.
        UnexpectedCharacters: Text that starts no terminal.
    """
    lexer = _Lexer(text)
    state_stack = [0]
    value_stack: list[Any] = []
    last: Token | None = None
    while True:
        try:
            token = lexer.next(_lexer(state_stack[-1]))
        except UnexpectedCharacters:
            # As lark's contextual lexer: text the state cannot lex may still be a token of
            # the grammar, reported as an unexpected token; else the character is.
            token = lexer.next(tuple((n, _matcher(n)) for n in _ROOT))
            if token is None:  # pragma: no cover - the state lexer skips the same spaces
                raise
            raise UnexpectedToken(token) from None
        if token is None:
            break
        last = token
        _feed(state_stack, value_stack, token)
    if last is None:
        end = Token("$END", "", 0, 1, 1)
    else:
        end = Token("$END", "", last.start_pos, last.line, last.column)
    return _feed(state_stack, value_stack, end)


def _feed(state_stack: list[int], value_stack: list[Any], token: Token) -> Any:
    """Shift ``token`` after the reductions it calls for; at ``$END``, the tree."""
    while True:
        action = STATES[state_stack[-1]].get(token.type)
        if action is None:
            raise UnexpectedToken(token)
        if action >= 0:
            state_stack.append(action)
            value_stack.append(token)
            return None
        rule = RULES[-1 - action]
        size = rule[1]
        children = value_stack[-size:]
        del state_stack[-size:]
        del value_stack[-size:]
        value = _reduce(rule, children)
        goto = STATES[state_stack[-1]][rule[0]]
        state_stack.append(goto)
        value_stack.append(value)
        if token.type == "$END" and goto == END_STATE:
            return value
