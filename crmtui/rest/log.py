"""The request log: one JSON line per request served, appended just before it is answered
(a response a client holds is always in the log, even if the server stops right after).

Each line: ``t`` (UTC time the request arrived, ISO 8601 with milliseconds), ``method``,
``path``, ``endpoint`` (``query``, ``query_more``, ``search``, ``describe``, ...), ``query``
(the SOQL/SOSL text, for query_more the text of the query being paged), ``status``, ``rows``
(records in this response, when it carries records), ``total`` (a query's ``totalSize``),
``error_code`` and ``ms`` (time spent working out the answer, sending it excluded).
``crmtui import-upstream --request-log`` reads these lines back to give imported steps their
times.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from crmtui.errors import ConfigError


def format_time(moment: dt.datetime) -> str:
    """ISO 8601 UTC with milliseconds and ``Z``."""
    moment = moment.astimezone(dt.UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


class RequestLog:
    """Appends entries to a JSONL file; safe to share between server threads and processes.

    The file is opened with ``O_APPEND`` and each entry goes out as one ``write`` of one whole
    line, so the worker processes of a pre-forked server (which share the descriptor) never
    interleave or overwrite each other's lines, and readers see each line as soon as it is
    answered, with no buffer to flush.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)
            self._fd: int | None = os.open(self.path, flags, 0o644)
        except OSError as exc:
            raise ConfigError(f"cannot write the request log {self.path}: {exc}") from exc
        self._lock = threading.Lock()

    def write(self, entry: dict[str, Any]) -> None:
        """Append one entry: one line, one system call."""
        data = (json.dumps(entry, ensure_ascii=False, default=str) + "\n").encode("utf-8")
        with self._lock:
            if self._fd is None:
                return
            written = os.write(self._fd, data)
            while written < len(data):  # only on a full disk or a signal; finish the line
                written += os.write(self._fd, data[written:])

    def close(self) -> None:
        """Stop logging and close the file."""
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None


def read_log(path: str | os.PathLike[str]) -> Iterator[dict[str, Any]]:
    """The entries of a request log, skipping lines that are not JSON objects.

    Raises:
        ConfigError: The file cannot be read.
    """
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ConfigError(f"cannot read the request log {path}: {exc}") from exc
    for line in lines:
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            continue  # a line cut by a killed server
        if isinstance(entry, dict):
            yield entry
