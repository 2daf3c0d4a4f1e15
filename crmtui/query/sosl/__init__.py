"""SOSL: ``FIND {term} ... RETURNING ...`` over the org's FTS5 tables (a scan without them).

:mod:`.parser` reads the text (grammar ``sosl.lark``), :mod:`.search` finds the matching Ids
of one object, :mod:`.engine` runs each RETURNING clause through the SOQL engine. SOSL builds
on SOQL, never the other way round.
"""

from crmtui.query.sosl.engine import execute_sosl

__all__ = ["execute_sosl"]
