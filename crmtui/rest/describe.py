"""``describeGlobal`` and ``describe`` bodies built from an org's schema.

Only what a read-only client reads is filled in: names, labels, key prefixes, field types,
references, relationship names and child relationships. Every object is queryable,
retrievable and searchable, and nothing is createable, updateable or deletable.
"""

from __future__ import annotations

import re
from typing import Any

from crmtui.data.schema import Field, Schema, SObject

_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z]|\d|$)|[A-Z]?[a-z]+|\d+")


def label(api_name: str) -> str:
    """A label from an API name: ``OwnerId`` -> ``Owner ID``, ``IssueId__c`` -> ``Issue ID``."""
    base = re.sub(r"__(c|r|kav)$", "", api_name)
    words = [w for part in base.split("_") for w in _WORD.findall(part)] or [base]
    words = ["ID" if w == "Id" else w for w in words]
    return " ".join(words)


def _is_custom(name: str) -> bool:
    return name.endswith(("__c", "__kav"))


def object_urls(version: str, name: str) -> dict[str, str]:
    """The ``urls`` block of an object."""
    base = f"/services/data/{version}/sobjects/{name}"
    return {
        "sobject": base,
        "describe": f"{base}/describe",
        "rowTemplate": f"{base}/{{ID}}",
    }


def object_summary(obj: SObject, version: str) -> dict[str, Any]:
    """One entry of ``describeGlobal`` (also the ``objectDescribe`` of ``GET sobjects/X``)."""
    return {
        "name": obj.name,
        "label": label(obj.name),
        "labelPlural": label(obj.name) + "s",
        "keyPrefix": obj.key_prefix,
        "custom": _is_custom(obj.name),
        "queryable": True,
        "retrieveable": True,
        "searchable": True,
        "createable": False,
        "updateable": False,
        "deletable": False,
        "urls": object_urls(version, obj.name),
    }


def describe_global(schema: Schema, version: str) -> dict[str, Any]:
    """The body of ``GET /services/data/vXX.X/sobjects``."""
    return {
        "encoding": "UTF-8",
        "maxBatchSize": 200,
        "sobjects": [object_summary(obj, version) for obj in schema],
    }


def _field(field: Field) -> dict[str, Any]:
    is_id = field.type == "id"
    return {
        "name": field.name,
        "label": label(field.name),
        "type": field.type,
        "referenceTo": [field.reference_to] if field.reference_to else [],
        "relationshipName": field.relationship_name,
        "nillable": not is_id,
        "custom": _is_custom(field.name),
        "idLookup": is_id,
        "createable": False,
        "updateable": False,
        "filterable": True,
        "sortable": True,
        "groupable": True,
        "inlineHelpText": field.description or None,
    }


def describe_object(schema: Schema, obj: SObject, version: str) -> dict[str, Any]:
    """The body of ``GET /services/data/vXX.X/sobjects/X/describe``."""
    body = object_summary(obj, version)
    body["fields"] = [_field(f) for f in obj.fields]
    body["childRelationships"] = [
        {
            "childSObject": rel.child,
            "field": rel.field,
            "relationshipName": rel.name,
            "cascadeDelete": False,
        }
        for rel in schema.children(obj.name)
    ]
    return body
