"""Readings of the agent tasks: handle time (HTU), transfer count (TCU), case routing (NCR).

Each reader returns the answers the careful reading admits and, per named shortcut, the
answers a solver taking that shortcut would give. Several answers mean a tie.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from typing import Any

from crmtui.org.readings.rows import OrgRows, averages, best, seconds, stamp, words
from crmtui.org.readings.types import Reading

#: A Contact Id in a task's context (routing questions may name the customer).
CONTACT_ID = re.compile(r"\b003[A-Za-z0-9]{12}(?:[A-Za-z0-9]{3})?\b")
#: Words a customer puts before a product mention that are not part of its name.
FILLER = frozenset({"the", "my", "new", "a", "an", "your"})


def _first_owners(rows: OrgRows, params: Mapping[str, Any]) -> tuple[list[Any], Counter[str]]:
    """The window's Owner Assignment entries, and per agent the cases the agent managed: those
    received at opening (no previous owner), or with ``managed: received`` (CRMArena-Pro's
    text) also those transferred to the agent, each case once."""
    start, end = stamp(params["start"]), stamp(params["end"])
    dated = rows.assignments_dated(start, end)  # type: ignore[arg-type]
    also_transfers = params.get("managed", "first") == "received"
    cases = {(a.new, a.case) for a in dated if a.new and (also_transfers or a.old is None)}
    return dated, Counter(agent for agent, _ in cases)


def read_handle_time(
    rows: OrgRows, params: Mapping[str, Any], context: Mapping[str, Any]
) -> Reading:
    """Average handle time of the agents who opened more than N cases in the window.

    Shortcut ``keep_transferred``: average every closed case of those agents created in the
    window, transferred ones included. On CRMArena orgs also ``no_case_filter``: the careful
    averages over every agent, whatever they opened.
    """
    start, end = stamp(params["start"]), stamp(params["end"])
    _, first = _first_owners(rows, params)
    qualified = {agent for agent, n in first.items() if n > int(params["n_cases"])}
    mode = str(params["mode"])

    def ranked(keep_transferred: bool, filtered: bool = True) -> tuple[str, ...]:
        times = [
            (case.owner, seconds(case.created, case.closed))  # type: ignore[arg-type]
            for case in rows.cases_created(start, end)  # type: ignore[arg-type]
            if case.closed_status
            and case.closed is not None
            and case.owner is not None
            and (case.owner in qualified or not filtered)
            and (keep_transferred or rows.assignment_count[case.id] == 1)
        ]
        return best(averages(times), mode)  # type: ignore[arg-type]

    shortcuts = {"keep_transferred": ranked(True)}
    if rows.pro is None:
        shortcuts["no_case_filter"] = ranked(False, filtered=False)
    return Reading(ranked(False), shortcuts)


def read_transfer_count(
    rows: OrgRows, params: Mapping[str, Any], context: Mapping[str, Any]
) -> Reading:
    """Transfers (entries with a previous owner) counted for the agent who passed the case on.

    Shortcut ``no_case_filter``: rank every agent who transferred, whatever they opened. On
    CRMArena orgs also ``every_row``: every Owner Assignment row of the window counted for
    the agent it assigns the case to (first assignments taken for transfers), among the
    qualified agents.
    """
    dated, first = _first_owners(rows, params)
    qualified = {agent for agent, n in first.items() if n > int(params["n_cases"])}
    transfers = Counter(a.old for a in dated if a.old)
    mode = str(params["mode"])
    careful = best({a: n for a, n in transfers.items() if a in qualified}, mode)
    shortcuts = {"no_case_filter": best(transfers, mode)}
    if rows.pro is None:
        assigned = Counter(a.new for a in dated if a.new in qualified)
        shortcuts["every_row"] = best(assigned, mode)  # type: ignore[arg-type]
    return Reading(careful, shortcuts)


def route(rows: OrgRows, issue: str, product: str) -> tuple[str, ...]:
    """The routing policy's three rules for a new case about ``issue`` and ``product``."""
    counts = rows.closed_by_issue.get(issue)
    if not counts:
        return ()
    tied = best(counts)
    if len(tied) > 1:
        on_product = rows.closed_on_product(product)
        tied = best({agent: on_product[agent] for agent in tied})
    if len(tied) > 1:
        tied = best({agent: rows.unclosed_by_owner[agent] for agent in tied}, "min")
    return tied


def read_case_routing(
    rows: OrgRows,
    params: Mapping[str, Any],
    context: Mapping[str, Any],
    query: str = "",
    required: str = "",
) -> Reading:
    """The routing rules for the recorded issue and product; decidable when every product the
    case text can mean (among the customer's purchases, when the context names the customer)
    routes to the same single agent.

    Shortcut ``rule_1``: the agent with most closed cases of the issue, the first Id on a tie.
    """
    issue, product = str(params["issue_id"]), str(params["product_id"])
    careful = route(rows, issue, product)
    counts = rows.closed_by_issue.get(issue, Counter())
    tied = best(counts)
    shortcut = tied[:1]
    meant = named_products(rows, query, context.get("mention"))
    contact = CONTACT_ID.search(required)
    if contact is not None:
        account = rows.contact_account.get(contact.group(0))
        meant &= rows.bought.get(account or "", set())
    answers = {route(rows, issue, p) for p in meant}
    undecidable = len(answers) != 1 or any(len(a) != 1 for a in answers)
    return Reading(careful, {"rule_1": shortcut}, undecidable)


def named_products(rows: OrgRows, query: str, mention: str | None = None) -> set[str]:
    """The products a case text can mean: those whose name ends with the words it uses.

    With ``mention`` (how the generator says the text names the product) the mention must
    appear in the text; without it, the longest run of words that ends some product's name is
    taken from the subject line, else from the description.
    """
    subject, description = _case_lines(query)
    if mention is not None:
        if mention.lower() not in (subject + " " + description).lower():
            return set()
        return _ending_with(rows, [w for w in words(mention) if w not in FILLER])
    for line in (subject, description):
        found = _longest_ending(rows, words(line))
        if found:
            return _ending_with(rows, found)
    return set()


def _case_lines(query: str) -> tuple[str, str]:
    subject = description = ""
    for line in query.splitlines():
        if line.startswith("- Case Subject:"):
            subject = line.removeprefix("- Case Subject:").strip()
        elif line.startswith("- Case Description:"):
            description = line.removeprefix("- Case Description:").strip()
    return subject, description


def _name_words(rows: OrgRows) -> dict[str, tuple[str, ...]]:
    if "name_words" not in rows._cache:
        rows._cache["name_words"] = {p: tuple(words(n)) for p, n in rows.product_names.items()}
    return rows._cache["name_words"]  # type: ignore[no-any-return]


def _ending_with(rows: OrgRows, wanted: list[str]) -> set[str]:
    if not wanted:
        return set()
    size = len(wanted)
    target = tuple(wanted)
    return {p for p, name in _name_words(rows).items() if name[-size:] == target}


def _longest_ending(rows: OrgRows, text: list[str]) -> list[str]:
    endings: set[tuple[str, ...]] = set()
    for name in _name_words(rows).values():
        endings.update(name[-k:] for k in range(1, len(name) + 1))
    found: list[str] = []
    for start in range(len(text)):
        for stop in range(len(text), start, -1):
            if stop - start > len(found) and tuple(text[start:stop]) in endings:
                found = text[start:stop]
                break
    return found
