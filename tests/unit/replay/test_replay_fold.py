"""The pure fold on hand-made event lists: views, history, console, answer, time, transcript."""

from __future__ import annotations

import pytest

from crmtui.play.views import Condition, RecordView, TableView
from crmtui.record.verify import load
from crmtui.review.replay import (
    SPEEDS,
    change_speed,
    frames,
    is_error,
    is_query,
    is_submit,
    next_index,
    play_delay,
    replay,
    summarize,
)

Q = "SELECT Id FROM X"  # browse payloads need a query; the fold does not interpret it


def _browse(rec, clocks, seconds, kind, **payload):
    clocks.advance(seconds)
    payload.setdefault("query", Q)
    return rec.emit(kind, payload)


def test_back_forward_replay_through_the_history(make_recording, clocks):
    rec = make_recording()
    _browse(rec, clocks, 1, "open_object", object="Case")
    _browse(rec, clocks, 1, "open_record", object="Case", id="500A")
    _browse(
        rec,
        clocks,
        1,
        "follow_link",
        from_object="Case",
        from_id="500A",
        field="AccountId",
        to_object="Account",
        to_id="001B",
    )
    _browse(rec, clocks, 1, "back", query="SELECT back-target")
    _browse(rec, clocks, 1, "back")
    _browse(rec, clocks, 1, "forward")
    _browse(rec, clocks, 1, "open_object", object="Order")
    rec.close()
    views = [f.view for f in frames(load(rec.path))]
    assert views[:7] == [
        TableView("Case"),
        RecordView("Case", "500A"),
        RecordView("Account", "001B"),
        RecordView("Case", "500A"),
        TableView("Case"),
        RecordView("Case", "500A"),
        TableView("Order"),
    ]
    fs = frames(load(rec.path))
    assert fs[3].view_query == "SELECT back-target"
    assert (fs[4].can_back, fs[4].can_forward) == (False, True)
    assert (fs[5].can_back, fs[5].can_forward) == (True, True)
    # Visiting a new view after going back clears the forward stack, as in a browser.
    assert (fs[6].can_back, fs[6].can_forward) == (True, False)


def test_sort_filters_then_clear_and_search(make_recording, clocks):
    rec = make_recording()
    _browse(rec, clocks, 1, "open_object", object="Case")
    _browse(rec, clocks, 1, "sort", object="Case", field="CreatedDate", descending=True)
    _browse(rec, clocks, 1, "filter", object="Case", field="Status", op="=", value="Closed")
    _browse(rec, clocks, 1, "filter", object="Case", field="Priority", op="!=", value=None)
    _browse(rec, clocks, 1, "search", text="  refund ")
    _browse(rec, clocks, 1, "filter", object="Case", field="*", op="clear", value=None)
    rec.close()
    fs = frames(load(rec.path))
    sorted_view = TableView("Case", sort_field="CreatedDate", sort_desc=True)
    assert fs[1].view == sorted_view
    two = (Condition("Status", "=", "Closed"), Condition("Priority", "!=", "null"))
    assert fs[3].view == TableView("Case", two, "CreatedDate", True)
    assert fs[4].view == TableView("Case", two, "CreatedDate", True, search="refund")
    # Clear drops conditions and the search but keeps the sort.
    assert fs[5].view == sorted_view
    assert fs[5].can_back


def test_chosen_columns_replay_and_survive_a_cleared_filter(make_recording, clocks):
    rec = make_recording()
    related = ["OrderItemId__r.Product2Id", "Account.ShippingState"]
    _browse(rec, clocks, 1, "open_object", object="Case")
    _browse(rec, clocks, 1, "columns", object="Case", columns=related)
    _browse(rec, clocks, 1, "filter", object="Case", field=related[0], op="=", value="01tX")
    _browse(rec, clocks, 1, "filter", object="Case", field="*", op="clear", value=None)
    _browse(rec, clocks, 1, "columns", object="Case", columns=[])
    rec.close()
    fs = frames(load(rec.path))
    chosen = TableView("Case", columns=tuple(related))
    assert fs[1].view == chosen
    assert fs[2].view == TableView(
        "Case", (Condition(related[0], "=", "01tX"),), columns=tuple(related)
    )
    assert fs[3].view == chosen  # clearing filters keeps the columns, as the browser does
    assert fs[4].view == TableView("Case")
    assert summarize(fs[1].event) == (
        "Case columns: OrderItemId__r.Product2Id, Account.ShippingState"
    )
    assert summarize(fs[4].event) == "Case columns: its own fields"


