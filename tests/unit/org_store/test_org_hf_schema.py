"""``org import --schema hf|hf:FILE``: the prompts' schema text from upstream's HF schema,
with the columns it lacks kept, left out of the prompt, or described, as asked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crmtui.cli import main
from crmtui.org.importer import import_org
from crmtui.org.sample import open_org_or_sample
from crmtui.query import run
from crmtui.upstream.redirect import schema_rows


def _hf_file(tmp_path: Path) -> Path:
    """An HF-format schema lacking EmailMessage.ToAddress (as upstream's file does)."""
    from crmtui.data.schema import builtin_schema

    rows = []
    for obj in builtin_schema():
        fields = {f.name: f"HF says: {f.name}" for f in obj.listed_fields}
        fields.pop("ToAddress", None)
        rows.append({"object": obj.name, "fields": fields})
    path = tmp_path / "schema.json"
    path.write_text(json.dumps(rows))
    return path


@pytest.mark.parametrize("how", ["keep", "omit", "describe"])
def test_extra_columns_are_kept_and_listed_as_asked(tmp_path: Path, how: str) -> None:
    sample = open_org_or_sample(None)
    org = import_org(
        sample.path, name=f"hf-{how}", schema=f"hf:{_hf_file(tmp_path)}", extra_columns=how
    )
    text = org.schema.render_prompt_text()
    lines = [line for line in text.splitlines() if "ToAddress" in line]
    assert {"keep": ["  - ToAddress: "], "omit": []}.get(how, lines) == lines
    if how == "describe":
        assert lines and lines[0].startswith("  - ToAddress: ") and len(lines[0]) > 16
    assert "  - Subject: HF says: Subject" in text  # the HF descriptions, through datasets
    # Whatever the prompt says, the column stays queryable (upstream's tool selects it).
    assert run(org, "SELECT ToAddress FROM EmailMessage LIMIT 1").records


def test_upstream_agents_read_the_hf_schema_exactly(shared_dir: Path) -> None:
    """With --schema hf:FILE --extra-columns omit, upstream's harness (through crmtui's hook)
    is served the HF schema rows unchanged: the paper's schema text."""
    hf = shared_dir / "crmarena_schema.json"
    org = import_org(
        open_org_or_sample(None).path, name="hf-paper", schema=f"hf:{hf}", extra_columns="omit"
    )
    assert schema_rows(org.schema) == json.loads(hf.read_text())


def test_cli_states_what_it_did_with_extra_columns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _hf_file(tmp_path)
    sample = str(open_org_or_sample(None).path)
    main(["org", "import", sample, "--name", "cli-hf", "--schema", f"hf:{path}",
          "--extra-columns", "omit"])  # fmt: skip
    out = capsys.readouterr().out
    assert "Schema text: the schema's descriptions; left out:" in out
    assert "EmailMessage.ToAddress" in out
