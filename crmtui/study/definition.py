"""A study on disk: its folder, its definition file (``study.toml``) and where things go.

Folder layout (``./studies/NAME`` unless ``CRMTUI_STUDIES`` or a path says otherwise)::

    study.toml      the definition: sources, design, play settings, every assignment
    tokens.json     salted hashes of the access tokens (never the tokens), mode 0600
    server.key      the secret that signs sign-in cookies, mode 0600
    signouts.jsonl  sign-ins ended by "Sign out" (cookie nonces), until they would expire
    instructions.md the instructions (and consent) shown before the first instance, if any
    consent.jsonl   who accepted (or declined) which text of them, and when
    recordings/     one folder per annotator, as ``crmtui play`` writes them
    history/        each annotator's console query history in this study

``study.toml`` is meant to be read by people; it is rewritten only by ``crmtui study``
commands (``add-annotator``), never by a session.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from crmtui import __version__
from crmtui.data.tasktypes import sort_key
from crmtui.errors import ConfigError, CrmtuiError
from crmtui.study import toml_text
from crmtui.study.address import Served
from crmtui.study.assign import Assignment, Design, seat_coverage
from crmtui.study.roles import AGENT, ROLES, Conversation, partner_label

DEFINITION_FILE = "study.toml"
TOKENS_FILE = "tokens.json"
SECRET_FILE = "server.key"
SIGNOUTS_FILE = "signouts.jsonl"
RECORDINGS_DIR = "recordings"
HISTORY_DIR = "history"
INSTRUCTIONS_FILE = "instructions.md"
CONSENT_FILE = "consent.jsonl"
STUDIES_ENV = "CRMTUI_STUDIES"

#: Study and annotator names: they become folder names, command arguments and cookie
#: fields, so they stay plain.
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")

_HEADER_COMMENT = """crmtui study definition, written by `crmtui study create`.
Read it freely; change it only with `crmtui study` commands (annotators' recordings refer
to these instances and orders). Gold answers are not stored here."""


class StudyError(CrmtuiError):
    """A study that cannot be found, read or used as asked."""


def check_name(name: str, what: str) -> str:
    """Return ``name`` if it is a valid study or annotator name.

    Raises:
        ConfigError: Naming the rule it breaks.
    """
    if not NAME_RE.match(name):
        raise ConfigError(
            f"{what} {name!r} is not allowed: use letters, digits, '.', '_' or '-' "
            "(starting with a letter or digit, at most 64 characters)"
        )
    return name


def studies_root() -> Path:
    """Where named studies live: ``$CRMTUI_STUDIES`` or ``./studies``."""
    return Path(os.environ.get(STUDIES_ENV) or "studies")


def study_folder(name: str | os.PathLike[str]) -> Path:
    """The folder of a study given by name (under :func:`studies_root`) or by path."""
    text = os.fspath(name)
    if os.sep in text or (os.altsep and os.altsep in text) or text.startswith("."):
        return Path(text).expanduser()
    check_name(text, "study name")
    return studies_root() / text


@dataclass(frozen=True)
class Settings:
    """What a study asks of its annotators' sessions.

    Attributes:
        aided: Show ``metadata.optional`` (upstream's aided mode).
        reveal_gold: Show the reward and gold answer after each counted submission
            (False: blind; practice instances always reveal).
        time_limit_s: Active seconds allowed per instance (None: no limit).
        idle_s: Seconds without input recorded as idle.
        qualify: Practice instances an annotator must answer right before the counted ones
            open (None: practice does not gate; see :mod:`crmtui.study.qualify`).
    """

    aided: bool = False
    reveal_gold: bool = False
    time_limit_s: float | None = None
    idle_s: float = 60.0
    qualify: int | None = None


@dataclass(frozen=True)
class Study:
    """A study's definition, as read from (or about to be written to) ``study.toml``.

    Attributes:
        folder: The study folder.
        name: The study's name.
        created_at: ISO time of creation.
        tasks: The task source (``sample``, a path, ``hf:...``), as play takes it.
        org: The org (path or name; None: the sample org).
        instances_digest: sha256 over the pool and practice instances' idx, type and query,
            to notice a changed task file.
        seed: The seed every random choice was made with.
        per_type: Instances per task type (None when the pool was an explicit list).
        design: The pool, which of it is shared, and the overlap.
        practice: Practice instances, in order.
        settings: Play settings.
        assignments: Each annotator's assignment, in the order they were added.
        conversation: A multi-turn study's settings (None: single-turn; see
            :mod:`crmtui.study.roles`).
        roles: Each annotator's role in a multi-turn study (``agent`` or ``user``).
        partners: Each paired annotator's partner (a person in the other role); the
            unpaired talk to a model.
        served: Where the study is served: the address its links name and how
            ``crmtui serve`` last listened (see :mod:`crmtui.study.address`).
    """

    folder: Path
    name: str
    created_at: str
    tasks: str
    org: str | None
    instances_digest: str
    seed: int
    per_type: int | None
    design: Design
    practice: tuple[int, ...]
    settings: Settings = field(default_factory=Settings)
    assignments: dict[str, Assignment] = field(default_factory=dict)
    conversation: Conversation | None = None
    roles: dict[str, str] = field(default_factory=dict)
    partners: dict[str, str] = field(default_factory=dict)
    served: Served = field(default_factory=Served)

    # -- places ----------------------------------------------------------------------------

    @property
    def definition_path(self) -> Path:
        """``study.toml``."""
        return self.folder / DEFINITION_FILE

    @property
    def tokens_path(self) -> Path:
        """``tokens.json`` (hashes only)."""
        return self.folder / TOKENS_FILE

    @property
    def secret_path(self) -> Path:
        """``server.key``."""
        return self.folder / SECRET_FILE

    @property
    def signouts_path(self) -> Path:
        """``signouts.jsonl``: sign-ins ended before their cookie expired."""
        return self.folder / SIGNOUTS_FILE

    @property
    def instructions_path(self) -> Path:
        """``instructions.md``: shown, and to be accepted, before the first instance."""
        return self.folder / INSTRUCTIONS_FILE

    @property
    def consent_path(self) -> Path:
        """``consent.jsonl``: every annotator's answer to the instructions."""
        return self.folder / CONSENT_FILE

    @property
    def history(self) -> Path:
        """Where annotators' query histories for this study are kept."""
        return self.folder / HISTORY_DIR

    @property
    def recordings(self) -> Path:
        """Where annotators' sessions are recorded."""
        return self.folder / RECORDINGS_DIR

    # -- questions -------------------------------------------------------------------------

    @property
    def annotators(self) -> list[str]:
        """Annotator names, in the order they joined."""
        return list(self.assignments)

    @property
    def pool(self) -> list[int]:
        """The counted instances (the pool), by idx."""
        return sorted(self.design.types)

    @property
    def shared(self) -> list[int]:
        """The instances two or more seats do (a pair of people is one seat): the design's
        shared instances and those a later annotator added overlap to. Agreement, the
        status's "Shared" column and the report count these."""
        seats = seat_coverage(self.design, self.assignments, self.partners)
        return sorted(idx for idx, n in seats.items() if n > 1)

    def assignment(self, annotator: str) -> Assignment:
        """One annotator's assignment.

        Raises:
            StudyError: No such annotator in this study.
        """
        try:
            return self.assignments[annotator]
        except KeyError:
            known = ", ".join(self.annotators) or "none"
            raise StudyError(
                f"{annotator!r} is not an annotator of study {self.name!r} (annotators: {known})"
            ) from None

    @property
    def interactive(self) -> bool:
        """Whether the study's instances are played as dialogues."""
        return self.conversation is not None

    def role_of(self, annotator: str) -> str | None:
        """``agent`` or ``user`` in a multi-turn study (None: single-turn)."""
        if self.conversation is None:
            return None
        return self.roles.get(annotator, AGENT)

    def partner_of(self, annotator: str) -> str | None:
        """The annotator paired with ``annotator`` (None: a model, or single-turn)."""
        return self.partners.get(annotator)

    def partner_text(self, annotator: str) -> str | None:
        """Whom ``annotator`` talks to, in words (None: single-turn)."""
        role = self.role_of(annotator)
        if role is None or self.conversation is None:
            return None
        return partner_label(role, self.partner_of(annotator), self.conversation)

    def with_assignment(self, item: Assignment, role: str | None = None) -> Study:
        """A copy with one more (or a replaced) assignment (and, in a multi-turn study,
        the newcomer's role; they talk to a model)."""
        roles = self.roles if role is None else {**self.roles, item.annotator: role}
        return replace(self, assignments={**self.assignments, item.annotator: item}, roles=roles)

    # -- file ------------------------------------------------------------------------------

    def to_document(self) -> dict[str, Any]:
        """The TOML document (see :func:`load_study` for the reverse)."""
        types = self.design.types
        return {
            "name": self.name,
            "created_at": self.created_at,
            "crmtui_version": __version__,
            "seed": self.seed,
            "source": {
                "tasks": self.tasks,
                "org": self.org,
                "instances_digest": self.instances_digest,
            },
            "design": {
                "per_type": self.per_type,
                "overlap": self.design.overlap,
                "shared": sorted(self.design.shared),
                "practice": list(self.practice),
                # The pool, by task type: readable, and the types need no second list.
                "instances": {
                    code: sorted(idx for idx in types if types[idx] == code)
                    for code in sorted(set(types.values()), key=sort_key)
                },
            },
            "play": {
                "aided": self.settings.aided,
                "reveal_gold": self.settings.reveal_gold,
                "time_limit_s": self.settings.time_limit_s,
                "idle_s": self.settings.idle_s,
                "qualify": self.settings.qualify,
            },
            "dialogue": None if self.conversation is None else self.conversation.to_document(),
            "serve": self.served.to_document(),
            "annotators": {
                name: {
                    "practice": list(item.practice),
                    "instances": list(item.instances),
                    "role": self.role_of(name),
                    "partner": self.partner_of(name),
                }
                for name, item in self.assignments.items()
            },
        }

    def save(self) -> Path:
        """Write ``study.toml`` atomically (a reader never sees half a file)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        text = toml_text.dumps(self.to_document(), comment=_HEADER_COMMENT)
        tmp = self.definition_path.with_suffix(".toml.tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, self.definition_path)
        return self.definition_path


def instances_digest(instances: Iterable[Any]) -> str:
    """sha256 over each instance's idx, task and query (never the answer)."""
    rows = sorted((inst.idx, inst.task, inst.query) for inst in instances)
    return hashlib.sha256(json.dumps(rows, ensure_ascii=False).encode("utf-8")).hexdigest()


