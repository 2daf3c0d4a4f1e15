"""A parsed view of a CRMArena-Pro org's sales objects, built once and shared by the solvers.

Like :class:`crmtui.org.solvers.common.OrgIndex` for the service objects: the Pro solvers are
pure functions of the org tables, and :func:`pro_index` parses those tables once so that
thousands of solver runs during task generation do not parse them again. Every solver accepts
either the raw tables or a :class:`ProIndex`. Missing objects read as empty tables.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from fractions import Fraction
from functools import cached_property
from typing import Any

from crmtui.org.solvers.common import Row, parse_datetime

Tables = Mapping[str, Sequence[Row]]


@dataclass(frozen=True)
class Opp:
    """The Opportunity fields the solvers use."""

    id: str
    owner_id: str | None
    created: datetime | None
    stage: str | None
    contract_id: str | None


@dataclass(frozen=True)
class Lead:
    """The Lead fields the solvers use."""

    id: str
    owner_id: str | None
    created: datetime | None
    converted: bool
    converted_date: date | None
    status: str | None


@dataclass(frozen=True)
class QuoteRec:
    """A Quote and its lines."""

    id: str
    opportunity_id: str | None
    status: str | None
    created: datetime | None
    expires: datetime | None
    lines: tuple[QuoteLine, ...] = ()


@dataclass(frozen=True)
class QuoteLine:
    """One QuoteLineItem: the product, how many, the discount in percent."""

    id: str
    product_id: str | None
    quantity: Fraction
    discount: Fraction


@dataclass(frozen=True)
class Call:
    """One VoiceCallTranscript__c."""

    id: str
    created: datetime | None
    opportunity_id: str | None
    lead_id: str | None
    body: str


@dataclass
class ProIndex:
    """Parsed, cross-referenced sales objects of one org."""

    opps: dict[str, Opp]
    contracts: dict[str, dict[str, date | None]]
    amounts: dict[str, Fraction]
    leads: list[Lead]
    quotes: dict[str, QuoteRec]
    tasks_by_opp: dict[str, list[tuple[str, str, str]]]
    events_by_opp: dict[str, list[tuple[str, str]]]
    calls: list[Call]
    territories: dict[str, tuple[str, ...]]
    territory_users: dict[str, list[str]]
    articles: dict[str, tuple[str, str]]
    product_names: dict[str, str]
    extra: dict[str, Any] = field(default_factory=dict)

    @cached_property
    def calls_by_opp(self) -> dict[str, list[Call]]:
        """Opportunity Id -> its calls, oldest first."""
        grouped: dict[str, list[Call]] = defaultdict(list)
        for call in self.sale_calls:
            grouped[str(call.opportunity_id)].append(call)
        return dict(grouped)

    @cached_property
    def sale_calls(self) -> list[Call]:
        """Calls about an opportunity (sales discussions), oldest first."""
        dated = [c for c in self.calls if c.opportunity_id and c.created is not None]
        return sorted(dated, key=lambda c: (c.created, c.id))

    @cached_property
    def _call_times(self) -> list[datetime]:
        return [c.created for c in self.sale_calls if c.created is not None]

    def sale_calls_between(self, start: datetime, end: datetime) -> list[Call]:
        """Sales calls with ``start <= CreatedDate < end``."""
        times = self._call_times
        return self.sale_calls[bisect_left(times, start) : bisect_left(times, end)]

    @cached_property
    def leads_by_owner(self) -> dict[str, list[Lead]]:
        """Owner Id -> their leads."""
        grouped: dict[str, list[Lead]] = defaultdict(list)
        for lead in self.leads:
            if lead.owner_id:
                grouped[lead.owner_id].append(lead)
        return dict(grouped)

    @cached_property
    def _lead_times(self) -> tuple[list[datetime], list[Lead]]:
        dated = sorted((x for x in self.leads if x.created), key=lambda x: (x.created, x.id))
        return [x.created for x in dated if x.created is not None], dated

    def leads_created(self, start: datetime, end: datetime) -> list[Lead]:
        """Leads with ``start <= CreatedDate < end``."""
        times, leads = self._lead_times
        return leads[bisect_left(times, start) : bisect_left(times, end)]

    def signed_between(self, signed_field: str, start: datetime, end: datetime) -> list[Opp]:
        """Opportunities whose contract's ``signed_field`` date lies in ``[start, end)``."""
        out = []
        for opp in self.opps.values():
            contract = self.contracts.get(opp.contract_id or "")
            signed = contract.get(signed_field) if contract else None
            if (
                signed is not None
                and start <= datetime(signed.year, signed.month, signed.day) < end
            ):
                out.append(opp)
        return out


