"""Settings shared by every way of running an agent (``crmtui run`` and ``crmtui watch``).

:class:`AgentSettings` holds what the user asked for (``None`` = the preset's value),
validates it, resolves it to explicit values (:meth:`AgentSettings.resolved`, see
:mod:`crmtui.agent.presets`) and builds the pieces both modes need: the strategy, model
clients, the scorer and the date queries resolve against. The batch and watch settings
extend it with what only they need.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from crmtui.agent.dialogue_settings import DialogueSettings
from crmtui.errors import ConfigError

__all__ = ["AgentSettings"]


def _positive(value: float, option: str) -> None:
    if not (value > 0 and math.isfinite(value)):
        raise ConfigError(f"{option} must be a positive number of seconds, got {value:g}")


@dataclass(frozen=True)
class AgentSettings:
    """The agent, the instances it works on, and its limits.

    Attributes:
        model: litellm model name.
        strategy: ``react``, ``act`` or ``tool_call``.
        toolset: For ``tool_call``: ``query`` or ``upstream`` (``None``: the preset's).
        tasks: Task source (``None``: the org's own tasks, or the sample's).
        org: Org path or name (``None`` = the sample org).
        task: Only instances of these task types (codes or abbreviations; one string or a
            tuple of them).
        api_base: OpenAI-compatible server URL.
        deployments: Several servers behind litellm's Router
            (:class:`~crmtui.agent.deployments.DeploymentSet`), instead of ``api_base``.
        max_turns: Model calls per instance.
        time_limit_s: Wall-clock limit per instance (held during a model call too).
        timeout: Seconds one model call attempt may take in total.
        aided: Upstream's aided mode (``metadata.optional`` in the prompt).
        privacy_aware: Confidentiality rules in the prompt of CRMArena-Pro's customer-facing
            rows (upstream's ``--privacy_aware_prompt true``).
        llm_extract: Score with LLM answer extraction (upstream HEAD's evaluator).
        extract_model: Model for the extraction (default: upstream's ``gpt-4o-2024-08-06``);
            giving one chooses LLM extraction.
        extract_api_base: Server of the extraction model (default: its provider's).
        judge_model: Judge of ``privacy_rejection`` rows (``rules``: the rules judge;
            default: the preset's).
        judge_api_base: Server of the judge model (default: its provider's).
        preset: ``crmtui`` (default) or ``upstream``: the values unset options take.
        max_tokens: Completion budget per call (default: per strategy and model family).
        temperature: Sampling temperature (default: 0; none for the reasoning families).
        date_literals: ``instance``, ``wallclock`` or ``YYYY-MM-DD``.
        scoring: ``strict``, ``paper``, ``toolenv`` or ``head``.
        max_observation: Characters of an observation shown to the model (0: all).
        observations: ``crmtui``, ``naacl`` or ``head`` (``None``: the preset's).
        force: Go on even when the tasks' record Ids are mostly missing from the org.
        fsync: Sync every recorded event (off only in tests and benchmarks).
        client_options: Further ``ModelClient`` keyword arguments (tests: backoff, retries).
        wallclock: Today's date on the real clock (tests; ``None`` asks the system).
        dialogue: The multi-turn mode (a simulated user, the limit on user turns).
        upstream_dir: Upstream's harness folder, whose own tool schemas ``--preset
            naacl|head`` send (``None``: found as :mod:`crmtui.agent.upstream_texts` says).
    """

    model: str
    strategy: str = "react"
    toolset: str | None = None
    tasks: str | None = None
    org: str | None = None
    task: str | tuple[str, ...] | None = None
    api_base: str | None = None
    deployments: Any = None
    max_turns: int = 20
    time_limit_s: float = 600.0
    timeout: float = 60.0
    aided: bool = False
    privacy_aware: bool = False
    llm_extract: bool = False
    extract_model: str | None = None
    extract_api_base: str | None = None
    judge_model: str | None = None
    judge_api_base: str | None = None
    preset: str | None = None
    max_tokens: int | None = None
    temperature: float | None = None
    date_literals: str | None = None
    scoring: str | None = None
    max_observation: int | None = None
    observations: str | None = None
    force: bool = False
    fsync: bool = True
    client_options: Mapping[str, Any] = field(default_factory=dict)
    wallclock: dt.date | None = None
    dialogue: DialogueSettings = field(default_factory=DialogueSettings)
    upstream_dir: str | None = None

    @property
    def task_types(self) -> tuple[str, ...]:
        """The ``--task`` values as a tuple (empty: every type)."""
        if self.task is None:
            return ()
        return (self.task,) if isinstance(self.task, str) else tuple(self.task)

    @property
    def tasks_label(self) -> str:
        """The task source as recorded in headers (before the org's own tasks are known)."""
        return self.tasks or "sample"

    def check(self) -> None:
        """Reject impossible settings with a one-line :class:`ConfigError`."""
        if not self.model or not self.model.strip():
            raise ConfigError("--model is required (a litellm model name, e.g. openai/gpt-4o)")
        if self.max_turns < 1:
            raise ConfigError(f"--max-turns must be at least 1, got {self.max_turns}")
        if not (self.time_limit_s > 0 and math.isfinite(self.time_limit_s)):
            raise ConfigError(f"--time-limit must be positive, got {self.time_limit_s:g}")
        _positive(self.timeout, "--timeout")
        if self.temperature is not None and not (
            math.isfinite(self.temperature) and 0 <= self.temperature <= 2
        ):
            raise ConfigError(f"--temperature must be between 0 and 2, got {self.temperature:g}")
        self.dialogue.check()
        self.resolved  # noqa: B018 - resolving validates preset, scoring, dates, tokens
        if self.deployments is not None and self.api_base:
            raise ConfigError("give either --api-base (once) or several servers, not both")

    @cached_property
    def resolved(self) -> Any:
        """The explicit values (:class:`~crmtui.agent.presets.Resolved`)."""
        from crmtui.agent.presets import resolve

        return resolve(self)

    @cached_property
    def router(self) -> Any:
        """One ``litellm.Router`` over :attr:`deployments`, shared by every thread of the run
        (so cooldowns and rate limits hold across them); ``None`` without deployments."""
        if self.deployments is None:
            return None
        from crmtui.agent.client import load_litellm
        from crmtui.agent.deployments import build_router

        key = self.client_options.get("api_key")
        return build_router(load_litellm(), self.model, self.deployments, api_key=key)

    def strategy_object(self) -> Any:
        """The :class:`~crmtui.agent.strategies.Strategy` to play (raises ConfigError)."""
        from crmtui.agent.strategies import make_strategy

        resolved = self.resolved
        return make_strategy(
            self.strategy,
            toolset=resolved.toolset or "query",
            model=self.model,
            privacy_aware=self.privacy_aware,
            interactive=self.dialogue.interactive,
            observations=resolved.observations,
            upstream_dir=self.upstream_dir,
        )

    def executor(self, org: Any, today: dt.date | None, **options: Any) -> Any:
        """The query executor the agent meets: crmtui's engine as crmtui shows it, or (with
        ``naacl``/``head`` observations) as upstream's connector sees it through the REST API.

        Args:
            org: The org queried.
            today: The date relative date literals resolve against.
            options: Further :func:`~crmtui.agent.execution.make_query_executor` arguments.
        """
        if self.resolved.observations == "crmtui":
            from crmtui.agent.execution import make_query_executor

            return make_query_executor(org, today, **options)
        from crmtui.agent.upstream_connector import UpstreamConnector, upstream_executor

        timeout = options.get("query_timeout_s")
        return upstream_executor(UpstreamConnector(org, today, query_timeout_s=timeout))

    def today(self, instance: Any) -> dt.date | None:
        """The date the instance's date literals resolve against (``--date-literals``)."""
        from crmtui.agent.presets import today_for

        return today_for(
            self.resolved.date_literals, getattr(instance, "today", None), self.wallclock
        )

    def client(self, model: str | None = None) -> Any:
        """A model client (imports litellm on first call: build it off the UI thread).

        Args:
            model: Another model (the extractor's or the judge's); it gets that model's
                defaults and ``extract_api_base`` (``judge_api_base`` for the judge model)
                instead of ``api_base``.
        """
        from crmtui.agent.client import ModelClient
        from crmtui.agent.families import default_temperature

        if model is None or model == self.model:
            resolved = self.resolved
            options = dict(self.client_options)
            if resolved.top_p is not None:
                options["extra"] = {**dict(options.get("extra") or {}), "top_p": resolved.top_p}
            if self.deployments is not None:
                options["router"] = self.router
            return ModelClient(
                self.model,
                api_base=self.api_base,
                timeout=self.timeout,
                temperature=resolved.temperature,
                max_tokens=resolved.max_tokens,
                **options,
            )
        resolved = self.resolved
        # One model may both extract and judge (upstream's gpt-4o): then it has one server,
        # --extract-api-base's unless only --judge-api-base is given.
        judging = model == resolved.judge and (
            model != resolved.extract_model or self.extract_api_base is None
        )
        return ModelClient(
            model,
            api_base=self.judge_api_base if judging else self.extract_api_base,
            timeout=self.timeout,
            temperature=default_temperature(model),
            **dict(self.client_options),
        )

    def user_client(self) -> Any:
        """The simulated user's model client (the multi-turn mode; imports litellm)."""
        return self.dialogue.user_client(self.timeout, self.client_options)

    def start_dialogue(
        self, instance: Any, org_path: Any, agent: Any, client: Any
    ) -> tuple[Any, dict[str, Any]]:
        """The simulated user of one episode (the brief of :attr:`dialogue` under this
        preset) and the header's ``dialogue`` object (see ``DialogueSettings.start``)."""
        return self.dialogue.start(
            instance, org_path, agent, client, self.resolved.preset, self.upstream_dir
        )

    def evaluator_digest(self) -> str | None:
        """A digest of upstream's extraction and judge requests these settings send (part of
        a resumed run's check, as they change rewards); None where crmtui's are used."""
        from crmtui.agent.presets import RULES_JUDGE

        resolved = self.resolved
        models = resolved.extract_model is not None or resolved.judge != RULES_JUDGE
        if not (self.upstream_evaluator and models):
            return None
        from crmtui.agent.upstream_user_texts import evaluator_texts

        return evaluator_texts(self.upstream_dir).digest()

    @property
    def upstream_evaluator(self) -> bool:
        """Whether the extractor and judge send upstream HEAD's own requests (``--preset
        head``: the paper's code has neither)."""
        return self.resolved.preset in ("head", "upstream")

    def scoring_plan(self, client: Callable[[str], Any] | None = None, instance: Any = None) -> Any:
        """The :class:`~crmtui.scoring.evaluator.ScoringPlan` of these settings.

        Args:
            client: How to get a client for a scoring model (default: :meth:`client`; the
                batch passes its per-thread cache).
            instance: When given, a model client is built only for the extractor or judge
                this instance needs (a CRMArena row never builds the judge's).
        """
        from crmtui.agent.presets import EXTRACTING, RULES_JUDGE
        from crmtui.scoring.evaluator import ScoringPlan

        resolved = self.resolved
        plan = ScoringPlan(resolved.scoring, resolved.list_scoring)
        make_client = client or self.client
        metric = getattr(instance, "reward_metric", None)
        extractor = judge = None
        wants_extractor = instance is None or (
            metric == "exact_match" and plan.method_for(instance.answer) in EXTRACTING
        )
        texts = None
        if self.upstream_evaluator and (
            (resolved.extract_model is not None and wants_extractor)
            or (
                resolved.judge != RULES_JUDGE
                and (instance is None or metric == "privacy_rejection")
            )
        ):
            from crmtui.agent.upstream_user_texts import evaluator_texts

            texts = evaluator_texts(self.upstream_dir)
        if resolved.extract_model is not None and wants_extractor:
            if texts is not None:
                from crmtui.agent.upstream_evaluator import UpstreamExtractor

                extractor = UpstreamExtractor(make_client(resolved.extract_model), texts)
            else:
                from crmtui.agent.extract import LLMExtractor

                extractor = LLMExtractor(make_client(resolved.extract_model))
        wants_judge = instance is None or metric == "privacy_rejection"
        if resolved.judge != RULES_JUDGE and wants_judge:
            if texts is not None:
                from crmtui.agent.upstream_evaluator import UpstreamJudge

                judge = UpstreamJudge(make_client(resolved.judge), texts)
            else:
                from crmtui.agent.judge import LLMJudge

                judge = LLMJudge(make_client(resolved.judge))
        return ScoringPlan(resolved.scoring, resolved.list_scoring, extractor, judge)

    def scorer(
        self, instance: Any, client: Callable[[str], Any] | None = None
    ) -> Callable[..., Any]:
        """The scorer for ``instance`` under the resolved scoring plan.

        Args:
            instance: The instance being solved.
            client: How to get a client for the extraction or judge model (default:
                :meth:`client`; the batch passes its per-thread cache).
        """
        from crmtui.agent.session import make_scorer

        return make_scorer(instance, plan=self.scoring_plan(client, instance))