def now_text(wall: dt.datetime | None = None) -> str:
    """An ISO UTC time for definition files."""
    moment = wall or dt.datetime.now(dt.UTC)
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def load_study(name: str | os.PathLike[str]) -> Study:
    """Read a study by name or folder.

    Raises:
        StudyError: No study there, or its ``study.toml`` is unreadable or inconsistent
            (naming the problem).
    """
    folder = study_folder(name)
    path = folder / DEFINITION_FILE
    if not path.is_file():
        where = f" in {folder.parent}" if folder.parent != Path() else ""
        raise StudyError(f"no study {os.fspath(name)!r}{where} ({path} not found)")
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise StudyError(f"cannot read {path}: {exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise StudyError(f"{path} is not valid TOML: {exc}") from exc
    try:
        return _from_document(folder, doc)
    except (KeyError, TypeError, ValueError) as exc:
        raise StudyError(f"{path}: missing or malformed entry ({exc})") from exc


def _from_document(folder: Path, doc: Mapping[str, Any]) -> Study:
    source, design, play = doc["source"], doc["design"], doc["play"]
    pool: dict[int, str] = {}
    for code, members in design["instances"].items():
        for idx in members:
            if int(idx) in pool:
                raise ValueError(f"design.instances lists {idx} twice")
            pool[int(idx)] = str(code)
    pool = dict(sorted(pool.items()))
    shared = frozenset(int(idx) for idx in design["shared"])
    if not shared <= set(pool):
        raise ValueError("design.shared names instances outside design.instances")
    assignments: dict[str, Assignment] = {}
    conversation = None if "dialogue" not in doc else Conversation.from_document(doc["dialogue"])
    roles: dict[str, str] = {}
    partners: dict[str, str] = {}
    for name, item in doc.get("annotators", {}).items():
        if "role" in item:
            if item["role"] not in ROLES or conversation is None:
                raise ValueError(f"annotators.{name}.role needs agent or user and [dialogue]")
            roles[name] = str(item["role"])
        if "partner" in item:
            partners[name] = str(item["partner"])
        counted = tuple(int(idx) for idx in item["instances"])
        if not set(counted) <= set(pool):
            raise ValueError(f"annotators.{name}.instances names instances outside the pool")
        if len(set(counted)) != len(counted):
            raise ValueError(f"annotators.{name}.instances repeats an instance")
        assignments[name] = Assignment(name, tuple(int(i) for i in item["practice"]), counted)
    limit = play.get("time_limit_s")
    qualify = play.get("qualify")
    practice = tuple(int(idx) for idx in design["practice"])
    if qualify is not None and not 0 < int(qualify) <= len(practice):
        raise ValueError(
            f"play.qualify = {qualify} needs 1 to {len(practice)} (the practice count)"
        )
    return Study(
        folder=folder,
        name=str(doc["name"]),
        created_at=str(doc["created_at"]),
        tasks=str(source["tasks"]),
        org=source.get("org"),
        instances_digest=str(source["instances_digest"]),
        seed=int(doc["seed"]),
        per_type=design.get("per_type"),
        design=Design(types=pool, shared=shared, overlap=int(design["overlap"])),
        practice=practice,
        settings=Settings(
            aided=bool(play["aided"]),
            reveal_gold=bool(play["reveal_gold"]),
            time_limit_s=None if limit is None else float(limit),
            idle_s=float(play["idle_s"]),
            qualify=None if qualify is None else int(qualify),
        ),
        assignments=assignments,
        conversation=conversation,
        roles=roles,
        partners=_checked_partners(partners, roles, assignments),
        served=Served.from_document(doc.get("serve")),
    )


def _checked_partners(
    partners: dict[str, str], roles: Mapping[str, str], assignments: Mapping[str, Assignment]
) -> dict[str, str]:
    """Partners must be mutual, in opposite roles, with the same instances in one order."""
    for name, other in partners.items():
        if partners.get(other) != name or other not in assignments:
            raise ValueError(f"annotators.{name}.partner {other!r} is not paired back")
        if roles.get(name, AGENT) == roles.get(other, AGENT):
            raise ValueError(f"annotators.{name} and {other} are partners in the same role")
        if assignments[name].order != assignments[other].order:
            raise ValueError(f"annotators.{name} and {other} are partners with other instances")
    return partners
