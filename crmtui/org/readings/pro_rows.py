"""The sales rows of a CRMArena-Pro org the readings use, parsed with code of their own.

Like :mod:`crmtui.org.readings.rows`, nothing here comes from the solvers
(:mod:`crmtui.org.solvers.pro`): the stage of an activity is read from the org's own stage
article, amounts and dates from the raw text columns.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from fractions import Fraction
from typing import Any

from crmtui.org.readings.stamps import stamp

Rows = Mapping[str, Sequence[Mapping[str, Any]]]

#: Columns the Pro readings read, per object (``crmtui tasks stats`` reads them for a Pro org).
PRO_READING_FIELDS: dict[str, tuple[str, ...]] = {
    "Opportunity": ("Id", "OwnerId", "CreatedDate", "CloseDate", "StageName", "ContractID__c"),
    "Contract": ("Id", "CompanySignedDate", "CustomerSignedDate"),
    "OpportunityLineItem": ("Id", "OpportunityId", "TotalPrice"),
    "Lead": ("Id", "OwnerId", "CreatedDate", "IsConverted", "ConvertedDate", "Status"),
    "Quote": ("Id", "OpportunityId", "Status", "CreatedDate", "ExpirationDate"),
    "QuoteLineItem": ("Id", "QuoteId", "Product2Id", "Quantity", "Discount"),
    "Product2": ("Id", "Name"),
    "VoiceCallTranscript__c": (
        "Id",
        "CreatedDate",
        "LeadId__c",
        "OpportunityId__c",
        "TranscriptBody__c",
        "Body__c",
    ),
    "Task": ("Id", "WhatId", "Subject", "Status", "ActivityDate"),
    "Event": ("Id", "WhatId", "Subject", "StartDateTime"),
    "Territory2": ("Id", "Description"),
    "UserTerritory2Association": ("Id", "Territory2Id", "UserId"),
    "Knowledge__kav": ("Id", "Title", "FAQ_Answer__c"),
}
#: The five opportunity stages, least to most advanced.
STAGE_ORDER = ("Qualification", "Discovery", "Quote", "Negotiation", "Closed")
_STAGE_LINE = re.compile(r"^\s*(" + "|".join(STAGE_ORDER) + r"):")


@dataclass(frozen=True)
class OppRow:
    """The Opportunity fields the readings use."""

    id: str
    owner: str | None
    created: date | None
    close: date | None
    stage: str | None
    contract: str | None


@dataclass(frozen=True)
class LeadRow:
    """The Lead fields the readings use."""

    id: str
    owner: str | None
    created: datetime | None
    converted: bool
    converted_on: date | None
    status: str | None


@dataclass(frozen=True)
class Activity:
    """A Task or Event of an opportunity: its Subject, Status ('Event' for an event), date."""

    id: str
    subject: str
    status: str
    when: datetime | None


def _day(value: Any) -> date | None:
    moment = stamp(value)
    return None if moment is None else moment.date()


def stage_activities(text: str) -> dict[str, str]:
    """Activity Subject -> stage, from a stage guide's text (``Stage: ...`` then ``- A / B``)."""
    mapping: dict[str, str] = {}
    stage = None
    for line in text.splitlines():
        found = _STAGE_LINE.match(line)
        if found:
            stage = found.group(1)
            continue
        item = line.strip()
        if stage and item.startswith("- "):
            for subject in item[2:].split(" / "):
                mapping[subject.strip()] = stage
    return mapping


@dataclass(frozen=True)
class QuoteLineRow:
    """A QuoteLineItem: its product, units and discount (percent)."""

    id: str
    product: str | None
    quantity: Fraction
    discount: Fraction


@dataclass(frozen=True)
class CallRow:
    """A VoiceCallTranscript__c: when, about which lead or opportunity, and its text."""

    id: str
    created: datetime | None
    lead: str | None
    opportunity: str | None
    text: str


def _number(value: Any) -> Fraction:
    return Fraction(str(value)) if value not in (None, "") else Fraction(0)


