"""Fuzzing: any text ends in a QueryResult or a QueryError, never another exception.

Mutations (character and token level) of valid SOQL and SOSL, random text, and known
pathological inputs (empty, 100 KB, 2,000 nested parentheses, NUL bytes, SQL injection).
"""

from __future__ import annotations

import hashlib
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crmtui.query import QueryError, QueryResult, run

SOQL_SEEDS = [
    "SELECT Id, Name FROM Product2 WHERE IsActive = true ORDER BY Name LIMIT 5",
    "SELECT COUNT() FROM Case WHERE Status = 'New'",
    "SELECT OwnerId, COUNT(Id) n FROM Case GROUP BY OwnerId HAVING COUNT(Id) > 1 "
    "ORDER BY COUNT(Id) DESC",
    "SELECT Id FROM OrderItem WHERE Quantity >= 2.5 AND (UnitPrice < 100 OR Product2Id = null)",
    "SELECT Product2Id FROM OrderItem WHERE OrderItem.Order.Status = 'Activated' AND "
    "OrderItem.Order.EffectiveDate = 2024-01-05",
    "SELECT Id, Subject FROM Case WHERE CreatedDate >= 2024-01-01T00:00:00Z AND "
    "CreatedDate < 2024-02-01T00:00:00Z AND Subject LIKE '%refund%'",
    "SELECT Id FROM Case WHERE Status IN ('New', 'Closed') AND Priority NOT IN ('Low')",
    "SELECT Id FROM Order WHERE Id IN (SELECT OrderId FROM OrderItem WHERE Quantity > 1)",
    "SELECT Id, (SELECT Id FROM OrderItems) FROM Order WHERE EffectiveDate = LAST_N_DAYS:30",
    "SELECT SUM(Quantity), AVG(UnitPrice), MIN(UnitPrice), MAX(Quantity) FROM OrderItem",
    "SELECT CALENDAR_MONTH(CreatedDate), COUNT(Id) FROM Case GROUP BY CALENDAR_MONTH(CreatedDate)",
    "SELECT Id FROM Case WHERE NOT (Status = 'New') ORDER BY CreatedDate DESC NULLS LAST "
    "LIMIT 3 OFFSET 1",
]
SOSL_SEEDS = [
    "FIND {refund} IN ALL FIELDS RETURNING Case(Id, Subject WHERE Status = 'New')",
    "FIND {blend*} IN NAME FIELDS RETURNING Product2(Id, Name ORDER BY Name LIMIT 2)",
    'FIND {"broken lid" OR late AND NOT refund} RETURNING Case, Product2(Name)',
    "FIND {bl?nder} LIMIT 5",
    "FIND 'juice*' IN ALL FIELDS RETURNING Product2(Id, Name, Description)",
]
TOKENS = [
    "SELECT",
    "FROM",
    "WHERE",
    "AND",
    "OR",
    "NOT",
    "IN",
    "LIKE",
    "null",
    "GROUP BY",
    "ORDER BY",
    "LIMIT",
    "OFFSET",
    "HAVING",
    "FIND",
    "RETURNING",
    "IN ALL FIELDS",
    "(",
    ")",
    ",",
    "'",
    "{",
    "}",
    "*",
    "?",
    "=",
    "!=",
    "<",
    "Id",
    "Case",
    "COUNT()",
    "DROP TABLE Case",
    "; DELETE FROM Case",
    "--",
    "/*",
    "\x00",
    "2024-01-01",
    "LAST_N_DAYS:5",
    "TODAY",
    "'%'",
    "\\",
    "\n",
    "ü",
    "99999999999999999999",
]
CHARS = "(){}[]'\",.*?%_=<>!:;\\\n\t\x00 aZ09-+é"

