"""Answer families and a deterministic, rule-based answer extractor (HEAD's step (b) offline).

Upstream's current Evaluator (crm_sandbox/env/env.py at HEAD) first compares the stripped
answer with a
single gold; failing that, it asks an LLM to pull the answers out of the text, with one
prompt per kind of answer, and compares the sorted lists. The kinds ("families") follow the
task: record Ids by default, month names for ``monthly_trend_analysis``, two-letter US states
for ``best_region_identification``, the unmet BANT factors for ``lead_qualification`` and one
opportunity stage for ``wrong_stage_rectification``. When the text states no answer, the
extractor says ``["None"]``.

:func:`extract_by_rules` does the same job without a model, for tests, for humans playing
offline and for runs without ``--extract-model``: it collects, in order of first mention, the
tokens of the family that the text names (a Salesforce Id, a month, a state code or name, a
BANT factor, a stage), and ``["None"]`` when it names none. It never guesses: a sentence that
names several stages, or met as well as unmet BANT factors, gives all of them, which then
matches no single gold answer (an LLM extractor may read such prose better; its reward is
recorded as ``llm_extract``, these as ``head_rules``).
"""

from __future__ import annotations

import re

__all__ = [
    "BANT_FACTORS",
    "FAMILIES",
    "MONTHS",
    "STAGES",
    "TASK_FAMILY",
    "US_STATES",
    "extract_by_rules",
    "family_for",
]

#: Task code -> answer family; every other task answers with record Ids.
TASK_FAMILY: dict[str, str] = {
    "monthly_trend_analysis": "months",
    "best_region_identification": "states",
    "lead_qualification": "bant",
    "wrong_stage_rectification": "stage",
}

FAMILIES = ("ids", "months", "states", "bant", "stage")

MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)

BANT_FACTORS = ("Budget", "Authority", "Need", "Timeline")

#: The stage labels CRMArena-Pro's ``wrong_stage_rectification`` answers with.
STAGES = ("Qualification", "Discovery", "Quote", "Negotiation", "Closed")

#: Two-letter code -> name: the 50 states and DC.
US_STATES: dict[str, str] = {
    "AL": "Alabama", "AK": "Alaska", "AZ": "Arizona", "AR": "Arkansas", "CA": "California",
    "CO": "Colorado", "CT": "Connecticut", "DE": "Delaware", "DC": "District of Columbia",
    "FL": "Florida", "GA": "Georgia", "HI": "Hawaii", "ID": "Idaho", "IL": "Illinois",
    "IN": "Indiana", "IA": "Iowa", "KS": "Kansas", "KY": "Kentucky", "LA": "Louisiana",
    "ME": "Maine", "MD": "Maryland", "MA": "Massachusetts", "MI": "Michigan",
    "MN": "Minnesota", "MS": "Mississippi", "MO": "Missouri", "MT": "Montana",
    "NE": "Nebraska", "NV": "Nevada", "NH": "New Hampshire", "NJ": "New Jersey",
    "NM": "New Mexico", "NY": "New York", "NC": "North Carolina", "ND": "North Dakota",
    "OH": "Ohio", "OK": "Oklahoma", "OR": "Oregon", "PA": "Pennsylvania",
    "RI": "Rhode Island", "SC": "South Carolina", "SD": "South Dakota", "TN": "Tennessee",
    "TX": "Texas", "UT": "Utah", "VT": "Vermont", "VA": "Virginia", "WA": "Washington",
    "WV": "West Virginia", "WI": "Wisconsin", "WY": "Wyoming",
}  # fmt: skip

# A Salesforce Id: 15 or 18 letters and digits as one token, with at least three digits
# (which keeps ordinary long words such as "Responsibilities" out).
_ID = re.compile(r"(?<![A-Za-z0-9])([A-Za-z0-9]{18}|[A-Za-z0-9]{15})(?![A-Za-z0-9])")
_MONTH_NAMES = {name.lower(): name for name in MONTHS}
_MONTH_ABBREVIATIONS = {name[:3].lower(): name for name in MONTHS} | {"sept": "September"}
_MONTH = re.compile(
    r"\b("
    + "|".join(sorted([*_MONTH_NAMES, *_MONTH_ABBREVIATIONS], key=len, reverse=True))
    + r")\b\.?",
    re.IGNORECASE,
)
_STATE_NAMES = {name.lower(): code for code, name in US_STATES.items()}
# Codes only in capitals (``in``, ``or``, ``me`` are words); names in any case.
_STATE = re.compile(
    r"\b(?:(?P<code>"
    + "|".join(US_STATES)
    + r")|(?P<name>(?i:"
    + "|".join(sorted(_STATE_NAMES, key=len, reverse=True)).replace(" ", r"\s+")
    + r")))\b"
)
_BANT = re.compile(r"\b(" + "|".join(BANT_FACTORS) + r")\b", re.IGNORECASE)
_STAGE = re.compile(r"\b(" + "|".join(STAGES) + r")\b", re.IGNORECASE)


def family_for(task: str | None) -> str:
    """The answer family of a task code (``ids`` unless the task has its own)."""
    return TASK_FAMILY.get(task or "", "ids")


def _ids(text: str) -> list[str]:
    return [m for m in _ID.findall(text) if sum(ch.isdigit() for ch in m) >= 3]


def _months(text: str) -> list[str]:
    found = []
    for match in _MONTH.finditer(text):
        word = match.group(1).lower()
        # "may" is also a verb: count it only when written as the month, with a capital.
        if word == "may" and match.group(1) != "May":
            continue
        found.append(_MONTH_NAMES.get(word) or _MONTH_ABBREVIATIONS[word])
    return found


def _states(text: str) -> list[str]:
    found = []
    for match in _STATE.finditer(text):
        if match.group("code"):
            found.append(match.group("code"))
        else:
            found.append(_STATE_NAMES[" ".join(match.group("name").lower().split())])
    return found


def _words(pattern: re.Pattern[str], canonical: tuple[str, ...], text: str) -> list[str]:
    names = {name.lower(): name for name in canonical}
    return [names[m.lower()] for m in pattern.findall(text)]


def extract_by_rules(response: str, task: str | None) -> list[str]:
    """The answers ``response`` states for a task, found by rules (see the module docs).

    Args:
        response: The answer text as submitted.
        task: The instance's task code (chooses the family).

    Returns:
        The family's tokens in order of first mention, each once; ``["None"]`` when the
        text names none.

    Examples:
        >>> extract_by_rules("The agents are 005Wt000003NDqDIAW and 005Wt000003NF1SIAW.", None)
        ['005Wt000003NDqDIAW', '005Wt000003NF1SIAW']
        >>> extract_by_rules("It fails on budget and Timeline.", "lead_qualification")
        ['Budget', 'Timeline']
        >>> extract_by_rules("I could not find any.", "monthly_trend_analysis")
        ['None']
    """
    family = family_for(task)
    if family == "months":
        found = _months(response)
    elif family == "states":
        found = _states(response)
    elif family == "bant":
        found = _words(_BANT, BANT_FACTORS, response)
    elif family == "stage":
        found = _words(_STAGE, STAGES, response)
    else:
        found = _ids(response)
    unique = list(dict.fromkeys(found))
    return unique or ["None"]