@dataclass
class ProRows:
    """Opportunities, contracts, leads, quotes, activities and territories, indexed."""

    opps: dict[str, OppRow]
    signed: dict[str, tuple[date | None, date | None]]
    amounts: dict[str, Fraction]
    leads: list[LeadRow]
    quotes: list[tuple[str, str | None, str | None]]
    activities: dict[str, list[Activity]]
    territory_agents: dict[str, set[str]]
    stage_of: dict[str, str]
    articles: dict[str, str]
    #: Quote Id -> (CreatedDate, ExpirationDate).
    quote_dates: dict[str, tuple[datetime | None, datetime | None]] = field(default_factory=dict)
    #: Quote Id -> its lines.
    quote_lines: dict[str, list[QuoteLineRow]] = field(default_factory=dict)
    #: Product2 Id -> Name.
    product_names: dict[str, str] = field(default_factory=dict)
    #: Voice calls, as stored.
    calls: list[CallRow] = field(default_factory=list)

    @classmethod
    def from_tables(cls, tables: Rows) -> ProRows:
        """Index raw Pro org rows (values as text, the org layout)."""
        opps = {
            str(r["Id"]): OppRow(
                str(r["Id"]),
                r.get("OwnerId") or None,
                _day(r.get("CreatedDate")),
                _day(r.get("CloseDate")),
                r.get("StageName") or None,
                r.get("ContractID__c") or None,
            )
            for r in tables.get("Opportunity", ())
        }
        signed = {
            str(r["Id"]): (_day(r.get("CompanySignedDate")), _day(r.get("CustomerSignedDate")))
            for r in tables.get("Contract", ())
        }
        amounts: dict[str, Fraction] = defaultdict(Fraction)
        for r in tables.get("OpportunityLineItem", ()):
            if r.get("OpportunityId") and r.get("TotalPrice") not in (None, ""):
                amounts[str(r["OpportunityId"])] += Fraction(str(r["TotalPrice"]))
        leads = [
            LeadRow(
                str(r["Id"]),
                r.get("OwnerId") or None,
                stamp(r.get("CreatedDate")),
                str(r.get("IsConverted")).lower() in ("1", "true"),
                _day(r.get("ConvertedDate")),
                r.get("Status") or None,
            )
            for r in tables.get("Lead", ())
        ]
        quotes = [
            (str(r["Id"]), r.get("OpportunityId") or None, r.get("Status") or None)
            for r in tables.get("Quote", ())
        ]
        activities: dict[str, list[Activity]] = defaultdict(list)
        for r in tables.get("Task", ()):
            if r.get("WhatId"):
                activities[str(r["WhatId"])].append(
                    Activity(
                        str(r["Id"]),
                        str(r.get("Subject") or ""),
                        str(r.get("Status") or ""),
                        stamp(r.get("ActivityDate")),
                    )
                )
        for r in tables.get("Event", ()):
            if r.get("WhatId"):
                activities[str(r["WhatId"])].append(
                    Activity(
                        str(r["Id"]),
                        str(r.get("Subject") or ""),
                        "Event",
                        stamp(r.get("StartDateTime")),
                    )
                )
        territories = {
            str(r["Id"]): {s.strip() for s in str(r.get("Description") or "").split(",")}
            for r in tables.get("Territory2", ())
        }
        agents: dict[str, set[str]] = defaultdict(set)
        for r in tables.get("UserTerritory2Association", ()):
            for state in territories.get(str(r.get("Territory2Id")), ()):
                if r.get("UserId"):
                    agents[state].add(str(r["UserId"]))
        articles = {
            str(r["Id"]): f"{r.get('Title') or ''}\n{r.get('FAQ_Answer__c') or ''}"
            for r in tables.get("Knowledge__kav", ())
        }
        stage_of: dict[str, str] = {}
        for text in articles.values():
            if "Stages" in text.splitlines()[0]:
                stage_of.update(stage_activities(text))
        quote_lines: dict[str, list[QuoteLineRow]] = defaultdict(list)
        for r in tables.get("QuoteLineItem", ()):
            quote_lines[str(r.get("QuoteId"))].append(
                QuoteLineRow(
                    str(r["Id"]),
                    r.get("Product2Id") or None,
                    _number(r.get("Quantity")),
                    _number(r.get("Discount")),
                )
            )
        calls = [
            CallRow(
                str(r["Id"]),
                stamp(r.get("CreatedDate")),
                r.get("LeadId__c") or None,
                r.get("OpportunityId__c") or None,
                str(r.get("TranscriptBody__c") or r.get("Body__c") or ""),
            )
            for r in tables.get("VoiceCallTranscript__c", ())
        ]
        return cls(
            opps=opps,
            signed=signed,
            amounts=dict(amounts),
            leads=leads,
            quotes=quotes,
            activities=dict(activities),
            territory_agents=dict(agents),
            stage_of=stage_of,
            articles=articles,
            quote_dates={
                str(r["Id"]): (stamp(r.get("CreatedDate")), stamp(r.get("ExpirationDate")))
                for r in tables.get("Quote", ())
            },
            quote_lines=dict(quote_lines),
            product_names={
                str(r["Id"]): str(r.get("Name") or "") for r in tables.get("Product2", ())
            },
            calls=calls,
        )

    def moments(self) -> list[datetime]:
        """When deals were opened, leads created and contracts signed (days at midnight)."""
        days = [o.created for o in self.opps.values() if o.created is not None]
        days += [d for pair in self.signed.values() for d in pair if d is not None]
        out = [datetime(d.year, d.month, d.day) for d in days]
        return out + [lead.created for lead in self.leads if lead.created is not None]

    def signed_on(self, opp: OppRow, field: str) -> date | None:
        """The day ``field`` (CompanySignedDate / CustomerSignedDate) of the deal's contract."""
        company, customer = self.signed.get(opp.contract or "", (None, None))
        return company if field == "CompanySignedDate" else customer

    def article_titled(self, *words: str) -> str | None:
        """The Id of the article whose title holds every one of ``words`` (case-blind)."""
        for article_id, text in self.articles.items():
            title = text.splitlines()[0].lower()
            if all(w.lower() in title for w in words):
                return article_id
        return None
