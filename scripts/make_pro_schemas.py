"""Write crmtui's own CRMArena-Pro schema files (crmtui/data/crmarenapro_{b2b,b2c}_schema.json).

Reads the Pro schemas beside REFERENCE.md (../shared/crmarena/crmarenapro_*_schema.json) for
the facts only: object names, field names, and the field types and lookup targets crmtui
infers from them. Upstream's descriptions are not carried over: every field gets a short
description of our own made from its name and type (builtin fields keep crmtui's builtin
descriptions). Run from the repository root:

    .venv/bin/python scripts/make_pro_schemas.py
"""

from __future__ import annotations

import json
from pathlib import Path

from crmtui.data.schema import Field, Schema, SObject, builtin_schema
from crmtui.rest.describe import label

SHARED = Path(__file__).resolve().parents[2] / "shared" / "crmarena"
OUT = Path(__file__).resolve().parents[1] / "crmtui" / "data"


def describe(field: Field, obj: str) -> str:
    """Our own one-line description of a field."""
    name = label(field.name)
    if field.type == "id":
        return f"Record Id of the {label(obj)}"
    if field.type == "reference" and field.reference_to:
        return f"{name}: lookup to {field.reference_to}"
    kinds = {
        "date": "a date (YYYY-MM-DD)",
        "datetime": "a date and time (Salesforce datetime)",
        "boolean": "true or false",
        "int": "a whole number",
        "double": "a number",
        "currency": "an amount of money",
        "textarea": "free text",
        "email": "an email address",
        "phone": "a phone number",
        "picklist": "one of a fixed list of values",
    }
    return f"{name} of the {label(obj)}" + (f", {kinds[field.type]}" if field.type in kinds else "")


def convert(source: Path) -> Schema:
    upstream = Schema.load(source)
    builtin = builtin_schema()
    objects = []
    for obj in upstream:
        known = builtin.get(obj.name)
        fields = []
        for field in obj.fields:
            base = known.field(field.name) if known else None
            text = (
                base.description
                if base is not None and base.description
                else describe(field, obj.name)
            )
            fields.append(Field(field.name, field.type, text, field.reference_to, field.listed))
        objects.append(
            SObject(obj.name, tuple(fields), obj.key_prefix, known.description if known else "")
        )
    return Schema(objects)


def main() -> None:
    for org in ("b2b", "b2c"):
        schema = convert(SHARED / f"crmarenapro_{org}_schema.json")
        target = OUT / f"crmarenapro_{org}_schema.json"
        target.write_text(json.dumps(schema.to_json(), indent=1) + "\n", encoding="utf-8")
        print(f"{target}: {len(schema)} objects, {sum(len(o.fields) for o in schema)} fields")


if __name__ == "__main__":
    main()
