"""The static regions of the play layout: system metadata, the query, and the status bar."""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.text import Text
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.reactive import reactive
from textual.widgets import Static

from crmtui.data.schema import Schema
from crmtui.play.cells import ValueRef, context_ids
from crmtui.ui.widgets.cell_table import READ_COPY_COMPUTE, CellTable
from crmtui.ui.widgets.guide import guide_renderable


def schema_text(schema: Schema) -> Text:
    """The schema as rich text: objects, their fields with types and descriptions."""
    text = Text()
    for obj in schema:
        text.append(obj.name, style="bold underline")
        if obj.description:
            text.append(" — ")
            text.append(obj.description, style="dim italic")
        text.append("\n")
        for f in obj.fields:
            text.append(f"  {f.name}", style="bold")
            kind = f"→ {f.reference_to}" if f.reference_to else f.type
            text.append(f" ({kind})", style="cyan")
            if f.description:
                text.append(f" {f.description}", style="dim")
            text.append("\n")
        text.append("\n")
    return text


class _CopiesTaskIds:
    """``y`` copies the record Ids the task names: the context's (the case, contact ... to work
    on), then the query's (the product of a trend question); each ``y`` copies the next one."""

    #: The Ids, in order; ``_next_id`` is the one ``y`` copies next.
    task_ids: list[str]
    _next_id: int

    def name_ids(self, *texts: str) -> None:
        """The Ids ``texts`` name, in order, each once."""
        self.task_ids = list(dict.fromkeys(i for text in texts for i in context_ids(text)))
        self._next_id = 0

    def action_copy_context_id(self: Any) -> None:
        """Copy the task's (next) Id, like ``y`` on a table cell."""
        if not self.task_ids:
            self.notify("The task names no record Id", severity="warning")
            return
        record_id = self.task_ids[self._next_id % len(self.task_ids)]
        self._next_id += 1
        self.post_message(CellTable.CopyWanted(ValueRef("context"), record_id, "value"))


class MetadataPanel(_CopiesTaskIds, VerticalScroll):
    """System metadata: task context, today's date, optional domain details and the schema.

    In the compact layout's Task tab it shows the query first, whole (the query region
    above the tabs has two lines there). ``y`` copies the Ids the task names.
    """

    HELP_GROUP = READ_COPY_COMPUTE
    BINDINGS = [
        Binding("y", "copy_context_id", "Copy Id", tooltip="in the task context: the Id it names")
    ]

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.border_title = "System metadata"
        self.name_ids()

    def compose(self) -> Any:
        yield Static(id="metadata-text")

    def show(
        self,
        required: str,
        optional: str | None,
        today: str | None,
        schema: Schema,
        aided: bool,
        *,
        query: str = "",
        with_query: bool = False,
        persona: str | None = None,
        audience: str | None = None,
        answer_format: str | None = None,
    ) -> None:
        """Render the context for one instance (after the query and persona, ``with_query``).

        Every text keeps its lines (:func:`~crmtui.ui.widgets.guide.guide_renderable`): a
        guide's indented lists stay lists, as ``crmtui tasks show`` prints them.
        """
        self.name_ids(required, query)
        parts: list[Any] = []
        if with_query:
            parts += [Text("Query", style="bold reverse"), guide_renderable(query)]
            if persona:
                parts.append(persona_text(persona))
            if audience:
                parts.append(Text(audience, style="italic"))
            parts.append(Text(""))
        parts.append(Text("Task context", style="bold reverse"))
        if audience and not with_query:  # a dialogue's agent: no query region to say it
            parts.append(Text(audience, style="italic"))
        parts.append(guide_renderable(required))
        if answer_format:
            parts.append(Text.assemble(("How to answer: ", "bold"), answer_format))
        if today and "today's date" not in (required or "").lower():
            parts.append(Text(f"Today's date: {today}", style="bold yellow"))
        if aided and optional:
            parts += [
                Text("\nDomain details (aided mode)", style="bold reverse"),
                guide_renderable(optional),
            ]
        parts += [Text("\nSchema", style="bold reverse"), schema_text(schema)]
        self.query_one("#metadata-text", Static).update(Group(*parts))


class QueryPanel(_CopiesTaskIds, VerticalScroll):
    """The instance's query, as the agent would receive it; ``y`` copies the Ids it names."""

    HELP_GROUP = READ_COPY_COMPUTE
    BINDINGS = [Binding("y", "copy_context_id", "Copy Id", tooltip="the Id the query names")]

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.border_title = "Query"
        self.name_ids()

    def compose(self) -> Any:
        yield Static(id="query-text")

    def show(self, query: str, persona: str | None = None, audience: str | None = None) -> None:
        """Render the query text, and under it the asker's persona (replay, watch) or who
        is asking as the model is told it (play: :func:`~crmtui.play.person_view.audience_line`)."""
        self.name_ids(query)
        shown: Any = guide_renderable(query)
        if persona:
            shown = Group(shown, persona_text(persona))
        if audience:
            shown = Group(shown, Text(audience, style="italic"))
        self.query_one("#query-text", Static).update(shown)

    def show_conversation(self, lines: list[tuple[str, str, str]], total: int) -> None:
        """Show a dialogue's messages so far as ``(role, speaker, text)`` (replay)."""
        self.border_title = f"Conversation ({len(lines)} of {total} messages)"
        text = Text()
        for role, speaker, said in lines:
            if text:
                text.append("\n")
            text.append(
                f"{speaker} ({role}): ", style="bold cyan" if role == "user" else "bold green"
            )
            text.append(said)
        self.query_one("#query-text", Static).update(text or Text("(no message yet)", style="dim"))
        self.call_after_refresh(self.scroll_end, animate=False)


def persona_text(persona: str) -> Text:
    """The line saying who asks (a CRMArena-Pro row's ``persona``)."""
    text = Text("Asked by: ", style="bold")
    text.append(persona, style="italic")
    return text


class StatusBar(Static):
    """One line: instance, actor, active time and state."""

    active_seconds: reactive[float] = reactive(0.0)
    state: reactive[str] = reactive("")

    def __init__(self, label: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.label = label

    def render(self) -> Text:
        from crmtui.play.timing import format_duration

        text = Text(self.label, style="bold")
        text.append(f"   active {format_duration(self.active_seconds)}", style="green")
        if self.state:
            text.append(f"   {self.state}", style="bold yellow")
        return text
