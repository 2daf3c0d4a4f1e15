"""The key facts of an instance: what the user must tell the agent, and when a message does.

In the multi-turn mode the agent never sees the query; the details it needs (the period, the
threshold, the product, the lead, the record) are the user's to give. A key fact here is one
such detail, found in the query (and in a generated instance's hidden facts), with the
forms a message may state it in. This is crmtui's own measure for comparing dialogues (the
paper defines none): it is read from text, so it is approximate, and the same for every
pairing, which is what a comparison needs.

Facts found in the query:

* named periods: ``Q2 2021``, ``Q2 of 2021``, ``June 2023``, ``Summer 2022`` (the period's
  name, and its year when the query gives one, must both appear);
* relative periods: ``the past 6 months``, ``last three quarters`` (count and unit);
* thresholds: ``more than 4 cases``, ``over two cases`` (number and noun);
* record Ids (15 or 18 characters, as written);
* names: a run of two or more capitalised words inside a sentence (``Men's Swim Trunks``,
  ``Teresa Thomas``) and quoted text;
* a lone two-letter state code (``OH``); a message states it as the code (in capitals, so
  the word "oh" is not Ohio) or the state's name (``Ohio``).

Only the question counts: the answer-format instructions that follow it ("Return only the Id
of ...", with the options they list) are left out. A generated instance's hidden facts add
the lead's name, its state, the person asked about, the words a customer uses for a
product and every record Id the user's brief gives (an opportunity, a quote, a lead, the
user's own contact). Numbers match as digits or words ("6" or
"six"), case never matters, and states match as whole words.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from crmtui.scoring.families import US_STATES

__all__ = ["KeyFact", "key_facts", "normalise", "question_part", "revealed"]

_NUMBERS = {
    "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
    "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12",
}  # fmt: skip
_NUMBER_WORD = re.compile(r"\b(" + "|".join(_NUMBERS) + r")\b")
_UNITS = r"(day|week|month|quarter|year)s?"
_RELATIVE = re.compile(
    r"\b(?:past|last|previous|prior)\s+(\d+|" + "|".join(_NUMBERS) + r")\s+" + _UNITS, re.I
)
_QUARTER = re.compile(r"\b(Q[1-4])\b(?:\s+(?:of\s+)?((?:19|20)\d\d))?", re.I)
_MONTHS = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
]
_MONTH = re.compile(r"\b(" + "|".join(_MONTHS) + r")\b(?:\s+(?:of\s+)?((?:19|20)\d\d))?", re.I)
_SEASON = re.compile(
    r"\b(winter|spring|summer|fall|autumn)\b(?:\s+(?:of\s+)?((?:19|20)\d\d))?", re.I
)
_THRESHOLD = re.compile(
    r"\b(?:more than|over|at least|fewer than|less than|above|under)\s+(\d+|"
    + "|".join(_NUMBERS)
    + r")\s+([a-z]+)",
    re.I,
)
_ID = re.compile(
    r"\b(?=[A-Za-z0-9]*\d)(?=[A-Za-z0-9]*[A-Za-z])[A-Za-z0-9]{15}(?:[A-Za-z0-9]{3})?\b"
)
_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b([A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+)+)(?!\s*:)")
#: Where the answer-format instructions of a query begin.
_FORMAT = re.compile(r"(?:^|(?<=[.?!]))\s*(?:Return|Answer|Respond|Give only|Provide only)\b")
_QUOTED = re.compile(r"[\"“']([^\"”']{3,60})[\"”']")
_STATE = re.compile(r"\b([A-Z]{2})\b")
#: Capitalised words that begin questions and phrases, never a name of their own.
_NOT_NAMES = frozenset(
    {
        "Which",
        "What",
        "Who",
        "Whom",
        "Whose",
        "When",
        "Where",
        "Why",
        "How",
        "Is",
        "Are",
        "Was",
        "Were",
        "Did",
        "Does",
        "Do",
        "Can",
        "Could",
        "Would",
        "Return",
        "Find",
        "Identify",
        "Determine",
        "List",
        "Give",
        "Please",
        "The",
        "A",
        "An",
        "In",
        "On",
        "For",
        "Of",
        "Over",
        "During",
        "Since",
        "Q1",
        "Q2",
        "Q3",
        "Q4",
        "Id",
        "Ids",
        "None",
        "BANT",
    }
)


@dataclass(frozen=True)
class KeyFact:
    """One detail the user must give.

    Attributes:
        name: How it is shown (``period: Q2 2021``).
        parts: Each a set of alternatives; a message states the fact when, for every part,
            one of its alternatives occurs in it (after :func:`normalise`).
    """

    name: str
    parts: tuple[tuple[str, ...], ...]

    def stated_in(self, text: str, raw: str | None = None) -> bool:
        """Whether ``text`` (already normalised) states this fact; ``raw`` (the message as
        written) is where case-sensitive forms (a state's code) are looked for."""
        return all(any(_occurs(alt, text, raw) for alt in part) for part in self.parts)


def normalise(text: str) -> str:
    """Lower case, number words as digits, one space between words."""
    lowered = _NUMBER_WORD.sub(lambda m: _NUMBERS[m.group(1)], text.lower())
    return " ".join(lowered.replace("’", "'").split())


#: Marks a form matched as written, case and all (``OH``, never the word "oh").
EXACT = "="


def _occurs(alternative: str, text: str, raw: str | None = None) -> bool:
    if alternative.startswith(EXACT):
        code = re.escape(alternative[1:])
        return raw is not None and re.search(rf"(?<![\w]){code}(?![\w])", raw) is not None
    if alternative.isdigit() or len(alternative) <= 3:
        return re.search(rf"(?<![\w]){re.escape(alternative)}(?![\w])", text) is not None
    return alternative in text


def _num(word: str) -> str:
    return _NUMBERS.get(word.lower(), word)


def question_part(query: str) -> str:
    """The query without its answer-format instructions ("Return only the Id of ...")."""
    match = _FORMAT.search(query)
    return query[: match.start()] if match else query


def _query_facts(query: str) -> list[KeyFact]:
    query = question_part(query)
    found: list[KeyFact] = []
    for match in _RELATIVE.finditer(query):
        count, unit = _num(match.group(1)), match.group(2).lower()
        found.append(KeyFact(f"period: past {count} {unit}s", ((count,), (unit,))))
    for pattern, kind in ((_QUARTER, "quarter"), (_MONTH, "month"), (_SEASON, "season")):
        for match in pattern.finditer(query):
            name = match.group(1).lower()
            if kind == "month" and name == "may" and match.group(2) is None:
                continue  # "may" the verb
            parts: list[tuple[str, ...]] = [(name,)]
            if kind == "season" and name in ("fall", "autumn"):
                parts = [("fall", "autumn")]
            if match.group(2):
                parts.append((match.group(2),))
            found.append(KeyFact(f"period: {match.group(0)}", tuple(parts)))
    for match in _THRESHOLD.finditer(query):
        count, noun = _num(match.group(1)), match.group(2).lower().rstrip("s")
        found.append(KeyFact(f"threshold: {match.group(0)}", ((count,), (noun,))))
    for match in _ID.finditer(query):
        found.append(KeyFact(f"record: {match.group(0)}", ((match.group(0).lower(),),)))
    for match in _QUOTED.finditer(query):
        found.append(KeyFact(f"name: {match.group(1)}", ((normalise(match.group(1)),),)))
    for match in _NAME.finditer(query):
        words = match.group(1).split()
        while words and words[0] in _NOT_NAMES:
            words = words[1:]
        if len(words) >= 2:
            name = " ".join(words).strip("'’")
            found.append(KeyFact(f"name: {name}", ((normalise(name),),)))
    for match in _STATE.finditer(query):
        if match.group(1) not in ("ID", "OR", "IN", "OK", "ME", "HI") and not match.group(
            1
        ).startswith("Q"):
            found.append(_state(match.group(1)))
    return found


def _state(code: str) -> KeyFact:
    """A state, stated as its code or its name."""
    name = US_STATES.get(code.upper())
    forms = (EXACT + code.upper(), *((name.lower(),) if name else ()))
    return KeyFact(f"state: {code.upper()}", (forms,))


def _fact_facts(facts: Mapping[str, Any]) -> list[KeyFact]:
    found: list[KeyFact] = []
    for key in ("lead", "about_name", "product_words"):
        value = facts.get(key)
        if isinstance(value, str) and value.strip():
            found.append(KeyFact(f"{key.replace('_', ' ')}: {value}", ((normalise(value),),)))
    region = facts.get("region")
    if isinstance(region, str) and len(region) == 2:
        found.append(_state(region))
    period = facts.get("period")
    if isinstance(period, str):
        found += _query_facts(period)
    bought = facts.get("bought")
    if isinstance(bought, list | tuple) and len(bought) == 2:
        unit, count = str(bought[0]).lower(), str(bought[1])
        found.append(KeyFact(f"when bought: {count} {unit} ago", ((count, "a"), (unit,))))
    # Every record Id the brief gives (``opportunity_id``, ``about``, ``signed_in`` ...): the
    # agent cannot find the record without it, as with an Id in the query.
    for key in sorted(facts):
        value = facts[key]
        if isinstance(value, str) and _ID.fullmatch(value.strip()):
            found.append(KeyFact(f"record: {value.strip()}", ((value.strip().lower(),),)))
    return found


def key_facts(query: str, facts: Mapping[str, Any] | None = None) -> list[KeyFact]:
    """The key facts of an instance (one per set of forms, in the order found)."""
    seen: dict[tuple[tuple[str, ...], ...], KeyFact] = {}
    for fact in [*_query_facts(query), *_fact_facts(facts or {})]:
        seen.setdefault(fact.parts, fact)
    return list(seen.values())


def revealed(facts: Sequence[KeyFact], messages: Iterable[str]) -> list[set[int]]:
    """For each message, the facts (by position in ``facts``) it states for the first time."""
    told: set[int] = set()
    result = []
    for message in messages:
        text = normalise(message)
        new = {n for n, fact in enumerate(facts) if n not in told and fact.stated_in(text, message)}
        told |= new
        result.append(new)
    return result
