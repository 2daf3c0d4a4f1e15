"""Human-baseline studies: several annotators, assigned instances, blinding, agreement.

No textual import here: the CLI (``crmtui study ...``), the play app (through
:class:`~crmtui.study.plan.StudyPlan`, a :class:`~crmtui.play.policy.PlayPlan`) and the web
server (``crmtui serve``) all call this package.

Public API:

* :func:`create_study`, :class:`StudyRequest`, :func:`add_annotator`,
  :func:`rotate_tokens`, :func:`sign_in_link` — making and changing a study;
* :func:`load_study`, :class:`Study`, :class:`Settings`, :class:`StudyError` — reading one;
* :func:`assign`, :func:`design`, :class:`Assignment` — who does what (pure);
* :class:`TokenStore`, :func:`sign_cookie`, :func:`read_cookie`, :func:`load_secret` —
  tokens and sign-in cookies;
* :class:`StudyPlan` — what one annotator's play app shows;
* :func:`study_status`, :class:`StudyStatus` — progress;
* :func:`report_study`, :class:`StudyReport`, :func:`agreement_stats` — the report.
"""

from crmtui.study.agreement import AgreementStats, agreement_stats, krippendorff_alpha
from crmtui.study.assign import Assignment, Design, assign, design, extend
from crmtui.study.create import (
    StudyRequest,
    add_annotator,
    create_study,
    rotate_tokens,
    sign_in_link,
)
from crmtui.study.definition import Settings, Study, StudyError, load_study, study_folder
from crmtui.study.plan import StudyPlan
from crmtui.study.report import StudyReport, report_study
from crmtui.study.status import StudyStatus, study_status
from crmtui.study.tokens import TokenStore, load_secret, read_cookie, sign_cookie

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
    "rotate_tokens",
    "sign_cookie",
    "sign_in_link",
    "study_folder",
    "study_status",
]
