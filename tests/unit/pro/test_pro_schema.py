"""crmtui's own CRMArena-Pro schemas: 27 objects each, prefixes, types and the b2b/b2c split."""

from __future__ import annotations

import pytest

from crmtui.org.generator.pro.config import pro_schema


@pytest.mark.parametrize("org_type", ["b2b", "b2c"])
def test_every_object_has_a_key_prefix_and_numbers_are_typed(org_type: str) -> None:
    schema = pro_schema(org_type)
    assert len(schema) == 27
    assert all(obj.key_prefix for obj in schema)
    assert schema.require("Lead").require_field("Phone").type == "phone"
    assert schema.require("QuoteLineItem").require_field("Discount").type == "double"
    assert schema.require("Opportunity").require_field("StageName").type == "picklist"
    status = schema.require("Knowledge__kav").field("PublishStatus")
    assert status is not None and not status.listed


def test_b2b_and_b2c_differ_as_upstreams_schemas_do() -> None:
    b2b, b2c = pro_schema("b2b"), pro_schema("b2c")
    assert {"Industry", "NumberOfEmployees"} <= set(b2b.require("Account").field_names)
    assert {"FirstName", "LastName", "PersonEmail"} <= set(b2c.require("Account").field_names)
    assert set(b2c.require("Contact").field_names) == {"Id", "AccountId"}
    assert "CompanySignedDate" in b2b.require("Contract").field_names
    assert "CompanySignedDate" not in b2c.require("Contract").field_names
    assert "TranscriptBody__c" in b2b.require("VoiceCallTranscript__c").field_names
    assert "Body__c" in b2c.require("VoiceCallTranscript__c").field_names
