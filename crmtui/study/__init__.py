"""Human-baseline studies: several annotators, assigned instances, blinding, agreement.

No textual import here: the CLI (``crmtui study ...``), the play app (through
:class:`~crmtui.study.plan.StudyPlan`, a :class:`~crmtui.play.policy.PlayPlan`) and the web
server (``crmtui serve``) all call this package.

Public API:

* :func:`create_study`, :class:`StudyRequest`, :func:`add_annotator`,
  :func:`rotate_tokens`, :func:`revoke_tokens`, :func:`set_qualify`,
  :func:`set_instructions`, :func:`sign_in_link` — making and changing a study;
* :func:`load_study`, :class:`Study`, :class:`Settings`, :class:`StudyError` — reading one;
* :func:`assign`, :func:`design`, :class:`Assignment` — who does what (pure);
* :class:`TokenStore`, :func:`sign_cookie`, :func:`read_cookie`, :func:`load_secret` —
  tokens and sign-in cookies;
* :class:`StudyPlan` — what one annotator's play app shows;
* :func:`study_status`, :class:`StudyStatus` — progress;
* :func:`report_study`, :class:`StudyReport`, :func:`agreement_stats` — the report.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# name -> module. The face is lazy (PEP 562) so that a served session, which needs only the
# definition and the plan, does not pay for importing the report code at start-up.
_EXPORTS = {
    "AgreementStats": "agreement",
    "agreement_stats": "agreement",
    "krippendorff_alpha": "agreement",
    "Assignment": "assign",
    "Design": "assign",
    "assign": "assign",
    "design": "assign",
    "extend": "assign",
    "StudyRequest": "create",
    "add_annotator": "create",
    "create_study": "create",
    "rotate_tokens": "create",
    "revoke_tokens": "create",
    "set_instructions": "create",
    "set_qualify": "create",
    "sign_in_link": "create",
    "Settings": "definition",
    "Study": "definition",
    "StudyError": "definition",
    "load_study": "definition",
    "study_folder": "definition",
    "StudyPlan": "plan",
    "StudyReport": "report",
    "report_study": "report",
    "StudyStatus": "status",
    "study_status": "status",
    "TokenStore": "tokens",
    "load_secret": "tokens",
    "read_cookie": "tokens",
    "sign_cookie": "tokens",
}

__all__ = [
    "AgreementStats",
    "Assignment",
    "Design",
    "Settings",
    "Study",
    "StudyError",
    "StudyPlan",
    "StudyReport",
    "StudyRequest",
    "StudyStatus",
    "TokenStore",
    "add_annotator",
    "agreement_stats",
    "assign",
    "create_study",
    "design",
    "extend",
    "krippendorff_alpha",
    "load_secret",
    "load_study",
    "read_cookie",
    "report_study",
    "revoke_tokens",
    "rotate_tokens",
    "set_instructions",
    "set_qualify",
    "sign_cookie",
    "sign_in_link",
    "study_folder",
    "study_status",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'crmtui.study' has no attribute {name!r}")
    return getattr(importlib.import_module(f"crmtui.study.{module}"), name)


if TYPE_CHECKING:  # for type checkers and editors: the same names, eagerly
    from crmtui.study.agreement import AgreementStats, agreement_stats, krippendorff_alpha
    from crmtui.study.assign import Assignment, Design, assign, design, extend
    from crmtui.study.create import (
        StudyRequest,
        add_annotator,
        create_study,
        revoke_tokens,
        rotate_tokens,
        set_instructions,
        set_qualify,
        sign_in_link,
    )
    from crmtui.study.definition import Settings, Study, StudyError, load_study, study_folder
    from crmtui.study.plan import StudyPlan
    from crmtui.study.report import StudyReport, report_study
    from crmtui.study.status import StudyStatus, study_status
    from crmtui.study.tokens import TokenStore, load_secret, read_cookie, sign_cookie
