"""``crmtui upstream run``: upstream's ``run_tasks.py``, unchanged, against a local org.

The org is served by :mod:`crmtui.rest` (HTTPS on 127.0.0.1, a random port and session id),
upstream runs in a child Python whose ``PYTHONPATH`` starts with the startup hook folder
(:mod:`crmtui.upstream.redirect`), and when it ends its results file is imported as
recordings. Nothing in the upstream folder is written to.
"""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from crmtui.data.instances import TaskSet
from crmtui.errors import ConfigError, CrmtuiError
from crmtui.upstream.redirect import HOOK_ENV, write_hook

#: Variables that keep the child offline and quiet (set unless the user set them).
OFFLINE_ENV = {
    "HF_HUB_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "HF_UPDATE_DOWNLOAD_COUNTS": "0",
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    "LITELLM_OFFLINE_MODE": "true",
}
#: Upstream's connector refuses to start without credentials in these variables; the values
#: are never used (the hook connects to the local API whatever they say).
CREDENTIAL_VARS = tuple(
    f"SALESFORCE_{org}{part}"
    for org in ("", "B2B_", "B2C_")
    for part in ("USERNAME", "PASSWORD", "SECURITY_TOKEN")
)


class UpstreamError(CrmtuiError):
    """Upstream's harness could not be run or produced nothing."""


@dataclass
class RunOutcome:
    """What an upstream run left behind.

    Attributes:
        returncode: The child's exit status.
        results: Results files upstream wrote during this run.
        request_log: The REST API's request log.
        output_log: Everything the child printed.
        hook_log: The hook's record of each redirection.
        recordings: Recordings imported from the results.
        problems: Rows that could not be imported, one line each.
    """

    returncode: int
    results: list[Path]
    request_log: Path
    output_log: Path
    hook_log: Path
    recordings: list[Path] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def check_upstream_dir(path: Path) -> Path:
    """The upstream folder, checked to hold ``run_tasks.py`` and ``crm_sandbox/``."""
    folder = path.expanduser().resolve()
    if not (folder / "run_tasks.py").is_file() or not (folder / "crm_sandbox").is_dir():
        raise ConfigError(
            f"{folder} is not upstream's CRMArena folder (expected run_tasks.py and crm_sandbox/)"
        )
    return folder


def _option(args: Sequence[str], name: str) -> str | None:
    for i, arg in enumerate(args):
        if arg == name and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith(name + "="):
            return arg.split("=", 1)[1]
    return None


def split_categories(args: Sequence[str], tasks: TaskSet) -> tuple[list[str], TaskSet, str | None]:
    """Handle a comma-separated ``--task_category``, which run_tasks.py's argparse refuses.

    Both upstream versions check the value against a list of single names (their comma
    branch is never reached). The tasks served are narrowed to those types instead and
    run_tasks.py is asked for ``all``.

    Returns:
        The arguments to pass, the tasks to serve, and a note saying what was done (or None).
    """
    argv = list(args)
    for i, arg in enumerate(argv):
        value, at = None, None
        if arg == "--task_category" and i + 1 < len(argv):
            value, at = argv[i + 1], i + 1
        elif arg.startswith("--task_category="):
            value, at = arg.split("=", 1)[1], i
        if value is None or at is None or "," not in value:
            continue
        wanted = [v.strip() for v in value.split(",") if v.strip()]
        kept = [t for t in tasks if t.task in wanted]
        argv[at] = "all" if at == i + 1 else "--task_category=all"
        note = (
            f"--task_category {value}: run_tasks.py accepts one category or all; serving the "
            f"{len(kept)} instances of {', '.join(wanted)} and passing all"
        )
        return argv, TaskSet(kept, tasks.source), note
    return argv, tasks, None


def child_env(
    base: dict[str, str], hook_dir: Path, config: Path, api_base: str | None
) -> dict[str, str]:
    """The child's environment: hook first on PYTHONPATH, offline flags, dummy credentials."""
    env = dict(base)
    existing = env.get("PYTHONPATH")
    env["PYTHONPATH"] = os.pathsep.join([str(hook_dir)] + ([existing] if existing else []))
    env[HOOK_ENV] = str(config)
    env["PYTHONUNBUFFERED"] = "1"
    for key, value in OFFLINE_ENV.items():
        env.setdefault(key, value)
    for key in CREDENTIAL_VARS:
        env.setdefault(key, "crmtui-local")
    if api_base:
        env["OPENAI_API_BASE"] = api_base
        env["OPENAI_BASE_URL"] = api_base
    return env