def _fraction(value: str | None) -> Fraction:
    if value is None or value == "":
        return Fraction(0)
    return Fraction(str(value).strip())


def _day(value: str | None) -> date | None:
    return date.fromisoformat(value[:10]) if value else None


def pro_index(tables: Tables | ProIndex) -> ProIndex:
    """Build (or pass through) the :class:`ProIndex` of ``tables``."""
    if isinstance(tables, ProIndex):
        return tables
    opps = {
        str(r["Id"]): Opp(
            str(r["Id"]),
            r.get("OwnerId"),
            parse_datetime(r.get("CreatedDate")),
            r.get("StageName"),
            r.get("ContractID__c"),
        )
        for r in tables.get("Opportunity", ())
    }
    contracts = {
        str(r["Id"]): {
            "CompanySignedDate": _day(r.get("CompanySignedDate")),
            "CustomerSignedDate": _day(r.get("CustomerSignedDate")),
        }
        for r in tables.get("Contract", ())
    }
    amounts: dict[str, Fraction] = defaultdict(Fraction)
    for r in tables.get("OpportunityLineItem", ()):
        if r.get("OpportunityId"):
            amounts[str(r["OpportunityId"])] += _fraction(r.get("TotalPrice"))
    leads = [
        Lead(
            str(r["Id"]),
            r.get("OwnerId"),
            parse_datetime(r.get("CreatedDate")),
            str(r.get("IsConverted") or "").lower() in ("1", "true"),
            _day(r.get("ConvertedDate")),
            r.get("Status"),
        )
        for r in tables.get("Lead", ())
    ]
    lines: dict[str, list[QuoteLine]] = defaultdict(list)
    for r in tables.get("QuoteLineItem", ()):
        lines[str(r.get("QuoteId"))].append(
            QuoteLine(
                str(r["Id"]),
                r.get("Product2Id"),
                _fraction(r.get("Quantity")),
                _fraction(r.get("Discount")),
            )
        )
    quotes = {
        str(r["Id"]): QuoteRec(
            str(r["Id"]),
            r.get("OpportunityId"),
            r.get("Status"),
            parse_datetime(r.get("CreatedDate")),
            parse_datetime(r.get("ExpirationDate")),
            tuple(lines.get(str(r["Id"]), ())),
        )
        for r in tables.get("Quote", ())
    }
    tasks: dict[str, list[tuple[str, str, str]]] = defaultdict(list)
    for r in tables.get("Task", ()):
        if r.get("WhatId"):
            tasks[str(r["WhatId"])].append(
                (str(r["Id"]), str(r.get("Subject") or ""), str(r.get("Status") or ""))
            )
    events: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for r in tables.get("Event", ()):
        if r.get("WhatId"):
            events[str(r["WhatId"])].append((str(r["Id"]), str(r.get("Subject") or "")))
    calls = [
        Call(
            str(r["Id"]),
            parse_datetime(r.get("CreatedDate")),
            r.get("OpportunityId__c"),
            r.get("LeadId__c"),
            str(r.get("TranscriptBody__c") or r.get("Body__c") or ""),
        )
        for r in tables.get("VoiceCallTranscript__c", ())
    ]
    territories = {
        str(r["Id"]): tuple(
            s.strip().upper() for s in str(r.get("Description") or "").split(",") if s.strip()
        )
        for r in tables.get("Territory2", ())
    }
    members: dict[str, list[str]] = defaultdict(list)
    for r in tables.get("UserTerritory2Association", ()):
        if r.get("Territory2Id") and r.get("UserId"):
            members[str(r["Territory2Id"])].append(str(r["UserId"]))
    articles = {
        str(r.get("Title") or ""): (str(r["Id"]), str(r.get("FAQ_Answer__c") or ""))
        for r in tables.get("Knowledge__kav", ())
    }
    names = {str(r["Id"]): str(r.get("Name") or "") for r in tables.get("Product2", ())}
    return ProIndex(
        opps=opps,
        contracts=contracts,
        amounts=dict(amounts),
        leads=leads,
        quotes=quotes,
        tasks_by_opp=dict(tasks),
        events_by_opp=dict(events),
        calls=calls,
        territories=territories,
        territory_users=dict(members),
        articles=articles,
        product_names=names,
    )
