"""Printing a ``crmtui query`` result within the query's budget, with bounded memory.

The budget (``--timeout``, 30 s by default) runs from the start of the query to the last byte
printed. A big result (the 7-column join over all 71,000 OrderItems of the ``full`` org)
used to take far longer than the query itself to print, and most of the memory, building the
whole JSON text in one piece (docs/performance.md). Now:

* JSON is written as it is encoded (:func:`write_json`: the same text as ``json.dumps(...,
  indent=2)``), so memory holds the result and about 50 KB of text, and the deadline is checked as
  it goes;
* the table shows at most :data:`TABLE_ROWS` rows (a terminal table of 71,000 rows is read by
  nobody and took Rich a millisecond a row), saying how many there are in all;
* past the deadline the output stops with ``QUERY_TIMEOUT`` on stderr and status 1. Time
  spent waiting for the reader (a pager, a slow pipe) is not crmtui's and does not count.

Every value is the org's text: table cells pass :func:`crmtui.sanitise.printable`, JSON
:func:`crmtui.sanitise.printable_json` (the observation is a ``repr``, escaped already).
"""

from __future__ import annotations

import json
import time
from itertools import islice
from typing import IO, Any

from crmtui.errors import CrmtuiError
from crmtui.sanitise import printable, printable_json

#: Most rows the table format prints (``--format json`` prints every one).
TABLE_ROWS = 1000
#: Pieces of JSON text (a key, a value, a bracket) encoded, joined and written at a time
#: (about 50 KB), with a look at the clock before each write.
_BATCH = 8192


class OutputTimeout(CrmtuiError):
    """The result could not be printed within the query's time budget."""

    code = "QUERY_TIMEOUT"


class OutputDeadline:
    """The moment printing must be over (the query's own deadline), checked as it goes.

    Args:
        deadline: ``time.monotonic()`` value; None means no limit.
        budget_s: The budget in seconds, for the message.
    """

    def __init__(self, deadline: float | None, budget_s: float | None) -> None:
        self.deadline = deadline
        self.budget_s = budget_s

    def wait_for(self, write: Any, text: str) -> None:
        """``write(text)``, not counting the time the reader (a pager, a pipe) kept it waiting.

        The budget is crmtui's own work: ``crmtui query ... | less`` read for a minute is
        not a query past its budget.
        """
        started = time.monotonic()
        write(text)
        if self.deadline is not None:
            self.deadline += time.monotonic() - started

    def check(self, printed: str) -> None:
        """Raise :class:`OutputTimeout` when the deadline has passed.

        Args:
            printed: How much was printed so far, for the message.
        """
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise OutputTimeout(
                f"QUERY_TIMEOUT: the result could not be printed within the {self.budget_s:g} s "
                f"budget; stopped after {printed}. Use LIMIT, fewer fields or a larger --timeout"
            )


def write_json(body: dict[str, Any], out: IO[str], deadline: OutputDeadline) -> None:
    """Write ``json.dumps(body, indent=2)`` to ``out`` as it is encoded, within ``deadline``.

    The text is the same; it is never held whole (the list of pieces ``json.dumps`` joins
    took most of the memory of a big result; docs/performance.md).
    """
    pieces = json.JSONEncoder(indent=2, ensure_ascii=False).iterencode(body)
    written = 0
    while batch := list(islice(pieces, _BATCH)):  # taken and joined in C, not piece by piece
        text = printable_json("".join(batch))
        deadline.check(f"{written:,} characters")
        deadline.wait_for(out.write, text)
        written += len(text)
    out.write("\n")


def table_rows(result: Any, limit: int = TABLE_ROWS) -> list[list[str]]:
    """The first ``limit`` rows of a result as table cells, shown escaped."""
    rows = result.flat_rows(limit=limit)
    return [[printable("" if v is None else str(v)) for v in row] for row in rows]
