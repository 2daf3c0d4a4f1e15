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


# A shorter Id-like token (letters and at least three digits) counts where the sentence
# calls it an Id: "The Case ID for your inquiry is 0XA124XDF." (upstream's own example).
_ID_WORD = re.compile(r"\bI[Dd]s?\b")
_SHORT_ID = re.compile(r"(?<![A-Za-z0-9])([A-Za-z0-9]{5,14}|[A-Za-z0-9]{16,17})(?![A-Za-z0-9])")
_SENTENCE = re.compile(r"[^.!?;\n]+")


def _id_like(token: str) -> bool:
    return sum(ch.isdigit() for ch in token) >= 3 and any(ch.isalpha() for ch in token)


def _ids(text: str) -> list[str]:
    found: list[tuple[int, str]] = [
        (m.start(), m.group(1))
        for m in _ID.finditer(text)
        if sum(ch.isdigit() for ch in m.group(1)) >= 3
    ]
    for sentence in _SENTENCE.finditer(text):
        named = _ID_WORD.search(sentence.group(0))
        if named is None:
            continue
        for m in _SHORT_ID.finditer(sentence.group(0), named.end()):
            if _id_like(m.group(1)):
                found.append((sentence.start() + m.start(), m.group(1)))
    return [token for _, token in sorted(found)]


# Cues of met and unmet BANT factors: where a text names both, only the unmet count
# (upstream's extraction rule): "meets Budget, Need, and Timeline but fails Authority".
_UNMET = re.compile(
    r"\b(?:fail(?:s|ed|ing)?|lack(?:s|ed|ing)?|missing|miss(?:es)?|unmet|not met|"
    r"(?:does|do|did)(?:n't| not) (?:meet|satisfy|have)|falls? short|insufficient|"
    r"no (?:clear |confirmed )?(?:budget|authority|need|timeline)|without)\b",
    re.IGNORECASE,
)
_MET = re.compile(
    r"\b(?:meets?|met|satisf(?:ies|y|ied)|passe?s?|has|have|qualif(?:ies|ied))\b", re.IGNORECASE
)
_CLAUSE = re.compile(r"\b(?:but|while|whereas|however|yet|although|though)\b|[;.]", re.IGNORECASE)


# Where a text names several stages, the one it moves the opportunity to is its answer:
# "It is in Negotiation but should be in Discovery", "align the stage to 'Discovery'".
_STAGE_CUE = re.compile(
    r"\b(?:should (?:be|stay|remain)(?: (?:in|at))?|belongs? (?:in|at)|correct(?:ed)? "
    r"(?:stage )?(?:is|to)|(?:move|moved|align|aligned|update|updated|set|change|changed|"
    r"revert|reverted)\b[^.;]*?\bto)\s+(?:the\s+)?['\"]?(" + "|".join(STAGES) + r")\b",
    re.IGNORECASE,
)


_NOT_STAGE = re.compile(
    r"\bnot (?:in |at )?(?:the )?['\"]?(" + "|".join(STAGES) + r")\b", re.IGNORECASE
)


def _stages(text: str) -> list[str]:
    named = _words(_STAGE, STAGES, text)
    if len(set(named)) > 1:
        cued = _STAGE_CUE.findall(text)
        if cued:
            return _words(_STAGE, STAGES, cued[-1])
        denied = set(_words(_STAGE, STAGES, " ".join(_NOT_STAGE.findall(text))))
        kept = [stage for stage in named if stage not in denied]
        if kept:
            return kept
    return named


def _bant(text: str) -> list[str]:
    clauses = [c for c in _CLAUSE.split(text) if c.strip()]
    unmet = [c for c in clauses if _UNMET.search(c)]
    if unmet and any(_MET.search(c) and not _UNMET.search(c) for c in clauses):
        return _words(_BANT, BANT_FACTORS, " ".join(unmet))
    return _words(_BANT, BANT_FACTORS, text)


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
        found = _bant(response)
    elif family == "stage":
        found = _stages(response)
    else:
        found = _ids(response)
    unique = list(dict.fromkeys(found))
    return unique or ["None"]
