"""``crmtui study report --format html``: the report's figures plus the study's own.

On top of the figures of :mod:`crmtui.review.figures` (over the study's counted sessions
and, with ``--models``, the models beside them): each annotator's share right with its
95% Wilson interval, and agreement between annotators (each pair's share of shared
instances rated alike, and Krippendorff's alpha with its bootstrap interval). The numbers
are those of ``crmtui study report --format json``.
"""

from __future__ import annotations

from typing import Any

from crmtui.review.figures import PALETTE, Figure, _spec, report_figures
from crmtui.study.report import StudyReport


def annotator_accuracy(result: StudyReport) -> Figure | None:
    """Each annotator's share right over their scored instances, with a Wilson interval."""
    rows = [
        {
            "annotator": row.annotator,
            "scored": row.scored,
            "right": row.right,
            "accuracy": row.accuracy,
            "low": row.interval[0],
            "high": row.interval[1],
        }
        for row in result.annotators
        if row.accuracy is not None and row.interval is not None
    ]
    if not rows:
        return None
    y = {"field": "annotator", "type": "nominal", "title": None, "sort": None}
    spec = _spec(
        rows,
        {
            "layer": [
                {"mark": {"type": "bar", "color": PALETTE[0]},
                 "encoding": {"y": y, "x": {"field": "accuracy", "type": "quantitative",
                                            "scale": {"domain": [0, 1]},
                                            "axis": {"format": "%"},
                                            "title": "Share right (95% Wilson interval)"}}},
                {"mark": {"type": "rule", "color": "#222", "strokeWidth": 1.5},
                 "encoding": {"y": y, "x": {"field": "low", "type": "quantitative"},
                              "x2": {"field": "high"}}},
                {"mark": {"type": "text", "align": "left", "dx": 4, "fontSize": 10},
                 "encoding": {"y": y, "x": {"field": "high", "type": "quantitative"},
                              "text": {"field": "scored", "type": "quantitative"}}},
            ]
        },
        height={"step": 24},
    )  # fmt: skip
    return Figure(
        "annotator-accuracy",
        "Each annotator's accuracy",
        "Share right (reward 1; KQA: F1 at least 0.5) over each annotator's scored counted "
        "instances (the number), with a 95% Wilson interval.",
        rows,
        spec,
    )


def annotator_agreement(result: StudyReport) -> Figure | None:
    """Pairwise agreement per annotator pair and Krippendorff's alpha, per rating kind."""
    rows: list[dict[str, Any]] = []
    for stats in (result.correctness, result.answers):
        for pair in stats.pairs:
            if pair.share is not None:
                rows.append(
                    {
                        "rating": stats.what,
                        "statistic": f"{pair.first} & {pair.second}",
                        "kind": "pair agreement",
                        "value": pair.share,
                        "low": None,
                        "high": None,
                        "n": pair.n,
                    }
                )
        if stats.alpha is not None:
            interval = stats.interval
            rows.append(
                {
                    "rating": stats.what,
                    "statistic": "Krippendorff's alpha",
                    "kind": "alpha",
                    "value": stats.alpha,
                    "low": None if interval is None else interval.low,
                    "high": None if interval is None else interval.high,
                    "n": stats.items,
                }
            )
    if not rows:
        return None
    y = {"field": "statistic", "type": "nominal", "title": None, "sort": None,
         "axis": {"labelLimit": 260}}  # fmt: skip
    x = {"field": "value", "type": "quantitative", "scale": {"domain": [-1, 1]},
         "title": "Agreement (share alike) / alpha (95% bootstrap interval)"}  # fmt: skip
    spec = _spec(
        rows,
        {
            "facet": {"row": {"field": "rating", "type": "nominal", "title": None,
                              "sort": None, "header": {"labelAngle": 0, "labelAlign": "left",
                                                       "labelOrient": "top",
                                                       "labelFontWeight": "bold"}}},
            "resolve": {"scale": {"y": "independent"}},
            "spec": {
                "width": 380,
                "height": {"step": 24},
                "layer": [
                    {"mark": {"type": "rule", "color": "#222", "strokeWidth": 1.5},
                     "encoding": {"y": y, "x": {"field": "low", "type": "quantitative"},
                                  "x2": {"field": "high"}}},
                    {"mark": {"type": "point", "filled": True, "size": 70},
                     "encoding": {"y": y, "x": x,
                                  "color": {"field": "kind", "type": "nominal",
                                            "title": None}}},
                ],
            },
        },
    )  # fmt: skip
    del spec["width"]
    return Figure(
        "annotator-agreement",
        "Agreement between annotators",
        "On the instances two or more annotators did: each pair's share of shared instances "
        "rated alike (correctness; and the cleaned answers of exact-match instances), and "
        "nominal Krippendorff's alpha with its seeded percentile bootstrap 95% interval.",
        rows,
        spec,
    )


def study_figures(result: StudyReport) -> list[Figure]:
    """The study's figures: the report's, then the annotators' accuracy and agreement."""
    own = [annotator_accuracy(result), annotator_agreement(result)]
    return [*report_figures(result.report), *(f for f in own if f is not None)]


def study_report_html(result: StudyReport) -> tuple[str, list[Figure]]:
    """The study report as one self-contained HTML page, and its figures."""
    import json

    from crmtui.review.report_format import later_notes, report_notes, report_tables
    from crmtui.review.report_html import html_page
    from crmtui.study.render import study_grids, study_notes, study_report_json

    figures = study_figures(result)
    page = html_page(
        title=f"crmtui study report: {result.study.name}",
        meta=f"{len(result.study.annotators)} annotator(s), "
        f"{len(result.study.design.types)} instance(s); "
        f"{len(result.report.sessions)} counted session(s).",
        figures=figures,
        tables=[*report_tables(result.report), *study_grids(result)],
        notes=[*study_notes(result), *later_notes(result.report), *report_notes(result.report)],
        data=json.loads(study_report_json(result)),
    )  # fmt: skip
    return page, figures
