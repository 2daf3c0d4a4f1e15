"""Write crmtui's own CRMArena-Pro schema files (crmtui/data/crmarenapro_{b2b,b2c}_schema.json).

Reads upstream's Pro schemas (../shared/crmarena/crmarenapro_*_schema.json) for
the facts only: object names, field names, and the field types and lookup targets crmtui
infers from them. Upstream's descriptions are not carried over: every field gets a short
description of our own made from its name and type (builtin fields keep crmtui's builtin
descriptions). Types inferred from names are corrected where the name misleads (a lead's
``Phone`` is not a number, a discount is), the sales objects get Salesforce's key prefixes,
and Knowledge__kav keeps the two unlisted fields upstream's knowledge search filters on.
Run from the repository root:

    .venv/bin/python scripts/make_pro_schemas.py [SHARED_DIR]

SHARED_DIR defaults to ../shared/crmarena beside the checkout.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from crmtui.data.schema import Field, Schema, SObject, builtin_schema, implied_value
from crmtui.rest.describe import label

SHARED = Path(__file__).resolve().parents[2] / "shared" / "crmarena"
OUT = Path(__file__).resolve().parents[1] / "crmtui" / "data"


#: Salesforce's key prefixes of the objects CRMArena-Pro adds (the 16 service objects keep
#: the builtin schema's).
KEY_PREFIXES = {
    "Opportunity": "006",
    "OpportunityLineItem": "00k",
    "Quote": "0Q0",
    "QuoteLineItem": "0QL",
    "Contract": "800",
    "VoiceCallTranscript__c": "a0V",
    "Task": "00T",
    "Event": "00U",
    "Territory2": "0MI",
    "UserTerritory2Association": "0R0",
    "Lead": "00Q",
}
#: Field types the name-based inference gets wrong, as Salesforce types them.
TYPE_FIXES = {
    ("Account", "NumberOfEmployees"): "int",
    ("Lead", "Phone"): "phone",
    ("Lead", "Status"): "picklist",
    ("Opportunity", "Probability"): "double",
    ("Opportunity", "StageName"): "picklist",
    ("Quote", "Status"): "picklist",
    ("QuoteLineItem", "Discount"): "double",
    ("Contract", "ContractTerm"): "int",
    ("Contract", "Status"): "picklist",
    ("Task", "Priority"): "picklist",
    ("Task", "Status"): "picklist",
    ("Event", "DurationInMinutes"): "int",
    ("VoiceCallTranscript__c", "TranscriptBody__c"): "textarea",
    ("VoiceCallTranscript__c", "Body__c"): "textarea",
    ("Issue__c", "IssueDescription__c"): "textarea",
    ("Issue__c", "Description__c"): "textarea",
}

#: Our own words for fields whose values a task needs to know (picklist values, units,
#: formulas); other fields get the generic description made by :func:`describe`.
DESCRIPTIONS = {
    ("Opportunity", "StageName"): (
        "Sales stage: Qualification, Discovery, Quote, Negotiation or Closed"
    ),
    ("Opportunity", "Amount"): "Value of the deal: the sum of its line items' TotalPrice",
    ("Opportunity", "Probability"): "Estimated chance of winning the deal, in percent",
    ("Opportunity", "ContractID__c"): "The deal's contract, once there is one: lookup to Contract",
    ("Opportunity", "CloseDate"): "Date the deal closed or is expected to close",
    ("Quote", "Status"): (
        "Quote status: Draft, Needs Review, In Review, Approved, Rejected, Presented, "
        "Accepted or Denied"
    ),
    ("Quote", "ExpirationDate"): "Date and time until which the quoted prices hold",
    ("QuoteLineItem", "Discount"): "Discount on the line, in percent (10.0 = 10%)",
    ("QuoteLineItem", "TotalPrice"): "Quantity x UnitPrice less the discount",
    ("OpportunityLineItem", "TotalPrice"): "Price of the line after its discount",
    ("Contract", "Status"): (
        "Contract status, such as Draft, In Approval Process, Activated, Signed or Canceled"
    ),
    ("Contract", "CompanySignedDate"): "Date our company signed the contract (YYYY-MM-DD)",
    ("Contract", "CustomerSignedDate"): "Date the customer signed the contract (YYYY-MM-DD)",
    ("Contract", "ContractTerm"): "Length of the contract in months",
    ("Task", "Status"): "Task status: Not Started, In Progress, Completed, Waiting or Deferred",
    ("Task", "Priority"): "Task priority: Low, Medium, High or Urgent",
    ("Task", "WhatId"): "The opportunity the task belongs to: lookup to Opportunity",
    ("Event", "WhatId"): "The opportunity the meeting belongs to: lookup to Opportunity",
    ("Lead", "Status"): ("Lead status: New, Contacted, Qualified, Proposal, Negotiation or Closed"),
    ("Lead", "IsConverted"): "Whether the lead was converted into an account and contact",
    ("Lead", "ConvertedDate"): "Date the lead was converted (YYYY-MM-DD), if it was",
    ("Territory2", "Description"): "The states the territory covers, comma separated (CA,NV,OR)",
    ("VoiceCallTranscript__c", "LeadId__c"): "The lead on the call, if any: lookup to Lead",
    ("VoiceCallTranscript__c", "OpportunityId__c"): (
        "The deal discussed on the call, if any: lookup to Opportunity"
    ),
}

#: Our own description of each object where the builtin one does not fit (the builtin org's
#: accounts are people; the b2b org's are businesses) or is missing (the sales objects).
OBJECT_DESCRIPTIONS = {
    "User": "Service agents and sales representatives",
    "Opportunity": "Sales deals with a customer account, from qualification to closing",
    "OpportunityLineItem": "Products and quantities of an opportunity",
    "Quote": "Price offers made for an opportunity",
    "QuoteLineItem": "Products, quantities and discounts of a quote",
    "Contract": "Signed agreements of won opportunities",
    "VoiceCallTranscript__c": "Transcripts of sales calls with leads and about opportunities",
    "Task": "To-dos on opportunities: planned, in progress or completed",
    "Event": "Meetings held about opportunities",
    "Territory2": "Sales territories and the states they cover",
    "UserTerritory2Association": "Which sales representatives cover which territories",
    "Lead": "Prospective customers, before and after conversion",
}
ORG_OBJECT_DESCRIPTIONS = {
    "b2b": {
        "Account": "Customer businesses: clubs, schools, shops and other organisations",
        "Contact": "The people who buy and write to us for a customer business",
    },
    "b2c": {
        "Account": "Person accounts: one per customer, with their name and email",
        "Contact": "The contact record behind each person account",
    },
}


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


def convert(source: Path, org: str) -> Schema:
    upstream = Schema.load(source)
    builtin = builtin_schema()
    objects = []
    for obj in upstream:
        known = builtin.get(obj.name)
        fields = []
        for field in obj.fields:
            base = known.field(field.name) if known else None
            kind = TYPE_FIXES.get((obj.name, field.name), field.type)
            typed = Field(field.name, kind, field.description, field.reference_to, field.listed)
            text = DESCRIPTIONS.get((obj.name, field.name)) or (
                base.description
                if base is not None and base.description
                else describe(typed, obj.name)
            )
            fields.append(Field(field.name, kind, text, field.reference_to, field.listed))
        if known is not None:
            # Unlisted builtin fields (Knowledge__kav.PublishStatus, .Language) stay queryable.
            names = {f.name for f in fields}
            fields += [
                f
                for f in known.fields
                if f.name not in names and implied_value(obj.name, f.name) is not None
            ]
        prefix = obj.key_prefix or KEY_PREFIXES.get(obj.name)
        text = (
            ORG_OBJECT_DESCRIPTIONS[org].get(obj.name)
            or OBJECT_DESCRIPTIONS.get(obj.name)
            or (known.description if known else "")
        )
        objects.append(SObject(obj.name, tuple(fields), prefix, text))
    return Schema(objects)


def main() -> None:
    shared = Path(sys.argv[1]) if len(sys.argv) > 1 else SHARED
    for org in ("b2b", "b2c"):
        schema = convert(shared / f"crmarenapro_{org}_schema.json", org)
        target = OUT / f"crmarenapro_{org}_schema.json"
        target.write_text(json.dumps(schema.to_json(), indent=1) + "\n", encoding="utf-8")
        print(f"{target}: {len(schema)} objects, {sum(len(o.fields) for o in schema)} fields")


if __name__ == "__main__":
    main()
