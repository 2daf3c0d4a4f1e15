"""Sales insight mining (SIM): competitors and subtopics in sales call transcripts.

Sales discussions are the VoiceCallTranscript__c records about an opportunity. A call
mentions a competitor when its text names the competitor in full; a customer line is a remark
about one subtopic with a positive or negative sentiment (the remarks are listed in
:data:`crmtui.org.solvers.pro.vocab.REMARKS`). Counts are of calls: a call that names a
competitor twice, or makes two negative remarks on one subtopic, counts once.

Period questions rank over the calls created in ``[start, end)``; opportunity questions list,
comma separated, each mention or remark of that opportunity's calls in the order they are
made, repeats kept (as the real file's answers do). Answers are text, as
upstream's ``fuzzy_match`` tasks are.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import date, datetime

from crmtui.org.solvers.common import (
    SolverError,
    SolverResult,
    evidence_list,
    extreme_keys,
    ranking,
    winners_of,
)
from crmtui.org.solvers.periods import as_datetime
from crmtui.org.solvers.pro.index import Call, ProIndex, Tables, pro_index
from crmtui.org.solvers.pro.vocab import COMPETITORS, REMARK_LABELS

DateLike = str | date | datetime
SENTIMENTS = ("positive", "negative")


def competitors_named(call: Call) -> set[str]:
    """Competitors the call names."""
    return {name for name in COMPETITORS if name in call.body}


def remarks_made(call: Call) -> set[tuple[str, str]]:
    """``(topic, sentiment)`` pairs of the remarks in the call."""
    found = set()
    for line in call.body.splitlines():
        _, _, said = line.partition(": ")
        label = REMARK_LABELS.get(said.strip())
        if label is not None:
            found.add(label)
    return found


def _check(sentiment: str) -> None:
    if sentiment not in SENTIMENTS:
        raise SolverError(f"sentiment must be 'positive' or 'negative', not {sentiment!r}")


def _top(counts: dict[str, list[str]]) -> SolverResult:
    scores = {key: len(ids) for key, ids in counts.items()}
    answer = extreme_keys(scores, "max")
    kept = [i for key in winners_of(answer) for i in counts[key]]
    return SolverResult(answer, evidence_list(kept), ranking(scores, scores, "max"))


def top_competitor(tables: Tables | ProIndex, start: DateLike, end: DateLike) -> SolverResult:
    """The competitor named in the most sales calls of the period (None: none named)."""
    index = pro_index(tables)
    counts: dict[str, list[str]] = defaultdict(list)
    for call in index.sale_calls_between(as_datetime(start), as_datetime(end)):
        for name in competitors_named(call):
            counts[name].append(call.id)
    return _top(counts)


def top_topic(
    tables: Tables | ProIndex, start: DateLike, end: DateLike, sentiment: str
) -> SolverResult:
    """The subtopic with ``sentiment`` remarks in the most sales calls of the period."""
    _check(sentiment)
    index = pro_index(tables)
    counts: dict[str, list[str]] = defaultdict(list)
    for call in index.sale_calls_between(as_datetime(start), as_datetime(end)):
        for topic, said in remarks_made(call):
            if said == sentiment:
                counts[topic].append(call.id)
    return _top(counts)


def _calls(index: ProIndex, opportunity_id: str) -> list[Call]:
    if opportunity_id not in index.opps:
        raise SolverError(f"no opportunity {opportunity_id!r}")
    return index.calls_by_opp.get(opportunity_id, [])


def competitor_mentions(call: Call) -> list[str]:
    """The competitors the call names, one entry per line naming one, in line order."""
    return [name for line in call.body.splitlines() for name in COMPETITORS if name in line]


def remark_topics(call: Call, sentiment: str) -> list[str]:
    """The subtopic of each of the call's remarks with ``sentiment``, in line order."""
    found = []
    for line in call.body.splitlines():
        label = REMARK_LABELS.get(line.partition(": ")[2].strip())
        if label is not None and label[1] == sentiment:
            found.append(label[0])
    return found


def opportunity_competitors(tables: Tables | ProIndex, opportunity_id: str) -> SolverResult:
    """The competitors named in the opportunity's calls, one entry per mention in the order
    the calls make them, oldest call first, repeats kept (the real file's shape; None: no
    one)."""
    index = pro_index(tables)
    calls = _calls(index, opportunity_id)
    named = [name for call in calls for name in competitor_mentions(call)]
    evidence = [call.id for call in calls if competitors_named(call)]
    return SolverResult(", ".join(named) or None, evidence_list(evidence), {"items": named})


def opportunity_topics(
    tables: Tables | ProIndex, opportunity_id: str, sentiment: str
) -> SolverResult:
    """The subtopics of the opportunity's calls' ``sentiment`` remarks, one entry per remark
    in the order the calls make them, oldest call first, repeats kept."""
    _check(sentiment)
    index = pro_index(tables)
    calls = _calls(index, opportunity_id)
    topics = [topic for call in calls for topic in remark_topics(call, sentiment)]
    evidence = [c.id for c in calls if any(s == sentiment for _, s in remarks_made(c))]
    return SolverResult(", ".join(topics) or None, evidence_list(evidence), {"items": topics})
