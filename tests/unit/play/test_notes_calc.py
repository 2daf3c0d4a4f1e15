"""The notes calculator: a tiny arithmetic grammar, never Python's eval."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crmtui.play.notes import CalcError, evaluate, evaluate_notes, format_number


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("(1049 + 977) / 2", 1013),
        ("1 + 2 * 3", 7),
        ("(1 + 2) * 3", 9),
        ("10 - 4 - 3", 3),
        ("8 / 4 / 2", 1),
        ("-3 + 5", 2),
        ("-(2 + 3) * -2", 10),
        ("--4", 4),
        ("+4", 4),
        ("0.1 + 0.2", Fraction(3, 10)),
        ("1.5e3 / .5", 3000),
        ("  7  ", 7),
    ],
)
def test_arithmetic(text: str, value: Fraction | int) -> None:
    assert evaluate(text) == value


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("1 / 0", "division by zero"),
        ("1 / (2 - 2)", "division by zero"),
        ("(1 + 2", "missing '\\)'"),
        ("1 +", "ends too early"),
        ("1 2", "unexpected '2'"),
        ("", "nothing to compute"),
        ("x + 1", "unknown name 'x'"),
        ("__import__('os')", "unexpected|unknown name"),
        ("2 ** 3", "unexpected"),
        ("1" * 501, "longer than 500"),
        ("-" * 100 + "1", "too deeply nested"),
        ("(" * 100 + "1" + ")" * 100, "too deeply nested"),
    ],
)
def test_bad_expressions_raise_calc_errors(text: str, problem: str) -> None:
    with pytest.raises(CalcError, match=problem):
        evaluate(text)


def test_names_come_only_from_the_given_mapping() -> None:
    assert evaluate("a * 2", {"a": Fraction(5)}) == 10


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (Fraction(1013), "1013"),
        (Fraction(10, 3), "3.333333"),
        (Fraction(1, 2), "0.5"),
        (Fraction(-1, 8), "-0.125"),
        (Fraction(1, 10**9), "0"),
        (Fraction(2 * 10**6 + 1, 10**6), "2.000001"),
    ],
)
def test_format_number(value: Fraction, text: str) -> None:
    assert format_number(value) == text


def test_notes_lines_compute_name_and_reuse_results() -> None:
    notes = "\n".join(
        [
            "handle times for NJ and NY",
            "= (1049 + 977) / 2",
            "nj = 10 / 4",
            "= nj * 2",
            "= _ + 1",
            "owner = the agent with most cases",
            "x = (3 + 4",
            "= 1 / 0",
        ]
    )
    lines = evaluate_notes(notes)
    assert [line.result for line in lines] == [None, "1013", "2.5", "5", "6", None, None, None]
    assert lines[2].name == "nj"
    assert lines[5].error is None  # prose after a name is not an error
    assert lines[6].error == "missing ')'"  # digits after a name: a typo worth showing
    assert lines[7].error == "division by zero"
    assert len(evaluate_notes("")) == 1


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-(10**6), 10**6), min_size=1, max_size=8))
def test_sums_and_products_of_integers_are_exact(numbers: list[int]) -> None:
    text = " + ".join(f"({n})" for n in numbers)
    assert evaluate(text) == sum(numbers)
    product = 1
    for n in numbers:
        product *= n
    assert evaluate(" * ".join(f"({n})" for n in numbers)) == product
