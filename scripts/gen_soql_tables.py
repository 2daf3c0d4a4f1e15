"""Write ``crmtui/query/soql/tables.py``, the SOQL parser's tables, from ``soql.lark``; or check it.

Usage:
    python scripts/gen_soql_tables.py           # rewrite the tables module
    python scripts/gen_soql_tables.py --check   # exit 1 when the module is stale

lark builds the LALR automaton of the grammar (``parser="lalr"``, its contextual lexer,
``propagate_positions=True``, ``maybe_placeholders=False``: the options the parser had when
it ran on lark); this script writes what :mod:`crmtui.query.soql.lalr` needs to run it
without lark: the terminals in the order lark's lexer tries them, each state's actions, and
for each rule how lark shapes its tree (which children it keeps, which it splices in, whether
a ``?rule`` stands for its only child). States are numbered breadth-first from the start
state and rules sorted, so the file is the same on every run whatever lark's set order.
``tests/unit/query/test_lalr_parser.py`` fails when the checked-in module differs from what
this prints, and compares the two parsers on thousands of queries.
"""

from __future__ import annotations

import argparse
import pprint
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
GRAMMAR = REPO / "crmtui" / "query" / "soql" / "soql.lark"
TARGET = REPO / "crmtui" / "query" / "soql" / "tables.py"
#: The options of the lark parser the tables reproduce.
OPTIONS: dict[str, Any] = {
    "parser": "lalr",
    "lexer": "contextual",
    "propagate_positions": True,
    "maybe_placeholders": False,
}

HEADER = '''"""The SOQL parser's tables, GENERATED from ``soql.lark`` by scripts/gen_soql_tables.py.

Do not edit: change the grammar and run the script (a test fails when this file is stale).
Read by :mod:`crmtui.query.soql.lalr`, which documents the layout.
"""

# fmt: off
'''


def build_lark() -> Any:
    """lark's parser for the SOQL grammar, built afresh (no cache)."""
    from lark import Lark

    return Lark(GRAMMAR.read_text("utf-8"), **OPTIONS)


def tables(parser: Any) -> dict[str, Any]:
    """The plain data of ``parser``'s automaton, lexer and tree shaping, canonically ordered."""
    from lark.lexer import _create_unless, _regexp_has_newline
    from lark.parsers.lalr_analysis import Shift

    frontend = parser.parser
    table = frontend.parser._parse_table
    lexer = frontend.lexer
    root = lexer.root_lexer
    conf = frontend.lexer_conf
    for basic in {id(b): b for b in [root, *lexer.lexers.values()]}.values():
        _, callbacks = _create_unless(basic.terminals, conf.g_regex_flags, conf.re_module, False)
        if callbacks:  # a string terminal folded into a pattern: the driver does not do that
            raise SystemExit(f"unsupported: lark's lexer retypes {sorted(callbacks)}")
    if conf.g_regex_flags or conf.callbacks or frontend.lexer_conf.postlex is not None:
        raise SystemExit("unsupported: global regex flags, lexer callbacks or a postlexer")

    rules = sorted(
        parser.rules,
        key=lambda r: (r.origin.name, tuple(s.name for s in r.expansion), r.alias or ""),
    )
    rule_index = {rule: i for i, rule in enumerate(rules)}
    (start,) = table.start_states.values()
    (end,) = table.end_states.values()
    order = [start]  # breadth-first, symbols sorted: a numbering lark's set order cannot move
    number = {start: 0}
    for state in order:
        for symbol in sorted(table.states[state]):
            action, arg = table.states[state][symbol]
            if action is Shift and arg not in number:
                number[arg] = len(order)
                order.append(arg)
    states = []
    for state in order:
        actions = {}
        for symbol, (action, arg) in sorted(table.states[state].items()):
            actions[str(symbol)] = number[arg] if action is Shift else -1 - rule_index[arg]
        states.append(actions)

    shaped = []
    for rule in rules:
        keep = []
        for i, sym in enumerate(rule.expansion):
            if rule.options.keep_all_tokens or not (sym.is_term and sym.filter_out):
                keep.append((i, not sym.is_term and sym.name.startswith("_")))
        filtered = len(keep) < len(rule.expansion) or any(x for _, x in keep)
        if not rule.expansion:  # the driver reads a tree's start from its first child
            raise SystemExit(f"unsupported: the empty rule {rule}")
        shaped.append(
            (
                str(rule.origin.name),
                len(rule.expansion),
                str(rule.alias or rule.origin.name),
                bool(rule.options.expand1 and not rule.alias),
                tuple(keep) if filtered else None,
            )
        )
    return {
        "TERMINALS": tuple((t.name, t.pattern.to_regexp()) for t in root.terminals),
        "NEWLINE_TERMINALS": tuple(
            sorted(t.name for t in root.terminals if _regexp_has_newline(t.pattern.to_regexp()))
        ),
        "IGNORED": tuple(sorted(conf.ignore)),
        "END_STATE": number[end],
        "STATES": tuple(states),
        "RULES": tuple(shaped),
    }


def render(data: dict[str, Any]) -> str:
    """The tables module's text."""
    parts = [HEADER]
    for name, value in data.items():
        parts.append(f"{name} = {pprint.pformat(value, width=100, sort_dicts=False)}\n")
    return "\n".join(parts)


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when the module is stale")
    args = parser.parse_args()
    text = render(tables(build_lark()))
    if args.check:
        if TARGET.read_text("utf-8") != text:
            print(f"{TARGET.relative_to(REPO)} is stale: run python scripts/gen_soql_tables.py")
            return 1
        return 0
    TARGET.write_text(text, "utf-8")
    print(f"wrote {TARGET.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
