"""Test-wide determinism: a private CRMTUI_HOME, offline flags, no network.

Environment variables are set at import time because ``datasets`` reads ``HF_HOME`` when it
is first imported.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import pytest

_SESSION_HOME = Path(tempfile.mkdtemp(prefix="crmtui-test-home-"))
os.environ["CRMTUI_HOME"] = str(_SESSION_HOME / "crmtui")
os.environ["HF_HOME"] = str(_SESSION_HOME / "hf")
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["HF_DATASETS_OFFLINE"] = "1"
os.environ["HF_UPDATE_DOWNLOAD_COUNTS"] = "0"
os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
os.environ["LITELLM_OFFLINE_MODE"] = "true"
os.environ.setdefault("NO_COLOR", "1")
for _key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"):
    os.environ.pop(_key, None)

# ../shared/crmarena beside the checkout (CI's layout); CRMTUI_SHARED (or CRMTUI_SHARED_DIR)
# names another ``shared`` folder (a worktree whose parent has none).
SHARED = (
    Path(
        os.environ.get("CRMTUI_SHARED")
        or os.environ.get("CRMTUI_SHARED_DIR")
        or Path(__file__).resolve().parents[2] / "shared"
    )
    / "crmarena"
)

# --preset naacl|head read upstream's tool schemas from its harness folder: the shared
# copies where present, else a stand-in holding crmtui's own words (tests/fakes).
if (SHARED / "upstream-harness").is_dir() and (SHARED / "upstream-harness-naacl").is_dir():
    _HARNESSES = [SHARED / "upstream-harness", SHARED / "upstream-harness-naacl"]
else:
    from tests.fakes.upstream_harness import write_fake_harness

    _HARNESSES = [write_fake_harness(_SESSION_HOME / f"harness-{v}", v) for v in ("head", "naacl")]
os.environ["CRMTUI_UPSTREAM_DIR"] = os.pathsep.join(str(p) for p in _HARNESSES)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: one worker more than the machine has cores. Many tests wait (for a
    subprocess, a 127.0.0.1 server, a screen to settle) and two workers on two cores were
    busy only about two thirds of the time; the extra worker fills those waits.
    ``CRMTUI_TEST_WORKERS=N`` sets the count instead (to measure another)."""
    chosen = os.environ.get("CRMTUI_TEST_WORKERS", "").strip()
    if chosen.isdigit() and int(chosen) > 0:
        return int(chosen)
    return (os.cpu_count() or 1) + 1


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--run-slow", action="store_true", help="run tests marked slow")


#: Files whose tests take the longest (the monkey's scenes run 20-60 s each): they run first,
#: so that the suite's last minutes are short tests spread over every worker rather than one
#: long test on one core while the other waits (the order changes nothing else: every test
#: builds its own state).
LONGEST_FIRST = (
    "tests/ui/test_monkey.py",
    "tests/ui/test_input_integrity.py",
    "tests/ui/test_no_soql_solves.py",
    "tests/ui/test_workbench_solves.py",
    "tests/ui/test_play_flow.py",
    "tests/ui/test_one_submission.py",
    "tests/ui/test_study_gates.py",
)


def _rank(item: pytest.Item) -> int:
    path = item.nodeid.split("::", 1)[0]
    return LONGEST_FIRST.index(path) if path in LONGEST_FIRST else len(LONGEST_FIRST)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    items.sort(key=_rank)  # stable: the rest keeps its order
    if config.getoption("--run-slow"):
        return
    skip = pytest.mark.skip(reason="slow: pass --run-slow to run")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(autouse=True, scope="session")
def _orgs_built_once(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Each distinct ``build_org`` of the run is built once and copied after (tests/org_cache.py):
    the fresh home of every test rebuilt the same sample org 107 times a run."""
    import crmtui.org.build
    from tests.org_cache import cached_builder

    base = tmp_path_factory.getbasetemp()
    folder = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "built-orgs"
    real = crmtui.org.build.build_org
    crmtui.org.build.build_org = cached_builder(real, folder)
    yield
    crmtui.org.build.build_org = real


@pytest.fixture(autouse=True)
def crmtui_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point CRMTUI_HOME at a fresh tmp dir for every test."""
    home = tmp_path / "crmtui-home"
    monkeypatch.setenv("CRMTUI_HOME", str(home))
    return home


@pytest.fixture
def shared_dir() -> Path:
    """The ../shared/crmarena folder; skips the test when it is absent."""
    if not SHARED.is_dir():
        pytest.skip("../shared/crmarena is not present")
    return SHARED
