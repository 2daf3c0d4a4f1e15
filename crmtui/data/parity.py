"""Information parity: who sees which part of an instance, in every mode. The one table.

A human baseline measures the people the benchmark is about only if a person works from the
same information as the model: the same request, the same context, nothing more (no hint of
how an answer is scored or what kind of answer is right, no gold). :data:`PARTS` lists every
part of an instance; :data:`MODEL_MODES` and :data:`PERSON_MODES` every way a model or a
person meets one; :data:`TABLE` says, for each part and mode, what is shown. ``docs/parity.md``
holds :func:`parity_markdown`'s table (a test checks it is current), and
``tests/unit/test_parity.py`` builds what the model receives (its messages) and what the
person's screens show (:func:`crmtui.play.person_view.person_view`) for every task type and
mode and checks both against this table.

Values: ``yes`` shown; ``no`` never shown; ``aided`` shown in aided mode only (upstream's
``--agent_eval_mode aided``; ``play --aided``, a study's ``aided``); ``pro`` shown for
CRMArena-Pro rows (list gold); ``option`` shown only with ``--privacy-aware`` (off in every
preset); ``after`` never before the answer is final (then in free play and practice, never
in a blind study); ``facts`` where the hidden facts hold it (a generated instance's
``today``, given to the user so it can say "the past six months"); ``label`` as a label
that never tells a confidentiality type (:func:`person_task_label`).
"""

from __future__ import annotations

from dataclasses import dataclass

# A person's task labels live with the task types (the picker needs them, not this table).
from crmtui.data.tasktypes import CUSTOMER_FACING as CUSTOMER_FACING
from crmtui.data.tasktypes import PERSON_TYPE_LABEL as PERSON_TYPE_LABEL
from crmtui.data.tasktypes import person_task_label as person_task_label

__all__ = [
    "CUSTOMER_FACING",
    "EXTERNAL_AUDIENCE",
    "INTERNAL_AUDIENCE",
    "MODEL_MODES",
    "PARTS",
    "PERSON_MODES",
    "TABLE",
    "VALUES",
    "Part",
    "PERSON_TYPE_LABEL",
    "parity_markdown",
    "person_task_label",
    "shown",
]

VALUES = ("yes", "no", "aided", "pro", "option", "after", "facts", "label")


@dataclass(frozen=True)
class Part:
    """One part of an instance.

    Attributes:
        key: Its name in :data:`TABLE`.
        name: How the docs name it.
        what: What it is, for the docs.
    """

    key: str
    name: str
    what: str


PARTS: tuple[Part, ...] = (
    Part("query", "Query", "the request (`query`); in a dialogue the user's hidden instruction"),
    Part(
        "answer_format",
        "How to answer",
        "the same for every instance: only the answer; several records comma-separated; "
        "None when nothing matches",
    ),
    Part(
        "audience",
        "Who is asking",
        "CRMArena-Pro: an employee of the company, or a customer (upstream's internal- and "
        "external-facing prompts)",
    ),
    Part(
        "privacy_rules",
        "Confidentiality rules",
        "upstream's `--privacy_aware_prompt`: decline other customers' data, internal "
        "operational data and confidential knowledge",
    ),
    Part(
        "required",
        "Task context",
        "`metadata.required`: policies, guides (the activity-priority guide ...), the Ids to "
        "work on",
    ),
    Part("today", "Today's date", "a line of the task context where the row gives one"),
    Part("optional", "Domain details", "`metadata.optional`: quarters, seasons, time periods"),
    Part("schema", "Schema text", "objects, fields, types and descriptions"),
    Part(
        "reference",
        "Reference material",
        "knowledge articles and every record of the org: reached by querying or browsing, "
        "never shown unasked",
    ),
    Part("persona", "Persona", "CRMArena-Pro's `persona`: who the simulated user is"),
    Part(
        "facts",
        "Hidden facts",
        "what the asker knows (a generated instance's `facts`: the period, the record Id ...)",
    ),
    Part("task_type", "Task type", "the type's code (`private_customer_information` ...)"),
    Part("scoring", "How it is scored", "the metric and matching rule (refusal, F1, exact)"),
    Part("gold", "Gold answer", "the expected answer"),
)

#: How a model meets an instance: ``preset/strategy`` (naacl has no multi-turn mode).
MODEL_MODES: tuple[str, ...] = (
    "crmtui/react",
    "crmtui/act",
    "crmtui/tool_call",
    "crmtui/interactive",
    "naacl/react",
    "naacl/act",
    "naacl/tool_call",
    "head/react",
    "head/act",
    "head/tool_call",
    "head/interactive",
    "simulated user",
)

#: How a person meets one: ``play`` (free play), ``study`` (a study seat, blind or not),
#: ``agent`` (playing the agent of a dialogue with a simulated or human user), ``user``
#: (playing the user). Aided is a switch of play, studies and the agent seat (``aided``).
PERSON_MODES: tuple[str, ...] = ("play", "study", "agent", "user")

_M = MODEL_MODES
_SINGLE = tuple(m for m in _M if not m.endswith("interactive") and m != "simulated user")
_INTERACTIVE = ("crmtui/interactive", "head/interactive")
#: The paper's harness (``--preset naacl``): its own prompts, read from its code.
_NAACL = tuple(m for m in _M if m.startswith("naacl/"))
#: The helper-tool prompts of upstream's tool_call (naacl and head presets) carry no schema.
_UPSTREAM_TOOLS = ("naacl/tool_call", "head/tool_call")


