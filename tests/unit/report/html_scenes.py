"""Recordings for the HTML report tests: a small study with a model beside it, and a folder
with people, models and dialogues (the report fixture plus two dialogues)."""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path

from crmtui.study import StudyRequest, create_study
from crmtui.study.definition import Settings, Study
from tests.unit.dialogue.builders import ANN, BEN, MODEL, SIM, write_dialogue
from tests.unit.study.helpers import model_session, record_session, task_set, workspace

NOW = dt.datetime(2026, 3, 1, 9, 0, tzinfo=dt.UTC)
GOLD = {"handle_time": "005Ws0000000001AAA", "best_region_identification": "CA"}


def make_study(studies: Path) -> tuple[Study, Path]:
    """Two annotators on every instance (2 per type) and a model on four of them.

    Returns the study and the model recordings folder. Point ``CRMTUI_STUDIES`` at
    ``studies`` before calling.
    """
    study, _ = create_study(
        StudyRequest(
            name="figures",
            annotators=["ann", "ben"],
            per_type=2,
            shared=1.0,
            overlap=2,
            seed=1,
            practice=0,
            settings=Settings(),
        ),
        workspace=workspace(),
        now=NOW,
    )
    tasks = task_set()

    def of(code: str) -> list[int]:
        return sorted(idx for idx, c in study.design.types.items() if c == code)

    htu, bri, kqa = of("handle_time"), of("best_region_identification"), of("knowledge_qa")
    answers = {
        "ann": {htu[0]: GOLD["handle_time"], htu[1]: GOLD["handle_time"], bri[0]: "CA",
                bri[1]: "NY", kqa[0]: "rubber sole and mesh upper", kqa[1]: "mesh upper"},
        "ben": {htu[0]: GOLD["handle_time"], htu[1]: "005Ws0000000009AAA", bri[0]: "TX",
                bri[1]: "CA", kqa[0]: "rubber sole", kqa[1]: "leather"},
    }  # fmt: skip
    for name, given in answers.items():
        for idx, answer in given.items():
            record_session(study.recordings, tasks.get(idx), name, answer=answer,
                           seconds=20 + 7 * (idx % 5) + (15 if name == "ben" else 0))  # fmt: skip
    models = study.folder / "model-runs"
    for idx, answer in ((htu[0], GOLD["handle_time"]), (htu[1], "x"), (bri[0], "NY"),
                        (bri[1], "CA"), (kqa[0], "rubber sole and mesh upper")):  # fmt: skip
        model_session(models, tasks.get(idx), "openai/gpt-x", answer)
    return study, models


def make_folder(root: Path, fixture_root: Path) -> Path:
    """The report fixture plus dialogues (model/model, human/model, model/human)."""
    shutil.copytree(fixture_root, root / "fixture")
    dialogues = root / "dialogues"
    dialogues.mkdir()
    write_dialogue(dialogues, MODEL, SIM, ["Fastest?", "Which quarter?", "Q2", "005A"], 1.0)
    write_dialogue(dialogues, MODEL, SIM, ["Fastest?", "005B"], 0.0, idx=89)
    write_dialogue(dialogues, ANN, SIM, ["Fastest?", "Which quarter?", "Q2", "005A"], 1.0)
    write_dialogue(dialogues, MODEL, BEN, ["Fastest?", "Which quarter?", "Q2"], None)
    return root
