"""The no-SOQL path's dialogs work on an 80x24 terminal, and the compute tool's field
choices are found by any part of a name.

* Every dialog of the path (filter, columns, compute), in each of its states (a field list
  open or not), keeps its action buttons on screen at 80x24: a button is on screen when the
  screen's cell at its centre is that button (not cut off by the dialog, not under another
  widget).
* Each field choice of the compute tool (groupings, measure, a duration's start and end) is
  the filter dialog's chooser: typing any part of a field's name, a related field's too,
  lists it, and ↓/Enter takes it; the spec computed is the one chosen.
"""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import Button, Input

from crmtui.config import PlayConfig
from crmtui.factory import build_play_app
from crmtui.ui.screens.columns import ColumnsScreen
from crmtui.ui.screens.compute import CHOOSERS, ComputeScreen
from crmtui.ui.screens.dialogs import FilterScreen
from crmtui.ui.widgets.field_chooser import FieldChooser
from tests.ui.annotator import Annotator


def _config(tmp_path: Any) -> PlayConfig:
    return PlayConfig(annotator="tester", recordings=tmp_path / "recordings", fsync=False, idx=0)


def _buttons_off_screen(app: Any) -> list[str]:
    """The labels of the dialog's shown buttons that are not wholly visible on screen."""
    screen = app.screen
    width, height = app.size
    off = []
    for button in screen.query(Button):
        if not all(a.display for a in button.ancestors_with_self if hasattr(a, "display")):
            continue
        region = button.region
        x, y = region.x + region.width // 2, region.y + region.height // 2
        inside = region.height >= 1 and region.right <= width and region.bottom <= height
        hit = None
        if inside:
            try:
                hit, _ = screen.get_widget_at(x, y)
            except Exception:  # noqa: BLE001 - nothing there counts as off screen
                hit = None
        if hit is not button and (hit is None or button not in hit.ancestors):
            off.append(str(button.label))
    return off


async def _open_case_view(a: Annotator) -> None:
    await a.started()
    await a.open_object("Case")


async def test_every_no_soql_dialog_keeps_its_buttons_on_screen_at_80x24(
    workspace: Any, tmp_path: Any, clock: Any, wall: Any
) -> None:
    app = build_play_app(_config(tmp_path), workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=(80, 24)) as pilot:
        a = Annotator(pilot)
        await _open_case_view(a)
        states: dict[str, list[str]] = {}

        # The filter dialog: value box focused, then the field box with its list open.
        await a.press("f")
        await a.until(lambda: isinstance(app.screen, FilterScreen))
        states["filter"] = _buttons_off_screen(app)
        await a.press("shift+tab", "shift+tab")
        chooser = app.screen.query_one(FieldChooser)
        await a.until(lambda: app.focused is chooser.query_one(Input))
        await a.pilot.pause()
        states["filter, field list open"] = _buttons_off_screen(app)
        await a.press("escape")
        await a.until(lambda: not isinstance(app.screen, FilterScreen))

        # The columns dialog, with a long list of own and related fields.
        await a.press("C")
        await a.until(lambda: isinstance(app.screen, ColumnsScreen))
        await a.pilot.pause()
        states["columns"] = _buttons_off_screen(app)
        # ... and its list still shows several fields to choose from.
        assert app.screen.query_one("#columns-list").scrollable_content_region.height >= 3
        await a.press("escape")
        await a.until(lambda: not isinstance(app.screen, ColumnsScreen))

        # The compute tool, with each field list open in turn.
        await a.press("ctrl+l")
        await a.until(lambda: isinstance(app.screen, ComputeScreen))
        dialog = app.screen
        for chooser_id in CHOOSERS:
            box = dialog.chooser(chooser_id).query_one(Input)
            if not box.parent.parent.display:  # the duration row shows for a duration only
                continue
            box.focus()
            await a.pilot.pause()
            states[f"compute, {chooser_id} open"] = _buttons_off_screen(app)
        assert any(k.startswith("compute") for k in states)
        assert all(not off for off in states.values()), states


@pytest.mark.parametrize("chooser_id", CHOOSERS)
async def test_each_compute_field_choice_is_found_by_any_part_of_its_name(
    workspace: Any, tmp_path: Any, clock: Any, wall: Any, chooser_id: str
) -> None:
    app = build_play_app(_config(tmp_path), workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=(160, 48)) as pilot:
        a = Annotator(pilot)
        await _open_case_view(a)
        await a.press("ctrl+l")
        await a.until(lambda: isinstance(app.screen, ComputeScreen))
        dialog = app.screen
        chooser = dialog.chooser(chooser_id)
        # A related field where there is one (the hard case for a drop-down), not the default.
        values = [p.path for p in chooser.paths if p.path != chooser.value]
        target = next((v for v in values if "." in v and "(" not in v), values[-1])
        if chooser_id in ("compute-start", "compute-end"):
            target = next(v for v in values if v in dialog.source.dates)
        # Any part of the name: the middle of its last part, lower case.
        last = target.split(".")[-1]
        needle = last[1:-1].lower() if len(last) > 3 else last.lower()
        box = chooser.query_one(Input)
        while app.focused is not box:
            if chooser_id in ("compute-start", "compute-end") and not box.parent.parent.display:
                # Start and end belong to a duration: choose it first.
                measure = dialog.chooser("compute-measure")
                measure.set_value("(duration: end - start)")
                dialog._toggle_duration()
                continue
            await a.press("tab")
        await a.press("ctrl+u", *needle)
        listed = [p.path for p in chooser.matches(needle)]
        assert target in listed
        await a.press(*["down"] * listed.index(target), "enter")
        assert chooser.value == target
        spec = dialog.spec()
        chosen = {
            "compute-group": spec.group_by,
            "compute-group2": spec.group_by2,
            "compute-measure": spec.field,
            "compute-start": spec.start,
            "compute-end": spec.end,
        }[chooser_id]
        assert chosen == target


async def test_the_compute_defaults_group_by_an_owner_and_time_between_dates(
    workspace: Any, tmp_path: Any, clock: Any, wall: Any
) -> None:
    """Over a view whose own fields have no owner, the grouping is a related record's
    owner; a duration's start and end are date columns, never an Id or a text."""
    app = build_play_app(_config(tmp_path), workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=(160, 48)) as pilot:
        a = Annotator(pilot)
        await a.started()
        await a.open_object("CaseHistory__c")
        await a.press("ctrl+l")
        await a.until(lambda: isinstance(app.screen, ComputeScreen))
        dialog = app.screen
        group = dialog.chooser("compute-group").value
        owners = [c for c in dialog.source.columns if c.lower().endswith("ownerid")]
        assert owners and group in owners, (group, owners)
        dates = dialog.source.dates
        assert dates
        assert dialog.chooser("compute-start").value in dates
        assert dialog.chooser("compute-end").value in dates
