"""``crmtui upstream setup``: a working Python environment for upstream's harness.

Upstream's ``requirements.txt`` does not install as pinned: its ``litellm==1.67.2`` requires
``openai>=1.68.2`` while it pins ``openai==1.51.2``; and it lacks ``datasets``, which
``crm_sandbox/data/assets.py`` imports. :func:`plan_requirements` keeps every other pin and
says what it changed and why; :func:`create_env` makes the venv and installs the plan.
litellm 1.82.7 and 1.82.8 (a compromised release) are excluded whatever the file says.
"""

from __future__ import annotations

import hashlib
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from crmtui import paths
from crmtui.errors import ConfigError

_PIN = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*==\s*([^\s;#]+)\s*(?:[;#].*)?$")

#: Pins replaced because they cannot be installed together: name -> (requirement, reason).
CONFLICTS: dict[str, tuple[str, str]] = {
    "openai": ("openai>=1.68.2", "litellm==1.67.2 requires openai>=1.68.2"),
}
#: Packages upstream imports but does not list: requirement -> reason.
ADDITIONS: dict[str, str] = {
    "datasets": "crm_sandbox/data/assets.py imports it; requirements.txt does not list it",
}
#: Never to be installed (compromised release).
EXCLUDED = "litellm!=1.82.7,!=1.82.8"
#: Pinned versions that ship no wheels for newer Pythons: from this Python version on, the
#: pin becomes a lower bound so pip can pick a release that installs.
WHEEL_LIMITS: dict[str, tuple[int, int]] = {
    "numpy": (3, 13),
    "pandas": (3, 13),
    "pydantic_core": (3, 13),
    "pydantic": (3, 13),
    "lxml": (3, 13),
    "jiter": (3, 13),
    "cffi": (3, 14),
    "cryptography": (3, 14),
}


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@dataclass
class Plan:
    """The requirements to install and how they differ from upstream's file.

    Attributes:
        requirements: Lines for ``pip install -r``.
        relaxed: ``(upstream's pin, what is installed instead, why)``.
        added: ``(requirement, why)`` for packages upstream's file lacks.
    """

    requirements: list[str] = field(default_factory=list)
    relaxed: list[tuple[str, str, str]] = field(default_factory=list)
    added: list[tuple[str, str]] = field(default_factory=list)


def plan_requirements(text: str, python: tuple[int, int] = sys.version_info[:2]) -> Plan:
    """Turn upstream's ``requirements.txt`` into requirements that install together.

    Args:
        text: The file's content.
        python: The (major, minor) version of the Python the venv will use.
    """
    plan = Plan()
    seen: set[str] = set()
    limits = {_norm(k): v for k, v in WHEEL_LIMITS.items()}
    conflicts = {_norm(k): v for k, v in CONFLICTS.items()}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        match = _PIN.match(line)
        if match is None:
            plan.requirements.append(line)
            continue
        name, version = match.groups()
        key = _norm(name)
        seen.add(key)
        if key in conflicts:
            replacement, why = conflicts[key]
            plan.requirements.append(replacement)
            plan.relaxed.append((line, replacement, why))
        elif key == "litellm" and version in ("1.82.7", "1.82.8"):
            plan.requirements.append(EXCLUDED)
            plan.relaxed.append((line, EXCLUDED, "a compromised release; never installed"))
        elif key in limits and python >= limits[key]:
            replacement = f"{name}>={version}"
            plan.requirements.append(replacement)
            why = f"{name} {version} has no wheels for Python {python[0]}.{python[1]}"
            plan.relaxed.append((line, replacement, why))
        else:
            plan.requirements.append(line)
    for requirement, why in ADDITIONS.items():
        if _norm(requirement) not in seen:
            plan.requirements.append(requirement)
            plan.added.append((requirement, why))
    plan.requirements.append(EXCLUDED)
    return plan


def venv_dir(upstream_dir: Path) -> Path:
    """Where the environment for ``upstream_dir`` lives (inside crmtui's data directory)."""
    folder = upstream_dir.expanduser().resolve()
    tag = hashlib.sha256(str(folder).encode()).hexdigest()[:10]
    return paths.home() / "upstream" / f"{folder.name}-{tag}" / "venv"


def venv_python(env: Path) -> Path:
    """The Python executable inside a venv."""
    if sys.platform == "win32":  # pragma: no cover
        return env / "Scripts" / "python.exe"
    return env / "bin" / "python"


def read_plan(upstream_dir: Path, python: tuple[int, int] = sys.version_info[:2]) -> Plan:
    """:func:`plan_requirements` over ``upstream_dir/requirements.txt``.

    Raises:
        ConfigError: The file is missing or unreadable.
    """
    path = upstream_dir / "requirements.txt"
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from exc
    return plan_requirements(text, python)


def create_env(
    env: Path,
    plan: Plan,
    *,
    base_python: str = sys.executable,
    run: Callable[..., subprocess.CompletedProcess[str]] = subprocess.run,
) -> Path:
    """Make the venv (if needed) and install the plan; return its Python.

    Raises:
        ConfigError: venv creation or the install failed (pip's last lines are quoted).
    """
    python = venv_python(env)
    if not python.exists():
        _check(run([base_python, "-m", "venv", str(env)], capture_output=True, text=True), "venv")
    requirements = env.parent / "requirements-crmtui.txt"
    requirements.write_text("\n".join(plan.requirements) + "\n", encoding="utf-8")
    result = run(
        [str(python), "-m", "pip", "install", "-r", str(requirements)],
        capture_output=True,
        text=True,
    )
    _check(result, "pip install")
    return python


def installed_versions(
    python: Path | str,
    names: list[str],
    *,
    run: Callable[..., subprocess.CompletedProcess[str]] = subprocess.run,
) -> dict[str, str]:
    """The versions pip actually installed for ``names`` in the venv of ``python``.

    A relaxed pin or an added package has no version in the plan; this says which one the
    resolver chose, so ``upstream setup`` can report it. Missing packages are left out.
    """
    script = (
        "import sys, importlib.metadata as m\n"
        "for n in sys.argv[1:]:\n"
        "    try: print(n, m.version(n))\n"
        "    except m.PackageNotFoundError: pass\n"
    )
    result = run([str(python), "-c", script, *names], capture_output=True, text=True)
    if result.returncode != 0:
        return {}
    return dict(line.split(" ", 1) for line in result.stdout.splitlines() if " " in line)


def requirement_name(requirement: str) -> str:
    """The distribution name at the start of a requirement (``openai>=1.68.2`` -> ``openai``)."""
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
    return match.group(1) if match else requirement


def _check(result: subprocess.CompletedProcess[str], what: str) -> None:
    if result.returncode != 0:
        tail = " | ".join((result.stderr or result.stdout or "").strip().splitlines()[-3:])
        raise ConfigError(f"{what} failed (exit {result.returncode}): {tail}")
