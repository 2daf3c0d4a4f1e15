"""The instance picker: filter by task type, see what this annotator already did, pick one."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from rich.cells import cell_len
from rich.markup import escape
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.screen import Screen
from textual.widget import AwaitMount, Widget
from textual.widgets import DataTable, Label, Select, Static

from crmtui.data.tasktypes import TASK_ORDER, person_task_label
from crmtui.play.policy import Gate, PickerPolicy
from crmtui.play.progress import InstanceStatus, tally
from crmtui.ui.widgets.content_table import ContentTable
from crmtui.ui.widgets.footer import KeyFooter

#: The query column of a person playing the agent of conversations (the query is the
#: user's hidden instruction: the user tells them what they want).
HIDDEN_QUERY = "(the user will tell you)"


def _excerpt(query: str, width: int = 110) -> str:
    """One line of the query; for routing instances (whose opening instruction is always the
    same) the given case's subject, which is what tells them apart."""
    for line in query.splitlines():
        if line.strip().lower().startswith("- case subject:"):
            query = "Route: " + line.split(":", 1)[1]
            break
    text = " ".join(query.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _mark(status: InstanceStatus, reward_metric: str) -> Text:
    """The done column: green when right, red when wrong, yellow when unfinished."""
    if status.reward is None:  # unfinished: no scoring to import (a cold start's picker)
        return Text(status.label, style="yellow")
    from crmtui.scoring.rules import is_right

    right = is_right(status.reward, reward_metric)
    style = "yellow" if right is None else ("green" if right else "red")
    return Text(status.label, style=style)


#: Deletes the printable ASCII characters (one cell each).
_ONE_CELL_ASCII = dict.fromkeys(range(0x20, 0x7F))


def cell_width(text: str) -> int:
    """``rich.cells.cell_len(text)``, measuring only what is not printable ASCII.

    Rich measures a text with any other character character by character, and the picker
    measures 90 query excerpts, most ending in "…" (a cold start's cost:
    docs/performance.md). Rich's measure is a sum over characters unless the text joins
    characters (a zero-width joiner or a variation selector), which is measured whole.
    """
    if "\u200d" in text or "\ufe0f" in text:
        return cell_len(text)
    rest = text.translate(_ONE_CELL_ASCII)
    return len(text) - len(rest) + (cell_len(rest) if rest else 0)


FILTER_PROMPT = "All task types"


class FilterFace(Widget):
    """What the task filter looks like before it is mounted: its prompt and its arrow."""

    def __init__(self, prompt: str, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.prompt = prompt

    def render(self) -> Text:
        width = self.content_size.width
        return Text(self.prompt.ljust(max(0, width - 2)) + " ▼", no_wrap=True, overflow="crop")


class PickerScreen(Screen[None]):
    """Lists the instances; Enter opens one, n opens the next unsolved one."""

    CSS_PATH = "picker.tcss"
    HELP_GROUP = "Instance picker"
    # Focused as it is composed, so the first frame draws the focused table (focusing it
    # on mount came a frame later: the whole table drawn twice).
    AUTO_FOCUS = "#picker-table"
    BINDINGS = [
        Binding(
            "enter", "open_highlighted", "Open", show=False, tooltip="the highlighted instance"
        ),
        Binding("n", "next_unsolved", "Next unsolved"),
        Binding("t", "focus_filter", "Task filter", tooltip="Enter opens it, ↑/↓ and Enter pick"),
        Binding("R", "app.open_report", "Report", tooltip="over your recordings"),
        Binding("f1,question_mark", "help", "Help"),
        Binding("q", "app.quit", "Quit"),
    ]

    class InstanceChosen(Message):
        """Open this instance (``next``: the next unsolved one, ``idx`` the first of them)."""

        def __init__(self, idx: int, next: bool = False) -> None:
            self.idx = idx
            self.next = next
            super().__init__()

    def __init__(
        self,
        tasks: Any,
        annotator: str,
        status: dict[int, InstanceStatus],
        *,
        policy: PickerPolicy | None = None,
    ) -> None:
        super().__init__()
        self.tasks = tasks
        self.annotator = annotator
        self.status = status
        self.policy = policy or PickerPolicy()
        self.task_filter: str | None = None
        #: Instances closed for now (a study's qualification), set by the app.
        self.gate: Gate | None = None

    def compose(self) -> ComposeResult:
        with Horizontal(id="picker-top"):
            # The title names models and people as given: text, not markup.
            title = f" · {escape(self.policy.title)}" if self.policy.title else ""
            yield Label(f"Annotator: [b]{self.annotator}[/b]{title}  ", id="picker-annotator")
            # The task filter's face; the Select itself (five widgets, four stylesheets
            # parsed on first use: ~25 ms of a cold start) replaces it after the first frame.
            yield FilterFace(FILTER_PROMPT, id="picker-filter-face")
            yield Label("", id="picker-summary")
        yield Static("", id="picker-gate")
        yield ContentTable(id="picker-table", cursor_type="row", zebra_stripes=True)
        yield KeyFooter()

    def on_resize(self, event: Any) -> None:
        # Below 130 columns the task filter narrows so the right/wrong/unfinished counts fit.
        self.set_class(self.size.width < 130, "narrow")

    def on_mount(self) -> None:
        self.refresh_rows()
        self.query_one("#picker-table").focus()
        self.call_after_refresh(self._mount_filter)

    def _mount_filter(self) -> AwaitMount | None:
        """Put the task filter in place of its face (see :meth:`compose`), unless it is
        there already; what to await for it to be mounted (None: it was there)."""
        if self.query("#picker-filter"):
            return None
        codes = [c for c in TASK_ORDER if c in set(self.tasks.task_codes)]
        codes += [c for c in self.tasks.task_codes if c not in codes]
        # A person's labels: the customer-facing types share one (docs/parity.md).
        labels = list(dict.fromkeys(person_task_label(c) for c in codes))
        face = self.query_one("#picker-filter-face", FilterFace)
        select: Select[str] = Select(
            [(f"{abbr} · {code}", code) for abbr, code in labels],
            prompt=FILTER_PROMPT,
            id="picker-filter",
        )
        mounting = face.parent.mount(select, before=face)  # type: ignore[union-attr]
        face.remove()
        return mounting

    def set_gate(self, gate: Gate | None) -> None:
        """Show which instances are closed, and why (None: none)."""
        if gate == self.gate:
            return  # free play asks before every instance: no table rebuild for nothing
        self.gate = gate
        if self.is_mounted:
            self.refresh_rows()

    def set_status(self, status: dict[int, InstanceStatus]) -> None:
        """Replace every done-marker."""
        self.status = status
        self.refresh_rows()

    def mark(self, status: InstanceStatus) -> None:
        """Update one instance's done-marker (a session on it just ended)."""
        self.status[status.idx] = status
        self.refresh_rows()

    def visible(self) -> list[Any]:
        """Instances shown under the current filter."""
        if self.policy.order is None:
            listed = list(self.tasks)
        else:
            listed = [self.tasks.get(idx) for idx in self.policy.order if idx in self.tasks]
        if self.task_filter is None:
            return listed
        return [i for i in listed if person_task_label(i.task)[1] == self.task_filter]

    def refresh_rows(self) -> None:
        """Rebuild the table."""
        table = self.query_one("#picker-table", DataTable)
        # The cursor follows the instance, never the row number: after the filter changes,
        # the same instance stays highlighted (or the first match, when it is filtered out).
        highlighted = self.highlighted_idx()
        table.clear(columns=True)
        rows = self.visible()
        locked = self.gate.locked if self.gate else frozenset()
        cells: list[tuple[str, str, Text | str, str]] = []
        for inst in rows:
            status = self.status.get(inst.idx)
            mark: Text | str = ""
            if inst.idx in locked and status is None:
                mark = Text("locked", style="dim")
            elif status and not self.policy.reveals(inst.idx):
                # Blind: done or not, never how well.
                mark = "done" if status.done else ""
            elif status:
                mark = _mark(status, inst.reward_metric)
            # A str cell is shown as written, never read as markup: the query's "[b]" stays
            # (crmtui/ui/terminal.py makes every table's str cells plain text).
            query = HIDDEN_QUERY if self.policy.hide_queries else _excerpt(inst.query)
            cells.append((str(inst.idx), person_task_label(inst.task)[0], mark, query))
        # Widths known up front: DataTable would otherwise draw the first frame at the
        # labels' widths and measure every cell on its idle, then draw every row again.
        for n, label in enumerate(("idx", "type", "done", "query")):
            width = max([cell_len(label)] + [cell_width(str(row[n])) for row in cells])
            # A Text label: a str is read as markup, and rich's markup loads its emoji table
            # (~3 ms of a cold start) to look for ":name:" codes.
            table.add_column(Text(label), key=label, width=width)
        for row in cells:
            table.add_row(*row, key=row[0])
        if rows:
            keys = [str(inst.idx) for inst in rows]
            row = keys.index(str(highlighted)) if str(highlighted) in keys else 0
            table.move_cursor(row=row)
        summary = tally(
            rows, self.status, hidden=self.policy.hidden, scored=not self.policy.unscored
        )
        self.query_one("#picker-summary", Label).update(f"  {summary}")
        banner = self.query_one("#picker-gate", Static)
        banner.update(self.gate.message if self.gate else "")
        banner.set_class(self.gate is not None, "-shown")
        banner.set_class(self.gate is not None and self.gate.final, "-final")

    def highlighted_idx(self) -> int | None:
        """The idx of the highlighted instance (None: the table is empty)."""
        table = self.query_one("#picker-table", DataTable)
        if not table.row_count or not 0 <= table.cursor_row < table.row_count:
            return None
        key = table.coordinate_to_cell_key((table.cursor_row, 0)).row_key.value
        return None if key is None else int(key)

    def on_select_changed(self, event: Select.Changed) -> None:
        # "All task types" (the prompt) is Select.NULL in Textual 8; Select.BLANK is a
        # Widget flag (False), so testing it read the prompt as a task named "Select.NULL".
        self.task_filter = None if event.value is Select.NULL else str(event.value)
        self.refresh_rows()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if event.row_key.value is not None:
            self.post_message(self.InstanceChosen(int(event.row_key.value)))

    def next_unsolved(self, skip: Collection[int] = ()) -> int | None:
        """The first visible, open instance without a submission (and not in ``skip``)."""
        locked = self.gate.locked if self.gate else frozenset()
        for inst in self.visible():
            status = self.status.get(inst.idx)
            if inst.idx in skip or inst.idx in locked:
                continue
            if status is None or not status.done:
                return int(inst.idx)
        return None

    def nothing_left(self) -> tuple[str, bool]:
        """What to say when :meth:`next_unsolved` finds nothing: the gate's message while
        it keeps unanswered instances locked, else that all are answered; and whether
        it is a warning."""
        locked = self.gate.locked if self.gate else frozenset()
        waiting = [
            inst.idx
            for inst in self.visible()
            if inst.idx in locked and not getattr(self.status.get(inst.idx), "done", False)
        ]
        if self.gate is not None and waiting:
            return self.gate.message, True
        return "Every instance in this list has been answered.", False

    def action_next_unsolved(self) -> None:
        idx = self.next_unsolved()
        if idx is None:
            message, warning = self.nothing_left()
            self.notify(message, severity="warning" if warning else "information",
                        timeout=15 if warning else 5)  # fmt: skip
        else:
            self.post_message(self.InstanceChosen(idx, next=True))

    def action_open_highlighted(self) -> None:
        table = self.query_one("#picker-table", DataTable)
        rows = self.visible()
        if rows and 0 <= table.cursor_row < len(rows):
            self.post_message(self.InstanceChosen(int(rows[table.cursor_row].idx)))

    async def action_focus_filter(self) -> None:
        # A `t` typed with the first frame comes before the filter replaced its face:
        # it is put in place now, then focused (keys after `t` wait for this action).
        mounting = self._mount_filter()
        if mounting is not None:
            await mounting
        self.query_one("#picker-filter").focus()

    def action_help(self) -> None:
        from crmtui.ui.keys import key_commands
        from crmtui.ui.screens.dialogs import HelpScreen

        self.app.push_screen(HelpScreen(key_commands(self), "Keys of the instance picker"))