def test_table_action_on_another_object_starts_a_fresh_table(make_recording, clocks):
    rec = make_recording()
    _browse(rec, clocks, 1, "open_record", object="Case", id="500A")
    _browse(rec, clocks, 1, "filter", object="Order", field="Status", op="=", value="Draft")
    _browse(rec, clocks, 1, "search", text="x")  # on a table: applies to it
    rec.close()
    fs = frames(load(rec.path))
    assert fs[1].view == TableView("Order", (Condition("Status", "=", "Draft"),))
    assert fs[2].view.search == "x"


def test_console_answer_submit_and_end(make_recording, clocks):
    rec = make_recording()
    clocks.advance(2)
    rec.emit(
        "run_query",
        {
            "text": "SELECT Id FROM Case",
            "kind": "soql",
            "rows": 4,
            "ms": 1.5,
            "error_code": None,
            "error": None,
        },
    )
    rec.emit(
        "run_query",
        {
            "text": "SELECT Nope FROM Case",
            "kind": "soql",
            "rows": 0,
            "ms": 0.5,
            "error_code": "INVALID_FIELD",
            "error": "INVALID_FIELD: No such column 'Nope'",
        },
    )
    for text in ["0", "005", "005X"]:
        rec.emit("answer_edit", {"text": text})
    rec.emit(
        "submit",
        {"answer": "005X", "reward": 1.0, "scoring": "exact_match", "gold": "005X"},
    )
    rec.close("finished", 1.0)
    fs = frames(load(rec.path))
    assert fs[0].query.text == "SELECT Id FROM Case" and not fs[0].query.failed
    assert fs[1].query.failed and fs[1].query.error_code == "INVALID_FIELD"
    assert (fs[1].queries, fs[1].errors) == (2, 1)
    assert [f.answer for f in fs[2:5]] == ["0", "005", "005X"]
    assert fs[4].submission is None
    assert fs[5].submission.answer == "005X" and fs[5].submission.reward == 1.0
    assert fs[5].submission.gold == "005X"
    assert fs[-1].ended == "finished" and fs[-2].ended is None
    # The console keeps the last query while other events pass.
    assert fs[-1].query.seq == 2


def test_active_time_excludes_pauses_and_idle(make_recording, clocks):
    rec = make_recording()
    _browse(rec, clocks, 10, "open_object", object="Case")  # ms 10000
    clocks.advance(5)
    rec.emit("pause", {})  # 15000
    clocks.advance(100)
    mid = rec.emit("answer_edit", {"text": "during pause"})  # recorded while paused
    clocks.advance(100)
    rec.emit("resume", {})  # 215000
    clocks.advance(90)
    rec.emit("idle", {"seconds": 70.0})  # 305000
    clocks.advance(3)
    rec.emit("answer_edit", {"text": "x"})  # 308000
    rec.close()
    fs = frames(load(rec.path))
    assert [f.active_ms for f in fs[:2]] == [10000, 15000]
    assert fs[2].paused and fs[2].active_ms == 15000 and mid.ms == 115000
    assert not fs[3].paused and fs[3].active_ms == 15000
    assert fs[4].active_ms == 305000 - 200000 - 70000
    assert fs[5].active_ms == 38000


def test_agent_transcript_tokens_and_cost(make_recording, clocks):
    rec = make_recording(actor={"kind": "model", "id": "gpt-x", "strategy": "react"})
    rec.emit(
        "model_call",
        {
            "prompt_tokens": 100,
            "completion_tokens": 20,
            "cost": 0.01,
            "latency_ms": 5,
            "content": "Let me look.",
        },
    )
    rec.emit("thought", {"text": "Count the cases."})
    rec.emit(
        "run_query",
        {
            "text": "SELECT COUNT() FROM Case",
            "kind": "soql",
            "rows": 1,
            "ms": 1.0,
            "error_code": None,
            "error": None,
            "observation": "[{'expr0': 500}]",
        },
    )
    rec.emit(
        "model_call",
        {
            "prompt_tokens": 150,
            "completion_tokens": 5,
            "cost": None,
            "latency_ms": 5,
            "content": None,
            "tool_calls": [{"name": "respond", "arguments": '{"content": "500"}'}],
        },
    )
    rec.emit("answer_edit", {"text": "500"})
    rec.emit("submit", {"answer": "500", "reward": 0.0, "scoring": "exact_match", "gold": "499"})
    rec.close("agent submitted", 0.0)
    result = replay(load(rec.path))
    assert result.is_model
    roles = [(line.role, line.text) for line in result.transcript]
    assert roles[:4] == [
        ("model", "Let me look."),
        ("thought", "Count the cases."),
        ("query", "SELECT COUNT() FROM Case"),
        ("observation", "[{'expr0': 500}]"),
    ]
    assert roles[4] == ("model", '→ respond({"content": "500"})')
    assert roles[5][0] == "submit" and "reward 0.00" in roles[5][1] and "'499'" in roles[5][1]
    assert roles[-1] == ("end", "session ended: agent submitted")
    # Each frame sees only the transcript written so far.
    assert [len(result.transcript_at(i)) for i in range(3)] == [1, 2, 4]
    assert result.frames[0].tokens == 120 and result.frames[0].cost == pytest.approx(0.01)
    assert result.frames[3].tokens == 275 and result.frames[3].cost is None


