"""``crmtui upstream setup``: a working Python environment for upstream's harness.

Upstream's ``requirements.txt`` does not install as pinned: HEAD's ``litellm==1.67.2`` requires
``openai>=1.68.2`` while it pins ``openai==1.51.2``; the paper's ``litellm==1.49.2`` is not on
the package index these machines reach (it jumps from 1.14.4 to 1.53.1); both lack
``datasets``, which ``crm_sandbox/data/assets.py`` imports. :func:`plan_requirements` keeps
every other pin and says what it changed and why; :func:`resolve_pins` then relaxes, one by
one, each pin pip still cannot install to the nearest version that installs (asking pip, so
it follows whatever index is configured); :func:`create_env` makes the venv and installs the
plan, and :func:`write_environment` records the outcome for every later run. litellm 1.82.7
and 1.82.8 (a compromised release) are excluded whatever the file says.
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

#: Pins replaced because they cannot be installed together: name -> (requirement, reason),
#: applied when the file pins the requirement named in :data:`CONFLICT_WHEN`.
#: openai: litellm 1.67.2 needs >=1.68.2; left open, pip picks the newest release the other pins
#: allow (2.2.0 on Python 3.11/3.12 under pydantic 2.8.2 and jiter 0.5.0; on 3.13+, where those
#: pins become lower bounds, the newest of all, a 3.x by late 2026). Checked with 2.2.0: upstream
#: imports ``OpenAI`` (unused) and calls ``litellm.completion`` (text and native tool calls),
#: which work; openai minor releases have broken litellm's imports of openai's types before
#: (openai 1.100, litellm 1.75.8), so the range stops below the next major: a 3.x passed the
#: same smoke check here but is not what litellm 1.67.2 was released against.
CONFLICTS: dict[str, tuple[str, str]] = {
    "openai": (
        "openai>=1.68.2,<3",
        "litellm==1.67.2 requires openai>=1.68.2; kept below 3 (2.x checked with litellm 1.67.2)",
    ),
}
CONFLICT_WHEN = {"openai": "litellm==1.67.2"}
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
    pinned = {re.sub(r"\s+", "", line) for line in text.splitlines()}
    conflicts = {_norm(k): v for k, v in CONFLICTS.items() if CONFLICT_WHEN.get(k, "") in pinned}
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
    """Where the environment for ``upstream_dir`` lives (inside crmtui's data directory).

    One per folder, so the paper's code and HEAD (different pins) each get their own.
    """
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
    resolve: bool = True,
) -> Path:
    """Make the venv (if needed) and install the plan; return its Python.

    With ``resolve``, pins the package index cannot serve are relaxed first
    (:func:`resolve_pins`; ``plan.relaxed`` says which).

    Raises:
        ConfigError: venv creation or the install failed (pip's last lines are quoted).
    """
    python = venv_python(env)
    if not python.exists():
        _check(run([base_python, "-m", "venv", str(env)], capture_output=True, text=True), "venv")
    if resolve:
        resolve_pins(plan, python, env.parent, run=run)
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


# -- pins the package index cannot serve ---------------------------------------------------

_MISSING = re.compile(
    r"Could not find a version that satisfies the requirement ([A-Za-z0-9._-]+)==(\S+) "
    r"\(from versions: ([^)]*)\)"
)
_USER_PIN = re.compile(r"The user requested ([A-Za-z0-9._-]+)==(\S+)")
_DEPENDS = re.compile(r"^\s*([A-Za-z0-9._-]+) (\S+) depends on ([A-Za-z0-9._-]+)(.+)$", re.M)
_AVAILABLE = re.compile(r"Available versions: (.+)")
#: Attempts at a resolvable set before giving up (each is one pip dry run).
MAX_ROUNDS = 8


def nearest_version(pinned: str, available: list[str], allowed: str = "") -> str | None:
    """The release closest to ``pinned`` that the index has (and ``allowed`` admits).

    The nearest newer release wins over an older one (a newer patch fixes, an older one
    lacks what the code may use); pre-releases and the compromised litellm 1.82.7/1.82.8
    are never chosen.
    """
    from packaging.specifiers import SpecifierSet
    from packaging.version import InvalidVersion, Version

    spec = SpecifierSet(allowed)
    versions = []
    for text in available:
        try:
            version = Version(text.strip())
        except InvalidVersion:
            continue
        if version.is_prerelease or str(version) in ("1.82.7", "1.82.8"):
            continue
        if version in spec:
            versions.append(version)
    if not versions:
        return None
    target = Version(pinned)
    newer = sorted(v for v in versions if v >= target)
    return str(newer[0] if newer else max(versions))


def _replace(plan: Plan, name: str, line: str, new: str, why: str) -> None:
    key = _norm(name)
    plan.requirements = [
        new if _norm(requirement_name(r)) == key and "==" in r else r for r in plan.requirements
    ]
    plan.relaxed.append((line, new, why))


def _index_versions(
    python: Path | str, name: str, run: Callable[..., subprocess.CompletedProcess[str]]
) -> list[str]:
    result = run(
        [str(python), "-m", "pip", "index", "versions", name], capture_output=True, text=True
    )
    match = _AVAILABLE.search(result.stdout or "")
    return [v.strip() for v in match.group(1).split(",")] if match else []


def resolve_pins(
    plan: Plan,
    python: Path | str,
    workdir: Path,
    *,
    run: Callable[..., subprocess.CompletedProcess[str]] = subprocess.run,
) -> Plan:
    """Relax, one by one, the pins pip cannot install from the index it reaches.

    Each round is a ``pip install --dry-run`` of the plan. A pinned version the index does not
    have (``litellm==1.49.2``) becomes the nearest one it has; a pin another requirement
    cannot live with (``openai==1.51.2`` under a litellm that needs ``openai>=1.54.0``)
    becomes the nearest version that requirement accepts. Every change is added to
    ``plan.relaxed`` with its reason.

    Raises:
        ConfigError: pip fails for another reason, or no nearby version resolves.
    """
    requirements = workdir / "requirements-crmtui.txt"
    for _ in range(MAX_ROUNDS):
        requirements.write_text("\n".join(plan.requirements) + "\n", encoding="utf-8")
        result = run(
            [str(python), "-m", "pip", "install", "--dry-run", "-r", str(requirements)],
            capture_output=True,
            text=True,
        )
        if result.returncode == 0:
            return plan
        text = (result.stderr or "") + "\n" + (result.stdout or "")
        missing = _MISSING.search(text)
        if missing:
            name, pinned, listed = missing.groups()
            chosen = nearest_version(pinned, listed.split(","))
            if chosen is None:
                break
            why = f"{name} {pinned} is not on the package index; its nearest release there"
            _replace(plan, name, f"{name}=={pinned}", f"{name}=={chosen}", why)
            continue
        user = _USER_PIN.search(text)
        needs = [m for m in _DEPENDS.finditer(text) if user and _norm(m[3]) == _norm(user[1])]
        if user and needs:
            name, pinned = user.groups()
            allowed = ",".join(m[4].strip() for m in needs)
            chosen = nearest_version(pinned, _index_versions(python, name, run), allowed)
            if chosen is None:
                break
            why = "; ".join(f"{m[1]} {m[2]} requires {m[3]}{m[4].strip()}" for m in needs)
            _replace(plan, name, f"{name}=={pinned}", f"{name}=={chosen}", why)
            continue
        break
    tail = " | ".join((result.stderr or result.stdout or "").strip().splitlines()[-3:])
    raise ConfigError(f"pip cannot resolve upstream's requirements: {tail}")


def environment_file(env: Path) -> Path:
    """Where ``upstream setup`` records what it installed (beside the venv)."""
    return env.parent / "crmtui-environment.json"


def write_environment(env: Path, facts: dict[str, object]) -> Path:
    """Record the version, commit, relaxed pins and chosen versions of a venv."""
    import json

    path = environment_file(env)
    path.write_text(json.dumps(facts, indent=2) + "\n", encoding="utf-8")
    return path


def read_environment(python: Path | str) -> dict[str, object] | None:
    """What ``upstream setup`` recorded for the venv ``python`` belongs to (None: nothing)."""
    import json

    env = Path(python).parent.parent
    path = environment_file(env)
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None
