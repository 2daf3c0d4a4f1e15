"""The service side of a CRMArena-Pro org: the CRMArena sample's 16 objects in Pro's shape.

The cases, their histories, conversations, orders and knowledge of the CRMArena generator are
kept as they are (so the nine service task types keep their latent structure and solvers);
what differs is who the customers are. In the b2b org every customer account becomes a
business (name, industry, head count) whose Contact is the person who writes to support; in
the b2c org it stays a person account (Account carries the name and email, Contact only links
to it), as upstream's two schemas have it. Account and Contact Ids do not change, so every
case, order and chat still points at the same customer.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping

from crmtui.data.schema import Schema
from crmtui.org.generator.catalog import ISSUES

Row = dict[str, str | None]

#: Industry -> (name patterns, employee range). ``{city}`` and ``{surname}`` are filled in.
INDUSTRIES: dict[str, tuple[tuple[str, ...], tuple[int, int]]] = {
    "Sporting Goods Retail": (
        ("{city} Outdoor Supply", "{surname} Sports", "{city} Trail & Run", "{surname} Outfitters"),
        (8, 120),
    ),
    "Schools and Universities": (
        ("{city} High School Athletics", "{surname} Academy Sports", "{city} College Athletics"),
        (40, 900),
    ),
    "Sports Clubs": (
        ("{city} Striders Running Club", "{city} Tennis Club", "{city} Swim Team", "{surname} FC"),
        (3, 60),
    ),
    "Fitness Centers": (
        ("{surname} Fitness", "{city} Strength Studio", "{city} Athletic Club"),
        (6, 150),
    ),
    "Outdoor Recreation": (
        ("{city} Adventure Tours", "{surname} Climbing Gym", "{city} Paddle & Hike"),
        (5, 80),
    ),
    "Hospitality": (("{city} Lakeside Resort", "{surname} Mountain Lodge"), (30, 400)),
}

#: Our own one-line description of each CRMArena issue.
ISSUE_DESCRIPTIONS = {
    "Size chart mismatch": "The item's fit does not match the size chart the customer ordered by.",
    "Wrong item received": "The package held a different product, size or colour than ordered.",
    "Delayed delivery": "The order has not arrived by the delivery date it was promised for.",
    "Cancel order": "The customer wants to cancel an order before or after it shipped.",
    "Defective zipper": "A zipper on a garment jams, splits or breaks off.",
    "Sole separation": "The sole of a shoe comes loose from the upper.",
    "Color differs from photos": "The product's colour looks different from the product photos.",
    "Damaged in transit": "The item arrived broken, dented or torn from shipping.",
    "Missing parts": "Equipment arrived without some of its parts or hardware.",
    "Refund not received": "A refund that was issued has not reached the customer.",
    "Fabric pilling": "The fabric forms small balls of fibre after little use.",
    "Return label request": "The customer needs a prepaid label to send an item back.",
}
assert set(ISSUE_DESCRIPTIONS) == {name for name, _ in ISSUES}


def reshape_service(
    tables: Mapping[str, list[Row]], org_type: str, rng: random.Random, surnames: list[str]
) -> dict[str, list[Row]]:
    """The 16 service objects, reshaped for ``org_type`` (see the module docstring).

    Order owners are left empty here; the sales team fills them in
    (:func:`crmtui.org.generator.pro.team.assign_order_owners`).
    """
    out = {name: list(rows) for name, rows in tables.items()}
    out["User"] = [{**row, "ProfileId": "Service User"} for row in tables["User"]]
    if org_type == "b2b":
        out["Account"] = _business_accounts(tables["Account"], rng, surnames)
        out["Contact"] = [
            {k: c[k] for k in ("Id", "AccountId", "Email", "FirstName", "LastName")}
            for c in tables["Contact"]
        ]
    else:
        out["Account"] = [_person_account(a) for a in tables["Account"]]
        out["Contact"] = [{"Id": c["Id"], "AccountId": c["AccountId"]} for c in tables["Contact"]]
    text_field = "IssueDescription__c" if org_type == "b2b" else "Description__c"
    out["Issue__c"] = [
        {**row, text_field: ISSUE_DESCRIPTIONS[str(row["Name"])]} for row in tables["Issue__c"]
    ]
    if org_type == "b2c":
        out["OrderItem"] = [
            _renamed(row, "PriceBookEntryId", "PricebookEntryId") for row in tables["OrderItem"]
        ]
    out["EmailMessage"] = [
        {**row, "RelatedToId": row.get("ParentId")} for row in tables["EmailMessage"]
    ]
    return out


def _renamed(row: Row, old: str, new: str) -> Row:
    copy = dict(row)
    copy[new] = copy.pop(old, None)
    return copy


def _person_account(row: Row) -> Row:
    name = f"{row['FirstName']} {row['LastName']}"
    place = f"{row.get('ShippingCity')}, {row.get('ShippingState')}"
    return {
        "Id": row["Id"],
        "Name": name,
        "FirstName": row["FirstName"],
        "LastName": row["LastName"],
        "PersonEmail": row["PersonEmail"],
        "Phone": row["Phone"],
        "ShippingState": row["ShippingState"],
        "Description": f"Personal customer account of {name} in {place}.",
    }


def _business_accounts(rows: Iterable[Row], rng: random.Random, surnames: list[str]) -> list[Row]:
    industries = list(INDUSTRIES)
    taken: set[str] = set()
    out = []
    for row in rows:
        industry = rng.choice(industries)
        patterns, (low, high) = INDUSTRIES[industry]
        city = str(row.get("ShippingCity") or "Springfield")
        name = rng.choice(patterns).format(city=city, surname=rng.choice(surnames))
        while name in taken:
            name = f"{name} {rng.choice(('North', 'South', 'East', 'West', 'Central', 'United'))}"
        taken.add(name)
        employees = int(round(rng.uniform(low, high)))
        out.append(
            {
                "Id": row["Id"],
                "Name": name,
                "Industry": industry,
                "NumberOfEmployees": str(employees),
                "Phone": row["Phone"],
                "ShippingState": row["ShippingState"],
                "Description": (
                    f"{name} ({industry.lower()}, {employees} staff) in {city}, "
                    f"{row.get('ShippingState')}; buys team and staff gear in bulk."
                ),
            }
        )
    return out


def project(tables: Mapping[str, Iterable[Row]], schema: Schema) -> dict[str, list[Row]]:
    """Every object of ``schema`` with its rows cut to the schema's fields (missing ones
    empty), so the writer sees exactly the Pro layout."""
    out: dict[str, list[Row]] = {}
    for obj in schema:
        names = obj.field_names
        out[obj.name] = [{n: row.get(n) for n in names} for row in tables.get(obj.name, ())]
    return out
