"""Which columns a related list shows, per child object, so a person can pick a record.

A bare list of Ids does not tell which of an Account's Orders was placed on a given day or
which item of an Order is the tent. Each child object names the columns that identify its
records (name or subject, dates, status, a product's name through its reference) and the
order its list is sorted in. Defined here, in the play core, not in the widget, so the
record browser, tests and replays agree on what a related list is.
"""

from __future__ import annotations

from dataclasses import dataclass

from crmtui.data.schema import Schema, SObject


@dataclass(frozen=True)
class RelatedSpec:
    """How related lists of one child object look.

    Attributes:
        columns: Fields or parent paths (``Product2.Name``) shown after the Id.
        order: The ORDER BY clause (Id is always the last tie-breaker).
    """

    columns: tuple[str, ...]
    order: str = ""


RELATED: dict[str, RelatedSpec] = {
    "Contact": RelatedSpec(("Name", "Email"), "LastName, FirstName"),
    "Case": RelatedSpec(
        ("Subject", "Status", "CreatedDate", "ClosedDate", "Owner.Name"), "CreatedDate DESC"
    ),
    "Order": RelatedSpec(("EffectiveDate", "Status", "Account.Name"), "EffectiveDate DESC"),
    "OrderItem": RelatedSpec(
        ("Product2.Name", "Quantity", "UnitPrice", "Order.EffectiveDate"),
        "Order.EffectiveDate DESC",
    ),
    "EmailMessage": RelatedSpec(("Subject", "MessageDate", "FromAddress"), "MessageDate"),
    "LiveChatTranscript": RelatedSpec(("EndTime", "Owner.Name", "Case.Subject"), "EndTime"),
    "CaseHistory__c": RelatedSpec(
        ("CreatedDate", "Field__c", "OldValue__c", "NewValue__c"), "CreatedDate"
    ),
    "PricebookEntry": RelatedSpec(
        ("Product2.Name", "Pricebook2.Name", "UnitPrice"), "Product2.Name"
    ),
    "ProductCategoryProduct": RelatedSpec(("ProductCategory.Name", "Product.Name")),
    # CRMArena-Pro's sales objects: what a salesperson's related lists show.
    "Task": RelatedSpec(
        ("Subject", "Status", "Priority", "ActivityDate", "Owner.Name"), "ActivityDate DESC"
    ),
    "Event": RelatedSpec(
        ("Subject", "StartDateTime", "DurationInMinutes", "Location", "Owner.Name"),
        "StartDateTime DESC",
    ),
    "Opportunity": RelatedSpec(
        ("Name", "StageName", "Amount", "CloseDate", "Owner.Name"), "CloseDate DESC"
    ),
    "OpportunityLineItem": RelatedSpec(
        ("Product2.Name", "Quantity", "TotalPrice", "Opportunity.Name"), "Product2.Name"
    ),
    "Quote": RelatedSpec(("Name", "Status", "CreatedDate", "ExpirationDate"), "CreatedDate DESC"),
    "QuoteLineItem": RelatedSpec(
        ("Product2.Name", "Quantity", "UnitPrice", "Discount", "TotalPrice", "Quote.Name"),
        "Product2.Name",
    ),
    "Contract": RelatedSpec(
        ("Status", "StartDate", "ContractTerm", "CompanySignedDate", "CustomerSignedDate"),
        "StartDate DESC",
    ),
    "Lead": RelatedSpec(("Name", "Company", "Status", "IsConverted", "CreatedDate")),
    "VoiceCallTranscript__c": RelatedSpec(("CreatedDate", "EndTime__c"), "CreatedDate"),
    "UserTerritory2Association": RelatedSpec(("User.Name", "Territory2.Name")),
}

#: Label fields tried, in order, for objects without an entry in :data:`RELATED`.
_LABELS = ("Name", "Subject", "Title")


def _resolves(schema: Schema, obj: SObject, path: str) -> bool:
    """Whether ``path`` (a field or a parent path) exists on ``obj`` in this schema."""
    current = obj
    *parents, last = path.split(".")
    for part in parents:
        ref = current.relationship(part)
        if ref is None or not ref.reference_to or ref.reference_to not in schema:
            return False
        current = schema.require(ref.reference_to)
    if last == "Name" and current.has_compound_name:
        return True
    return current.field(last) is not None


def _through(path: str, relationship: str | None, field: str) -> bool:
    """Whether ``path`` is the lookup itself or goes through it (it would repeat the parent)."""
    head = path.split(".", 1)[0]
    return head.lower() == field.lower() or (
        relationship is not None and "." in path and head.lower() == relationship.lower()
    )


def related_columns(schema: Schema, child: str, via_field: str) -> list[str]:
    """The columns a related list of ``child`` records shows when reached through ``via_field``.

    Columns that would only repeat the parent being viewed (the lookup itself, or a path
    through it: an Account's Orders do not show ``Account.Name``) are left out, and so are
    columns this org's schema does not have (an imported org may differ).
    """
    obj = schema.require(child)
    via = obj.field(via_field)
    relationship = via.relationship_name if via is not None else None
    spec = RELATED.get(obj.name)
    if spec is None:
        candidates = [name for name in _LABELS if _resolves(schema, obj, name)][:1]
    else:
        candidates = list(spec.columns)
    return [
        path
        for path in candidates
        if not _through(path, relationship, via_field) and _resolves(schema, obj, path)
    ]


def related_order(schema: Schema, child: str, columns: list[str]) -> str:
    """The ORDER BY clause of a related list (the spec's order if it resolves, then Id)."""
    obj = schema.require(child)
    spec = RELATED.get(obj.name)
    if spec is None or not spec.order:
        return "Id"
    keys = []
    for item in spec.order.split(","):
        path = item.strip().split()[0]
        if not _resolves(schema, obj, path):
            return "Id"
        keys.append(item.strip())
    return ", ".join([*keys, "Id"])
