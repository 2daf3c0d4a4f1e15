"""Grammar-aware fuzzing of the query engine: generators, mutators and an outcome classifier.

Shared by the CI fuzz tests (``test_engine_fuzz.py``, a few thousand examples) and
``scripts/fuzz.py`` (>= 100,000 with a summary). Every query is built from the org's own
schema (objects, fields of each type, relationship paths) and the SOQL/SOSL grammars, then
pushed towards the edges: extreme and malformed literals (thousands of digits, dates out of
range, 10 KB strings, NUL and control characters, lone surrogates), deep nesting, long
AND/OR chains, hundreds of SOSL terms, huge OFFSET/LIMIT values, and token-level mutations
(drop, duplicate, swap, replace with a grammar keyword) of valid queries.

:func:`classify` runs one query and names its outcome: ``ok``, ``QueryError:<CODE>``,
``leak`` (a QueryError whose message quotes Python or SQLite internals), ``bug``
(``UNKNOWN_EXCEPTION``: the boundary caught an unexpected exception), ``crash`` (any other
exception escaped) or ``slow`` (past the time budget). Every outcome but ``ok`` and
``QueryError:*`` is a failure.
"""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable
from typing import Any

# ---------------------------------------------------------------------------- vocabulary --

KEYWORDS = [
    "SELECT", "FROM", "WHERE", "AND", "OR", "NOT", "IN", "LIKE", "null", "true", "GROUP BY",
    "ORDER BY", "LIMIT", "OFFSET", "HAVING", "ASC", "DESC", "NULLS FIRST", "NULLS LAST",
    "INCLUDES", "EXCLUDES", "FOR VIEW", "TYPEOF", "WITH", "USING SCOPE", "FIND", "RETURNING",
    "IN ALL FIELDS", "IN NAME FIELDS", "COUNT()", "FIELDS(ALL)", "TODAY", "LAST_N_DAYS:7",
]  # fmt: skip
PUNCT = ["(", ")", ",", "'", "{", "}", "*", "?", "=", "!=", "<", ">=", ".", ":", ";", '"', "\\"]
HOSTILE_NUMBERS = [
    "99999999999999999999",
    "9" * 400,
    "1" + "0" * 5000,
    "-0",
    "1e308",
    "1e309",
    "-1e400",
    "0.000000000000000000001",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775809",
    "2147483648",
    "1.7976931348623157e308",
    "nan",
    "inf",
    "0x10",
    "1_000",
    "00000000000000000001",
]
HOSTILE_DATES = [
    "0000-01-01",
    "9999-12-31",
    "2024-02-30",
    "2024-13-01",
    "10000-01-01",
    "2024-00-00",
    "0001-01-01T00:00:00Z",
    "9999-12-31T23:59:59Z",
    "9999-12-31T23:59:59-14:00",
    "0001-01-01T00:00:00+14:00",
    "2024-01-01T24:00:00Z",
    "2024-01-01T23:59:60Z",
    "2024-01-01T00:00:00+99:99",
]
HOSTILE_N_LITERALS = [
    "LAST_N_DAYS:99999999999999",
    "NEXT_N_YEARS:" + "9" * 30,
    "N_DAYS_AGO:1000000",
    "LAST_N_MONTHS:0",
    "NEXT_N_FISCAL_YEARS:3000000",
    "LAST_N_WEEKS:" + "1" * 5000,
]
HOSTILE_STRINGS = [
    "''",
    "'" + "a" * 10_000 + "'",
    "'\\'",
    "'\\x'",
    "'\\u0000'",
    "'\x00'",
    "'\ud800'",
    "'%_%\\%\\_'",
    "'é🙂\u202e\u200b'",
    "'; DROP TABLE Case; --'",
    "'\\\\\\''",
]
SOSL_WORDS = [
    "refund", "late", "shoe", "blend*", "bl?nd", "*x", "a", "ab", "o'brien", '"broken lid"',
    "AND", "OR", "NOT", "(", ")", "\\}", "\\\\", "é", "🙂", "*", "?", "-", "--", "x*y?z",
]  # fmt: skip
CONTROL = ["\x00", "\x01", "\x1b[2J", "\r", "\u2028", "\ufeff", "\ud83d", "\U0010ffff"]


def _pick(rng: random.Random, items: list[Any]) -> Any:
    return items[rng.randrange(len(items))]


# -------------------------------------------------------------------------------- schema --


