"""Options shared by ``crmtui run`` and ``crmtui watch``: the agent, its sources and settings.

Options that change the numbers default to ``None`` here and take the value of ``--preset``
(see :mod:`crmtui.agent.presets`), so the recorded settings can say which were chosen.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from crmtui.commands.options import POSITIVE_SECONDS

F = TypeVar("F", bound=Callable[..., Any])

#: Keyword arguments of the shared options, in the order click passes them.
AGENT_OPTION_NAMES = (
    "model",
    "strategy",
    "toolset",
    "tasks",
    "org",
    "task",
    "api_base",
    "deployments_file",
    "max_turns",
    "time_limit",
    "timeout",
    "aided",
    "privacy_aware",
    "llm_extract",
    "extract_model",
    "extract_api_base",
    "judge_model",
    "judge_api_base",
    "preset",
    "max_tokens",
    "temperature",
    "date_literals",
    "scoring",
    "max_observation",
    "observations",
    "upstream_dir",
    "force",
)


def agent_options(func: F) -> F:
    """Decorate a command with the shared agent options."""
    options = [
        click.option(
            "--model",
            required=True,
            metavar="M",
            help="Any litellm model name, e.g. openai/gpt-4o or openai/local with --api-base. "
            "API keys come from the provider's environment variable (OPENAI_API_KEY, ...).",
        ),
        click.option(
            "--strategy",
            type=click.Choice(["react", "act", "tool_call", "tool_call_flex"]),
            default="react",
            show_default=True,
            help="react: thought + <execute>/<respond>; act: no thoughts; tool_call: native "
            "function calling; tool_call_flex (--preset naacl/head): upstream's helper tools "
            "plus its two query tools, the schema in the prompt.",
        ),
        click.option(
            "--toolset",
            type=click.Choice(["query", "upstream"]),
            default=None,
            help="For tool_call: free SOQL/SOSL tools (crmtui default) or upstream's 25 helper "
            "tools (--preset naacl or head).",
        ),
        click.option(
            "--tasks",
            default=None,
            metavar="SRC",
            help="Task source: a JSON/JSONL/Parquet file, hf:Salesforce/CRMArena or 'sample' "
            "(default: the org's own tasks, else the sample's).",
        ),
        click.option(
            "--org",
            default=None,
            metavar="PATH|NAME",
            help="Org database file or built/imported org name (default: the sample org).",
        ),
        click.option(
            "--task",
            default=None,
            multiple=True,
            metavar="TYPE",
            help="Only instances of this task type (code or abbreviation, e.g. HTU); "
            "repeat for several.",
        ),
        click.option(
            "--api-base",
            multiple=True,
            metavar="URL",
            help="Base URL of an OpenAI-compatible server (e.g. http://127.0.0.1:8000/v1); "
            "checked before the first instance. Repeat it to spread calls over several "
            "servers through litellm's Router (URL,rpm=N,tpm=N,name=X sets one's limits).",
        ),
        click.option(
            "--deployments",
            "deployments_file",
            default=None,
            metavar="FILE",
            type=click.Path(dir_okay=False),
            help="A JSON file of model servers for litellm's Router (rpm/tpm, retries, "
            "fallbacks); see docs/agent-settings.md. Each call records the one that answered.",
        ),
        click.option(
            "--max-turns",
            type=click.IntRange(min=1),
            default=20,
            show_default=True,
            help="Model calls per instance (invalid replies count).",
        ),
        click.option(
            "--time-limit",
            type=POSITIVE_SECONDS,
            default=600.0,
            show_default=True,
            metavar="S",
            help="Wall-clock limit per instance, in seconds; holds during a model call too, a "
            "simulated user's included (a person's time to answer is not counted).",
        ),
        click.option(
            "--timeout",
            type=POSITIVE_SECONDS,
            default=60.0,
            show_default=True,
            metavar="S",
            help="Seconds one model call attempt may take in total, first byte to last "
            "(attempts are retried on 429/5xx/timeouts).",
        ),
        click.option(
            "--aided", is_flag=True, help="Add metadata.optional (upstream's aided mode)."
        ),
        click.option(
            "--privacy-aware",
            is_flag=True,
            help="CRMArena-Pro: tell the agent on customer-facing rows to decline requests "
            "for private or confidential data (upstream's --privacy_aware_prompt true).",
        ),
        click.option(
            "--llm-extract",
            is_flag=True,
            help="Score like upstream's current evaluator: an LLM extracts the answers.",
        ),
        click.option(
            "--extract-model",
            default=None,
            metavar="M",
            help="Model for --llm-extract (default: upstream's gpt-4o-2024-08-06); giving one "
            "turns LLM extraction on.",
        ),
        click.option(
            "--extract-api-base",
            default=None,
            metavar="URL",
            help="Server of --extract-model (default: its provider's own).",
        ),
        click.option(
            "--judge-model",
            default=None,
            metavar="M",
            help="Judge of CRMArena-Pro's privacy_rejection rows, as upstream's Evaluator "
            "(--preset naacl or head: gpt-4o-2024-08-06); 'rules' for crmtui's deterministic "
            "refusal rules (the crmtui default).",
        ),
        click.option(
            "--judge-api-base",
            default=None,
            metavar="URL",
            help="Server of --judge-model (default: its provider's own).",
        ),
        click.option(
            "--preset",
            type=click.Choice(["crmtui", "naacl", "head", "upstream"]),
            default=None,
            help="Values for every setting left unset: crmtui's (default), or upstream "
            "run_tasks.py's: naacl (the paper's code, 17cbce8: <submit>) or head (current, "
            "32b609a; upstream is its earlier name). Both: upstream's own prompts and tool "
            "schemas, read from its harness (--upstream-dir), wallclock dates, paper scoring "
            "for CRMArena rows (react/act; toolenv for tool calls; HEAD's own evaluator is "
            "--scoring head_as_is), LLM extraction and judge for Pro rows, helper tools for "
            "tool_call, top_p 1.0, unbounded observations, upstream's observations. See "
            "docs/fidelity.md.",
        ),
        click.option(
            "--max-tokens",
            type=int,
            default=None,
            metavar="N",
            help="Completion budget per call (default: 2000 react/act, 3500 tool_call, "
            "50000 for o1/o3-mini/R1/Gemini 2.5, as upstream).",
        ),
        click.option(
            "--temperature",
            type=float,
            default=None,
            metavar="T",
            help="Sampling temperature (default: 0; none sent to o1/o3-mini/R1).",
        ),
        click.option(
            "--date-literals",
            default=None,
            metavar="MODE",
            help="What TODAY, LAST_N_DAYS:n, ... resolve against: instance (the task's date, "
            "default), wallclock (the real clock, as upstream's live org) or a YYYY-MM-DD.",
        ),
        click.option(
            "--scoring",
            type=click.Choice(["strict", "paper", "toolenv", "head", "head_rules", "head_as_is"]),
            default=None,
            help="How an answer is scored (default: strict for CRMArena rows, head_rules for "
            "CRMArena-Pro rows; --preset naacl/head: paper for react/act, toolenv for "
            "tool_call, LLM extraction for Pro). head_as_is: HEAD's react/act evaluator as "
            "it is (a string gold read as its characters, a null gold its exception row; "
            "LLM extraction). Given, it scores every row. See docs/scoring.md.",
        ),
        click.option(
            "--max-observation",
            type=int,
            default=None,
            metavar="CHARS",
            help="Characters of a query result shown to the model, with a note when cut "
            "(default 40000; 0 = all, as --preset naacl or head).",
        ),
        click.option(
            "--observations",
            type=click.Choice(["crmtui", "naacl", "head"]),
            default=None,
            help="What the model is shown: crmtui's observations (default), or those of "
            "upstream's harness version, byte for byte (--preset naacl/head).",
        ),
        click.option(
            "--upstream-dir",
            default=None,
            metavar="PATH",
            help="Upstream's harness folder (a CRMArena clone) whose own prompts and tool "
            "schemas --preset naacl/head send (default: CRMTUI_UPSTREAM_DIR, else the folders "
            "`crmtui upstream setup` prepared).",
        ),
        click.option(
            "--force",
            is_flag=True,
            help="Run tasks on an org that lacks most of the records they mention.",
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def settings_kwargs(values: dict[str, Any]) -> dict[str, Any]:
    """The :class:`~crmtui.agent.settings.AgentSettings` keyword arguments of the options."""
    task = tuple(values["task"] or ())
    return {
        "model": values["model"],
        "strategy": values["strategy"],
        "toolset": values["toolset"],
        "tasks": values["tasks"],
        "org": values["org"],
        "task": task or None,
        **_servers(values["api_base"], values["deployments_file"]),
        "max_turns": values["max_turns"],
        "time_limit_s": values["time_limit"],
        "timeout": values["timeout"],
        "aided": values["aided"],
        "privacy_aware": values["privacy_aware"],
        "llm_extract": values["llm_extract"],
        "extract_model": values["extract_model"],
        "extract_api_base": values["extract_api_base"],
        "judge_model": values["judge_model"],
        "judge_api_base": values["judge_api_base"],
        "preset": values["preset"],
        "max_tokens": values["max_tokens"],
        "temperature": values["temperature"],
        "date_literals": values["date_literals"],
        "scoring": values["scoring"],
        "max_observation": values["max_observation"],
        "observations": values["observations"],
        "upstream_dir": values.get("upstream_dir"),
        "force": values["force"],
    }


def _servers(api_bases: Any, deployments_file: str | None) -> dict[str, Any]:
    """``api_base`` for one plain ``--api-base``; ``deployments`` for several or a file."""
    from crmtui.errors import ConfigError

    bases = (api_bases,) if isinstance(api_bases, str) else tuple(api_bases or ())
    if deployments_file is not None:
        if bases:
            raise ConfigError("give --deployments or --api-base, not both")
        from crmtui.agent.deployments import read_deployments

        return {"api_base": None, "deployments": read_deployments(deployments_file)}
    if not bases:
        return {"api_base": None}
    if len(bases) == 1 and "," not in bases[0]:
        return {"api_base": bases[0]}
    from crmtui.agent.deployments import make_set, parse_api_base

    return {"api_base": None, "deployments": make_set([parse_api_base(b) for b in bases])}
