"""A local certificate authority and a server certificate for HTTPS on loopback.

simple-salesforce always speaks HTTPS (it builds ``https://<instance>/...`` URLs), so the
local API serves TLS by default with a certificate from a CA made on the spot by ``trustme``
(a maintained library for exactly this: throwaway CAs for local servers). The CA's PEM file
is written out so clients can trust it (``REQUESTS_CA_BUNDLE=<ca.pem>``).
"""

from __future__ import annotations

import os
import ssl
from dataclasses import dataclass
from pathlib import Path

from crmtui.errors import ConfigError

DEFAULT_NAMES = ("127.0.0.1", "localhost", "::1")


@dataclass
class TlsSetup:
    """A server-side SSL context and where its CA certificate was written.

    Attributes:
        context: The context to wrap accepted sockets with.
        ca_path: PEM file of the CA that signed the server certificate.
    """

    context: ssl.SSLContext
    ca_path: Path


def make_tls(ca_path: str | os.PathLike[str], host: str | None = None) -> TlsSetup:
    """Create a CA and a certificate for the loopback names (plus ``host``), write the CA.

    Raises:
        ConfigError: The CA file cannot be written.
    """
    import trustme  # lazily: pulls in cryptography, needed only when serving HTTPS

    names = list(DEFAULT_NAMES)
    if host and host not in names and host not in ("0.0.0.0", "::"):
        names.append(host)
    ca = trustme.CA(organization_name="crmtui serve-rest (local)")
    cert = ca.issue_cert(*names)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    cert.configure_cert(context)
    target = Path(ca_path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        ca.cert_pem.write_to_path(str(target))
    except OSError as exc:
        raise ConfigError(f"cannot write the CA certificate {target}: {exc}") from exc
    return TlsSetup(context, target)
