"""Every setting that changes an agent's numbers, resolved to explicit values and named.

Options left unset take the value of the preset: ``crmtui`` (the default), ``naacl`` (what
the paper's code, upstream commit 17cbce8, did), ``head`` (upstream's current code) or
``upstream`` (the same as ``head``, its earlier name). :func:`resolve` turns an
:class:`~crmtui.agent.settings.AgentSettings` into :class:`Resolved`, whose
:meth:`~Resolved.to_json` goes into every recording header, every results row and the
settings file a resumed run is checked against.

========================  ===============================  ==================================
setting                   crmtui                           upstream
========================  ===============================  ==================================
date literals             ``instance`` (the task's date)   ``wallclock`` (the real clock)
max tokens                2,000 react/act, 3,500           same
                          tool_call, 50,000 o1/o3-mini/
                          R1/Gemini 2.5
temperature               0; not sent to o1/o3-mini/R1     same
top_p                     not sent                         1.0 (not sent where temperature
                                                           is not)
tool schemas (tool_call)  crmtui's words                   upstream's own, read from its
                                                           harness folder at run time
scoring                   ``strict``                       ``paper`` (react/act),
                                                           ``toolenv`` (tool_call)
list scoring (Pro gold)   ``head_rules`` (HEAD's           ``llm_extract`` (HEAD's
                          evaluator, rules for its LLM)    evaluator, as run_tasks.py)
privacy judge             ``rules``                        ``gpt-4o-2024-08-06``
tool_call toolset         ``query`` (SOQL/SOSL tools)      ``upstream`` (25 helper tools)
observation shown         first 40,000 characters + note   unbounded
extract model             ``gpt-4o-2024-08-06``            same
observations              ``crmtui``                       ``naacl`` / ``head``: upstream's
                                                           own, byte for byte
========================  ===============================  ==================================

``scoring`` scores CRMArena rows (string or null gold); ``list_scoring`` scores CRMArena-Pro
rows (list gold) and ``judge`` their ``privacy_rejection`` rows (see
:mod:`crmtui.scoring.evaluator`). ``--scoring`` given explicitly sets both methods;
``--llm-extract`` or ``--extract-model`` makes both ``llm_extract``; ``--judge-model M``
(``rules`` for the rules judge) sets the judge.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from typing import Any

from crmtui.agent.families import default_max_tokens, default_temperature
from crmtui.agent.limits import DEFAULT_OBSERVATION_CHARS
from crmtui.errors import ConfigError

__all__ = [
    "DATE_MODES",
    "OBSERVATION_CHOICES",
    "PRESETS",
    "SCORING_CHOICES",
    "UPSTREAM_EXTRACT_MODEL",
    "UPSTREAM_JUDGE_MODEL",
    "Resolved",
    "resolve",
    "today_for",
]

PRESETS = ("crmtui", "naacl", "head", "upstream")
#: Whose observations the model sees (see :mod:`crmtui.agent.strategies`).
OBSERVATION_CHOICES = ("crmtui", "naacl", "head")
DATE_MODES = ("instance", "wallclock")
#: Methods ``--scoring`` offers (``llm_extract`` is ``--llm-extract``).
SCORING_CHOICES = ("strict", "paper", "toolenv", "head", "head_rules", "head_as_is")
#: Methods that call the extraction model (HEAD's evaluator as it is extracts with it too).
EXTRACTING = ("llm_extract", "head_as_is")
#: The extraction model upstream's Evaluator always used.
UPSTREAM_EXTRACT_MODEL = "gpt-4o-2024-08-06"
#: Upstream's Evaluator judges privacy_rejection rows with the same model.
UPSTREAM_JUDGE_MODEL = UPSTREAM_EXTRACT_MODEL
#: ``--judge-model`` value for the deterministic rules judge.
RULES_JUDGE = "rules"

_DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


@dataclass(frozen=True)
class Resolved:
    """The explicit values of one agent configuration.

    Attributes:
        preset: ``crmtui``, ``naacl``, ``head`` or ``upstream``.
        overrides: Settings given explicitly that differ from the preset's value.
        model: litellm model name.
        strategy: ``react``, ``act``, ``tool_call`` or ``tool_call_flex``.
        toolset: ``query`` or ``upstream`` (tool strategies only; ``None`` otherwise).
        prompts: Digest of the strategy's fixed prompt texts.
        aided: Upstream's aided mode.
        privacy_aware: The confidentiality rules in CRMArena-Pro customer-facing prompts.
        max_turns: Model calls per instance.
        max_tokens: Completion budget per call.
        temperature: Sampling temperature (``None``: not sent).
        date_literals: ``instance``, ``wallclock`` or a ``YYYY-MM-DD`` date.
        scoring: Scoring method of string/null gold (CRMArena rows).
        list_scoring: Scoring method of list gold (CRMArena-Pro rows).
        judge: Judge of ``privacy_rejection`` rows: ``rules`` or a model name.
        extract_model: The extraction model (when a method is ``llm_extract``).
        observation_chars: Characters of an observation shown (``None``: unbounded).
        observations: ``crmtui``, or ``naacl`` / ``head``: that upstream harness's own
            observations, helper tools, reply parsing and answer action.
        time_limit_s: Wall-clock limit per instance (not part of the resume check).
        timeout_s: Limit per model call attempt (not part of the resume check).
        sources: Task source and org facts, filled in once they are loaded.
    """

    preset: str
    overrides: tuple[str, ...]
    model: str
    strategy: str
    toolset: str | None
    prompts: str
    aided: bool
    max_turns: int
    max_tokens: int
    temperature: float | None
    date_literals: str
    scoring: str
    extract_model: str | None
    observation_chars: int | None
    observations: str
    time_limit_s: float
    timeout_s: float
    sources: dict[str, Any] = field(default_factory=dict)
    list_scoring: str = "head_rules"
    judge: str = RULES_JUDGE
    privacy_aware: bool = False
    #: The multi-turn mode's settings (user model, max user turns); None: single-turn.
    dialogue: dict[str, Any] | None = None
    #: ``top_p`` sent with every agent call (upstream's 1.0; ``None``: not sent).
    top_p: float | None = None

    #: Settings that change results: a resumed run must match them all.
    RESUME_KEYS = (
        "preset",
        "model",
        "strategy",
        "toolset",
        "prompts",
        "tasks_digest",
        "org_digest",
        "aided",
        "privacy_aware",
        "max_turns",
        "max_tokens",
        "temperature",
        "top_p",
        "date_literals",
        "scoring",
        "list_scoring",
        "judge",
        "extract_model",
        "observation_chars",
        "observations",
        "dialogue",
    )

    def to_json(self) -> dict[str, Any]:
        """Every value, as recorded (headers, results rows, the settings file)."""
        values: dict[str, Any] = {
            "preset": self.preset,
            "overrides": list(self.overrides),
            "model": self.model,
            "strategy": self.strategy,
            "toolset": self.toolset,
            "prompts": self.prompts,
            "aided": self.aided,
            "privacy_aware": self.privacy_aware,
            "max_turns": self.max_turns,
            "max_tokens": self.max_tokens,
            "temperature": self.temperature,
            "top_p": self.top_p,
            "date_literals": self.date_literals,
            "scoring": self.scoring,
            "list_scoring": self.list_scoring,
            "judge": self.judge,
            "extract_model": self.extract_model,
            "observation_chars": self.observation_chars,
            "observations": self.observations,
            "time_limit_s": self.time_limit_s,
            "timeout_s": self.timeout_s,
        }
        if self.dialogue is not None:
            values["dialogue"] = dict(self.dialogue)
        values.update(self.sources)
        return values

    def with_sources(self, **sources: Any) -> Resolved:
        """A copy with task source and org facts added (``tasks``, ``tasks_digest`` ...)."""
        return Resolved(**{**self.__dict__, "sources": {**self.sources, **sources}})


def _date_mode(value: str | None) -> str | None:
    if value is None:
        return None
    text = value.strip().lower()
    if text in DATE_MODES:
        return text
    if _DATE_RE.match(text):
        try:
            dt.date.fromisoformat(text)
        except ValueError:
            raise ConfigError(f"--date-literals {value!r} is not a real date") from None
        return text
    raise ConfigError(
        f"--date-literals must be instance, wallclock or a YYYY-MM-DD date, not {value!r}"
    )


def resolve(settings: Any) -> Resolved:
    """Resolve :class:`~crmtui.agent.settings.AgentSettings` against its preset.

    Raises:
        ConfigError: Unknown preset, scoring method, date mode or an impossible value.
    """
    preset = (settings.preset or "crmtui").strip().lower()
    if preset not in PRESETS:
        raise ConfigError(f"unknown --preset {settings.preset!r}: choose {' or '.join(PRESETS)}")
    upstream = preset != "crmtui"
    strategy = settings.strategy.strip().lower()
    tool_call = strategy.startswith("tool_call")
    base: dict[str, Any] = {
        "toolset": ("upstream" if upstream else "query") if tool_call else None,
        "max_tokens": default_max_tokens(settings.model, strategy),
        "temperature": default_temperature(settings.model),
        "date_literals": "wallclock" if upstream else "instance",
        "scoring": ("toolenv" if tool_call else "paper") if upstream else "strict",
        "list_scoring": "llm_extract" if upstream else "head_rules",
        "judge": UPSTREAM_JUDGE_MODEL if upstream else RULES_JUDGE,
        "observation_chars": None if upstream else DEFAULT_OBSERVATION_CHARS,
        "observations": "naacl" if preset == "naacl" else "head" if upstream else "crmtui",
    }
    scoring = settings.scoring
    if scoring is not None and scoring not in SCORING_CHOICES:
        raise ConfigError(
            f"unknown --scoring {scoring!r}: choose one of {', '.join(SCORING_CHOICES)}"
        )
    extract_model = getattr(settings, "extract_model", None)
    if scoring == "head_as_is" and tool_call:
        raise ConfigError(
            "--scoring head_as_is is HEAD's react/act evaluator; HEAD's tool-calling "
            "environment scores with toolenv"
        )
    if settings.llm_extract or (extract_model and scoring != "head_as_is"):
        if scoring is not None:
            option = "--llm-extract" if settings.llm_extract else "--extract-model"
            raise ConfigError(f"{option} is a scoring method itself (LLM); drop --scoring")
        scoring = "llm_extract"
    judge = getattr(settings, "judge_model", None)
    if judge is not None and not judge.strip():
        raise ConfigError("--judge-model needs a model name (or 'rules')")
    observation = settings.max_observation
    if observation is not None and observation < 0:
        raise ConfigError(f"--max-observation must be >= 0, got {observation}")
    observations = getattr(settings, "observations", None)
    if observations is not None and observations not in OBSERVATION_CHOICES:
        raise ConfigError(
            f"unknown --observations {observations!r}: choose one of "
            f"{', '.join(OBSERVATION_CHOICES)}"
        )
    given: dict[str, Any] = {
        "toolset": (settings.toolset if tool_call else None) if settings.toolset else None,
        "max_tokens": settings.max_tokens,
        "temperature": settings.temperature,
        "date_literals": _date_mode(settings.date_literals),
        "scoring": scoring,
        # An explicit method scores every instance, CRMArena-Pro rows included.
        "list_scoring": scoring,
        "judge": judge.strip() if judge else None,
        # 0 means unbounded on the command line.
        "observation_chars": None if observation is None else (observation or "unbounded"),
        "observations": observations,
    }
    if given["max_tokens"] is not None and given["max_tokens"] < 1:
        raise ConfigError(f"--max-tokens must be at least 1, got {given['max_tokens']}")
    values = dict(base)
    overrides = []
    for name, value in given.items():
        if value is None:
            continue
        value = None if value == "unbounded" else value
        if value != base[name]:
            overrides.append(name)
        values[name] = value
    llm = values["scoring"] in EXTRACTING or values["list_scoring"] in EXTRACTING
    from crmtui.agent.strategies import make_strategy

    privacy_aware = bool(getattr(settings, "privacy_aware", False))
    dialogue = getattr(settings, "dialogue", None)
    played = make_strategy(
        strategy,
        toolset=values["toolset"] or "query",
        model=settings.model,
        privacy_aware=privacy_aware,
        interactive=bool(dialogue is not None and dialogue.interactive),
        observations=values["observations"],
        upstream_dir=getattr(settings, "upstream_dir", None),
    )
    # Upstream sends top_p=1.0 with every agent call, except where it drops the temperature.
    top_p = 1.0 if upstream and values["temperature"] is not None else None
    return Resolved(
        preset=preset,
        overrides=tuple(overrides),
        model=settings.model.strip(),
        strategy=strategy,
        toolset=values["toolset"],
        prompts=played.prompt_digest(),
        aided=bool(settings.aided),
        privacy_aware=privacy_aware,
        max_turns=settings.max_turns,
        max_tokens=values["max_tokens"],
        temperature=values["temperature"],
        top_p=top_p,
        date_literals=values["date_literals"],
        scoring=values["scoring"],
        list_scoring=values["list_scoring"],
        judge=values["judge"],
        extract_model=(extract_model or UPSTREAM_EXTRACT_MODEL) if llm else None,
        observation_chars=values["observation_chars"],
        observations=values["observations"],
        time_limit_s=settings.time_limit_s,
        timeout_s=settings.timeout,
        dialogue=None
        if dialogue is None
        else dialogue.to_json(preset, getattr(settings, "upstream_dir", None)),
    )


def today_for(
    date_literals: str, instance_today: dt.date | None, wallclock: dt.date | None = None
) -> dt.date | None:
    """The date ``TODAY``-style literals resolve against under ``date_literals``.

    Args:
        date_literals: ``instance``, ``wallclock`` or ``YYYY-MM-DD``.
        instance_today: The instance's "Today's date".
        wallclock: Today's date on the real clock (tests pass a fixed one).
    """
    if date_literals == "instance":
        return instance_today
    if date_literals == "wallclock":
        return wallclock or dt.date.today()
    return dt.date.fromisoformat(date_literals)
