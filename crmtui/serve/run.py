"""The study server's options: address checks and TLS (the server itself: :mod:`crmtui.ui.web`)."""

from __future__ import annotations

import errno
import ipaddress
import ssl
from dataclasses import dataclass
from pathlib import Path

from crmtui.errors import ConfigError


@dataclass(frozen=True)
class ServeOptions:
    """How to serve a study.

    Attributes:
        host: Address to bind.
        port: Port (0: any free port; the URL printed names the real one).
        certfile: TLS certificate (PEM).
        keyfile: TLS private key (PEM).
        insecure: Allow plain HTTP on a non-loopback address.
        max_sessions: Live sessions allowed at once.
        standby: App processes kept started and waiting for sessions (0: none).
    """

    host: str = "127.0.0.1"
    port: int = 8000
    certfile: Path | None = None
    keyfile: Path | None = None
    insecure: bool = False
    max_sessions: int = 20
    standby: int = 4

    @property
    def tls(self) -> bool:
        """Whether TLS is configured."""
        return self.certfile is not None


def is_loopback(host: str) -> bool:
    """Whether ``host`` only accepts connections from this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_options(options: ServeOptions) -> None:
    """Refuse unsafe or incomplete settings.

    Raises:
        ConfigError: TLS half configured, plain HTTP on a non-loopback address without
            ``--insecure``, a session cap below 1, or a negative standby count.
    """
    if (options.certfile is None) != (options.keyfile is None):
        raise ConfigError("TLS needs both --certfile and --keyfile")
    if not options.tls and not options.insecure and not is_loopback(options.host):
        raise ConfigError(
            f"serving on {options.host} without TLS would send tokens in clear text: give "
            "--certfile and --keyfile, or --insecure if the network is trusted"
        )
    if options.max_sessions < 1:
        raise ConfigError("--max-sessions must be at least 1")
    if options.standby < 0:
        raise ConfigError("--standby must be 0 or more")


def ssl_context(options: ServeOptions) -> ssl.SSLContext | None:
    """The server's TLS context (None without TLS).

    Raises:
        ConfigError: The certificate or key cannot be loaded.
    """
    if options.certfile is None or options.keyfile is None:
        return None
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    try:
        context.load_cert_chain(options.certfile, options.keyfile)
    except (OSError, ssl.SSLError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise ConfigError(
            f"cannot load the TLS certificate {options.certfile} with the key "
            f"{options.keyfile}: {reason}"
        ) from exc
    return context


#: What to do about an address that cannot be listened on, by errno.
_LISTEN_HINTS = {
    errno.EADDRINUSE: "something else listens there (another crmtui serve?): stop it, or "
    "give another --port (0: any free port)",
    errno.EACCES: "no permission (ports below 1024 need privileges): give a --port above 1023",
    errno.EADDRNOTAVAIL: "this machine has no such address: give one of its own as --host "
    "(0.0.0.0: all of them)",
}


def listen_error(exc: OSError, host: str, port: int) -> ConfigError:
    """A one-line error for a server that cannot listen on ``host:port`` (a busy port, no
    permission, an address this machine does not have, a host name that does not resolve)."""
    reason = exc.strerror or str(exc)
    hint = _LISTEN_HINTS.get(exc.errno or 0)
    where = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    return ConfigError(f"cannot listen on {where}: {reason}" + (f"; {hint}" if hint else ""))
