"""The study's instructions (and consent) page, and who accepted which text of it.

The text is ``instructions.md`` in the study folder (Markdown, written by the organizer, put
there by ``study create --instructions`` or ``study set --instructions``). An annotator sees
it before their first instance, in the terminal or the browser, and accepts or declines;
each answer is one line of ``consent.jsonl``: who, when (UTC), the sha256 of the text they
saw, and the answer. An annotator who has not accepted the current text gets no instances;
a changed text (another hash) is shown, and asked, again.

Lines are appended with one ``O_APPEND`` write each, so servers sharing the study folder
never interleave parts of them.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from crmtui.study.definition import Study, StudyError

#: Longest instructions file accepted (a page of Markdown is a few KB).
MAX_INSTRUCTIONS_BYTES = 256 * 1024


@dataclass(frozen=True)
class ConsentAnswer:
    """One answer to the instructions page.

    Attributes:
        annotator: Who answered.
        at: When (ISO UTC).
        sha256: The hash of the text they were shown.
        accepted: True for "I accept", False for "I do not accept".
    """

    annotator: str
    at: str
    sha256: str
    accepted: bool

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form (also the line written)."""
        return {
            "annotator": self.annotator,
            "at": self.at,
            "sha256": self.sha256,
            "accepted": self.accepted,
        }


def text_digest(text: str) -> str:
    """The sha256 (hex) of the instructions' text, as recorded with each answer."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def check_instructions(text: str, source: str) -> str:
    """Return ``text`` if it can serve as instructions.

    Raises:
        StudyError: Empty or too long (naming ``source``).
    """
    if not text.strip():
        raise StudyError(f"the instructions in {source} are empty")
    if len(text.encode("utf-8")) > MAX_INSTRUCTIONS_BYTES:
        raise StudyError(
            f"the instructions in {source} are over {MAX_INSTRUCTIONS_BYTES // 1024} KB"
        )
    return text


def read_instructions(study: Study) -> str | None:
    """The study's instructions (None: it has none).

    Raises:
        StudyError: The file exists but cannot be read as UTF-8 text, or is empty or huge.
    """
    path = study.instructions_path
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StudyError(f"cannot read {path}: {exc.strerror}") from exc
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise StudyError(f"{path} is not UTF-8 text") from exc
    return check_instructions(text, str(path))


def write_instructions(study: Study, text: str | None) -> None:
    """Put ``text`` in the study's ``instructions.md`` (None removes it), atomically."""
    path = study.instructions_path
    if text is None:
        path.unlink(missing_ok=True)
        return
    check_instructions(text, "the file given")
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def answers(study: Study) -> list[ConsentAnswer]:
    """Every answer recorded, oldest first (unreadable lines are skipped)."""
    try:
        lines = study.consent_path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError) as exc:
        raise StudyError(f"cannot read {study.consent_path}: {exc}") from exc
    found = []
    for line in lines:
        try:
            item = json.loads(line)
            found.append(
                ConsentAnswer(
                    str(item["annotator"]),
                    str(item["at"]),
                    str(item["sha256"]),
                    item["accepted"] is True,
                )
            )
        except (ValueError, KeyError, TypeError):
            continue
    return found


def latest_answers(study: Study) -> dict[str, ConsentAnswer]:
    """Each annotator's latest answer."""
    return {item.annotator: item for item in answers(study)}


def has_accepted(study: Study, annotator: str, sha256: str) -> bool:
    """Whether ``annotator``'s latest answer to this text (by hash) is an acceptance."""
    mine = [a for a in answers(study) if a.annotator == annotator and a.sha256 == sha256]
    return bool(mine) and mine[-1].accepted


def record_answer(
    study: Study,
    annotator: str,
    sha256: str,
    accepted: bool,
    now: dt.datetime | None = None,
) -> ConsentAnswer:
    """Append one answer to ``consent.jsonl`` and return it.

    Raises:
        StudyError: The file cannot be written.
    """
    moment = (now or dt.datetime.now(dt.UTC)).astimezone(dt.UTC)
    answer = ConsentAnswer(annotator, moment.strftime("%Y-%m-%dT%H:%M:%SZ"), sha256, accepted)
    line = json.dumps(answer.to_dict(), sort_keys=True) + "\n"
    path: Path = study.consent_path
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        try:
            os.write(fd, line.encode("utf-8"))
            os.fsync(fd)  # a consent is evidence: on disk before the first instance opens
        finally:
            os.close(fd)
    except OSError as exc:
        raise StudyError(f"cannot record the answer in {path}: {exc.strerror}") from exc
    return answer


def consent_state(
    recorded: list[ConsentAnswer], annotator: str, sha256: str | None
) -> dict[str, object] | None:
    """For status and report: the annotator's standing against the current text.

    Args:
        recorded: Every answer (:func:`answers`).
        annotator: Whose standing.
        sha256: The current text's hash (None: the study has no instructions).

    Returns:
        None without instructions; else ``{"state": "accepted" | "declined" | "not yet" |
        "accepted an older text", "at": ..., "sha256": ...}``.
    """
    if sha256 is None:
        return None
    mine = [a for a in recorded if a.annotator == annotator]
    current = [a for a in mine if a.sha256 == sha256]
    if current:
        last = current[-1]
        state = "accepted" if last.accepted else "declined"
        return {"state": state, "at": last.at, "sha256": last.sha256}
    if any(a.accepted for a in mine):
        last = [a for a in mine if a.accepted][-1]
        return {"state": "accepted an older text", "at": last.at, "sha256": last.sha256}
    return {"state": "not yet", "at": None, "sha256": None}
