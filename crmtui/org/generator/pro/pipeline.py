"""The sales pipeline: opportunities with their line items, quotes, quote lines and contracts.

Every deal runs for a number of days set by its rep's pace, so sales cycles differ by rep;
its size follows the rep's deal size and its outcome the rep's win rate (won deals end in an
accepted quote and a signed contract, so reps differ in accepted quotes too). Deals still
running at the end of the data sit in the stage their progress has reached. Some deals carry
a planted defect the sales tasks ask about: a StageName that does not match the work done
(``wrong_stage``), a quote that breaks one configuration rule (``invalid_config``) or one
approval rule (``quote_approval``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from fractions import Fraction

from crmtui.org.generator.config import fmt_date, fmt_datetime, fmt_number
from crmtui.org.generator.pro import cpq, misconfig
from crmtui.org.generator.pro.config import SALES_END, SALES_START
from crmtui.org.generator.pro.leads import Customer, LeadRec
from crmtui.org.generator.pro.team import STATE_TERRITORY, FreshIds, Rep, Team
from crmtui.org.solvers.pro.index import QuoteLine, QuoteRec
from crmtui.org.solvers.pro.quotes import CONFIG_KINDS, PRICING_KINDS, QuoteRules, violations
from crmtui.org.solvers.pro.vocab import STAGES

Row = dict[str, str | None]
PROBABILITY = {"Qualification": 10, "Discovery": 25, "Quote": 50, "Negotiation": 75}


@dataclass
class Product:
    """What the pipeline needs of a product: Id, name, category, standard price and entry."""

    id: str
    name: str
    category: str
    price: float
    entry_id: str


@dataclass
class Deal:
    """One generated opportunity and what was planted in it."""

    id: str
    customer: Customer
    rep: Rep
    created: datetime
    close: date
    outcome: str  # won, lost or open
    stage: int  # index into STAGES of the work actually done (4, Closed, when won or lost)
    recorded: str  # the StageName written
    reached: int  # the last stage worked before the deal closed (or the current one)
    cycle: int  # days the deal's work is spread over
    quote_id: str | None = None
    planted: dict[str, str] = field(default_factory=dict)


@dataclass
class Pipeline:
    """Deals, their rows and the plants."""

    deals: list[Deal]
    tables: dict[str, list[Row]]
    plants: dict[str, list[str]]


class Ids:
    """One :class:`FreshIds` per sales object."""

    def __init__(self, factories: dict[str, FreshIds]) -> None:
        self.of = factories

    def __call__(self, obj: str) -> str:
        return self.of[obj].next()


def build_pipeline(
    org_type: str,
    count: int,
    plants: int,
    rng: random.Random,
    ids: Ids,
    team: Team,
    leads: list[LeadRec],
    customers: list[Customer],
    products: list[Product],
    rules: QuoteRules,
) -> Pipeline:
    """Generate ``count`` opportunities and everything that hangs off them."""
    by_contact = {c.contact_id: c for c in customers}
    reps = {r.id: r for r in team.reps}
    starts: list[tuple[Customer, Rep, datetime]] = []
    for lead in leads:
        if lead.converted is not None and lead.contact_id in by_contact and len(starts) < count:
            day = lead.converted + timedelta(days=rng.randint(0, 5))
            starts.append((by_contact[lead.contact_id], reps[lead.rep_id], _moment(rng, day)))
    span = (SALES_END - SALES_START).days
    while len(starts) < count:
        customer = rng.choice(customers)
        day = SALES_START + timedelta(days=int(rng.triangular(0, span, span * 0.75)))
        starts.append((customer, team.pick(rng, customer.state, day), _moment(rng, day)))
    starts.sort(key=lambda s: s[2])
    deals = [_deal(org_type, rng, ids("Opportunity"), *start) for start in starts]
    _tie_territories(deals, team, rng)
    chosen = _choose_plants(deals, plants, rng)
    tables: dict[str, list[Row]] = {
        "Opportunity": [],
        "OpportunityLineItem": [],
        "Quote": [],
        "QuoteLineItem": [],
        "Contract": [],
    }
    catalog = {p.id: p for p in products}
    for deal in deals:
        kind = chosen.get(deal.id)
        if kind == "wrong_stage":
            deal.recorded = _wrong_stage(deal, rng)
            deal.planted["wrong_stage"] = STAGES[deal.stage]
        _write_deal(org_type, deal, kind, rng, ids, tables, catalog, products, rules)
    planted_only = {d: k for d, k in chosen.items() if k != CONFIG_DECOYS}
    _revise_quotes(deals, planted_only, team, rng, ids, tables)
    planted: dict[str, list[str]] = {
        "wrong_stage": [],
        "invalid_config": [],
        "quote_approval": [],
        CONFIG_DECOYS: [],
    }
    for deal in deals:
        for key in planted:
            if key in deal.planted:
                planted[key].append(deal.quote_id if key != "wrong_stage" else deal.id)  # type: ignore[arg-type]
    return Pipeline(deals, tables, planted)


def _tie_territories(deals: list[Deal], team: Team, rng: random.Random) -> None:
    """Hand won deals over between reps until the two with the most wins in some territories
    have equally many: every won deal ends in an accepted quote, so lead routing there is
    decided by its last rule (fewest open leads), as it sometimes is upstream."""
    territories = list(range(len(team.territory_ids)))
    rng.shuffle(territories)
    for territory in territories[:3]:
        reps = [r for r in team.reps if territory in r.territories]
        wins = {r.id: [d for d in deals if d.outcome == "won" and d.rep.id == r.id] for r in reps}
        first, second = sorted(reps, key=lambda r: (-len(wins[r.id]), r.id))[:2]
        gap = len(wins[first.id]) - len(wins[second.id])
        if gap % 2:
            # An odd gap: one win of the leader goes to a colleague covering its state.
            for deal in wins[first.id]:
                others = [r for r in team.reps_for(deal.customer.state, deal.created.date())]
                others = [r for r in others if r.id not in (first.id, second.id)]
                if others:
                    deal.rep = rng.choice(others)
                    wins[first.id].remove(deal)
                    gap -= 1
                    break
        movable = [d for d in wins[first.id] if STATE_TERRITORY.get(d.customer.state) == territory]
        while gap > 1 and movable:
            movable.pop().rep = second
            gap -= 2


def _moment(rng: random.Random, day: date) -> datetime:
    return datetime(day.year, day.month, day.day) + timedelta(
        seconds=rng.randint(8 * 3600, 18 * 3600)
    )


#: Share of deals that stall: still open at the end of the data, whenever they began.
STALLED = 0.3


def _deal(
    org_type: str, rng: random.Random, deal_id: str, customer: Customer, rep: Rep, created: datetime
) -> Deal:
    base = 75 if org_type == "b2b" else 24
    days = max(7, int(base * rep.pace * rng.lognormvariate(0.0, 0.3)))
    close = created.date() + timedelta(days=days)
    if close < SALES_END and rng.random() < STALLED:
        stage = rng.choice((0, 1, 1, 2, 2, 3, 3))
        expected = SALES_END + timedelta(days=rng.randint(14, 120))
        return Deal(
            deal_id, customer, rep, created, expected, "open", stage, STAGES[stage], stage, days
        )
    if close < SALES_END:
        if rng.random() < rep.win:
            return Deal(deal_id, customer, rep, created, close, "won", 4, "Closed", 3, days)
        lost_at = rng.choice((0, 1, 1, 2, 2, 3, 3))
        return Deal(deal_id, customer, rep, created, close, "lost", 4, "Closed", lost_at, days)
    progress = (SALES_END - created.date()).days / days
    stage = 0 if progress < 0.2 else 1 if progress < 0.4 else 2 if progress < 0.65 else 3
    return Deal(deal_id, customer, rep, created, close, "open", stage, STAGES[stage], stage, days)


#: Share of won deals whose CloseDate is the day the deal was signed (see _forecast_close).
EXACT_CLOSE_SHARE = 0.25
#: Share of territories with a rep who revises quotes (see ``_revise_quotes``), and the most
#: earlier versions one deal's quote gets.
REVISED_TERRITORIES = 1.0
#: How often each configuration rule is the one an invalid-config quote breaks: near the real
#: file's even spread, companions a little more often, as only a companion breach or a kit
#: decoy (:mod:`.misconfig`) fools the reading that skips the companion article (issue #32).
CONFIG_WEIGHTS = {"quantity": 32, "exclusive": 28, "companion": 40}
#: The plant key of the compliant quotes with decoys that invalid-config no-answer questions
#: are drawn from.
CONFIG_DECOYS = "config_decoys"
MAX_REVISIONS = 4


def _choose_plants(deals: list[Deal], plants: int, rng: random.Random) -> dict[str, str]:
    """Deal Id -> what is planted in it: a wrong StageName, or a broken quote."""
    chosen: dict[str, str] = {}
    # The stage the work shows, as often as upstream's answers name it: mostly Closed and
    # Negotiation, Discovery least.
    # Fewer Closed than upstream's (40%): nothing is more advanced than Closed, so on a deal
    # that reached it, counting tasks of any status cannot be told from the careful reading.
    shares = {4: 0.25, 3: 0.3, 2: 0.25, 1: 0.2}
    for stage, share in shares.items():
        pool = [d for d in deals if d.stage == stage and d.outcome != "lost"]
        rng.shuffle(pool)
        for deal in pool[: round(plants * share)]:
            chosen[deal.id] = "wrong_stage"
    quoted = [d for d in deals if d.id not in chosen and _has_quote(d)]
    rng.shuffle(quoted)
    for deal in quoted[:plants]:
        chosen[deal.id] = "invalid_config"
    for deal in quoted[plants : 2 * plants]:
        chosen[deal.id] = "quote_approval"
    for deal in quoted[2 * plants : 3 * plants]:
        chosen[deal.id] = CONFIG_DECOYS
    return chosen


def _has_quote(deal: Deal) -> bool:
    return deal.reached >= 2


def _wrong_stage(deal: Deal, rng: random.Random) -> str:
    if deal.stage <= 2 and rng.random() < 0.2:
        return STAGES[rng.randint(deal.stage + 1, 3)]
    return STAGES[rng.randint(0, deal.stage - 1)]


def _lines(org_type: str, rep: Rep, rng: random.Random, products: list[Product]) -> list[cpq.Line]:
    count = rng.randint(1, 5) if org_type == "b2b" else rng.randint(1, 3)
    out = []
    for product in rng.sample(products, count):
        if org_type == "b2b":
            quantity = max(5, min(600, int(rng.lognormvariate(3.6, 0.8) * rep.size)))
            discount = Fraction(rng.choice((0, 0, 5, 10, 10, 15, 20)))
        else:
            quantity = rng.choice((1, 1, 1, 2, 2, 3, 4, 5))
            discount = Fraction(rng.choice((0, 0, 0, 5, 10, 15)))
        out.append(cpq.Line(product.id, quantity, discount))
    return out


def _write_deal(
    org_type: str,
    deal: Deal,
    kind: str | None,
    rng: random.Random,
    ids: Ids,
    tables: dict[str, list[Row]],
    catalog: dict[str, Product],
    products: list[Product],
    rules: QuoteRules,
) -> None:
    lines = cpq.comply(_lines(org_type, deal.rep, rng, products), rules, rng)
    valid = cpq.validity_days(rules, rng, broken=False)
    if kind == "quote_approval":
        for _ in range(20):
            rule = rng.choices(PRICING_KINDS)[0]
            planted = lines if rule == "validity" else cpq.plant(rule, lines, rules, rng)
            days = cpq.validity_days(rules, rng, broken=rule == "validity")
            if _breaks(rules, planted, days) == [rule]:
                lines, valid = planted, days
                deal.planted[kind] = rule
                break
    elif kind in ("invalid_config", CONFIG_DECOYS):
        weights = [CONFIG_WEIGHTS[k] for k in CONFIG_KINDS]
        for _ in range(20):
            rule = rng.choices(CONFIG_KINDS, weights)[0] if kind == "invalid_config" else None
            made = misconfig.config_quote(rule, lines, rules, rng)
            if _breaks(rules, made, valid) == ([] if rule is None else [rule]):
                lines = made
                deal.planted[kind] = rule or "none"
                break
    amount = Fraction(0)
    line_ids: list[tuple[str, cpq.Line, Fraction]] = []
    for line in lines:
        product = catalog[line.product_id]
        total = Fraction(str(product.price)) * line.quantity * (1 - line.discount / 100)
        amount += Fraction(fmt_number(float(total)))
        oli = ids("OpportunityLineItem")
        line_ids.append((oli, line, total))
        tables["OpportunityLineItem"].append(
            {
                "Id": oli,
                "OpportunityId": deal.id,
                "PricebookEntryId": product.entry_id,
                "Product2Id": product.id,
                "Quantity": fmt_number(line.quantity),
                "TotalPrice": fmt_number(float(total)),
            }
        )
    contract_id = ids("Contract") if deal.outcome == "won" else None
    c = deal.customer
    season = ("Winter", "Spring", "Summer", "Fall")[(deal.created.month % 12) // 3]
    label = c.company if c.company else f"{c.first} {c.last}"
    what = "team order" if org_type == "b2b" else "purchase"
    probability = 100 if deal.outcome == "won" and deal.recorded == "Closed" else 0
    tables["Opportunity"].append(
        {
            "Id": deal.id,
            "AccountId": c.account_id,
            "ContactId": c.contact_id,
            "OwnerId": deal.rep.id,
            "Name": f"{label} - {season} {deal.created.year} {what}",
            "Description": (
                f"{len(lines)} product line(s) for {label}, opened by {deal.rep.name}."
            ),
            "StageName": deal.recorded,
            "Probability": fmt_number(PROBABILITY.get(deal.recorded, probability)),
            "Amount": fmt_number(float(amount)),
            "CreatedDate": fmt_datetime(deal.created),
            "CloseDate": fmt_date(_forecast_close(deal, rng)),
            "ContractID__c": contract_id,
        }
    )
    if _has_quote(deal):
        _write_quote(deal, line_ids, valid, rng, ids, tables, catalog)
    if contract_id is not None:
        _write_contract(org_type, deal, contract_id, rng, tables)


def _revise_quotes(
    deals: list[Deal],
    chosen: dict[str, str],
    team: Team,
    rng: random.Random,
    ids: Ids,
    tables: dict[str, list[Row]],
) -> None:
    """Earlier versions of quotes, turned down or dropped, written for a rep who revises a lot.

    Lead routing counts a territory's Accepted quotes only (issue #32: counting quotes of
    every status is a careless shortcut). So in most territories a rep other than the one with
    the most Accepted quotes revises the quotes of deals not won until that rep has the most
    quotes of any status: the two counts then name different reps.
    """
    status = {str(q["OpportunityId"]): str(q["Status"]) for q in tables["Quote"]}
    accepted: dict[str, int] = {}
    total: dict[str, int] = {}
    for deal in deals:
        if deal.id in status:
            total[deal.rep.id] = total.get(deal.rep.id, 0) + 1
            won = status[deal.id] == "Accepted"
            accepted[deal.rep.id] = accepted.get(deal.rep.id, 0) + won
    quotes = {str(q["OpportunityId"]): q for q in tables["Quote"]}
    lines: dict[str, list[Row]] = {}
    for line in tables["QuoteLineItem"]:
        lines.setdefault(str(line["QuoteId"]), []).append(line)
    for territory in range(len(team.territory_ids)):
        if rng.random() >= REVISED_TERRITORIES:
            continue
        reps = [r.id for r in team.reps if territory in r.territories]
        top = max((accepted.get(r, 0) for r in reps), default=0)
        others = [r for r in reps if accepted.get(r, 0) < top]
        if not others:
            continue
        reviser = max(others, key=lambda r: (total.get(r, 0), r))
        open_deals = [
            d
            for d in deals
            if d.rep.id == reviser
            and d.id in quotes
            and d.id not in chosen
            and status[d.id] != "Accepted"
        ]
        rng.shuffle(open_deals)
        rivals = max((total.get(r, 0) for r in reps if r != reviser), default=0)
        for deal in open_deals * MAX_REVISIONS:
            if total.get(reviser, 0) > rivals + 2:
                break
            _write_revision(quotes[deal.id], lines[str(quotes[deal.id]["Id"])], rng, ids, tables)
            total[reviser] = total.get(reviser, 0) + 1


def _write_revision(
    main: Row, lines: list[Row], rng: random.Random, ids: Ids, tables: dict[str, list[Row]]
) -> None:
    """An earlier version of quote ``main``, with its lines, created a few days before it."""
    created = datetime.fromisoformat(str(main["CreatedDate"])[:19])
    expires = datetime.fromisoformat(str(main["ExpirationDate"])[:19])
    back = timedelta(days=rng.randint(2, 9), minutes=rng.randint(5, 600))
    quote_id = ids("Quote")
    tables["Quote"].append(
        {
            **main,
            "Id": quote_id,
            "Name": f"Quote {len(tables['Quote']) + 1:05d}",
            "Status": rng.choice(("Rejected", "Denied", "Draft")),
            "CreatedDate": fmt_datetime(created - back),
            "ExpirationDate": fmt_datetime(expires - back),
        }
    )
    for line in lines:
        tables["QuoteLineItem"].append({**line, "Id": ids("QuoteLineItem"), "QuoteId": quote_id})


def _forecast_close(deal: Deal, rng: random.Random) -> date:
    """The CloseDate a rep left on the deal: for a deal signed, often the date they had
    forecast rather than the day of the signature (which only the contract records), so
    reading sales by CloseDate is a careless shortcut (issue #32); else the expected close."""
    if deal.outcome != "won" or rng.random() < EXACT_CLOSE_SHARE:
        return deal.close
    return deal.close + timedelta(days=rng.choice((-1, 1)) * rng.randint(8, 45))


def _breaks(rules: QuoteRules, lines: list[cpq.Line], days: int) -> list[str]:
    start = datetime(2022, 1, 1)
    quote = QuoteRec(
        "q",
        None,
        None,
        start,
        start + timedelta(days=days),
        tuple(
            QuoteLine(str(i), x.product_id, Fraction(x.quantity), x.discount)
            for i, x in enumerate(lines)
        ),
    )
    return sorted(violations(rules, quote))


def _write_quote(
    deal: Deal,
    line_ids: list[tuple[str, cpq.Line, Fraction]],
    valid: int,
    rng: random.Random,
    ids: Ids,
    tables: dict[str, list[Row]],
    catalog: dict[str, Product],
) -> None:
    created = deal.created + timedelta(
        days=int(deal.cycle * rng.uniform(0.42, 0.6)), minutes=rng.randint(5, 600)
    )
    end = datetime(SALES_END.year, SALES_END.month, SALES_END.day)
    created = min(created, end - timedelta(minutes=rng.randint(60, 2880)))
    if deal.outcome == "won":
        status = "Accepted"
    elif deal.outcome == "lost":
        status = rng.choice(("Denied", "Rejected"))
    elif deal.stage == 2:
        status = rng.choice(("Draft", "Needs Review", "In Review", "Presented"))
    else:
        status = rng.choice(("Presented", "Approved"))
    quote_id = ids("Quote")
    deal.quote_id = quote_id
    c = deal.customer
    tables["Quote"].append(
        {
            "Id": quote_id,
            "OpportunityId": deal.id,
            "AccountId": c.account_id,
            "ContactId": c.contact_id,
            "Name": f"Quote {len(tables['Quote']) + 1:05d}",
            "Description": f"Quote of {len(line_ids)} line(s) prepared by {deal.rep.name}.",
            "Status": status,
            "CreatedDate": fmt_datetime(created),
            "ExpirationDate": fmt_datetime(created + timedelta(days=valid)),
        }
    )
    for oli, line, total in line_ids:
        product = catalog[line.product_id]
        tables["QuoteLineItem"].append(
            {
                "Id": ids("QuoteLineItem"),
                "QuoteId": quote_id,
                "OpportunityLineItemId": oli,
                "PricebookEntryId": product.entry_id,
                "Product2Id": product.id,
                "Quantity": fmt_number(line.quantity),
                "UnitPrice": fmt_number(product.price),
                "Discount": fmt_number(float(line.discount)),
                "TotalPrice": fmt_number(float(total)),
            }
        )


def _write_contract(
    org_type: str, deal: Deal, contract_id: str, rng: random.Random, tables: dict[str, list[Row]]
) -> None:
    customer_signed = deal.close - timedelta(days=rng.randint(0, 4))
    start = deal.close + timedelta(days=rng.randint(1, 14))
    row: Row = {
        "Id": contract_id,
        "AccountId": deal.customer.account_id,
        "Status": "Activated" if start <= SALES_END else "Signed",
        "StartDate": fmt_date(start),
        "ContractTerm": str(rng.choice((12, 24, 36)) if org_type == "b2b" else 12),
        "CustomerSignedDate": fmt_date(customer_signed),
        "Description": f"Supply agreement for opportunity {deal.id}.",
    }
    if org_type == "b2b":
        row["CompanySignedDate"] = fmt_date(deal.close)
    tables["Contract"].append(row)