class SchemaVocabulary:
    """Objects, fields by type and child relationships of an org's schema."""

    def __init__(self, schema: Any) -> None:
        self.objects: list[str] = [obj.name for obj in schema]
        self.fields: dict[str, list[tuple[str, str]]] = {
            obj.name: [(f.name, f.type) for f in obj.fields] for obj in schema
        }
        self.parents: dict[str, list[tuple[str, str]]] = {}
        for obj in schema:
            rels = []
            for f in obj.fields:
                if f.type == "reference" and f.reference_to and f.relationship_name:
                    rels.append((f.relationship_name, f.reference_to))
            self.parents[obj.name] = rels

    def field(self, rng: random.Random, obj: str, types: tuple[str, ...] = ()) -> tuple[str, str]:
        fields = self.fields.get(obj) or [("Id", "id")]
        if types:
            fields = [f for f in fields if f[1] in types] or fields
        return _pick(rng, fields)

    def path(self, rng: random.Random, obj: str) -> tuple[str, str]:
        """A field or a parent path (up to 6 levels, one past Salesforce's limit)."""
        prefix: list[str] = []
        current = obj
        for _ in range(rng.choice([0, 0, 0, 1, 1, 2, 6])):
            rels = self.parents.get(current) or []
            if not rels:
                break
            rel, target = _pick(rng, rels)
            if target not in self.fields:
                break
            prefix.append(rel)
            current = target
        name, ftype = self.field(rng, current)
        return ".".join([*prefix, name]), ftype


# -------------------------------------------------------------------------------- SOQL --


