"""The SOQL parser without lark (``crmtui.query.soql.lalr``) is lark's parser, and its tables
are current.

lark builds the parser from ``soql.lark``; ``scripts/gen_soql_tables.py`` writes its tables;
:mod:`crmtui.query.soql.lalr` runs them. The property: for any text, both give the same tree
(names, kept tokens with their types and positions, where each tree starts) or the same error
(an unexpected token or character, at the same line and column), and ``parse`` gives the
same AST or the same QueryError (code, message, line, column) as lark's tree transformed by
a lark ``Transformer``. Texts: sentences drawn from the grammar's own rules, then mutated
(tokens dropped, doubled, swapped or inserted, stray characters, cut short, spaces removed).
"""

from __future__ import annotations

import importlib.util
import random
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from lark import Token as LarkToken
from lark import Transformer
from lark import Tree as LarkTree
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken

from crmtui.query.errors import QueryError
from crmtui.query.soql import lalr, parser

REPO = Path(__file__).resolve().parents[3]
#: Texts each case checks: enough for every rule and most error states, ~3 s of CPU.
SENTENCES = 500
MUTANTS = 1000


@cache
def _gen() -> Any:
    spec = importlib.util.spec_from_file_location(
        "gen_soql_tables", REPO / "scripts" / "gen_soql_tables.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("gen_soql_tables", module)
    spec.loader.exec_module(module)
    return module


@cache
def _lark() -> Any:
    return _gen().build_lark()


def test_the_tables_are_current() -> None:
    """The checked-in tables are what the script writes from the grammar today."""
    gen = _gen()
    assert gen.TARGET.read_text("utf-8") == gen.render(gen.tables(_lark())), (
        "crmtui/query/soql/tables.py is stale: run python scripts/gen_soql_tables.py"
    )


# -- sentences of the grammar ------------------------------------------------------------

SAMPLES = {
    "NAME": [
        "Id",
        "Name",
        "Account",
        "Cases",
        "Order",
        "Group",
        "limit",
        "Not",
        "first",
        "desc",
        "For",
        "Status",
        "x_1",
        "Owner",
        "COUNT",
        "MAX",
        "Today",
        "NULL",
        "true",
        "In",
        "Select",
        "Description",
        "Orders",
        "LAST_N_DAYS",
        "Typeof",
    ],
    "STRING": ["'a'", "'O\\'Brien'", "'x%'", "'two\nlines'", "''", "'\\\\'", "'a_b'", "'\\n'"],
    "NUMBER": ["1", "-2.5", ".5", "+3", "007", "12345678901234567890123", "3."],
    "INT": ["5", "0", "100000", "0042", "99999999999999999999999999999999999999999999"],
    "DATE": ["2024-01-01", "2024-13-01", "1600-01-01", "2024-02-30"],
    "DATETIME": ["2024-01-01T00:00:00Z", "2024-01-01t10:20:30.5+02:00", "2024-06-01T23:59:59-0500"],
    "DATE_N": ["LAST_N_DAYS:7", "NEXT_N_WEEKS: 2", "FOO:3", "last_n_months:\n12", "N_DAYS_AGO:0"],
    "COMPARE": ["=", "!=", "<>", "<", "<=", ">", ">="],
    "DIRECTION": ["ASC", "desc", "Desc"],
    "NULLS_WHERE": ["FIRST", "last"],
    "STRING_LIST": ["('a','b')", "( 'x' )", "('a' ,\n 'b', 'c')"],
    "LPAR": ["("],
    "RPAR": [")"],
    "COMMA": [","],
    "DOT": ["."],
}
SPACES = [" "] * 12 + ["\n", "\t", "  ", " \r\n "]
STRAY = ["#", "@", "\x00", "é", "[", "*", "'", "\\", ":", "-", "1", ";", "`", "{", "ü", "$"]


def _terminal_text(name: str, rng: random.Random) -> str:
    if name in SAMPLES:
        return rng.choice(SAMPLES[name])
    word = name.lstrip("_")  # a keyword: _SELECT -> SELECT, in any case
    return "".join(c.lower() if rng.random() < 0.3 else c for c in word)


@cache
def _rules() -> dict[str, list[tuple[int, tuple[Any, ...]]]]:
    """Each rule's expansions, with the depth of the shallowest sentence each one leads to."""
    by_origin: dict[str, list[tuple[Any, ...]]] = {}
    for rule in _lark().rules:
        by_origin.setdefault(rule.origin.name, []).append(tuple(rule.expansion))
    depth = dict.fromkeys(by_origin, 10**6)

    def down(expansion: tuple[Any, ...]) -> int:
        return max((0 if s.is_term else depth[s.name] for s in expansion), default=0)

    changed = True
    while changed:
        changed = False
        for origin, expansions in by_origin.items():
            best = 1 + min(map(down, expansions))
            if best < depth[origin]:
                depth[origin], changed = best, True
    return {o: [(down(e), e) for e in es] for o, es in by_origin.items()}


def _sentence(rng: random.Random, symbol: str = "start", budget: int = 14) -> list[str]:
    expansions = _rules()[symbol]
    least = min(d for d, _ in expansions)
    if budget <= least + 2:  # running out: only the shallowest ways down
        expansions = [x for x in expansions if x[0] == least]
    out: list[str] = []
    for sym in rng.choice(expansions)[1]:
        if sym.is_term:
            out.append(_terminal_text(sym.name, rng))
        else:
            out.extend(_sentence(rng, sym.name, budget - 1))
    return out


def _join(tokens: list[str], rng: random.Random) -> str:
    return "".join(t + rng.choice(SPACES) for t in tokens).rstrip(" ") + rng.choice(["", " "])


def _mutant(rng: random.Random) -> str:
    tokens = _sentence(rng)
    kind = rng.randrange(7)
    i = rng.randrange(len(tokens))
    if kind == 0:
        del tokens[i]
    elif kind == 1:
        tokens.insert(i, tokens[i])
    elif kind == 2 and len(tokens) > 1:
        j = min(i + 1, len(tokens) - 1)
        tokens[i], tokens[j] = tokens[j], tokens[i]
    elif kind == 3:
        name = rng.choice([*SAMPLES, "_FROM", "_WHERE", "_AND", "_OR", "_NOT", "_LIMIT", "_BY"])
        tokens.insert(i, _terminal_text(name, rng))
    elif kind == 4:
        tokens.insert(i, rng.choice(STRAY))
    elif kind == 5:
        return "".join(tokens)  # no spaces at all: keywords run into names
    text = _join(tokens, rng)
    if kind == 6:
        return text[: rng.randrange(1, len(text) + 1)]
    return text


def _texts(seed: int, count: int, make: Any) -> list[str]:
    rng = random.Random(seed)
    return [make(rng) for _ in range(count)]


# -- the two parsers side by side ---------------------------------------------------------


def _shape(node: Any) -> Any:
    """A tree as comparable tuples (lark's or ours)."""
    if isinstance(node, LarkTree | lalr.Tree):
        meta = node.meta if isinstance(node, LarkTree) else node
        where = (meta.line, meta.column)
        return (node.data, where, tuple(_shape(c) for c in node.children))
    return ("token", node.type, str(node), node.line, node.column)


def _ours(text: str) -> Any:
    try:
        return _shape(lalr.parse(text))
    except lalr.UnexpectedToken as exc:
        return ("unexpected token", exc.token.type, str(exc.token), exc.line, exc.column)
    except lalr.UnexpectedCharacters as exc:
        return ("unexpected character", exc.char, exc.line, exc.column)


def _theirs(text: str) -> Any:
    try:
        return _shape(_lark().parse(text))
    except UnexpectedToken as exc:
        token = exc.token
        return ("unexpected token", token.type, str(token), exc.line, exc.column)
    except UnexpectedCharacters as exc:
        return ("unexpected character", exc.char, exc.line, exc.column)


def _check_trees(texts: list[str]) -> set[str]:
    outcomes = set()
    for text in texts:
        ours, theirs = _ours(text), _theirs(text)
        if theirs[0] == "unexpected token" and theirs[1] == "$END":
            ours, theirs = ours[:3], theirs[:3]  # $END borrows a position parse() ignores
        assert ours == theirs, f"the parsers differ on {text!r}"
        outcomes.add(str(ours[0]))
    return outcomes


def test_sentences_of_the_grammar_parse_to_lark_s_tree() -> None:
    texts = _texts(37, SENTENCES, lambda rng: _join(_sentence(rng), rng))
    outcomes = _check_trees(texts)
    assert "start" in outcomes  # the generator makes valid queries, not only errors


def test_broken_queries_fail_as_lark_fails_them() -> None:
    outcomes = _check_trees(_texts(38, MUTANTS, _mutant))
    assert {"unexpected token", "unexpected character", "start"} <= outcomes


class _LarkToAst(Transformer):
    """The AST made from lark's tree by a lark Transformer (what ``parse`` did on lark)."""

    def __default__(self, data: str, children: list[Any], meta: Any) -> Any:
        # The methods were lark's with lark's tokens: ours now, which read the same.
        children = [
            lalr.Token(c.type, str(c), c.start_pos, c.line, c.column)
            if isinstance(c, LarkToken)
            else c
            for c in children
        ]
        method = getattr(parser._ToAst(), data)
        if data in parser._ToAst.WITH_META:
            return method(meta, children)
        return method(*children)


def _outcome(parse: Any, text: str) -> Any:
    try:
        return parse(text)
    except QueryError as exc:
        return ("error", exc.code, str(exc), exc.line, exc.column)


def _lark_parse(text: str) -> Any:
    """``parse`` as it was on lark, for texts lark parses (syntax errors: compared above)."""
    tree = _lark().parse(text)
    try:
        return _LarkToAst().transform(tree)
    except Exception as exc:  # noqa: BLE001 - lark wraps the method's error
        from crmtui.query.boundary import translate

        raise translate(getattr(exc, "orig_exc", exc)) from None


def test_parse_gives_the_ast_and_literal_errors_lark_gave() -> None:
    """Same AST, or the same error from a literal (a bad date, a number out of range)."""
    rng = random.Random(39)
    kinds = set()
    for _ in range(SENTENCES):
        text = _join(_sentence(rng), rng)
        try:
            expected = _outcome(_lark_parse, text)
        except UnexpectedInput:
            continue
        got = _outcome(parser.parse, text)
        assert got == expected, f"parse differs on {text!r}"
        kinds.add("error" if isinstance(expected, tuple) else "ast")
    assert kinds == {"ast", "error"}


@pytest.mark.parametrize(
    "text",
    [
        "SELECT Id FROM Case WHERE Subject = 'a\nb' AND\n  Statu = 1",
        "SELECT Id FROM Case WHERE (Name = 'x'",
        "SELECT Id,\n(SELECT Id FROM Cases) FROM Account LIMIT 10 OFFSET 5",
        "SELECT Id FROM Case WHERE Status = Closed",
        "SELECT Id FROM Case WHERE CreatedDate = LAST_N_DAYS:9999999999",
        "SELECT Id FROM Case ORDER BY Name DESC NULLS FIRST FOR VIEW",
        "SELECT Id FROM Case WHERE Id IN ('a', 'b') AND Name NOT IN ('c')",
        "select id from case where name like 'a%' group by name having count(id) > 1",
        "SELECT Id FROM Case WHERE Name = 'x' OR Name = 'y' AND Status = 'z'",
        "SELECT TYPEOF What WHEN Account THEN Name END FROM Event",
        "SELECT Id FROM Case WHERE Name = 'unterminated",
        "SELECT Id FROM Case \x00",
        "SELECT Id FROM\n\n",
    ],
)
def test_known_texts_parse_alike(text: str) -> None:
    assert _check_trees([text])
    try:
        expected = _outcome(_lark_parse, text)
    except UnexpectedInput:
        return
    assert _outcome(parser.parse, text) == expected


def test_the_parser_does_not_load_lark() -> None:
    import subprocess

    code = (
        "import sys; from crmtui.query.soql.parser import parse; "
        "parse(\"SELECT Id FROM Case WHERE Name = 'x'\"); print('lark' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_lark_token_and_ours_read_alike() -> None:
    """The AST methods read a token as lark's: its text, ``type``, ``line`` and ``column``."""
    ours = lalr.Token("NAME", "Id", 7, 1, 8)
    theirs = LarkToken("NAME", "Id", 7, 1, 8)
    assert (str(ours), ours.type, ours.line, ours.column) == (
        str(theirs),
        theirs.type,
        theirs.line,
        theirs.column,
    )


def test_every_tree_the_parser_makes_has_its_ast_method() -> None:
    """A tree with no method would be a bug (lark handed such trees on; ours would not)."""
    from crmtui.query.soql.tables import RULES

    def one_child(size: int, kept: Any) -> bool:  # a `?rule` that hands its child up
        return (size == 1) if kept is None else (len(kept) == 1 and not kept[0][1])

    names = {
        name
        for _, size, name, single, kept in RULES
        if not name.startswith("_") and not (single and one_child(size, kept))
    }
    assert {"query", "compare", "sel_subquery"} <= names
    assert [n for n in sorted(names) if not callable(getattr(parser._ToAst, n, None))] == []