PATHOLOGICAL = [
    "",
    " ",
    "\x00",
    "SELECT\x00Id FROM Case",
    "FIND {ab\x00cd}",
    "DROP TABLE Case",
    "SELECT Id FROM Case; DROP TABLE Case",
    "SELECT Id FROM Case WHERE Subject = ''; DROP TABLE Case; --'",
    'SELECT Id FROM "Case"',
    "SELECT Id FROM sqlite_master",
    "SELECT Id FROM _fts_Case",
    "SELECT name FROM sqlite_master",
    "FIND {x' OR 1=1 --}",
    'FIND {"}',
    "FIND {" + "a" * 5000 + "}",
    "SELECT " + ", ".join(["Id"] * 3000) + " FROM Case",
    "x" * 100_000,
    "SELECT Id FROM Case WHERE " + "(" * 2000 + "Status = 'New'" + ")" * 2000,
    "SELECT Id FROM Case WHERE " + "NOT " * 2000 + "Status = 'New'",
    "FIND {" + "(" * 2000 + "ab" + ")" * 2000 + "}",
    "FIND {ab} RETURNING Case(Id WHERE " + "(" * 2000 + "Status = 'New'" + ")" * 2000 + ")",
    "SELECT Id FROM Case WHERE Status IN (" + ", ".join(f"'s{i}'" for i in range(5000)) + ")",
    "SELECT Id FROM Case LIMIT 99999999999999999999999",
    "SELECT Id FROM Case WHERE CreatedDate > 2024-13-45T99:99:99Z",
    "FIND {ab} LIMIT 99999999999999999999",
    "\ufeffSELECT Id FROM Case",
    "```sql\nSELECT Id FROM Case\n```",
    "FIND",
    "find {ab}",
    "SELECT",
]


def _check(org: Any, text: str) -> None:
    try:
        result = run(org, text)
    except QueryError as exc:
        assert exc.code and str(exc).startswith(exc.code)
        return
    except Exception as exc:  # pragma: no cover - the failure this test exists to report
        raise AssertionError(f"{type(exc).__name__}: {exc} for input {text[:300]!r}") from exc
    assert isinstance(result, QueryResult)
    assert isinstance(result.records, list)


def mutate(rng: random.Random, text: str) -> str:
    """Apply 1-3 random character or token edits."""
    for _ in range(rng.randint(1, 3)):
        op = rng.randrange(6)
        if op < 3 and text:
            i = rng.randrange(len(text))
            if op == 0:
                text = text[:i] + rng.choice(CHARS) + text[i:]
            elif op == 1:
                text = text[:i] + text[i + 1 :]
            elif i + 1 < len(text):
                text = text[:i] + text[i + 1] + text[i] + text[i + 2 :]
        else:
            words = text.split(" ")
            i = rng.randrange(len(words) + 1)
            if op == 3:
                words.insert(i, rng.choice(TOKENS))
            elif op == 4 and len(words) > 1:
                del words[min(i, len(words) - 1)]
            elif len(words) > 1:
                j = rng.randrange(len(words))
                i = min(i, len(words) - 1)
                words[i], words[j] = words[j], words[i]
            text = " ".join(words)
    return text


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("text", PATHOLOGICAL, ids=range(len(PATHOLOGICAL)))
def test_pathological_inputs(gen_fts_org: Any, text: str) -> None:
    _check(gen_fts_org, text)


def test_thousands_of_mutations(gen_org: Any, gen_fts_org: Any) -> None:
    before = (_digest(gen_org.path), _digest(gen_fts_org.path))
    rng = random.Random(20241115)
    for i in range(3000):
        seed = rng.choice(SOQL_SEEDS if i % 3 else SOSL_SEEDS)
        _check(gen_fts_org if i % 2 else gen_org, mutate(rng, seed))
    assert (_digest(gen_org.path), _digest(gen_fts_org.path)) == before


def test_seeds_are_valid(gen_org: Any, gen_fts_org: Any) -> None:
    # The mutations start from queries that work, so they probe near-valid syntax.
    for text in SOQL_SEEDS + SOSL_SEEDS:
        assert isinstance(run(gen_org, text), QueryResult), text
        assert isinstance(run(gen_fts_org, text), QueryResult), text


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(text=st.text(max_size=200))
def test_random_text(gen_fts_org: Any, text: str) -> None:
    _check(gen_fts_org, text)
    _check(gen_fts_org, "FIND {" + text + "}")
    _check(gen_fts_org, "SELECT Id FROM Case WHERE Subject = " + text)


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(
    term=st.lists(
        st.sampled_from(list("ab*?\"()- \\'") + ["AND", "OR", "NOT", "ab", "lid"]), max_size=12
    ).map("".join)
)
def test_random_sosl_terms_agree_across_search_paths(
    gen_org: Any, gen_fts_org: Any, term: str
) -> None:
    text = "FIND {" + term + "} RETURNING Case(Id), Product2(Id)"
    outcomes = []
    for org in (gen_org, gen_fts_org):
        try:
            outcomes.append(sorted(r["Id"] for r in run(org, text).records))
        except QueryError as exc:
            outcomes.append([exc.code, exc.message])
    assert outcomes[0] == outcomes[1], text
