"""The exit statuses of every ``crmtui`` command, defined once (see docs/configuration.md).

====  ===================================================================================
code  meaning
====  ===================================================================================
0     done; for ``run``: every row of the results file is a real outcome (right or wrong)
1     an error crmtui reports in one ``Error:`` line (unreadable file, broken org, ...)
2     a usage or configuration mistake: a bad option, a missing API key, an unreachable
      ``--api-base``, tasks made for another org, a resume with other settings
3     ``run`` finished (or stopped after the first instances all failed) and the results
      file holds model or harness errors
130   interrupted (Ctrl-C); every file is left consistent, the run resumes where it stopped
====  ===================================================================================
"""

from __future__ import annotations

__all__ = ["ERROR", "INSTANCE_ERRORS", "INTERRUPTED", "OK", "USAGE"]

OK = 0
ERROR = 1
USAGE = 2
INSTANCE_ERRORS = 3
INTERRUPTED = 130
