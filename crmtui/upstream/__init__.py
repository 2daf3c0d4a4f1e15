"""Upstream's own harness, offline: run it against a local org, import its results.

Public API::

    run_upstream(upstream_dir, org=, tasks=, tasks_source=, out=, args=, python=) -> RunOutcome
    default_python(upstream_dir) -> str        # the venv `crmtui upstream setup` made
    read_plan(upstream_dir) -> Plan            # requirements that install, and what changed
    create_env(env_dir, plan) -> Path          # make that venv
    read_results(path) -> ResultsFile          # paper-era and HEAD results files
    import_results(path, out, org=, tasks=, request_log=, live=) -> ImportReport
    fetch_org(which, url=None) -> Org          # upstream's published org files, verified

The REST API the harness talks to is :mod:`crmtui.rest`; the startup hook that points
upstream's ``simple_salesforce.Salesforce`` and ``datasets.load_dataset`` at local resources
is :mod:`crmtui.upstream.redirect` (its code: ``hook_site.py``).
"""

from __future__ import annotations

from crmtui.upstream.importer import ImportReport, import_results
from crmtui.upstream.results import Attempt, ResultsFile, Step, read_results
from crmtui.upstream.runner import RunOutcome, UpstreamError, default_python, run_upstream
from crmtui.upstream.venv import Plan, create_env, plan_requirements, read_plan, venv_dir

__all__ = [
    "Attempt",
    "ImportReport",
    "Plan",
    "ResultsFile",
    "RunOutcome",
    "Step",
    "UpstreamError",
    "create_env",
    "default_python",
    "import_results",
    "plan_requirements",
    "read_plan",
    "read_results",
    "run_upstream",
    "venv_dir",
]
