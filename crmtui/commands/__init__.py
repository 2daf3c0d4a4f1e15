"""The CLI's subcommands, one module each, imported by :mod:`crmtui.cli` only when invoked.

Each command is a few lines over a library call; the top layer with :mod:`crmtui.cli`.
:data:`COMMANDS` names them all (the click group, :mod:`.group`, lists and loads them from it);
this package itself imports nothing.
"""

from __future__ import annotations

# name -> (module, attribute, one-line help). Help is duplicated here so that listing
# commands does not import them.
COMMANDS: dict[str, tuple[str, str, str]] = {
    "play": ("crmtui.commands.play", "play", "Solve instances yourself in the TUI (default)."),
    "tasks": (
        "crmtui.commands.tasks",
        "tasks",
        "List, show and measure CRMArena instances.",
    ),
    "org": ("crmtui.commands.org", "org", "Build, import and inspect org databases."),
    "query": ("crmtui.commands.query", "query", "Run a SOQL or SOSL query against an org."),
    "verify": ("crmtui.commands.verify", "verify", "Check a recording's hash chain."),
    "watch": ("crmtui.commands.watch", "watch", "Watch an LLM agent solve an instance live."),
    "run": ("crmtui.commands.run", "run", "Run an LLM agent over many instances, headless."),
    "replay": ("crmtui.commands.replay", "replay", "Step through a recorded session."),
    "compare": ("crmtui.commands.compare", "compare", "Compare two sessions step by step."),
    "report": ("crmtui.commands.report", "report", "Accuracy, time and cost per actor."),
    "export": ("crmtui.commands.export", "export", "Export recordings as a dataset."),
    "study": ("crmtui.commands.study", "study", "Run a human-baseline study with annotators."),
    "serve": ("crmtui.commands.serve", "serve", "Serve a study to annotators' web browsers."),
    "serve-rest": (
        "crmtui.commands.serve_rest",
        "serve_rest",
        "Serve an org as a local, read-only Salesforce REST API.",
    ),
    "upstream": (
        "crmtui.commands.upstream",
        "upstream",
        "Run upstream's own harness, unchanged, against a local org.",
    ),
    "import-upstream": (
        "crmtui.commands.import_upstream",
        "import_upstream",
        "Turn an upstream results file into recordings.",
    ),
}
