"""One record: every field, links that Enter follows, and related lists of child records.

Multi-line values (a chat transcript's Body, an email's TextBody) keep their line breaks
and wrap to the panel's width; related lists show the columns that identify each child
record (:mod:`crmtui.play.related`). ``v`` (or Enter on a field that is not a link) opens a
value whole in the viewer; ``y`` copies it, ``Y`` copies the whole record or related row.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.message import Message
from textual.widgets import DataTable

from crmtui.play.browser import RecordDetail, RelatedList
from crmtui.play.cells import ValueRef, value_text
from crmtui.ui.widgets.cell_table import CellTable

FIELD_WIDTH = 24
#: A value longer than this shows its beginning here; the viewer shows it all.
INLINE_LIMIT = 6000
RELATED_CELL_LIMIT = 40
#: Related-list text columns shrink to fit the panel, but not below a date's width.
MIN_CELL = 16


def _compact(value: Any) -> str:
    """A related-list cell: one line, datetimes to the minute."""
    text = " ".join(value_text(value).split())
    if len(text) == 28 and text[10:11] == "T" and text.endswith("+0000"):
        text = f"{text[:10]} {text[11:16]}"
    return text


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"


def _line_width(widths: list[int]) -> int:
    return sum(widths) + 2 * max(0, len(widths) - 1)


def _fit(widths: list[int], room: int) -> list[int]:
    """Column widths that fit ``room``: the columns that fit at their least width (long
    text shrinks to 16, a date's width; shorter columns never shrink) are kept, the last ones
    left out, and the room the kept ones have is shared out again, long text shrinking only
    as much as it must. The first column always stays. So a task's Subject is never cut to
    16 characters to make room for a column that is then left out."""
    widths = [min(w, RELATED_CELL_LIMIT) for w in widths]
    least = [min(w, MIN_CELL) for w in widths]
    keep = len(widths)
    while keep > 1 and _line_width(least[:keep]) > room:
        keep -= 1
    widths = widths[:keep]
    while _line_width(widths) > room:
        long = [i for i, w in enumerate(widths) if w > MIN_CELL]
        if not long:
            break
        widths[max(long, key=lambda i: widths[i])] -= 1
    return widths


def _related_lines(rel: RelatedList, room: int) -> tuple[str, list[str]]:
    """The related list's column header and one aligned line per record, fitted to ``room``."""
    cells = [[_compact(v) for v in row] for row in rel.rows]
    natural = [
        max([len(name), *(len(row[i]) for row in cells)]) for i, name in enumerate(rel.columns)
    ]
    widths = _fit(natural, room)

    def line(values: list[str]) -> str:
        return "  ".join(_cut(v, w).ljust(w) for v, w in zip(values, widths, strict=False))

    return line(rel.columns).rstrip(), [line(row).rstrip() for row in cells]


def _related_record(rel: RelatedList, i: int) -> tuple[list[str], list[Any]]:
    """A related row's columns and values: the list's columns, then every other own field.

    ``v`` shows the child record whole and ``Y`` copies it whole, not only what the list
    has room for.
    """
    names = ["Id", *rel.columns]
    values = [rel.ids[i], *(rel.rows[i] if rel.rows else [])]
    if rel.records:
        shown = {n.lower() for n in names}
        for name, value in zip(rel.fields, rel.records[i], strict=True):
            if name.lower() not in shown:
                names.append(name)
                values.append(value)
    return names, values


class RecordPanel(CellTable):
    """Fields and related lists of one record as a two-column, row-cursor table."""

    cell_source = "record"

    class RelatedListWanted(Message):
        """Enter on a related list's heading or "… N more" row: every child record in a table.

        ``columns`` are the related list's columns, which the table shows first.
        """

        def __init__(
            self, child: str, field: str, parent_id: str, columns: tuple[str, ...] = ()
        ) -> None:
            self.child = child
            self.field = field
            self.parent_id = parent_id
            self.columns = columns
            super().__init__()

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
        # Per table row: the value under it and the row it belongs to (for v / y / Y).
        self._values: list[tuple[ValueRef, Any] | None] = []
        self._rows: list[tuple[ValueRef, list[str], list[Any]] | None] = []
        # Rows that stand for a whole related list ("… N more"), by row index.
        self._more: dict[int, RelatedList] = {}
        self._shown_width = 0
        # The record the table's rows show now: ``detail`` can be newer while the panel is
        # hidden (no size yet), and the cursor is kept only for a re-render of the same record.
        self._shown_id: str | None = None

    def _value_width(self) -> int:
        # Both columns carry one cell of padding on each side. Room for a scrollbar is always
        # left, so the width does not depend on whether one is showing yet.
        width = self.size.width - self.styles.scrollbar_size_vertical
        return max(20, width - FIELD_WIDTH - 4 * self.cell_padding)

    def show(self, detail: RecordDetail) -> None:
        """Render ``detail`` (once the panel has a size: values wrap to its width)."""
        same = self._shown_id == detail.record_id
        cursor = self.cursor_row if same and self.row_count else 0
        self.detail = detail
        if not self.size.width:
            self._shown_width = 0  # on_resize renders it
            return
        self._shown_id = detail.record_id
        self.clear(columns=True)
        value_width = self._value_width()
        self._shown_width = value_width
        self.add_column("Field", key="field", width=FIELD_WIDTH)
        self.add_column("Value", key="value", width=value_width)
        self._links, self._values, self._rows, self._more = [], [], [], {}
        record_ref = ValueRef("record", None, detail.object, detail.record_id)
        record_row = (record_ref, [f.name for f in detail.fields], [f.value for f in detail.fields])
        for f in detail.fields:
            self._add_field(detail, f, value_width)
            self._rows.append(record_row)
        for rel in detail.related:
            self._add_related(rel, value_width)
        if cursor and cursor < self.row_count:
            self.move_cursor(row=cursor, animate=False)

    def _add_field(self, detail: RecordDetail, f: Any, width: int) -> None:
        height: int | None = 1
        if f.value is None:
            value: Text | str = Text("—", style="dim")
        elif f.link:
            value = Text(f"{f.value}  → {f.link[0]}", style="underline")
        else:
            text = value_text(f.value)
            if len(text) > INLINE_LIMIT:
                more = f"\n… {len(text) - INLINE_LIMIT:,} more characters: v opens it whole"
                value = Text(text[:INLINE_LIMIT]) + Text(more, style="dim italic")
            else:
                value = Text(text)
            if "\n" in text or len(text) > width:
                height = None  # wrapped to the column's width, every line kept
        self.add_row(Text(f.name, style="bold"), value, height=height)
        self._links.append((f.name, f.link[0], f.link[1], False) if f.link else None)
        self._values.append((ValueRef("record", f.name, detail.object, detail.record_id), f.value))

    def _add_related(self, rel: RelatedList, width: int) -> None:
        header, lines = _related_lines(rel, width) if rel.columns else ("", [])
        heading = Text(f"{rel.name} ({rel.total})", style="bold reverse")
        self.add_row(heading, Text(header or f"related {rel.child} via {rel.field}", style="dim"))
        if rel.total:
            self._more[len(self._links)] = rel  # Enter: all of them in a table (View All)
        self._links.append(None)
        self._values.append(None)
        self._rows.append(None)
        for i, record_id in enumerate(rel.ids):
            label = lines[i] if lines else rel.labels[i]
            self.add_row(Text(f"  {record_id}", style="underline"), label)
            self._links.append((rel.name, rel.child, record_id, True))
            ref = ValueRef("related", "Id", rel.child, record_id)
            self._values.append((ref, record_id))
            self._rows.append(
                (ValueRef("related", None, rel.child, record_id), *_related_record(rel, i))
            )
        if rel.total > len(rel.ids):
            more = rel.total - len(rel.ids)
            self._more[len(self._links)] = rel
            self.add_row(
                Text(f"  … {more} more", style="dim underline"),
                Text(f"Enter: all {rel.total} in a {rel.child} table", style="dim"),
            )
            self._links.append(None)
            self._values.append(None)
            self._rows.append(None)

    def on_resize(self) -> None:
        if self.detail is not None and self._value_width() != self._shown_width:
            self.show(self.detail)

    # -- cells (CellTable) -----------------------------------------------------------------

    def value_at(self, row: int, column: int) -> tuple[ValueRef, Any] | None:
        """The field's value (or the related record's Id) on ``row``."""
        return self._values[row] if 0 <= row < len(self._values) else None

    def row_at(self, row: int) -> tuple[ValueRef, list[str], list[Any]] | None:
        """The whole record (on a field row) or the related record (on a related row)."""
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def action_view_cell(self) -> None:
        """A field opens whole; a related record opens with all its columns."""
        row = self.cursor_coordinate.row
        found = self.value_at(row, 0)
        if found is not None and found[0].source == "related":
            self.action_view_row()
        else:
            super().action_view_cell()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if event.cursor_row in self._more and self.detail is not None:
            rel = self._more[event.cursor_row]
            self.post_message(
                self.RelatedListWanted(
                    rel.child, rel.field, self.detail.record_id, tuple(rel.columns)
                )
            )
            return
        if 0 <= event.cursor_row < len(self._links):
            link = self._links[event.cursor_row]
            if link is not None:
                self.post_message(self.LinkFollowed(*link))
            elif self._values[event.cursor_row] is not None:
                self.action_view_cell()
