"""One record: every field, links that Enter follows, and related lists of child records."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.message import Message
from textual.widgets import DataTable

from crmtui.play.browser import RecordDetail
from crmtui.ui.widgets.content_table import ContentTable


class RecordPanel(ContentTable):
    """Fields and related lists of one record as a two-column, row-cursor table."""

    class LinkFollowed(Message):
        """Enter on a reference field or a related record."""

        def __init__(self, field: str, to_object: str, to_id: str, related: bool) -> None:
            self.field = field
            self.to_object = to_object
            self.to_id = to_id
            self.related = related
            super().__init__()

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(cursor_type="row", show_header=True, **kwargs)
        self.detail: RecordDetail | None = None
        self._links: list[tuple[str, str, str, bool] | None] = []

    def show(self, detail: RecordDetail) -> None:
        """Render ``detail``."""
        self.detail = detail
        self.clear(columns=True)
        self.add_column("Field", key="field", width=24)
        self.add_column("Value", key="value")
        self._links = []
        for f in detail.fields:
            if f.value is None:
                value: Text | str = Text("—", style="dim")
            elif f.link:
                value = Text(f"{f.value}  → {f.link[0]}", style="underline")
            else:
                value = Text(str(f.value))
            self.add_row(Text(f.name, style="bold"), value)
            self._links.append((f.name, f.link[0], f.link[1], False) if f.link else None)
        for rel in detail.related:
            heading = Text(f"{rel.name} ({rel.total})", style="bold reverse")
            self.add_row(heading, Text(f"related {rel.child} records via {rel.field}", style="dim"))
            self._links.append(None)
            for record_id, label in zip(rel.ids, rel.labels, strict=True):
                self.add_row(Text(f"  {record_id}", style="underline"), label)
                self._links.append((rel.name, rel.child, record_id, True))
            if rel.total > len(rel.ids):
                more = rel.total - len(rel.ids)
                self.add_row(
                    Text(f"  … {more} more", style="dim"),
                    Text(f"filter {rel.child} by {rel.field} to see all", style="dim"),
                )
                self._links.append(None)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if 0 <= event.cursor_row < len(self._links):
            link = self._links[event.cursor_row]
            if link is not None:
                self.post_message(self.LinkFollowed(*link))
