"""The record browser: objects, lazily paged tables, record views, back/forward history.

Every navigation is posted up as a :class:`RecordBrowser.Browsed` message carrying the
recorder event type, its payload and the equivalent SOQL/SOSL; the screen records it.
Loading runs in thread workers that only post messages back.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from typing import Any

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import ContentSwitcher, Label

from crmtui.errors import CrmtuiError
from crmtui.play import browser
from crmtui.play.history import History
from crmtui.play.views import (
    Condition,
    RecordView,
    TableView,
    View,
    describe,
    equivalent_query,
    table_columns,
)
from crmtui.ui.widgets.object_list import ObjectList
from crmtui.ui.widgets.record_panel import RecordPanel
from crmtui.ui.widgets.records_table import RecordsTable
from crmtui.ui.workers import WorkerCrashed

PAGE_SIZE = 200


class RecordBrowser(Vertical):
    """Browse the org: object list on the left, a table or a record on the right."""

    HELP_GROUP = "Record browser"
    BINDINGS = [
        Binding("o", "focus_objects", "Objects", tooltip="then type the start of a name"),
        Binding("slash", "search", "Search", tooltip="full-text, SOSL over the table"),
        Binding("f", "filter", "Filter", tooltip="by a field, the column under the cursor first"),
        Binding("x", "clear_filters", "Clear filter", tooltip="and search"),
        Binding(
            "C",
            "choose_columns",
            "Columns",
            tooltip="choose the table's columns, related records' fields too",
        ),
        Binding("left_square_bracket", "back", "Back"),
        Binding("right_square_bracket", "forward", "Forward"),
    ]

    class Browsed(Message):
        """A browse action happened: record it."""

        def __init__(self, event_type: str, payload: dict[str, Any]) -> None:
            self.event_type = event_type
            self.payload = payload
            super().__init__()

    class FilterWanted(Message):
        """The user wants to add a filter to the current table (the screen asks for it)."""

        def __init__(self, object_name: str, field: str | None) -> None:
            self.object_name = object_name
            self.field = field
            super().__init__()

    class ColumnsWanted(Message):
        """The user wants to choose the current table's columns (the screen asks for them)."""

        def __init__(self, object_name: str, columns: list[str]) -> None:
            self.object_name = object_name
            self.columns = columns
            super().__init__()

    class SearchWanted(Message):
        """The user wants to search the current object (the screen asks for the text)."""

        def __init__(self, object_name: str) -> None:
            self.object_name = object_name
            super().__init__()

    class _TableLoaded(Message):
        def __init__(self, view: TableView, total: int, page: browser.Page, first: bool) -> None:
            self.view, self.total, self.page, self.first = view, total, page, first
            super().__init__()

    class _RecordLoaded(Message):
        def __init__(self, view: RecordView, detail: browser.RecordDetail | None) -> None:
            self.view, self.detail = view, detail
            super().__init__()

    class _CountsLoaded(Message):
        def __init__(self, counts: list[tuple[str, int]]) -> None:
            self.counts = counts
            super().__init__()

    class _LoadFailed(Message):
        def __init__(self, error: str) -> None:
            self.error = error
            super().__init__()

    def __init__(self, org: Any, today: date | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.org = org
        self.today = today
        self.history = History()
        self.border_title = "Record browser"

    def compose(self) -> ComposeResult:
        with Horizontal(id="browser-body"):
            yield ObjectList(id="object-list")
            with Vertical(id="browser-main"):
                yield Label("Choose an object on the left (o).", id="browser-crumb")
                with ContentSwitcher(initial="records-table", id="browser-switcher"):
                    yield RecordsTable(id="records-table")
                    yield RecordPanel(id="record-panel")
                yield Label("", id="browser-status")

    def on_mount(self) -> None:
        self._load_counts()

    # -- public API (attributes down) --------------------------------------------------------

    @property
    def current(self) -> View | None:
        """The view on screen."""
        return self.history.current

    def show(self, view: View, *, record_history: bool = True) -> None:
        """Navigate to ``view`` (used by replay and tests as well as by key actions).

        A new step keeps the cursor's row in the view it leaves, for Back to return to.
        """
        if record_history:
            self._remember_cursor()
            self.history.visit(view)
        else:
            self.history.replace(view)
        self._render_view(view)

    def clear(self) -> None:
        """Show nothing (replay before the first browse action); history is forgotten."""
        self.history = History()
        self.query_one(RecordsTable).reset([], 0)
        self.query_one(RecordPanel).clear(columns=True)
        self.query_one(ContentSwitcher).current = "records-table"
        self.query_one("#browser-crumb", Label).update("Choose an object on the left (o).")
        self._set_status("")

    def open_record(self, object_name: str, record_id: str) -> None:
        """Open one record by Id (go to record), recorded as ``open_record``."""
        view = RecordView(object_name, record_id)
        self.show(view)
        self._emit(
            "open_record",
            object=view.object,
            id=view.record_id,
            query=equivalent_query(self.org.schema, view),
        )

    def apply_filter(self, condition: Condition) -> None:
        """Add ``condition`` to the current table view."""
        view = self.history.current
        if not isinstance(view, TableView):
            return
        new = replace(view, conditions=(*view.conditions, condition), cursor_row=0)
        if self._check(new):
            self.show(new)
            self._emit(
                "filter",
                object=new.object,
                field=condition.field,
                op=condition.op,
                value=condition.value,
                query=equivalent_query(self.org.schema, new),
            )

    def set_columns(self, columns: tuple[str, ...], *, same_step: bool = False) -> None:
        """Show ``columns`` in the current table (empty: the object's own fields).

        ``same_step``: the columns complete the view just opened (a related list's View
        All), so Back leaves the view in one press rather than stopping at it without them.
        """
        view = self.history.current
        if not isinstance(view, TableView):
            return
        new = replace(view, columns=tuple(columns), cursor_row=0)
        if self._check(new):
            self.show(new, record_history=not same_step)
            extra = {"same_step": True} if same_step else {}
            self._emit(
                "columns",
                object=new.object,
                columns=list(new.columns),
                query=equivalent_query(self.org.schema, new),
                **extra,
            )

    def apply_search(self, text: str) -> None:
        """Search the current object for ``text`` (SOSL over the org's full-text index)."""
        view = self.history.current
        if not isinstance(view, TableView) or not text.strip():
            return
        new = replace(view, search=text.strip(), cursor_row=0)
        if self._check(new):
            self.show(new)
            self._emit("search", text=text.strip(), query=equivalent_query(self.org.schema, new))

    # -- key actions -----------------------------------------------------------------------

    def action_focus_objects(self) -> None:
        self.query_one(ObjectList).arm()

    def action_search(self) -> None:
        view = self.history.current
        if isinstance(view, TableView):
            self.post_message(self.SearchWanted(view.object))
        else:
            self.notify("Open an object's table first (o)", severity="warning")

    def action_filter(self) -> None:
        view = self.history.current
        if not isinstance(view, TableView):
            self.notify("Open an object's table first (o)", severity="warning")
            return
        table = self.query_one(RecordsTable)
        field = None
        if table.columns_names:
            field = table.columns_names[min(table.cursor_column, len(table.columns_names) - 1)]
        self.post_message(self.FilterWanted(view.object, field))

    def action_choose_columns(self) -> None:
        view = self.history.current
        if not isinstance(view, TableView):
            self.notify("Open an object's table first (o)", severity="warning")
            return
        table = self.query_one(RecordsTable)
        self.post_message(self.ColumnsWanted(view.object, list(table.columns_names)))

    def action_clear_filters(self) -> None:
        view = self.history.current
        if isinstance(view, TableView) and (view.conditions or view.search):
            new = TableView(
                view.object,
                sort_field=view.sort_field,
                sort_desc=view.sort_desc,
                columns=view.columns,
            )
            self.show(new)
            self._emit(
                "filter",
                object=new.object,
                field="*",
                op="clear",
                value=None,
                query=equivalent_query(self.org.schema, new),
            )

    def action_back(self) -> None:
        self._remember_cursor()
        view = self.history.back()
        if view is None:
            self.notify("Nothing to go back to")
            return
        self._render_view(view)
        self._emit("back", query=equivalent_query(self.org.schema, view))

    def action_forward(self) -> None:
        self._remember_cursor()
        view = self.history.forward()
        if view is None:
            self.notify("Nothing to go forward to")
            return
        self._render_view(view)
        self._emit("forward", query=equivalent_query(self.org.schema, view))

    # -- messages from children ------------------------------------------------------------

    def on_object_list_object_chosen(self, event: ObjectList.ObjectChosen) -> None:
        event.stop()
        view = TableView(event.object_name)
        self.show(view)
        self._emit("open_object", object=view.object, query=equivalent_query(self.org.schema, view))
        self.query_one(RecordsTable).focus()

    def on_records_table_sort_requested(self, event: RecordsTable.SortRequested) -> None:
        event.stop()
        view = self.history.current
        if not isinstance(view, TableView):
            return
        desc = view.sort_field == event.column and not view.sort_desc
        new = replace(view, sort_field=event.column, sort_desc=desc, cursor_row=0)
        self.show(new)
        self._emit(
            "sort",
            object=new.object,
            field=event.column,
            descending=desc,
            query=equivalent_query(self.org.schema, new),
        )

    def on_records_table_more_rows_wanted(self, event: RecordsTable.MoreRowsWanted) -> None:
        event.stop()
        view = self.history.current
        if isinstance(view, TableView):
            table = self.query_one(RecordsTable)
            self._load_page(view, event.offset, table.next_cursor)

    def on_records_table_record_chosen(self, event: RecordsTable.RecordChosen) -> None:
        event.stop()
        current = self.history.current
        if not isinstance(current, TableView):
            return
        view = RecordView(current.object, event.record_id)
        self.show(view)
        self._emit(
            "open_record",
            object=view.object,
            id=view.record_id,
            query=equivalent_query(self.org.schema, view),
        )

    def on_record_panel_link_followed(self, event: RecordPanel.LinkFollowed) -> None:
        event.stop()
        current = self.history.current
        if not isinstance(current, RecordView):
            return
        view = RecordView(event.to_object, event.to_id)
        self.show(view)
        self._emit(
            "follow_link",
            from_object=current.object,
            from_id=current.record_id,
            field=event.field,
            to_object=view.object,
            to_id=view.record_id,
            query=equivalent_query(self.org.schema, view),
        )

    def on_record_panel_related_list_wanted(self, event: RecordPanel.RelatedListWanted) -> None:
        event.stop()
        condition = Condition(event.field, "=", event.parent_id)
        view = TableView(event.child, conditions=(condition,))
        if not self._check(view):
            return
        self.show(view)
        self._emit(
            "filter",
            object=view.object,
            field=condition.field,
            op=condition.op,
            value=condition.value,
            query=equivalent_query(self.org.schema, view),
        )
        if event.columns:
            # The related list's columns first, then every own field (Salesforce's View All).
            own = table_columns(self.org.schema.require(view.object))[1:]
            self.set_columns(tuple(dict.fromkeys([*event.columns, *own])), same_step=True)
        self.query_one(RecordsTable).focus()

    def on_record_browser__table_loaded(self, event: _TableLoaded) -> None:
        event.stop()
        if event.view != self._without_cursor(self.history.current):
            return  # a stale page for a view we already left
        table = self.query_one(RecordsTable)
        if event.first:
            table.reset(event.page.columns, event.total, event.view.object)
        table.append_page(event.page.ids, event.page.rows)
        table.next_cursor = event.page.cursor
        current = self.history.current
        if event.first and isinstance(current, TableView) and current.cursor_row:
            if current.cursor_row < len(table.ids):
                table.move_cursor(row=current.cursor_row)
            else:
                self._load_page(event.view, len(table.ids), table.next_cursor)
        status = f"{len(table.ids):,} of {table.total:,} rows loaded"
        if not table.total and isinstance(current, TableView) and current.search:
            # SOSL finds records holding every word: say so, an empty table alone does not.
            status += f" · no {current.object} holds every word of '{current.search}'"
            if len(current.search.split()) > 1:
                status += ": try fewer words"
        self._set_status(status)

    def on_record_browser__record_loaded(self, event: _RecordLoaded) -> None:
        event.stop()
        if event.view != self.history.current:
            return
        if event.detail is None:
            missing = f"No {event.view.object} record with Id {event.view.record_id}"
            self._set_status(missing)
            self.notify(missing, severity="warning", title="Record")
            return
        panel = self.query_one(RecordPanel)
        panel.show(event.detail)
        if event.view.cursor_row and event.view.cursor_row < panel.row_count:
            panel.move_cursor(row=event.view.cursor_row)  # back where Back left it
        self._set_status(f"{event.detail.label} · {len(event.detail.related)} related lists")

    def on_record_browser__counts_loaded(self, event: _CountsLoaded) -> None:
        event.stop()
        self.query_one(ObjectList).set_objects(event.counts)

    def on_worker_crashed(self, event: WorkerCrashed) -> None:
        # Already shown by the app's worker error handler; the status line says it too.
        if event.group.startswith("browse"):
            event.stop()
            self._set_status(str(event.error))

    def on_record_browser__load_failed(self, event: _LoadFailed) -> None:
        event.stop()
        self._set_status(event.error)
        self.notify(event.error, severity="error", title="Browse error")

    # -- internals -------------------------------------------------------------------------

    def _emit(self, event_type: str, **payload: Any) -> None:
        self.post_message(self.Browsed(event_type, payload))

    def _check(self, view: View) -> bool:
        try:
            equivalent_query(self.org.schema, view)
        except CrmtuiError as exc:
            self.notify(str(exc), severity="error", title="Filter")
            return False
        return True

    def _set_status(self, text: str) -> None:
        self.query_one("#browser-status", Label).update(text)

    @staticmethod
    def _without_cursor(view: View | None) -> View | None:
        return replace(view, cursor_row=0) if isinstance(view, TableView) else view

    def _remember_cursor(self) -> None:
        """Keep the cursor's row in the current view, for Back to return to."""
        view = self.history.current
        if isinstance(view, TableView):
            self.history.replace(view.with_cursor(self.query_one(RecordsTable).cursor_row))
        elif isinstance(view, RecordView):
            self.history.replace(view.with_cursor(self.query_one(RecordPanel).cursor_row))

    def _render_view(self, view: View) -> None:
        self.query_one("#browser-crumb", Label).update(describe(view))
        switcher = self.query_one(ContentSwitcher)
        if isinstance(view, TableView):
            switcher.current = "records-table"
            self._set_status("Loading…")
            self._load_table(self._without_cursor(view))  # type: ignore[arg-type]
        else:
            switcher.current = "record-panel"
            self._set_status("Loading…")
            self._load_record(view)

    @work(thread=True, exclusive=True, group="browse-counts")
    def _load_counts(self) -> None:
        try:
            self.post_message(self._CountsLoaded(browser.object_counts(self.org)))
        except CrmtuiError as exc:
            self.post_message(self._LoadFailed(str(exc)))

    @work(thread=True, exclusive=True, group="browse")
    def _load_table(self, view: TableView) -> None:
        try:
            total = browser.count_rows(self.org, view, self.today)
            page = browser.fetch_page(self.org, view, 0, PAGE_SIZE, self.today)
            self.post_message(self._TableLoaded(view, total, page, first=True))
        except CrmtuiError as exc:
            self.post_message(self._LoadFailed(str(exc)))

    @work(thread=True, exclusive=False, group="browse-page")
    def _load_page(self, view: TableView, offset: int, after: browser.PageCursor | None) -> None:
        view = self._without_cursor(view)  # type: ignore[assignment]
        try:
            page = browser.fetch_page(self.org, view, offset, PAGE_SIZE, self.today, after)
            self.post_message(self._TableLoaded(view, -1, page, first=False))
        except CrmtuiError as exc:
            self.post_message(self._LoadFailed(str(exc)))

    @work(thread=True, exclusive=True, group="browse")
    def _load_record(self, view: RecordView) -> None:
        try:
            self.post_message(
                self._RecordLoaded(view, browser.load_record(self.org, view, self.today))
            )
        except CrmtuiError as exc:
            self.post_message(self._LoadFailed(str(exc)))
