"""Errors raised while scoring an answer."""

from __future__ import annotations

from crmtui.errors import CrmtuiError


class ScoringError(CrmtuiError):
    """An answer cannot be scored with the requested metric or method."""
