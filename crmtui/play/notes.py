"""The notes pane's calculator: arithmetic lines in free text, evaluated safely.

A line such as ``= (1049 + 977) / 2`` shows its result beside it; ``avg_nj = 1049 / 3``
also names the result so later lines can use ``avg_nj`` (``_`` is the previous result).
Everything else in the notes is plain text. The grammar is tiny and parsed by hand
(numbers, ``+ - * /``, parentheses, unary minus, names): nothing here ever calls ``eval``.
Arithmetic is exact (fractions) until the result is shown.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from crmtui.errors import CrmtuiError

MAX_EXPRESSION = 500
MAX_DEPTH = 60
DECIMALS = 6

_TOKEN = re.compile(
    r"\s*(?:(?P<number>\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_]*)|(?P<op>[-+*/()]))"
)
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class CalcError(CrmtuiError):
    """An arithmetic line that cannot be evaluated (bad syntax, unknown name, x / 0)."""


def _tokens(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    pos = 0
    stripped = text.rstrip()
    while pos < len(stripped):
        match = _TOKEN.match(stripped, pos)
        if match is None or match.end() == pos:
            raise CalcError(f"unexpected {stripped[pos:].strip()[:10]!r}")
        kind = match.lastgroup or ""
        out.append((kind, match.group(kind)))
        pos = match.end()
    return out


class _Parser:
    """Recursive descent over ``expr := term (+|- term)*; term := unary (*|/ unary)*``."""

    def __init__(self, tokens: list[tuple[str, str]], names: dict[str, Fraction]) -> None:
        self.tokens = tokens
        self.names = names
        self.pos = 0
        self.depth = 0

    def peek(self) -> str | None:
        return self.tokens[self.pos][1] if self.pos < len(self.tokens) else None

    def take(self) -> tuple[str, str]:
        token = self.tokens[self.pos]
        self.pos += 1
        return token

    def parse(self) -> Fraction:
        if not self.tokens:
            raise CalcError("nothing to compute")
        value = self.expr()
        if self.pos != len(self.tokens):
            raise CalcError(f"unexpected {self.peek()!r}")
        return value

    def expr(self) -> Fraction:
        value = self.term()
        while self.peek() in ("+", "-"):
            op = self.take()[1]
            right = self.term()
            value = value + right if op == "+" else value - right
        return value

    def term(self) -> Fraction:
        value = self.unary()
        while self.peek() in ("*", "/"):
            op = self.take()[1]
            right = self.unary()
            if op == "*":
                value *= right
            elif right == 0:
                raise CalcError("division by zero")
            else:
                value /= right
        return value

    def unary(self) -> Fraction:
        if self.peek() in ("-", "+"):
            op = self.take()[1]
            self._descend()
            value = self.unary()
            self.depth -= 1
            return -value if op == "-" else value
        return self.atom()

    def atom(self) -> Fraction:
        if self.pos >= len(self.tokens):
            raise CalcError("the expression ends too early")
        kind, text = self.take()
        if kind == "number":
            return Fraction(text)
        if kind == "name":
            if text not in self.names:
                raise CalcError(f"unknown name {text!r}")
            return self.names[text]
        if text == "(":
            self._descend()
            value = self.expr()
            self.depth -= 1
            if self.peek() != ")":
                raise CalcError("missing ')'")
            self.take()
            return value
        raise CalcError(f"unexpected {text!r}")

    def _descend(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise CalcError("too deeply nested")


def evaluate(expression: str, names: dict[str, Fraction] | None = None) -> Fraction:
    """The exact value of an arithmetic expression.

    Args:
        expression: Numbers, ``+ - * /``, parentheses, unary minus and names.
        names: Values of the names the expression may use.

    Raises:
        CalcError: For bad syntax, an unknown name, division by zero, or an expression
            longer than :data:`MAX_EXPRESSION` characters.
    """
    if len(expression) > MAX_EXPRESSION:
        raise CalcError(f"expression longer than {MAX_EXPRESSION} characters")
    return _Parser(_tokens(expression), names or {}).parse()


def format_number(value: Fraction) -> str:
    """A result as a person reads it: whole numbers exactly, others to 6 decimals."""
    if value.denominator == 1:
        return str(value.numerator)
    rounded = round(value, DECIMALS)
    if rounded.denominator == 1:
        return str(rounded.numerator)
    text = f"{float(rounded):.{DECIMALS}f}".rstrip("0").rstrip(".")
    return text if text not in ("-0", "") else "0"


@dataclass(frozen=True)
class NoteLine:
    """What the calculator says about one line of the notes.

    Attributes:
        result: The formatted result (None: not an arithmetic line, or an error).
        error: Why an arithmetic line could not be evaluated.
        name: The name the line gave its result, if any.
    """

    result: str | None = None
    error: str | None = None
    name: str | None = None


def evaluate_notes(text: str) -> list[NoteLine]:
    """Evaluate every arithmetic line of ``text``; one :class:`NoteLine` per line.

    A line is arithmetic when it starts with ``=`` (``= 3 * 4``) or is ``name = expr`` with
    a plain name on the left. ``name = words`` is left as prose; a line starting with ``=``
    (or a named line with digits on the right) that does not evaluate shows its error.
    """
    names: dict[str, Fraction] = {}
    out: list[NoteLine] = []
    for line in text.split("\n"):
        stripped = line.strip()
        label, sep, expression = stripped.partition("=")
        label = label.strip()
        if not sep or (label and not _NAME.match(label)):
            out.append(NoteLine())
            continue
        try:
            value = evaluate(expression, names)
        except CalcError as exc:
            # ``owner = the agent with most cases`` is prose; ``x = (3 + 4`` is a typo.
            looks_arithmetic = not label or any(ch.isdigit() for ch in expression)
            out.append(NoteLine(error=str(exc)) if looks_arithmetic else NoteLine())
            continue
        names["_"] = value
        if label:
            names[label] = value
        out.append(NoteLine(result=format_number(value), name=label or None))
    return out
