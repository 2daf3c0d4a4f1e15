"""Making a study, adding annotators and rotating tokens (the verbs of ``crmtui study``)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from crmtui.errors import ConfigError
from crmtui.study.address import DEFAULT_URL, Served, check_url
from crmtui.study.assign import (
    Assignment,
    assign,
    choose_pool,
    choose_practice,
    design,
    extend,
)
from crmtui.study.consent import check_instructions, write_instructions
from crmtui.study.definition import (
    Settings,
    Study,
    StudyError,
    check_name,
    instances_digest,
    load_study,
    now_text,
    study_folder,
)
from crmtui.study.roles import (
    AGENT,
    USER,
    Conversation,
    check_roles,
    cycle_roles,
    pair_people,
)
from crmtui.study.tokens import TokenStore, load_secret


@dataclass(frozen=True)
class StudyRequest:
    """What ``crmtui study create`` was asked for.

    Attributes:
        name: Study name (or folder path).
        annotators: Annotator names.
        tasks: Task source (None: the sample).
        org: Org path or name (None: the sample org).
        per_type: Instances per task type (exclusive with ``idx``).
        idx: An explicit list of instances.
        overlap: Annotators per shared instance.
        shared: Share of the instances that is shared.
        seed: Seed for every random choice.
        practice: Number of practice instances (drawn outside the pool).
        practice_idx: Explicit practice instances (instead of ``practice``).
        settings: Play settings (``qualify`` among them).
        instructions: Markdown shown, and to be accepted, before the first instance.
        conversation: Multi-turn settings (None: single-turn); see :mod:`crmtui.study.roles`.
        roles: Roles cycled over the annotators (None: everyone plays the agent).
        url: The address annotators will open (remembered: every link names it).
    """

    name: str
    annotators: Sequence[str]
    tasks: str | None = None
    org: str | None = None
    per_type: int | None = None
    idx: Sequence[int] | None = None
    overlap: int = 2
    shared: float = 0.25
    seed: int = 0
    practice: int = 0
    practice_idx: Sequence[int] | None = None
    settings: Settings = Settings()
    instructions: str | None = None
    conversation: Conversation | None = None
    roles: Sequence[str] | None = None
    url: str = DEFAULT_URL


def _source_text(spec: str | None) -> str | None:
    """A task or org source as stored: existing files made absolute (a server may run in
    another folder); names (``sample``, an org name, ``hf:...``) kept as given."""
    if spec is None:
        return None
    path = Path(spec).expanduser()
    return str(path.resolve()) if path.exists() else spec


def _workspace(tasks: str | None, org: str | None) -> Any:
    from crmtui.config import PlayConfig
    from crmtui.play.workspace import load_workspace

    return load_workspace(PlayConfig(tasks=tasks, org=org))


def create_study(
    request: StudyRequest, *, workspace: Any = None, now: dt.datetime | None = None
) -> tuple[Study, dict[str, str]]:
    """Create the study folder, its definition and the annotators' tokens.

    Args:
        request: What to create.
        workspace: The loaded org and tasks (loaded from the request when None).
        now: The creation time (tests freeze it).

    Returns:
        The study and each annotator's token (shown once, stored only as hashes).

    Raises:
        ConfigError: Bad names or numbers, an unknown idx, too few instances.
        StudyError: A study already exists there.
    """
    names = [check_name(name, "annotator name") for name in request.annotators]
    served = Served(url=check_url(request.url))
    folder = study_folder(request.name)
    if (folder / "study.toml").exists():
        raise StudyError(f"a study already exists in {folder}")
    if (request.per_type is None) == (request.idx is None):
        raise ConfigError("give either --per-type N or --idx LIST")
    work = workspace or _workspace(request.tasks, request.org)
    types = {inst.idx: inst.task for inst in work.tasks}
    if request.idx is not None:
        missing = [idx for idx in request.idx if idx not in types]
        if missing:
            raise ConfigError(f"no instance with idx {missing[0]} in {work.tasks_label}")
        if len(set(request.idx)) != len(request.idx):
            raise ConfigError("--idx names an instance twice")
        pool = {idx: types[idx] for idx in sorted(request.idx)}
    else:
        pool = choose_pool(types, int(request.per_type or 0), request.seed)
    if request.practice_idx is not None:
        practice = tuple(request.practice_idx)
        bad = [idx for idx in practice if idx not in types or idx in pool]
        if bad:
            raise ConfigError(
                f"practice instance {bad[0]} is unknown or also a counted instance of the study"
            )
    else:
        practice = choose_practice(types, list(pool), request.practice, request.seed)
    check_qualify(request.settings.qualify, len(practice))
    if request.instructions is not None:
        check_instructions(request.instructions, "--instructions")
    roles, partners = _roles(request, names)
    plan = design(pool, shared=request.shared, overlap=request.overlap, seed=request.seed)
    assignments = _assign_seats(plan, names, partners, request.seed, practice)
    used = [work.tasks.get(idx) for idx in [*pool, *practice]]
    study = Study(
        folder=folder,
        name=folder.name,
        created_at=now_text(now),
        tasks=_source_text(request.tasks) or "sample",
        org=_source_text(request.org),
        instances_digest=instances_digest(used),
        seed=request.seed,
        per_type=request.per_type if request.idx is None else None,
        design=plan,
        practice=practice,
        settings=request.settings,
        assignments=assignments,
        conversation=request.conversation,
        roles=roles,
        partners=partners,
        served=served,
    )
    study.save()
    study.recordings.mkdir(exist_ok=True)
    if request.instructions is not None:
        write_instructions(study, request.instructions)
    load_secret(study.secret_path)
    tokens = TokenStore(study.tokens_path).issue(names, now)
    return study, tokens


def _roles(request: StudyRequest, names: list[str]) -> tuple[dict[str, str], dict[str, str]]:
    """Each annotator's role and each paired annotator's partner (multi-turn studies).

    Raises:
        ConfigError: Roles without ``--interactive``, a user nobody can answer, or
            ``--qualify`` with people in the user role (their side is not scored).
    """
    conversation = request.conversation
    if conversation is None:
        if request.roles is not None:
            raise ConfigError("--roles is for multi-turn studies: add --interactive")
        return {}, {}
    conversation.check()
    roles = cycle_roles(names, list(request.roles or [AGENT]))
    partners = pair_people(roles, conversation.partners)
    check_roles(roles, partners, conversation)
    if request.settings.qualify is not None and USER in roles.values():
        raise ConfigError(
            "--qualify needs everyone in the agent role (the user's side is not scored)"
        )
    return roles, partners


def _assign_seats(
    plan: Any, names: list[str], partners: dict[str, str], seed: int, practice: Sequence[int]
) -> dict[str, Assignment]:
    """Deal the pool to seats: a pair of people is one seat (named after its first
    member), so both get the same instances in the same order.

    Raises:
        ConfigError: Fewer seats than the overlap needs.
    """
    seats = [name for name in names if partners.get(name) not in names[: names.index(name)]]
    if partners and plan.shared and plan.overlap > len(seats):
        raise ConfigError(
            f"--overlap {plan.overlap} needs at least {plan.overlap} seats (a pair of people "
            f"is one seat; there are {len(seats)}); lower it or use --shared 0"
        )
    dealt = assign(plan, seats, seed=seed, practice=practice)
    found: dict[str, Assignment] = {}
    for name in names:
        seat = name if name in dealt else partners[name]
        found[name] = replace(dealt[seat], annotator=name)
    return found


def add_annotator(
    name: str,
    annotator: str,
    *,
    count: int | None = None,
    role: str | None = None,
    now: dt.datetime | None = None,
) -> tuple[Study, Assignment, str]:
    """Add an annotator to an existing study (nobody else's assignment changes).

    Args:
        name: The study.
        annotator: The newcomer's name.
        count: Counted instances to give them (default: the current mean per annotator).
        now: The time the token is made (tests freeze it).

    In a multi-turn study the newcomer takes ``role`` (default: agent) and talks to a model
    (the simulated user, or the study's agent model); pairs of people are made at creation.

    Returns:
        The updated study, the newcomer's assignment and their token (shown once).
    """
    check_name(annotator, "annotator name")
    study = load_study(name)
    if study.conversation is None and role is not None:
        raise ConfigError("--role is for multi-turn studies (this one is single-turn)")
    if study.conversation is not None:
        role = role or AGENT
        check_roles({annotator: role}, {}, study.conversation)
    loads = [len(item.instances) for item in study.assignments.values()]
    wanted = count if count is not None else round(sum(loads) / len(loads)) if loads else 0
    wanted = wanted or len(study.design.types)
    item = extend(
        study.design,
        study.assignments,
        annotator,
        count=wanted,
        seed=study.seed,
        practice=study.practice,
        partners=study.partners,
    )
    updated = study.with_assignment(item, role)
    updated.save()
    token = TokenStore(study.tokens_path).issue([annotator], now)[annotator]
    return updated, item, token


def rotate_tokens(
    name: str, annotators: Sequence[str], now: dt.datetime | None = None
) -> tuple[Study, dict[str, str]]:
    """New tokens for these annotators; their old tokens and sign-in cookies stop working.

    Raises:
        StudyError: An annotator is not in the study.
    """
    study = load_study(name)
    for annotator in annotators:
        study.assignment(annotator)  # raises naming the study's annotators
    return study, TokenStore(study.tokens_path).issue(annotators, now)


def check_qualify(qualify: int | None, practice: int) -> None:
    """Refuse a ``qualify`` the practice cannot meet.

    Raises:
        ConfigError: Naming the numbers.
    """
    if qualify is None:
        return
    if practice == 0:
        raise ConfigError("--qualify needs practice instances (--practice N or --practice-idx)")
    if not 1 <= qualify <= practice:
        raise ConfigError(
            f"--qualify {qualify} must be between 1 and the number of practice instances "
            f"({practice})"
        )


def set_qualify(name: str, qualify: int | None) -> Study:
    """Change how many practice answers must be right before the counted instances open
    (None: practice does not gate). Running apps see it at the annotator's next instance.

    Raises:
        ConfigError: More than the practice instances.
    """
    study = load_study(name)
    check_qualify(qualify, len(study.practice))
    updated = replace(study, settings=replace(study.settings, qualify=qualify))
    updated.save()
    return updated


def set_instructions(name: str, text: str | None) -> Study:
    """Replace the study's instructions (None: remove them). Annotators who accepted another
    text are asked again before their next instance.

    Raises:
        StudyError: The text is empty or too long.
    """
    study = load_study(name)
    write_instructions(study, text)
    return study


def revoke_tokens(name: str, annotators: Sequence[str], now: dt.datetime | None = None) -> Study:
    """Take these annotators' tokens away: their links, their sign-ins and (within seconds,
    on every server) their live sessions end; a rotation gives them a new token.

    Raises:
        StudyError: An annotator is not in the study.
    """
    study = load_study(name)
    for annotator in annotators:
        study.assignment(annotator)
    TokenStore(study.tokens_path).revoke(annotators, now)
    return study


def sign_in_link(base_url: str, token: str) -> str:
    """The link an annotator opens to sign in (``BASE/?token=...``)."""
    return f"{base_url.rstrip('/')}/?token={token}"


def remember_serving(name: str | Path, served: Served) -> Study:
    """Record where the study is served (``crmtui serve`` does, once it listens), so the
    links later commands print, and the next ``serve``, match it.

    Raises:
        StudyError: The study cannot be read or written.
    """
    study = load_study(name)
    if study.served == served:
        return study
    updated = replace(study, served=served)
    try:
        updated.save()
    except OSError as exc:
        raise StudyError(f"cannot record where study {study.name} is served: {exc}") from exc
    return updated
