"""Where a study is served: the address annotators open and how ``crmtui serve`` listens.

A study remembers both in ``[serve]`` of ``study.toml``: ``study create --url`` sets the
address (and so the port ``serve`` listens on by default), and every ``crmtui serve`` of the
study records how it listened (host, port, TLS files). So the links every command prints
(``create``, ``add-annotator``, ``tokens --rotate``) name the address the study is served
at, and ``crmtui serve --study NAME`` alone listens where those links point.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from crmtui.errors import ConfigError

#: The address of a study created without ``--url`` (``crmtui serve``'s own default).
DEFAULT_URL = "http://127.0.0.1:8000"
DEFAULT_HOST = "127.0.0.1"
_LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")


def check_url(url: str, option: str = "--url") -> str:
    """An http(s) base address without a path, query or fragment (a trailing ``/`` dropped).

    Raises:
        ConfigError: Anything else, naming the option.
    """
    text = url.strip().rstrip("/")
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 - raises ValueError for a port out of range or not a number
    except ValueError as exc:
        raise ConfigError(f"{option}: {url!r} is not an address ({exc})") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"{option}: {url!r} is not an address like https://host:8443")
    if parts.path or parts.query or parts.fragment:
        raise ConfigError(f"{option}: {url!r} has a path; give only scheme://host:port")
    return text


def url_port(url: str) -> int:
    """The port an address names (its scheme's default when it names none)."""
    parts = urlsplit(url)
    return parts.port or (443 if parts.scheme == "https" else 80)


def is_loopback_url(url: str) -> bool:
    """Whether the address is this machine's own (only reachable from here)."""
    return (urlsplit(url).hostname or "") in _LOOPBACK_NAMES or (
        urlsplit(url).hostname or ""
    ).startswith("127.")


@dataclass(frozen=True)
class Served:
    """Where a study is served (``[serve]`` in ``study.toml``).

    Attributes:
        url: The address annotators open (links are ``URL/?token=...``).
        host: The address ``crmtui serve`` last listened on (None: not served yet).
        port: The port it listened on (None: the port of ``url``).
        certfile: Its TLS certificate (None: plain HTTP).
        keyfile: Its TLS key.
    """

    url: str = DEFAULT_URL
    host: str | None = None
    port: int | None = None
    certfile: str | None = None
    keyfile: str | None = None

    @property
    def listen_port(self) -> int:
        """The port ``serve`` listens on when not told: the last one, else the URL's."""
        return self.port if self.port is not None else url_port(self.url)

    @property
    def listen_host(self) -> str:
        """The address ``serve`` listens on when not told."""
        return self.host or DEFAULT_HOST

    def serve_command(self, study: str) -> str:
        """The ``crmtui serve`` line that makes this study's links work."""
        parts = ["crmtui", "serve", "--study", study]
        remembered = self.host is not None
        if not remembered and not is_loopback_url(self.url):
            parts += ["--host", "0.0.0.0"]
        if not remembered and urlsplit(self.url).scheme == "https" and self.certfile is None:
            parts += ["--certfile", "CERT.pem", "--keyfile", "KEY.pem"]
        if not remembered and self.listen_port != 8000:
            parts += ["--port", str(self.listen_port)]
        return " ".join(shlex.quote(part) for part in parts)

    def mismatch(self, served_url: str, tls: bool) -> str | None:
        """Why links to :attr:`url` may not reach a server listening at ``served_url``
        (None: they do, as far as this machine can tell)."""
        scheme = urlsplit(self.url).scheme
        if url_port(self.url) != url_port(served_url) or (scheme == "https") != tls:
            return (
                f"the study's links name {self.url}, this server listens on {served_url} "
                "(right behind a proxy; else give --url or --port)"
            )
        return None

    def after_serving(
        self,
        *,
        served_url: str,
        host: str,
        port: int,
        certfile: Path | None,
        keyfile: Path | None,
        url: str | None,
    ) -> Served:
        """What the study remembers once ``serve`` listens at ``served_url``.

        ``url`` (serve's ``--url``) replaces the address; else a loopback address follows
        the server (its port and scheme), and any other address is kept (a name, a proxy).
        """
        if url is not None:
            address = url
        elif is_loopback_url(self.url) and self.mismatch(served_url, certfile is not None):
            name = urlsplit(self.url).hostname or DEFAULT_HOST
            name = f"[{name}]" if ":" in name else name
            scheme = "https" if certfile is not None else "http"
            address = f"{scheme}://{name}:{url_port(served_url)}"
        else:
            address = self.url
        return replace(
            self,
            url=address,
            host=host,
            port=port,
            certfile=None if certfile is None else str(certfile.resolve()),
            keyfile=None if keyfile is None else str(keyfile.resolve()),
        )

    def to_document(self) -> dict[str, Any]:
        """The ``[serve]`` table (None values are left out of the TOML)."""
        return {
            "url": self.url,
            "host": self.host,
            "port": self.port,
            "certfile": self.certfile,
            "keyfile": self.keyfile,
        }

    @classmethod
    def from_document(cls, table: Mapping[str, Any] | None) -> Served:
        """Read ``[serve]`` back (a study made before it existed: the default address)."""
        if not table:
            return cls()
        port = table.get("port")
        try:
            url = check_url(str(table.get("url", DEFAULT_URL)), "serve.url")
        except ConfigError as exc:
            raise ValueError(str(exc)) from None
        return cls(
            url=url,
            host=None if table.get("host") is None else str(table["host"]),
            port=None if port is None else int(port),
            certfile=None if table.get("certfile") is None else str(table["certfile"]),
            keyfile=None if table.get("keyfile") is None else str(table["keyfile"]),
        )
