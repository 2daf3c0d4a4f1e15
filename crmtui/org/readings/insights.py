"""Reading of sales insight mining (SIM): competitors and subtopics in sales calls.

Counted from the raw VoiceCallTranscript__c rows as the instance's guide states: a call about
an opportunity belongs to a period when its CreatedDate does, and counts once for each
competitor it names and each subtopic it remarks on with the sentiment asked for. Which
subtopic and sentiment a customer's remark carries is looked up in the generator's remark
dictionary (:data:`crmtui.org.solvers.pro.vocab.REMARK_LABELS`, data shared by the generator,
the solvers and this reading: no solver code); the counting is this module's own.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from datetime import datetime
from fractions import Fraction
from typing import Any

from crmtui.org.readings.pro_rows import CallRow, ProRows
from crmtui.org.readings.rows import OrgRows, best, stamp
from crmtui.org.readings.types import Answers, Reading
from crmtui.org.solvers.pro.vocab import COMPETITORS, REMARK_LABELS

#: Question kinds about a period (the others are about one opportunity's calls).
PERIOD_KINDS = ("top_competitor", "top_topic")


def _mentions(call: CallRow, kind: str, sentiment: str | None) -> set[str]:
    """What a call holds for the question: competitors named, or subtopics remarked on."""
    if "competitor" in kind:
        return {name for name in COMPETITORS if name in call.text}
    found = set()
    for line in call.text.splitlines():
        label = REMARK_LABELS.get(line.partition(": ")[2].strip())
        if label is not None and label[1] == sentiment:
            found.add(label[0])
    return found


def _top(calls: list[CallRow], kind: str, sentiment: str | None) -> Answers:
    counts: dict[str, Fraction] = defaultdict(Fraction)
    for call in calls:
        for key in _mentions(call, kind, sentiment):
            counts[key] += 1
    return best(counts, "max")


def read_sales_insight(
    rows: OrgRows, params: Mapping[str, Any], context: Mapping[str, Any]
) -> Reading:
    """The top competitor or subtopic of a period, or what one opportunity's calls hold (each
    mention or remark in the order made, repeats kept).

    Shortcut ``all_time`` (period questions only): the calls of every date counted.
    """
    pro: ProRows | None = rows.pro
    if pro is None:
        raise ValueError("not a CRMArena-Pro org")
    kind = str(context["kind"])
    sentiment = params.get("sentiment")
    sales = [c for c in pro.calls if c.opportunity and c.created is not None]
    if kind in PERIOD_KINDS:
        start, end = stamp(params["start"]), stamp(params["end"])
        assert isinstance(start, datetime) and isinstance(end, datetime)
        inside = [c for c in sales if start <= c.created < end]  # type: ignore[operator]
        return Reading(_top(inside, kind, sentiment), {"all_time": _top(sales, kind, sentiment)})
    opp = str(params["opportunity_id"])
    calls = sorted((c for c in sales if c.opportunity == opp), key=lambda c: (c.created, c.id))
    held = [item for call in calls for item in _in_order(call, kind, sentiment)]
    return Reading((", ".join(held),) if held else ())


def _in_order(call: CallRow, kind: str, sentiment: str | None) -> list[str]:
    """Each mention (or remark of the sentiment) of a call, in line order, repeats kept."""
    out = []
    for line in call.text.splitlines():
        if "competitor" in kind:
            out += [name for name in COMPETITORS if name in line]
        else:
            label = REMARK_LABELS.get(line.partition(": ")[2].strip())
            if label is not None and label[1] == sentiment:
                out.append(label[0])
    return out