def run_upstream(
    upstream_dir: Path,
    *,
    org: Any,
    tasks: TaskSet,
    tasks_source: str,
    out: Path,
    args: Sequence[str],
    python: str,
    api_base: str | None = None,
    today: dt.date | None = None,
    on_output: Callable[[str], None] | None = None,
    import_results: bool = True,
    environment: dict[str, Any] | None = None,
) -> RunOutcome:
    """Run upstream's harness on ``tasks`` against ``org`` and import what it wrote.

    Args:
        upstream_dir: Upstream's folder (``run_tasks.py``, ``crm_sandbox/``); never written.
        org: The opened org to serve.
        tasks: The instances every task split of the hook yields.
        tasks_source: Where the tasks came from (recorded in the recordings).
        out: Folder receiving the results file, the request log, upstream's output and the
            recordings (``out/recordings``).
        args: Arguments for ``run_tasks.py`` (``--log_dir`` defaults to ``out``).
        python: The Python that runs upstream.
        api_base: Sets ``OPENAI_API_BASE`` (litellm's openai provider) for the child.
        today: Reference date of the REST API's relative date literals (default: real date).
        on_output: Called with each line the child prints.
        import_results: Import the results as recordings afterwards.
        environment: What runs the harness (``upstream setup``'s record: version, commit,
            relaxed pins); written to ``out/upstream-environment.json`` and into every
            imported recording's header.

    Raises:
        ConfigError: Bad folder or Python.
        UpstreamError: The child could not be started.
    """
    from crmtui.rest import new_session_id, serve

    folder = check_upstream_dir(upstream_dir)
    args, tasks, note = split_categories(args, tasks)
    if note and on_output is not None:
        on_output(note)
    out = out.expanduser().resolve()
    out.mkdir(parents=True, exist_ok=True)
    hook_dir = out / ".crmtui-hook"
    if environment:
        import json

        text = json.dumps(environment, indent=2) + "\n"
        (out / "upstream-environment.json").write_text(text, encoding="utf-8")
    request_log = out / "requests.jsonl"
    session_id = new_session_id()
    server, tls = serve(
        org, session_id=session_id, ca_path=hook_dir / "ca.pem", log_path=request_log, today=today
    )
    started = time.time()
    try:
        config = write_hook(
            hook_dir,
            tasks=tasks,
            schema=org.schema,
            instance_url=server.instance_url,
            session_id=session_id,
            ca_path=tls.ca_path if tls else None,
        )
        argv = list(args)
        log_dir = _option(argv, "--log_dir")
        if log_dir is None:
            argv += ["--log_dir", str(out)]
            log_dir = str(out)
        env = child_env(dict(os.environ), hook_dir, config, api_base)
        returncode, output_log = _run_child(
            [python, "-u", str(folder / "run_tasks.py"), *argv], out, env, on_output
        )
    finally:
        server.stop()
    results_dir = Path(log_dir) if Path(log_dir).is_absolute() else out / log_dir
    results = sorted(
        p for p in results_dir.glob("results_*.json") if p.stat().st_mtime >= started - 1
    )
    outcome = RunOutcome(returncode, results, request_log, output_log, hook_dir / "hook.jsonl")
    if import_results:
        from crmtui.upstream.importer import import_results as do_import

        for path in results:
            report = do_import(
                path,
                out / "recordings",
                org=org,
                tasks=tasks,
                tasks_source=tasks_source,
                request_log=request_log,
                model_log=outcome.hook_log if outcome.hook_log.exists() else None,
                environment=environment,
                dialogue=_dialogue_args(args),
            )
            outcome.recordings += report.written
            outcome.problems += report.problems
    return outcome


def _dialogue_args(args: Sequence[str]) -> dict[str, Any]:
    """The interactive mode's settings ``run_tasks.py`` was given (its defaults otherwise)."""
    interactive = "--interactive" in args
    values: dict[str, Any] = {"interactive": interactive}
    turns = _option(args, "--max_user_turns")
    if interactive and turns is not None and turns.strip().isdigit():
        values["max_user_turns"] = int(turns)
    return values


def _run_child(
    argv: list[str], cwd: Path, env: dict[str, str], on_output: Callable[[str], None] | None
) -> tuple[int, Path]:
    output_log = cwd / "upstream-output.log"
    try:
        proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            text=True,
            encoding="utf-8",
            errors="replace",
            bufsize=1,
        )
    except OSError as exc:
        raise UpstreamError(f"cannot start {argv[0]}: {exc.strerror or exc}") from exc
    try:
        with output_log.open("w", encoding="utf-8") as log:
            assert proc.stdout is not None
            for line in proc.stdout:
                log.write(line)
                if on_output is not None:
                    on_output(line.rstrip("\n"))
        return proc.wait(), output_log
    except KeyboardInterrupt:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        raise


def default_python(upstream_dir: Path) -> str:
    """The Python of the environment ``crmtui upstream setup`` made for ``upstream_dir``.

    Raises:
        ConfigError: There is none yet.
    """
    from crmtui.upstream.venv import venv_dir, venv_python

    python = venv_python(venv_dir(upstream_dir))
    if not python.exists():
        raise ConfigError(
            f"no environment for {upstream_dir} yet: run `crmtui upstream setup {upstream_dir}` "
            f"or pass --python (e.g. --python {sys.executable})"
        )
    return str(python)
