"""A case planted to comply with a policy must not break it elsewhere in its conversations.

The PVI gold of a compliant case is None, so every email and chat of that case has to keep
the policy, not only the planted exchange. The stock replies to an issue are the risk: the
defective-zipper and damaged-in-transit replies offered a replacement, which the safety
policy forbids before Product Safety's review, on cases whose planted chat deferred it.
"""

from __future__ import annotations

import pytest

from crmtui.org.generator import GeneratedOrg
from crmtui.org.generator.conversations import RESOLUTIONS

#: The stock replies that offer a replacement of the same product.
OFFERS = [text for text in RESOLUTIONS.values() if "replacement" in text]


def _texts_of(org: GeneratedOrg, case_id: str) -> list[str]:
    emails = [r["TextBody"] or "" for r in org.tables["EmailMessage"] if r["ParentId"] == case_id]
    chats = [r["Body"] or "" for r in org.tables["LiveChatTranscript"] if r["CaseId"] == case_id]
    return emails + chats


@pytest.mark.parametrize("which", ["small_org", "small_org_seed11"])
def test_no_stock_reply_offers_a_replacement_on_a_safety_case(which, request):
    org: GeneratedOrg = request.getfixturevalue(which)
    assert OFFERS, "the stock replies this test guards are gone: rewrite the test"
    safety = [p for p in org.truth["pvi"] if "safety" in p["policies"]]
    assert safety, "the org should plant safety cases"
    for planted in safety:
        texts = _texts_of(org, planted["case_id"])
        assert texts
        offered = [offer for offer in OFFERS for text in texts if offer in text]
        assert not offered, (planted["case_id"], planted["breached"], offered)
