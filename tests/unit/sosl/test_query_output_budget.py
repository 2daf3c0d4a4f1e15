"""``crmtui query``'s budget covers encoding and printing, not only the query.

* JSON is written as it is encoded: the same text as ``json.dumps(indent=2)``, memory bounded
  by the result plus a buffer, the deadline checked as it goes (time blocked on the reader
  does not count);
* past the deadline: ``QUERY_TIMEOUT`` on stderr, status 1, no traceback;
* the table prints at most ``TABLE_ROWS`` rows and says how many there are.
"""

from __future__ import annotations

import io
import json
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import crmtui.commands.query_output as query_output
from crmtui.cli import main
from crmtui.commands.query_output import OutputDeadline, OutputTimeout, write_json

JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(), kids, max_size=4),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(max_size=8), JSONISH, max_size=4))
def test_written_json_is_the_same_document(body: dict[str, Any]) -> None:
    out = io.StringIO()
    write_json(body, out, OutputDeadline(None, None))
    assert json.loads(out.getvalue()) == body
    if all(c.isprintable() or c == "\n" for c in json.dumps(body, indent=2, ensure_ascii=False)):
        assert out.getvalue() == json.dumps(body, indent=2, ensure_ascii=False) + "\n"


def _records(n: int) -> dict[str, Any]:
    return {
        "totalSize": n,
        "done": True,
        "records": [
            {"attributes": {"type": "OrderItem"}, "Id": f"802{i:015d}", "Quantity": 1.0,
             "Order": {"attributes": {"type": "Order"}, "Status": "Activated",
                       "Account": {"attributes": {"type": "Account"}, "Name": f"Acme {i}"}}}
            for i in range(n)
        ],
    }  # fmt: skip


class _Sink:
    """A writer that keeps only how much it was given."""

    def __init__(self) -> None:
        self.chars = 0

    def write(self, text: str) -> int:
        self.chars += len(text)
        return len(text)


def _peak(work: Any) -> int:
    tracemalloc.start()
    try:
        work()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_memory_while_writing_is_bounded_by_a_buffer_not_the_text() -> None:
    body = _records(3_000)
    sink = _Sink()
    streamed = _peak(lambda: write_json(body, sink, OutputDeadline(None, None)))  # type: ignore[arg-type]
    whole = _peak(lambda: json.dumps(body, indent=2, ensure_ascii=False))
    assert sink.chars == len(json.dumps(body, indent=2, ensure_ascii=False)) + 1
    # json.dumps holds every piece and then the whole text; the stream a 50 KB buffer.
    assert streamed < whole / 4, (streamed, whole)


def test_the_deadline_stops_encoding_midway(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [100.0]

    def monotonic() -> float:
        clock[0] += 0.001  # every look at the clock costs a millisecond of "work"
        return clock[0]

    monkeypatch.setattr(query_output.time, "monotonic", monotonic)
    out = io.StringIO()
    with pytest.raises(OutputTimeout, match=r"QUERY_TIMEOUT: .*within the 0.005 s budget"):
        write_json(_records(5_000), out, OutputDeadline(100.005, 0.005))
    assert 0 < len(out.getvalue()) < len(json.dumps(_records(5_000), indent=2))


def test_time_waiting_for_the_reader_does_not_count(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [0.0]
    monkeypatch.setattr(query_output.time, "monotonic", lambda: clock[0])

    class SlowReader(io.StringIO):
        def write(self, text: str) -> int:
            clock[0] += 10.0  # a pager the user reads for 10 s before it takes more
            return super().write(text)

    out = SlowReader()
    write_json(_records(8_000), out, OutputDeadline(1.0, 1.0))
    assert json.loads(out.getvalue())["totalSize"] == 8_000 and clock[0] > 100


def test_the_cli_reports_an_output_past_its_budget_in_one_line(
    fts_org_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def late(self: OutputDeadline, printed: str) -> None:
        raise OutputTimeout(f"QUERY_TIMEOUT: the result could not be printed; after {printed}")

    monkeypatch.setattr(OutputDeadline, "check", late)
    with pytest.raises(SystemExit) as info:
        main(["query", "--org", str(fts_org_path), "--format", "json", "SELECT Id FROM Case"])
    assert info.value.code == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("QUERY_TIMEOUT: the result could not be printed")


def test_the_table_shows_at_most_table_rows(
    fts_org_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(query_output, "TABLE_ROWS", 1)
    main(["query", "--org", str(fts_org_path), "SELECT Id FROM Case"])
    out = capsys.readouterr().out
    assert "2 rows in" in out and "the first 1 shown (--format json prints them all)" in out
    assert out.count("500") == 1  # one Case Id row
