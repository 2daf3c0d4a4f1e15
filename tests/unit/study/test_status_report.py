"""Status and report over real recordings of a small study."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from crmtui.study import StudyRequest, create_study, report_study, study_status
from crmtui.study.definition import Settings, Study
from crmtui.study.render import (
    status_grids,
    study_report_json,
    study_report_markdown,
    study_report_text,
)
from tests.unit.study.helpers import Clock, model_session, record_session, task_set, workspace

NOW = dt.datetime(2026, 3, 1, 9, 0, tzinfo=dt.UTC)
GOLD = {"handle_time": "005Ws0000000001AAA", "best_region_identification": "CA"}


@pytest.fixture
def study(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Study:
    """Two annotators, 2 instances per type, every instance shared, one practice."""
    monkeypatch.setenv("CRMTUI_STUDIES", str(tmp_path / "studies"))
    made, _ = create_study(
        StudyRequest(
            name="s",
            annotators=["ann", "ben"],
            per_type=2,
            shared=1.0,
            overlap=2,
            seed=1,
            practice=1,
            settings=Settings(),
        ),
        workspace=workspace(),
        now=NOW,
    )
    return made


def _exact(study: Study, code: str) -> list[int]:
    return sorted(idx for idx, c in study.design.types.items() if c == code)


def test_status_counts_done_in_progress_left_and_time(study: Study) -> None:
    tasks = task_set()
    rec = study.recordings
    first, second = _exact(study, "handle_time")
    clock = Clock()
    record_session(rec, tasks.get(first), "ann", answer="x", seconds=40, clock=clock)
    clock.advance(100)
    # paused 20 s of 50: 30 active
    record_session(rec, tasks.get(second), "ann", answer=None, seconds=30, pauses=[20], clock=clock)
    record_session(rec, tasks.get(study.practice[0]), "ann", answer="p", seconds=10)
    record_session(rec, tasks.get(first), "zed", answer="x")  # not in the study
    (rec / "junk.jsonl").write_text("not json\n")
    status = study_status(study)
    ann, ben = status.annotators
    assert (ann.assigned, ann.done, ann.in_progress, ann.left) == (6, 1, 1, 4)
    assert (ann.practice_done, ann.practice) == (1, 1)
    assert ann.active_seconds == pytest.approx(40 + 30 + 10)
    assert ann.sessions == 3
    assert ann.last_activity is not None and ann.last_activity.startswith("2026-03-01T09:0")
    assert (ben.done, ben.left, ben.last_activity) == (0, 6, None)
    assert status.stray == 1 and status.skipped == 1 and status.files == 5
    row = next(r for r in status.instances if r.idx == first)
    assert row.finished == ["ann"] and row.assigned == ["ann", "ben"] and row.shared
    assert status.to_dict()["annotators"][0]["done"] == 1
    people, _ = status_grids(status, now=NOW + dt.timedelta(hours=2))
    assert people[2][0] == ["ann", "1 / 6", "1", "4", "1 / 1", "1:20", "1 h ago"]


def test_report_restricts_to_the_study_and_measures_agreement(study: Study) -> None:
    tasks = task_set()
    rec = study.recordings
    htu, bri = _exact(study, "handle_time"), _exact(study, "best_region_identification")
    kqa = _exact(study, "knowledge_qa")
    # ann and ben agree on both HTU (both right), disagree on one BRI, agree on the other
    # (both wrong, different answers); KQA both near-right.
    answers = {
        "ann": {htu[0]: GOLD["handle_time"], htu[1]: GOLD["handle_time"], bri[0]: "CA",
                bri[1]: "NY", kqa[0]: "rubber sole and mesh upper", kqa[1]: "mesh upper"},
        "ben": {htu[0]: GOLD["handle_time"], htu[1]: GOLD["handle_time"], bri[0]: "'TX'",
                bri[1]: " WA ", kqa[0]: "rubber sole", kqa[1]: "mesh upper rubber sole"},
    }  # fmt: skip
    for name, given in answers.items():
        for idx, answer in given.items():
            record_session(rec, tasks.get(idx), name, answer=answer, seconds=10 + idx % 7)
    record_session(rec, tasks.get(study.practice[0]), "ann", answer="practice")
    models = rec.parent / "models"
    model_session(models, tasks.get(htu[0]), "gpt-x", GOLD["handle_time"])
    model_session(models, tasks.get(bri[0]), "gpt-x", "NY")
    outside = next(i for i in tasks.idxs if i not in study.design.types)
    model_session(models, tasks.get(outside), "gpt-x", "zzz")

    result = report_study(study, models)
    assert result.excluded["practice"] == 1
    assert result.excluded["model session outside the study's instances"] == 1
    # Correctness over the six shared instances: HTU both right x2, BRI 0:
    # (right, wrong), BRI 1: (wrong, wrong), KQA 0: F1 1.0 vs 0.57.. (both right),
    # KQA 1: both right -> 5 of 6 pairs agree.
    assert result.correctness.items == 6
    assert result.correctness.pairs_agreeing == 5
    # Answers: exact-match instances only (4); cleaned: HTU same x2, BRI CA/TX, NY/WA.
    assert result.answers.items == 4
    assert result.answers.pairs_agreeing == 2
    assert result.answers.pairwise == pytest.approx(0.5)
    ann = result.annotators[0]
    assert (ann.annotator, ann.scored, ann.right) == ("ann", 6, 5)
    assert ann.seconds.n == 6
    assert [item.idx for item in result.instances] == sorted([htu[0], bri[0]])
    verdicts = {item.idx: (item.humans_right, item.models) for item in result.instances}
    assert verdicts[htu[0]] == (2, {"gpt-x (react)": True})
    assert verdicts[bri[0]] == (1, {"gpt-x (react)": False})
    # For adjudication: BRI 0 differs on correctness and answer, BRI 1 on the answer only
    # (both wrong); the KQA pairs are both right (fuzzy: answers are not compared).
    first, second = result.disagreements
    assert (first.idx, first.on, second.idx, second.on) == (
        bri[0], ("correctness", "answers"), bri[1], ("answers",),
    )  # fmt: skip
    assert first.answers == {"ann": "CA", "ben": "'TX'"} and first.gold == "CA"
    assert first.right == {"ann": True, "ben": False}
    # alpha's interval: seeded, so the same twice.
    interval = result.correctness.interval
    assert interval is not None and interval.resamples == 1000 and interval.seed == 0
    assert interval == report_study(study, models).correctness.interval
    text = study_report_text(result)
    assert "Agreement on correctness" in text and "Humans versus models" in text
    assert "1 session(s) left out: practice." in text
    assert "Disagreements to adjudicate" in text and "ann: CA ✔ · ben: 'TX' ✘" in text
    assert "percentile bootstrap over the shared instances, 1000 resamples, seed 0" in text
    doc = study_report_json(result)
    assert '"krippendorff_alpha"' in doc and '"alpha_interval"' in doc
    assert '"disagreements"' in doc
    assert "## Disagreements to adjudicate" in study_report_markdown(result)
    assert "## Agreement on answers (exact match)" in study_report_markdown(result)


def test_qualification_and_instructions_in_status_and_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from crmtui.study import set_qualify
    from crmtui.study.consent import record_answer, text_digest

    monkeypatch.setenv("CRMTUI_STUDIES", str(tmp_path / "studies"))
    made, _ = create_study(
        StudyRequest(
            name="q", annotators=["ann", "ben", "cat"], per_type=1, shared=0.0, overlap=1,
            seed=1, practice=2, settings=Settings(qualify=1), instructions="# Read me\n",
        ),
        workspace=workspace(),
        now=NOW,
    )  # fmt: skip
    tasks = task_set()
    first, second = made.practice
    clock = Clock()
    gold = str(tasks.get(second).answer)
    # ann: wrong, then right -> qualified. ben: both wrong -> not qualified; he opened his
    # second practice again after seeing its gold: only the first submission counts.
    record_session(made.recordings, tasks.get(first), "ann", answer="no", clock=clock)
    record_session(made.recordings, tasks.get(second), "ann", answer=gold, clock=clock)
    record_session(made.recordings, tasks.get(first), "ben", answer="no", clock=clock)
    record_session(made.recordings, tasks.get(second), "ben", answer="no", clock=clock)
    clock.advance(60)
    record_session(made.recordings, tasks.get(second), "ben", answer=gold, clock=clock)
    digest = text_digest("# Read me\n")
    record_answer(made, "ann", digest, True, now=NOW)
    record_answer(made, "ben", "0" * 64, True, now=NOW)  # an earlier text
    record_answer(made, "cat", digest, False, now=NOW)

    status = study_status(made)
    states = {row.annotator: row.qualification.state for row in status.annotators}
    assert states == {"ann": "qualified", "ben": "not qualified", "cat": "pending"}
    consent = {row.annotator: row.instructions["state"] for row in status.annotators}
    assert consent == {"ann": "accepted", "ben": "accepted an older text", "cat": "declined"}
    people, _ = status_grids(status)
    assert people[1][5:7] == ["Qualified", "Consent"]
    assert [row[5:7] for row in people[2]] == [
        ["yes 1/1", "accepted"], ["no 0/1", "older text"], ["pending 0/1", "declined"],
    ]  # fmt: skip
    assert status.to_dict()["annotators"][1]["qualification"]["state"] == "not qualified"

    result = report_study(made)
    assert {n: q.state for n, q in result.qualification.items()} == states
    assert result.instructions == digest and result.consent["ann"]["at"] == "2026-03-01T09:00:00Z"
    text = study_report_text(result)
    assert (
        "Qualification: 1 practice answer(s) right to go on: ann qualified (1 of 2 right)" in text
    )
    assert f"Instructions (sha256 {digest[:12]}…): ann accepted 2026-03-01T09:00:00Z" in text
    # The organizer turns the gate off: the column goes.
    people, _ = status_grids(study_status(set_qualify(str(made.folder), None)))
    assert "Qualified" not in people[1]


def test_tampered_recordings_are_skipped_in_the_report(study: Study) -> None:
    tasks = task_set()
    idx = _exact(study, "handle_time")[0]
    path = record_session(study.recordings, tasks.get(idx), "ann", answer="x")
    lines = path.read_text().splitlines()
    lines[1] = lines[1].replace('"x"', '"y"')
    path.write_text("\n".join(lines) + "\n")
    result = report_study(study)
    assert [s.path for s in result.report.skipped] == [path]
    assert result.report.sessions == []


def test_a_refresh_rereads_only_changed_recordings(study: Study) -> None:
    from crmtui.study.status import scan_recordings

    tasks = task_set()
    idx = _exact(study, "handle_time")[0]
    done = record_session(study.recordings, tasks.get(idx), "ann", answer="x")
    running = record_session(
        study.recordings, tasks.get(_exact(study, "handle_time")[1]), "ann", answer=None,
        close=False,
    )  # fmt: skip
    cache: dict = {}
    first, _ = scan_recordings(study.recordings, cache)
    assert {f.path: f.submitted for f in first} == {done: True, running: False}
    cached = cache[done][1]
    # The running session gets its submission; the finished one is not read again.
    from crmtui.record import Recorder

    recorder = Recorder.resume(running, fsync=False)
    recorder.emit("submit", {"answer": "y", "reward": 0.0, "scoring": "strict", "gold": "z"})
    recorder.close("next", 0.0)
    second, _ = scan_recordings(study.recordings, cache)
    assert {f.path: f.submitted for f in second} == {done: True, running: True}
    assert next(f for f in second if f.path == done) is cached
