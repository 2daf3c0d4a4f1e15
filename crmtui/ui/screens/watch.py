"""The Watch screen: the play layout with a model in the seat.

The agent runs in a thread worker (:meth:`WatchScreen._run_agent`); it only posts messages
(:class:`AgentStreamed`, :class:`AgentStepped`, :class:`AgentQueried`, :class:`AgentFinished`,
:class:`AgentFailed`) which the screen turns into widget updates. The controls talk to a
:class:`~crmtui.agent.gate.StepGate` the runner consults before each step.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer

from crmtui.agent.gate import SPEEDS, StepGate
from crmtui.agent.runner import AgentResult, EpisodeOptions, StepInfo
from crmtui.agent.session import HARNESS_ERROR, AgentSession
from crmtui.agent.watch_config import WatchConfig
from crmtui.errors import CrmtuiError
from crmtui.scoring.rules import metric_label
from crmtui.secrets import scrub
from crmtui.ui.widgets.answer_box import AnswerBox
from crmtui.ui.widgets.chat import ChatPanel
from crmtui.ui.widgets.console import QueryConsole
from crmtui.ui.widgets.panels import MetadataPanel, QueryPanel, StatusBar
from crmtui.ui.widgets.transcript import Transcript


class AgentStreamed(Message):
    """A piece of reply text arrived."""

    def __init__(self, text: str) -> None:
        self.text = text
        super().__init__()


class AgentStepped(Message):
    """The agent finished a step (model call + action)."""

    def __init__(self, step: StepInfo) -> None:
        self.step = step
        super().__init__()


class AgentQueried(Message):
    """The agent ran a query; ``result`` is the ``QueryResult`` (None when it failed)."""

    def __init__(self, text: str, result: Any, observation: Any) -> None:
        self.text, self.result, self.observation = text, result, observation
        super().__init__()


class AgentFinished(Message):
    """The episode ended (the recording is closed)."""

    def __init__(self, result: AgentResult) -> None:
        self.result = result
        super().__init__()


class DialogueSaid(Message):
    """A message of the conversation (the multi-turn mode) was recorded."""

    def __init__(self, role: str, text: str) -> None:
        self.role, self.text = role, text
        super().__init__()


class AgentFailed(Message):
    """The agent could not start (bad settings)."""

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__()


class WatchScreen(Screen[None]):
    """Watch a model solve one instance, with pause, single-step, stop and speed controls."""

    CSS_PATH = "watch.tcss"
    BINDINGS = [
        Binding("f7", "toggle_pause", "Pause/Resume"),
        Binding("f8", "single_step", "Step"),
        Binding("f9", "stop_or_next", "Stop/Next"),
        Binding("f10", "slower", "Slower"),
        Binding("f11", "faster", "Faster"),
        Binding("space", "toggle_pause", "Pause/Resume", show=False),
        Binding("p", "toggle_pause", "Pause/Resume", show=False),
        Binding("s", "single_step", "Step", show=False),
        Binding("x", "stop_agent", "Stop", show=False),
        Binding("minus", "slower", "Slower", show=False),
        Binding("plus", "faster", "Faster", show=False),
        Binding("n", "next_instance", "Next", show=False),
    ]

    def __init__(
        self,
        session: AgentSession,
        config: WatchConfig,
        org: Any,
        gate: StepGate,
        *,
        next_instance: Callable[[], None] | None = None,
        user: Any = None,
    ) -> None:
        super().__init__()
        self.session = session
        #: The simulated user of a dialogue (``--interactive``); None: single-turn.
        self.user = user
        self.config = config
        self.org = org
        self.gate = gate
        self.result: AgentResult | None = None
        self._next_instance = next_instance
        self._started = time.monotonic()
        self._state = "PAUSED" if gate.paused else "RUNNING"
        # What the screen scrubs besides secret environment values and key-shaped tokens.
        self._secrets = tuple(str(v) for v in [dict(config.client_options).get("api_key")] if v)

    # -- layout ----------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        inst = self.session.instance
        label = (
            f"idx {inst.idx} · {inst.task} · model: {self.config.model} ({self.config.strategy})"
        )
        yield StatusBar(label, id="status-bar")
        with Horizontal(id="watch-body"):
            yield MetadataPanel(id="metadata-panel")
            with Vertical(id="watch-main"):
                yield QueryPanel(id="query-panel")
                if self.user is not None:
                    yield ChatPanel("watch", title="Conversation", id="chat-panel")
                with Horizontal(id="watch-work"):
                    yield Transcript(id="transcript")
                    yield QueryConsole(self.org, self.config.today(inst), id="query-console")
                yield AnswerBox(id="answer-box")
        yield Footer()

    def on_mount(self) -> None:
        inst = self.session.instance
        date = self.config.today(inst)
        today = date.isoformat() if date else None
        self.query_one(MetadataPanel).show(
            inst.metadata.required,
            inst.metadata.optional,
            today,
            self.org.schema,
            self.config.aided,
        )
        self.query_one(QueryPanel).show(inst.query, inst.persona)
        transcript = self.query_one(Transcript)
        transcript.add_note(f"Recording to {self.session.path}")
        if self.gate.paused:
            transcript.add_note("Paused before the first step: F8/s steps, F7/space runs.")
        self.set_interval(1.0, self._tick)
        self._tick()
        transcript.focus()
        self._run_agent()

    def on_resize(self, event: events.Resize) -> None:
        self.set_class(self.size.width < 150, "narrow")

    def _tick(self) -> None:
        bar = self.query_one(StatusBar)
        if self.result is None:
            bar.active_seconds = time.monotonic() - self._started
        speed = f"delay {self.gate.delay:g} s" if self.gate.delay else "full speed"
        steps = self.query_one(Transcript).steps
        bar.state = f"{self._state} · step {steps} · {speed}"

    # -- the agent (worker thread) ---------------------------------------------------------

    @work(thread=True, exclusive=True, group="agent")
    def _run_agent(self) -> None:
        inst = self.session.instance
        try:
            client = self.config.client()
            base = self.config.executor(self.org, self.config.today(inst))
            schema_text = self.session.strategy.schema_text(self.org.schema)
        except CrmtuiError as exc:
            self.session.end_now("runner", HARNESS_ERROR, str(exc))
            self.post_message(AgentFailed(str(exc)))
            return

        def execute(text: str) -> Any:
            observation = base(text)
            self.post_message(AgentQueried(text, self._result_table(text), observation))
            return observation

        # upstream's helper tools (--observations naacl|head) reach its connector through it
        execute.connector = getattr(base, "connector", None)  # type: ignore[attr-defined]

        result = self.session.run(
            client,
            execute,
            EpisodeOptions(
                schema_text=schema_text,
                max_turns=self.config.max_turns,
                time_limit_s=self.config.time_limit_s,
                aided=self.config.aided,
                on_step=lambda step: self.post_message(AgentStepped(step)),
                should_stop=self.gate.should_stop,
                on_delta=(lambda piece: self.post_message(AgentStreamed(piece)))
                if self.config.stream
                else None,
                cancel=self.gate.cancelled,
                observation_cap=self.config.resolved.observation_chars,
            ),
            user=self.user,
            max_user_turns=self.config.dialogue.max_user_turns,
            on_message=lambda role, text: self.post_message(DialogueSaid(role, text)),
        )
        self.post_message(AgentFinished(result))

    def on_dialogue_said(self, event: DialogueSaid) -> None:
        chat = self.query_one(ChatPanel)
        chat.add_message(event.role, event.text)
        if event.role == "agent":
            self.query_one(AnswerBox).set_text(event.text)

    def _result_table(self, text: str) -> Any:
        """The full result for the console table (the observation is only its text)."""
        from crmtui import query

        try:
            return query.run(self.org, text, today=self.config.today(self.session.instance))
        except Exception:  # noqa: BLE001 - the table is a view; the agent saw the observation
            return None

    # -- messages from the worker ----------------------------------------------------------

    def _shown(self, text: str) -> str:
        """``text`` as watch may draw it: the one secret scrubber, as the recording has it.

        A model that echoes its API key would otherwise show it on screen (the recording and
        the results are scrubbed; the screen must be too).
        """
        return scrub(text, self._secrets)

    def on_agent_streamed(self, event: AgentStreamed) -> None:
        self.query_one(Transcript).stream(event.text)

    def on_agent_stepped(self, event: AgentStepped) -> None:
        step = event.step
        reply, action = step.reply, step.action
        if reply.stream_fallback:
            self.query_one(Transcript).add_note(
                "The server answered a streamed request with nothing; the repeat without "
                "streaming worked, so streaming is off for the rest of this session."
            )
        shown = self._shown
        self.query_one(Transcript).add_step(
            step.index,
            kind=action.kind,
            content=shown(action.content),
            thought=None if action.thought is None else shown(action.thought),
            result=None if step.result is None else shown(step.result),
            tokens=(reply.prompt_tokens, reply.completion_tokens),
            cost=reply.cost,
            latency_ms=reply.latency_ms,
        )
        if action.kind == "respond":
            self.query_one(AnswerBox).set_text(shown(action.content))
        if self.gate.paused and not step.done:
            self._state = "PAUSED"
        self._tick()

    def on_agent_queried(self, event: AgentQueried) -> None:
        console = self.query_one(QueryConsole)
        console.set_text(self._shown(event.text))
        if event.result is not None:
            console.show_result(event.result)
            console.set_status(f"{event.result.total_size:,} rows (agent's query)")
            return
        console.clear_results()
        error = getattr(event.observation, "error", None)
        code = getattr(event.observation, "error_code", None)
        if error:
            console.set_status(
                self._shown(error if code and error.startswith(code) else f"{code}: {error}"),
                error=True,
            )

    def on_agent_finished(self, event: AgentFinished) -> None:
        result = self.result = event.result
        reason = result.end_reason
        note = f"Ended: {reason.get('message')} ({reason.get('source')})"
        if reason.get("content") and reason.get("message") != "Submit action":
            note += f": {self._shown(str(reason['content']))}"
        self.query_one(Transcript).add_note(note, style="bold")
        if self.user is not None:
            self.query_one(ChatPanel).close(f"Ended: {reason.get('message')}")
        reward = result.reward if isinstance(result.reward, int | float) else 0.0
        method = result.scoring or str(reason.get("message", "no answer"))
        if result.scoring:
            method = metric_label(self.session.instance.reward_metric, result.scoring)
        self.query_one(AnswerBox).show_result(float(reward), result.gt_answer, method)
        self._state = "DONE"
        self._tick()

    def on_agent_failed(self, event: AgentFailed) -> None:
        message = self._shown(event.message)
        self.query_one(Transcript).add_note(f"Cannot start the agent: {message}", "bold red")
        self.notify(message, severity="error", title="Cannot start the agent")
        self._state = "FAILED"
        self._tick()

    # -- what the human may still do -------------------------------------------------------

    def on_answer_box_submit_requested(self, event: AnswerBox.SubmitRequested) -> None:
        event.stop()
        self.notify("The agent answers here; watch mode takes no answer from you.")

    def on_answer_box_edited(self, event: AnswerBox.Edited) -> None:
        event.stop()  # the agent's answer is recorded by the runner, not from the box

    def on_query_console_query_ran(self, event: QueryConsole.QueryRan) -> None:
        event.stop()  # queries typed by the watcher are not part of the agent's recording

    # -- controls --------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        """Whether the episode is still going."""
        return self.result is None and self._state != "FAILED"

    def action_toggle_pause(self) -> None:
        """Pause after the current step, or run on."""
        if not self.running:
            return
        paused = self.gate.toggle()
        self._state = (
            "PAUSING" if paused and not self.gate.waiting else ("PAUSED" if paused else "RUNNING")
        )
        note = "Pausing after the current step." if paused else "Running."
        self.query_one(Transcript).add_note(note)
        self._tick()

    def action_single_step(self) -> None:
        """Run exactly one more step, then pause."""
        if not self.running:
            return
        self.gate.step()
        self._state = "STEP"
        self._tick()

    def action_stop_agent(self) -> None:
        """End the episode before its next step (recorded as Stopped)."""
        if not self.running:
            return
        self.gate.stop()
        self._state = "STOPPING"
        self.query_one(Transcript).add_note("Stopping after the current step.")
        self._tick()

    def _set_speed(self, offset: int) -> None:
        current = min(range(len(SPEEDS)), key=lambda i: abs(SPEEDS[i] - self.gate.delay))
        self.gate.delay = SPEEDS[max(0, min(len(SPEEDS) - 1, current + offset))]
        self._tick()

    def action_slower(self) -> None:
        """A longer delay between steps."""
        self._set_speed(+1)

    def action_faster(self) -> None:
        """A shorter delay between steps."""
        self._set_speed(-1)

    def action_stop_or_next(self) -> None:
        """Stop while running; once ended, the next instance (as F9 in play)."""
        if self.running:
            self.action_stop_agent()
        else:
            self.action_next_instance()

    def action_next_instance(self) -> None:
        """Watch the next instance once this one has ended."""
        if self.running:
            self.notify("Still running: stop it first (F9 or x)")
            return
        if self._next_instance is not None:
            self._next_instance()