class QueryFuzzer:
    """Random SOQL/SOSL over a schema, from plausible to hostile (seeded, deterministic)."""

    def __init__(self, schema: Any, seed: int = 0) -> None:
        self.vocab = SchemaVocabulary(schema)
        self.rng = random.Random(seed)

    # -- literals --------------------------------------------------------------------------

    def literal(self, ftype: str) -> str:
        rng = self.rng
        roll = rng.random()
        if roll < 0.15:
            return _pick(
                rng,
                HOSTILE_NUMBERS + HOSTILE_DATES + HOSTILE_STRINGS + HOSTILE_N_LITERALS,
            )
        if ftype in ("double", "currency", "int", "percent"):
            return _pick(rng, ["0", "1", "-2.5", "15", "476.99", "100000", "3"])
        if ftype == "boolean":
            return _pick(rng, ["true", "false", "TRUE", "null"])
        if ftype == "date":
            return _pick(rng, ["2024-01-05", "TODAY", "LAST_N_DAYS:30", "THIS_YEAR", "null"])
        if ftype == "datetime":
            return _pick(
                rng,
                ["2024-01-01T00:00:00Z", "2023-06-30T12:00:00+02:00", "LAST_N_MONTHS:3", "null"],
            )
        if ftype in ("id", "reference"):
            return _pick(rng, ["'500Ws000000AbcdIAA'", "'005Ws0000'", "null", "'abc'"])
        return _pick(rng, ["'New'", "'Closed'", "'High'", "'refund'", "'%late%'", "null", "''"])

    # -- conditions ------------------------------------------------------------------------

    def comparison(self, obj: str) -> str:
        rng = self.rng
        roll = rng.random()
        if roll < 0.05:
            # A semi-join (or anti-join) on a lookup of this object.
            rels = self.vocab.parents.get(obj) or []
            if rels:
                rel, target = _pick(rng, rels)
                lookup = rel[:-3] + "__c" if rel.endswith("__r") else rel + "Id"
                negation = _pick(rng, ["", "NOT "])
                return (
                    f"{lookup} {negation}IN (SELECT Id FROM {target} WHERE "
                    f"{self.comparison(target)})"
                )
        if roll < 0.1:
            func = _pick(
                rng,
                ["CALENDAR_YEAR", "CALENDAR_MONTH", "DAY_ONLY", "HOUR_IN_DAY", "WEEK_IN_YEAR",
                 "FISCAL_QUARTER", "DAY_IN_WEEK", "UNKNOWN_FN"],
            )  # fmt: skip
            path, _ = self.vocab.field(rng, obj, ("datetime", "date"))
            return f"{func}({path}) {_pick(rng, ['=', '>', '<'])} {self.literal('int')}"
        path, ftype = self.vocab.path(rng, obj)
        op = _pick(rng, ["=", "!=", "<", "<=", ">", ">=", "LIKE", "IN", "NOT IN", "="])
        if op in ("IN", "NOT IN"):
            n = rng.choice([1, 2, 3, 50, 1200])
            values = ", ".join(self.literal(ftype) for _ in range(n))
            return f"{path} {op} ({values})"
        return f"{path} {op} {self.literal(ftype)}"

    def condition(self, obj: str, depth: int = 0) -> str:
        rng = self.rng
        roll = rng.random()
        if depth > 3 or roll < 0.45:
            return self.comparison(obj)
        if roll < 0.6:
            return f"NOT ({self.condition(obj, depth + 1)})"
        joiner = _pick(rng, [" AND ", " OR "])
        n = rng.choice([2, 2, 3, 5, 40, 150])
        parts = [self.comparison(obj) if n > 5 else self.condition(obj, depth + 1)]
        parts += [self.comparison(obj) for _ in range(n - 1)]
        return "(" + joiner.join(parts) + ")"

    def nested(self, obj: str) -> str:
        """Deep parentheses or long NOT chains (around and past the nesting limits)."""
        rng = self.rng
        depth = rng.choice([10, 30, 40, 63, 64, 65, 100, 2000, 100_000])
        core = self.comparison(obj)
        if rng.random() < 0.5:
            return "(" * depth + core + ")" * depth
        inner = core
        for _ in range(min(depth, 200)):
            inner = f"({inner} OR {self.comparison(obj)})"
        return inner

    # -- statements ------------------------------------------------------------------------

    def soql(self) -> str:
        rng = self.rng
        vocab = self.vocab
        obj = _pick(rng, vocab.objects)
        roll = rng.random()
        if roll < 0.1:
            select = "COUNT()"
        elif roll < 0.3:
            key, _ = vocab.path(rng, obj)
            func = _pick(rng, ["COUNT", "COUNT_DISTINCT", "SUM", "AVG", "MIN", "MAX"])
            metric, _ = vocab.field(rng, obj)
            select = f"{key}, {func}({metric})"
        elif roll < 0.35:
            select = _pick(rng, ["FIELDS(ALL)", "FIELDS(STANDARD)", "FIELDS(CUSTOM)", "TYPEOF"])
        else:
            n = rng.choice([1, 2, 3, 5, 500])
            select = ", ".join(vocab.path(rng, obj)[0] for _ in range(n))
            if rng.random() < 0.1:
                child = _pick(rng, ["Cases", "Contacts", "OrderItems", "Orders", "Nothings"])
                select += f", (SELECT Id FROM {child} LIMIT {_pick(rng, ['1', '5', '0'])})"
        text = f"SELECT {select} FROM {obj}"
        if rng.random() < 0.7:
            cond = self.nested(obj) if rng.random() < 0.15 else self.condition(obj)
            text += f" WHERE {cond}"
        if roll >= 0.1 and roll < 0.3:
            text += f" GROUP BY {select.split(',')[0]}"
            if rng.random() < 0.5:
                text += " HAVING " + _pick(
                    rng,
                    [f"COUNT(Id) > {self.literal('int')}", self.comparison(obj)],
                )
        if rng.random() < 0.4:
            path, _ = vocab.path(rng, obj)
            text += f" ORDER BY {path} {_pick(rng, ['', 'ASC', 'DESC NULLS LAST'])}"
        if rng.random() < 0.4:
            text += f" LIMIT {_pick(rng, ['1', '5', '2000', '50000', *HOSTILE_NUMBERS[:6]])}"
        if rng.random() < 0.2:
            text += f" OFFSET {_pick(rng, ['0', '10', '2000', '2001', *HOSTILE_NUMBERS[:6]])}"
        return text

    def sosl_term(self) -> str:
        rng = self.rng
        roll = rng.random()
        if roll < 0.05:
            return "x" * rng.choice([2, 1000, 200_000])
        if roll < 0.1:
            return " OR ".join(f"w{i}" for i in range(rng.choice([30, 100, 300, 3000])))
        if roll < 0.15:
            words = " ".join(_pick(rng, ["customers", "refund", "late", "the"]) for _ in range(150))
            return words
        n = rng.choice([1, 1, 2, 3, 5])
        return " ".join(_pick(rng, SOSL_WORDS) for _ in range(n))

    def sosl(self) -> str:
        rng = self.rng
        vocab = self.vocab
        term = self.sosl_term()
        text = f"FIND {{{term}}}" if rng.random() < 0.85 else f"FIND '{term}'"
        if rng.random() < 0.4:
            text += " " + _pick(rng, ["IN ALL FIELDS", "IN NAME FIELDS", "IN EMAIL FIELDS"])
        if rng.random() < 0.7:
            specs = []
            for _ in range(rng.choice([1, 1, 2, 3])):
                obj = _pick(rng, vocab.objects)
                if rng.random() < 0.3:
                    specs.append(obj)
                    continue
                fields = ", ".join(vocab.field(rng, obj)[0] for _ in range(rng.choice([1, 2])))
                body = fields
                if rng.random() < 0.4:
                    body += f" WHERE {self.condition(obj)}"
                if rng.random() < 0.3:
                    body += f" ORDER BY {vocab.field(rng, obj)[0]}"
                if rng.random() < 0.3:
                    body += f" LIMIT {_pick(rng, ['1', '10', '2000', *HOSTILE_NUMBERS[:4]])}"
                if rng.random() < 0.3:
                    offset = _pick(rng, ["0", "5", "2001", "99999999999999999999"])
                    body += f" OFFSET {offset}"
                specs.append(f"{obj}({body})")
            text += " RETURNING " + ", ".join(specs)
        if rng.random() < 0.2:
            text += f" LIMIT {_pick(rng, ['1', '2000', '2001', *HOSTILE_NUMBERS[:4]])}"
        return text

    # -- mutation --------------------------------------------------------------------------

    def mutate(self, text: str) -> str:
        """1-4 token-level edits that respect the grammar's vocabulary."""
        rng = self.rng
        tokens = re.findall(r"'(?:[^'\\]|\\.)*'|\{[^}]*\}|\w+|\S", text)
        for _ in range(rng.randint(1, 4)):
            if not tokens:
                tokens = [_pick(rng, KEYWORDS)]
            i = rng.randrange(len(tokens))
            op = rng.randrange(7)
            if op == 0:
                del tokens[i]
            elif op == 1:
                tokens.insert(i, tokens[i])
            elif op == 2:
                j = rng.randrange(len(tokens))
                tokens[i], tokens[j] = tokens[j], tokens[i]
            elif op == 3:
                tokens[i] = _pick(rng, KEYWORDS)
            elif op == 4:
                tokens.insert(i, _pick(rng, PUNCT))
            elif op == 5:
                tokens[i] = _pick(rng, HOSTILE_NUMBERS + HOSTILE_DATES + HOSTILE_STRINGS)
            else:
                pos = rng.randrange(len(tokens[i]) + 1)
                tokens[i] = tokens[i][:pos] + _pick(rng, CONTROL) + tokens[i][pos:]
        return " ".join(tokens)

    def next(self) -> str:
        """The next query: generated SOQL or SOSL, often mutated."""
        rng = self.rng
        text = self.soql() if rng.random() < 0.6 else self.sosl()
        if rng.random() < 0.4:
            text = self.mutate(text)
        return text


