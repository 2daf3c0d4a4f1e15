"""Small in-memory task sets, studies and real recordings for the study tests."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from pathlib import Path

from crmtui.data.instances import Instance, TaskSet
from crmtui.play.session import PlaySession
from crmtui.play.workspace import Workspace

ORG = {"path": "/orgs/sample.db", "digest": "d" * 64, "name": "sample"}
WHEN = dt.datetime(2026, 3, 1, 9, 0, tzinfo=dt.UTC)

#: task code -> (reward metric, gold answer of every instance of that type)
TYPES = {
    "handle_time": ("exact_match", "005Ws0000000001AAA"),
    "best_region_identification": ("exact_match", "CA"),
    "knowledge_qa": ("fuzzy_match", "rubber sole and mesh upper"),
}


def task_set(per_type: int = 6) -> TaskSet:
    """``per_type`` instances of each of three types, idx 0.. in type blocks."""
    rows = []
    for block, (code, (metric, gold)) in enumerate(TYPES.items()):
        for n in range(per_type):
            rows.append(
                {
                    "idx": block * 100 + n,
                    "task": code,
                    "query": f"Question {n} about {code}?",
                    "answer": gold,
                    "metadata": {"required": "- Today's date: 2024-03-01", "optional": ""},
                    "reward_metric": metric,
                }
            )
    return TaskSet.from_rows(rows, source="memory")


def workspace(per_type: int = 6) -> Workspace:
    """A workspace over :func:`task_set` (no org file needed to create a study)."""
    return Workspace(org=ORG, tasks=task_set(per_type), tasks_label="sample")


class Clock:
    """Monotonic and wall clocks moved by hand."""

    def __init__(self, start: dt.datetime = WHEN) -> None:
        self.mono = 100.0
        self.now = start

    def __call__(self) -> float:
        return self.mono

    def wall(self) -> dt.datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.mono += seconds
        self.now += dt.timedelta(seconds=seconds)


def record_session(
    recordings: Path,
    instance: Instance,
    annotator: str,
    *,
    answer: str | None,
    seconds: float = 30.0,
    clock: Clock | None = None,
    close: bool = True,
    pauses: Sequence[float] = (),
) -> Path:
    """One real recording: start, optional pauses, ``seconds`` of work, submit, close."""
    clock = clock or Clock()
    session = PlaySession.begin(
        instance,
        ORG,
        actor={"kind": "human", "id": annotator},
        tasks_source="sample",
        recordings=recordings,
        clock=clock,
        wall=clock.wall,
        fsync=False,
    )
    session.start()
    for pause in pauses:
        session.pause()
        clock.advance(pause)
        session.resume()
    clock.advance(seconds)
    session.note_input()
    if answer is not None:
        session.submit(answer)
    if close:
        session.close("next")
    else:
        session.recorder.suspend()  # as if the process had died: no end event
    return session.path


def model_session(recordings: Path, instance: Instance, model: str, answer: str) -> Path:
    """A model's recording of one instance (header, submit, end) via the real Recorder."""
    from crmtui.record import Recorder
    from crmtui.scoring import score

    clock = Clock()
    recorder = Recorder.create(
        recordings,
        actor={"kind": "model", "id": model, "strategy": "react"},
        instance=instance,
        org=ORG,
        tasks_source="sample",
        today=instance.today,
        mode="default",
        wall=clock.wall,
        monotonic=clock,
        fsync=False,
    )
    result = score(instance.answer, instance.reward_metric, answer)
    recorder.emit(
        "submit",
        {
            "answer": answer,
            "reward": float(result.reward),
            "scoring": result.method,
            "gold": instance.answer,
        },
    )
    recorder.close("finished", float(result.reward))
    return recorder.path
