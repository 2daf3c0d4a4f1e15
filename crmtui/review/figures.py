"""The report's figures as data: each a table of numbers and the Vega-Lite spec that draws it.

Every number comes from the :class:`~crmtui.review.report.Report` the other renderings read
(so the figures show what ``crmtui report --format json`` says); this module only arranges
them and adds the 95% intervals (:mod:`crmtui.review.intervals`). Drawing the specs (to
SVG and PNG) is :mod:`crmtui.review.report_html`'s job; nothing here imports a renderer.

Figures, each only when it has data:

* ``accuracy-by-task``: accuracy per task type per actor, with Wilson intervals;
* ``accuracy-by-skill``: the same per CRMArena-Pro skill (with Pro sessions);
* ``paired-difference``: a person minus a model on the instances both answered (share
  right), with Newcombe's paired 95% interval, and the four agreement counts beside it;
* ``time-per-instance``: active time of every counted session per actor (box and points);
* ``multi-turn``: per (agent, user) pair, success, median user turns and median turns to
  the first key fact.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from crmtui.data.tasktypes import abbreviation
from crmtui.review.intervals import paired_difference, wilson
from crmtui.review.report import (
    AGREEMENT_KINDS,
    BOTH_RIGHT,
    BOTH_WRONG,
    ONLY_HUMAN,
    ONLY_MODEL,
    OVERALL,
    Report,
)

#: Categorical colours (Tableau 10, colour-blind friendlier than the defaults' order).
PALETTE = [
    "#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
    "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac",
]  # fmt: skip
_FONT = "DejaVu Sans, Liberation Sans, Arial, sans-serif"
_CONFIG: dict[str, Any] = {
    "font": _FONT,
    "view": {"stroke": None},
    "axis": {"labelFontSize": 11, "titleFontSize": 12, "gridColor": "#e6e6e6"},
    "legend": {"labelFontSize": 11, "titleFontSize": 12, "labelLimit": 260},
    "title": {"fontSize": 14, "anchor": "start"},
    "range": {"category": PALETTE},
}
WIDTH = 460


@dataclass(frozen=True)
class Figure:
    """One figure: its name (file stem), title, caption, numbers and Vega-Lite spec.

    Attributes:
        name: File stem (``accuracy-by-task``): ``NAME.svg``, ``NAME.png``.
        title: Heading shown above it.
        caption: What it shows and how the interval is taken.
        rows: The numbers drawn, one mapping per mark (what the tests compare).
        spec: A complete Vega-Lite spec (data inline), renderable offline.
    """

    name: str
    title: str
    caption: str
    rows: list[dict[str, Any]]
    spec: dict[str, Any] = field(repr=False)


def _spec(rows: list[dict[str, Any]], body: dict[str, Any], height: Any = None) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "config": _CONFIG,
        "background": "white",
        "padding": 8,
        "width": WIDTH,
        "data": {"values": rows},
        **body,
    }
    if height is not None:
        spec["height"] = height
    return spec


def _interval_rows(
    actor: str,
    kind: str,
    group: str,
    value: float | None,
    n: int,
    approximate: bool,
    order: int,
) -> dict[str, Any] | None:
    if value is None or n == 0:
        return None
    low, high = wilson(value, n) or (value, value)
    return {
        "actor": actor,
        "kind": kind,
        "group": group,
        "accuracy": value,
        "n": n,
        "low": low,
        "high": high,
        "approximate": approximate,
        "order": order,
    }


def _bars_with_intervals(rows: list[dict[str, Any]], axis_title: str, actors: int) -> dict:
    """Horizontal bars per group, one per actor, with an interval rule on each."""
    # Groups in the report's column order (task types, Overall last), not by first actor.
    order = list(dict.fromkeys(r["group"] for r in sorted(rows, key=lambda r: r["order"])))
    y = {"field": "group", "type": "nominal", "title": axis_title, "sort": order}
    offset = {"field": "actor", "type": "nominal", "sort": None}
    color = {
        "field": "actor",
        "type": "nominal",
        "title": "Actor",
        "sort": None,
        "legend": {"orient": "bottom", "columns": 2},
    }
    x = {
        "field": "accuracy",
        "type": "quantitative",
        "title": "Accuracy (share right; KQA, SIM: mean F1)",
        "scale": {"domain": [0, 1]},
        "axis": {"format": "%"},
    }
    return _spec(
        rows,
        {
            "layer": [
                {"mark": {"type": "bar"}, "encoding": {"y": y, "yOffset": offset, "x": x,
                                                       "color": color}},
                {
                    "mark": {"type": "rule", "color": "#222", "strokeWidth": 1.5},
                    "encoding": {
                        "y": y,
                        "yOffset": offset,
                        "x": {"field": "low", "type": "quantitative"},
                        "x2": {"field": "high"},
                    },
                },
                {
                    "mark": {"type": "text", "align": "left", "dx": 4, "fontSize": 10},
                    "encoding": {
                        "y": y,
                        "yOffset": offset,
                        "x": {"field": "high", "type": "quantitative"},
                        "text": {"field": "n", "type": "quantitative", "format": "d"},
                    },
                },
            ]
        },
        height={"step": max(14, 12 * actors)},
    )  # fmt: skip


def accuracy_by_task(report: Report) -> Figure | None:
    """Accuracy per task type (and Overall) per actor, with 95% Wilson intervals."""
    rows = []
    for row in report.rows:
        for order, column in enumerate(report.columns):
            cell = row.accuracy[column]
            label = column if column == OVERALL else abbreviation(column)
            fuzzy = column != OVERALL and abbreviation(column) in ("KQA", "SIM")
            found = _interval_rows(row.label, row.kind, label, cell.value, cell.n, fuzzy, order)
            if found:
                rows.append(found)
    if not rows:
        return None
    return Figure(
        "accuracy-by-task",
        "Accuracy per task type",
        "Bars: each actor's accuracy per task type (the number: instances scored); lines: "
        "95% Wilson intervals (for KQA and SIM, whose reward is a token F1, the interval is "
        "the Wilson formula applied to the mean F1: an approximation). Overall is the "
        "unweighted mean of the task columns; its interval uses all scored instances.",
        rows,
        _bars_with_intervals(rows, "Task type", len(report.rows)),
    )


def accuracy_by_skill(report: Report) -> Figure | None:
    """Accuracy per CRMArena-Pro skill per actor, with 95% Wilson intervals."""
    if not report.skills:
        return None
    rows = []
    for row in report.rows:
        for order, skill in enumerate([*report.skills, OVERALL]):
            cell = row.skills.get(skill)
            if cell is None:
                continue
            found = _interval_rows(row.label, row.kind, skill, cell.value, cell.n, False, order)
            if found:
                rows.append(found)
    if not rows:
        return None
    return Figure(
        "accuracy-by-skill",
        "Accuracy per CRMArena-Pro skill",
        "Each skill's accuracy is the unweighted mean of its task columns (crmtui's "
        "task-to-skill reading, crmtui/data/skills.py); lines: 95% Wilson intervals over the "
        "skill's scored instances.",
        rows,
        _bars_with_intervals(rows, "Skill", len(report.rows)),
    )


def paired_differences(report: Report) -> Figure | None:
    """A person minus a model on their shared instances, with a paired 95% interval."""
    rows = []
    for pair in report.agreement:
        found = paired_difference(
            pair.counts[BOTH_RIGHT],
            pair.counts[ONLY_HUMAN],
            pair.counts[ONLY_MODEL],
            pair.counts[BOTH_WRONG],
        )
        if found is None:
            continue
        difference, low, high = found
        rows.append(
            {
                "pair": f"{pair.human} − {pair.model}",
                "human": pair.human,
                "model": pair.model,
                "shared": pair.n,
                "difference": difference,
                "low": low,
                "high": high,
                **{kind: pair.counts[kind] for kind in AGREEMENT_KINDS},
            }
        )
    if not rows:
        return None
    y = {"field": "pair", "type": "nominal", "title": None, "sort": None,
         "axis": {"labelLimit": 420}}  # fmt: skip
    most = max(row["shared"] for row in rows)
    ticks = list(range(most + 1)) if most <= 10 else None  # whole instances only
    counts = [
        {"pair": row["pair"], "outcome": kind, "instances": row[kind], "order": n}
        for row in rows
        for n, kind in enumerate(AGREEMENT_KINDS)
    ]
    spec = _spec(
        rows,
        {
            "hconcat": [
                {
                    "width": 260,
                    "height": {"step": 26},
                    "title": "Share right: person minus model",
                    "layer": [
                        {
                            "mark": {"type": "rule", "color": "#999", "strokeDash": [4, 3]},
                            "data": {"values": [{"zero": 0}]},
                            "encoding": {"x": {"field": "zero", "type": "quantitative"}},
                        },
                        {
                            "mark": {"type": "rule", "strokeWidth": 2, "color": "#222"},
                            "encoding": {
                                "y": y,
                                "x": {"field": "low", "type": "quantitative",
                                      "scale": {"domain": [-1, 1]},
                                      "title": "Difference (95% paired interval)",
                                      "axis": {"format": "+%", "values": [-1, -0.5, 0, 0.5, 1]}},
                                "x2": {"field": "high"},
                            },
                        },
                        {
                            "mark": {"type": "point", "filled": True, "size": 70,
                                     "color": PALETTE[0]},
                            "encoding": {"y": y, "x": {"field": "difference",
                                                       "type": "quantitative"}},
                        },
                    ],
                },
                {
                    "width": 220,
                    "height": {"step": 26},
                    "title": "Shared instances by outcome",
                    "data": {"values": counts},
                    "mark": {"type": "bar"},
                    "encoding": {
                        "y": {**y, "axis": None},
                        "x": {"field": "instances", "type": "quantitative", "stack": "zero",
                              "title": "Instances", "axis": {"format": "d", "values": ticks}},
                        "color": {"field": "outcome", "type": "nominal", "sort": list(
                            AGREEMENT_KINDS), "title": "Outcome",
                            "scale": {"domain": list(AGREEMENT_KINDS),
                                      "range": ["#59a14f", PALETTE[0], PALETTE[1], "#bab0ac"]},
                            "legend": {"orient": "bottom", "columns": 2}},
                        "order": {"field": "order", "type": "quantitative"},
                    },
                },
            ]
        },
    )  # fmt: skip
    del spec["width"]
    return Figure(
        "paired-difference",
        "A person and a model on the same instances",
        "Left: the person's share right minus the model's over the instances both answered, "
        "with Newcombe's 95% score interval for paired proportions (from the two Wilson "
        "intervals and how the pairs agree). Right: those instances by outcome.",
        rows,
        spec,
    )


def time_per_instance(report: Report) -> Figure | None:
    """Active time of each counted session per actor: box (quartiles, extremes) and points."""
    rows = [
        {
            "actor": s.actor_label,
            "kind": s.actor_kind,
            "idx": s.idx,
            "task": s.abbreviation,
            "active_seconds": s.active_seconds,
        }
        for s in report.sessions
    ]
    if not rows:
        return None
    y = {"field": "actor", "type": "nominal", "title": None, "sort": None,
         "axis": {"labelLimit": 260}}  # fmt: skip
    x = {"field": "active_seconds", "type": "quantitative", "title": "Active seconds per instance",
         "scale": {"zero": True}}  # fmt: skip
    spec = _spec(
        rows,
        {
            "layer": [
                {
                    "mark": {"type": "boxplot", "extent": "min-max", "size": 16,
                             "median": {"color": "#222"}, "opacity": 0.55},
                    "encoding": {"y": y, "x": x,
                                 "color": {"field": "kind", "type": "nominal",
                                           "title": "Actor kind", "sort": ["human", "model"]}},
                },
                {
                    "mark": {"type": "point", "filled": True, "size": 28, "color": "#222",
                             "opacity": 0.8},
                    "encoding": {"y": y, "x": x},
                },
            ]
        },
        height={"step": 30},
    )  # fmt: skip
    return Figure(
        "time-per-instance",
        "Active time per instance",
        "Each point is one counted session's active time (pauses and idle periods removed; a "
        "person's earlier unanswered sessions on the instance added); boxes span the "
        "quartiles with the median marked, whiskers the extremes.",
        rows,
        spec,
    )


def multi_turn(report: Report) -> Figure | None:
    """Per (agent, user) pair: success, median user turns, median turns to the 1st key fact."""
    rows = []
    for pair in report.dialogue_pairs:
        name = f"{pair.agent} / {pair.user}"
        measures = (
            ("Success (share)", pair.success),
            ("User turns (median)", pair.user_turns),
            ("Turns to 1st key fact (median)", pair.first_key_turn),
        )
        for measure, value in measures:
            if value is not None:
                rows.append(
                    {
                        "pair": name,
                        "agent": pair.agent,
                        "user": pair.user,
                        "pairing": pair.pairing,
                        "dialogues": pair.dialogues,
                        "measure": measure,
                        "value": value,
                    }
                )
    if not rows:
        return None
    spec = _spec(
        rows,
        {
            "facet": {"column": {"field": "measure", "type": "nominal", "title": None,
                                 "sort": None}},
            "resolve": {"scale": {"x": "independent"}},
            "spec": {
                "width": 170,
                "height": {"step": 24},
                "mark": {"type": "bar"},
                "encoding": {
                    "y": {"field": "pair", "type": "nominal", "title": "Agent / user",
                          "sort": None, "axis": {"labelLimit": 240}},
                    "x": {"field": "value", "type": "quantitative", "title": None},
                    "color": {"field": "pairing", "type": "nominal", "title": "Pairing"},
                    "tooltip": [{"field": "dialogues", "type": "quantitative"}],
                },
            },
        },
    )  # fmt: skip
    del spec["width"]
    return Figure(
        "multi-turn",
        "Multi-turn: success, turns and key facts",
        "Per (agent, user) pair: the mean reward (unanswered dialogues score 0), the median "
        "number of user replies, and the median user message (1 = the opening) that first "
        "stated a key fact of the question.",
        rows,
        spec,
    )


def report_figures(report: Report) -> list[Figure]:
    """Every figure of the report that has data, in reading order."""
    found = (
        accuracy_by_task(report),
        accuracy_by_skill(report),
        paired_differences(report),
        time_per_instance(report),
        multi_turn(report),
    )
    return [figure for figure in found if figure is not None]