def test_navigation_predicates_and_summaries(make_recording, clocks):
    rec = make_recording()
    _browse(rec, clocks, 1, "open_object", object="Case")
    ok = {"kind": "soql", "rows": 2, "ms": 1.0, "error_code": None, "error": None}
    rec.emit("run_query", {"text": "SELECT Id\n FROM Case", **ok})
    rec.emit("run_query", {**ok, "text": "bad", "error_code": "MALFORMED_QUERY", "error": "m"})
    rec.emit("submit", {"answer": "a", "reward": None, "scoring": "none", "gold": None})
    rec.close()
    events = load(rec.path).events
    assert next_index(events, -1, is_query) == 1
    assert next_index(events, 1, is_query) == 2
    assert next_index(events, 0, is_error) == 2
    assert next_index(events, 0, is_submit) == 3
    assert next_index(events, 3, is_query) is None
    assert summarize(events[0]) == "Case"
    assert summarize(events[1]) == "SELECT Id FROM Case · 2 rows"
    assert summarize(events[2]) == "bad · ✘ MALFORMED_QUERY"
    assert summarize(events[3]) == "'a' · unscored"
    assert summarize(events[4]) == "finished"


def test_playback_delay_and_speed_steps():
    assert play_delay(0, 1000, 1.0) == 1.0
    assert play_delay(0, 1000, 4.0) == 0.25
    assert play_delay(0, 60_000, 1.0) == 2.0  # long think-times are capped
    assert play_delay(0, 0, 1.0) == 0.05  # bursts stay visible
    assert change_speed(1.0, 1) == 2.0 and change_speed(1.0, -1) == 0.5
    assert change_speed(SPEEDS[-1], 1) == SPEEDS[-1] and change_speed(SPEEDS[0], -1) == SPEEDS[0]


def test_empty_recording_has_no_frames(make_recording):
    rec = make_recording()
    rec.suspend()
    result = replay(load(rec.path))
    assert result.frames == [] and result.transcript_at(0) == []


def test_clock_stops_at_submit_editor_text_and_away(make_recording, clocks):
    rec = make_recording()
    clocks.advance(5)
    rec.emit("editor_edit", {"text": "SELECT Id FROM Ca"})
    clocks.advance(5)
    rec.emit("app_blur", {})
    clocks.advance(30)
    rec.emit("app_focus", {})
    clocks.advance(5)
    rec.emit("submit", {"answer": "x", "reward": 0.0, "scoring": "strict", "gold": "y"})
    clocks.advance(100)
    rec.emit("pause", {})
    clocks.advance(100)
    rec.close()
    fs = frames(load(rec.path))
    assert fs[0].editor == "SELECT Id FROM Ca" and not fs[0].away
    assert fs[1].away and not fs[2].away
    assert [f.active_ms for f in fs[3:]] == [45000, 45000, 45000]
    assert summarize(fs[1].event).startswith("terminal lost focus")
    assert summarize(fs[0].event) == "SELECT Id FROM Ca"


def test_a_streaming_fallback_and_a_cut_reply_show_in_replay(make_recording):
    rec = make_recording(actor={"kind": "model", "id": "local", "strategy": "react"})
    payload = {"prompt_tokens": 9, "completion_tokens": 3, "cost": None, "latency_ms": 5}
    rec.emit(
        "model_call",
        {
            **payload,
            "content": "<respond>42</respond>",
            "stream_fallback": True,
            "content_chars": 900,
        },
    )
    rec.close("agent submitted", 0.0)
    recording = load(rec.path)
    line = replay(recording).transcript[0]
    assert "repeated without streaming" in line.text and "21 of 900 characters" in line.text
    assert summarize(recording.events[0]).endswith("· streaming off")