# ---------------------------------------------------------------------------- classifier --

#: Phrases that only Python, SQLite, lark or crmtui's own plumbing would write: a message
#: holding one of them leaks internals instead of speaking Salesforce.
LEAK = re.compile(
    r"sqlite|python|traceback|lark|recursion|stack overflow|int too large|exceeds the limit"
    r"|date value out of range|out of range for|overflow|could not (?:read|compile|run)"
    r"|please report|\w+Error\b|\w+Exception\b|Token\(|Tree\(|object has no attribute"
    r"|not subscriptable|unhashable|NoneType|invalid literal for int|codec",
    re.IGNORECASE,
)


#: Outcomes that are failures of the engine.
FAILURES = ("leak", "bug", "crash", "slow")


def classify(
    run: Callable[[str], Any],
    text: str,
    *,
    slow_ms: float = 2000.0,
    clock: Callable[[], float] = time.perf_counter,
) -> tuple[str, str]:
    """Run ``text`` and name the outcome: (``ok`` / ``QueryError:CODE`` / ``leak`` / ``crash``
    / ``slow``, detail). ``clock`` judges slowness (``time.thread_time`` on a loaded machine:
    CPU spent, not time waiting for a core).
    """
    from crmtui.query import QueryError

    started = clock()
    try:
        run(text)
        outcome, detail = "ok", ""
    except QueryError as exc:
        message = f"{exc.code}: {exc.message}"
        if exc.code == "UNKNOWN_EXCEPTION":  # the boundary caught a bug
            outcome, detail = "bug", message
        elif not re.fullmatch(r"[A-Z][A-Z_]+", exc.code or "") or LEAK.search(exc.message):
            outcome, detail = "leak", message
        else:
            outcome, detail = f"QueryError:{exc.code}", message
    except Exception as exc:  # noqa: BLE001 - what this classifier exists to report
        outcome, detail = "crash", f"{type(exc).__name__}: {exc}"
    elapsed = (clock() - started) * 1000
    if elapsed > slow_ms and outcome in ("ok",) or elapsed > slow_ms * 5:
        return "slow", f"{elapsed:.0f} ms ({outcome}) {detail}"
    return outcome, detail