def _model(**values: str) -> dict[str, str]:
    """A row's model columns: ``default`` for every mode not named."""
    default = values.pop("default")
    row = dict.fromkeys(MODEL_MODES, default)
    for name, value in values.items():
        modes = {
            "single": _SINGLE,
            "interactive": _INTERACTIVE,
            "tools": _UPSTREAM_TOOLS,
            "naacl": _NAACL,
        }.get(name, (name.replace("_", " "),))
        for mode in modes:
            row[mode] = value
    return row


#: part -> mode -> value. The simulated user is a model too: its column says what it reads.
TABLE: dict[str, dict[str, str]] = {
    "query": {
        **_model(default="yes", interactive="no"),
        **{"play": "yes", "study": "yes", "agent": "no", "user": "yes"},
    },
    "answer_format": {
        # The paper's react and act prompts carry no answer-format rule (HEAD's do).
        # The paper's prompts (naacl) carry no answer-format rule; HEAD's react prompts and
        # crmtui's do, HEAD's act and function-calling prompts do not.
        **_model(default="yes", simulated_user="no", naacl="no"),
        **{"head/act": "no", "head/tool_call": "no"},
        **{"play": "yes", "study": "yes", "agent": "yes", "user": "no"},
    },
    "audience": {
        # The paper's code has one prompt for every asker. HEAD's react prompts tell an
        # internal user from a customer for every row (CRMArena's too); its act and
        # function-calling prompts do not.
        **_model(default="pro", simulated_user="no", naacl="no"),
        **{
            "head/react": "yes",
            "head/interactive": "yes",
            "head/act": "no",
            "head/tool_call": "no",
        },
        **{"play": "pro", "study": "pro", "agent": "pro", "user": "no"},
    },
    "privacy_rules": {
        **_model(default="option", simulated_user="no"),
        **{"play": "no", "study": "no", "agent": "no", "user": "no"},
    },
    "required": {
        **_model(default="yes", simulated_user="no"),
        **{"play": "yes", "study": "yes", "agent": "yes", "user": "no"},
    },
    "today": {
        **_model(default="yes", simulated_user="facts"),
        **{"play": "yes", "study": "yes", "agent": "yes", "user": "facts"},
    },
    "optional": {
        **_model(default="aided", simulated_user="no"),
        **{"play": "aided", "study": "aided", "agent": "aided", "user": "no"},
    },
    "schema": {
        **_model(default="yes", tools="no", simulated_user="no"),
        **{"play": "yes", "study": "yes", "agent": "yes", "user": "no"},
    },
    "reference": {
        **_model(default="yes", simulated_user="no"),
        **{"play": "yes", "study": "yes", "agent": "yes", "user": "no"},
    },
    "persona": {
        **_model(default="no", simulated_user="yes"),
        **{"play": "no", "study": "no", "agent": "no", "user": "yes"},
    },
    "facts": {
        **_model(default="no", simulated_user="yes"),
        **{"play": "no", "study": "no", "agent": "no", "user": "yes"},
    },
    "task_type": {
        **_model(default="no"),
        **{"play": "label", "study": "label", "agent": "label", "user": "label"},
    },
    "scoring": {
        **_model(default="no"),
        **{"play": "no", "study": "no", "agent": "no", "user": "no"},
    },
    "gold": {
        **_model(default="no"),
        **{"play": "after", "study": "after", "agent": "after", "user": "no"},
    },
}

INTERNAL_AUDIENCE = (
    "The person you are helping is an internal user: an employee of the company that owns "
    "the {system}."
)
EXTERNAL_AUDIENCE = (
    "The person you are helping is an external user: a customer of the company that owns "
    "the {system}, not one of its employees."
)


def shown(
    part: str,
    mode: str,
    *,
    pro: bool,
    aided: bool,
    privacy_aware: bool = False,
    in_facts: bool = False,
) -> bool:
    """Whether ``part`` is shown in ``mode`` for a row (``after``: False, before the answer;
    ``in_facts``: the instance's hidden facts hold the part)."""
    value = TABLE[part][mode]
    return {
        "yes": True,
        "no": False,
        "after": False,
        "aided": aided,
        "pro": pro,
        "option": privacy_aware,
        "facts": in_facts,
        "label": True,
    }[value]


_WORDS = {
    "yes": "yes",
    "no": "—",
    "aided": "aided",
    "pro": "Pro rows",
    "option": "opt-in",
    "after": "after",
    "facts": "in its facts",
    "label": "a label",
}


def parity_markdown() -> str:
    """The table as Markdown (parts down, modes across), as ``docs/parity.md`` holds it."""
    modes = list(MODEL_MODES) + [f"person: {m}" for m in PERSON_MODES]
    lines = [
        "| part | " + " | ".join(f"`{m}`" for m in modes) + " |",
        "|---|" + "---|" * len(modes),
    ]
    for part in PARTS:
        row = TABLE[part.key]
        cells = [_WORDS[row[m]] for m in MODEL_MODES] + [_WORDS[row[m]] for m in PERSON_MODES]
        lines.append(f"| {part.name} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
