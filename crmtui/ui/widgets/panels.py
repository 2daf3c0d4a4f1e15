"""The static regions of the play layout: system metadata, the query, and the status bar."""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.markdown import Markdown
from rich.text import Text
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.reactive import reactive
from textual.widgets import Static

from crmtui.data.schema import Schema
from crmtui.play.cells import ValueRef, context_ids
from crmtui.ui.widgets.cell_table import READ_COPY_COMPUTE, CellTable


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


class MetadataPanel(VerticalScroll):
    """System metadata: task context, today's date, optional domain details and the schema.

    ``y`` copies the Id the task context names (the case, contact ... to work on); with
    several, each ``y`` copies the next one.
    """

    HELP_GROUP = READ_COPY_COMPUTE
    BINDINGS = [
        Binding("y", "copy_context_id", "Copy Id", tooltip="in the task context: the Id it names")
    ]

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.border_title = "System metadata"
        #: The Ids in the task context, in order; ``_next_id`` is the one ``y`` copies next.
        self.context_ids: list[str] = []
        self._next_id = 0

    def compose(self) -> Any:
        yield Static(id="metadata-text")

    def show(
        self,
        required: str,
        optional: str | None,
        today: str | None,
        schema: Schema,
        aided: bool,
    ) -> None:
        """Render the context for one instance."""
        self.context_ids = context_ids(required)
        self._next_id = 0
        parts: list[Any] = [Text("Task context", style="bold reverse"), Markdown(required or "-")]
        if today and "today's date" not in (required or "").lower():
            parts.append(Text(f"Today's date: {today}", style="bold yellow"))
        if aided and optional:
            parts += [
                Text("\nDomain details (aided mode)", style="bold reverse"),
                Markdown(optional),
            ]
        parts += [Text("\nSchema", style="bold reverse"), schema_text(schema)]
        self.query_one("#metadata-text", Static).update(Group(*parts))

    def action_copy_context_id(self) -> None:
        """Copy the task context's (next) Id, like ``y`` on a table cell."""
        if not self.context_ids:
            self.notify("The task context names no record Id", severity="warning")
            return
        record_id = self.context_ids[self._next_id % len(self.context_ids)]
        self._next_id += 1
        ref = ValueRef("context")
        self.post_message(CellTable.CopyWanted(ref, record_id, "value"))


class QueryPanel(VerticalScroll):
    """The instance's query, as the agent would receive it."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.border_title = "Query"

    def compose(self) -> Any:
        yield Static(id="query-text")

    def show(self, query: str) -> None:
        """Render the query text."""
        self.query_one("#query-text", Static).update(Markdown(query))


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
