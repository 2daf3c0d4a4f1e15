"""The terminal page's assets, as light as they can be sent.

textual-serve ships its browser side as files in its ``static`` folder, served as they are:
a 514 kB ``textual.js`` (xterm.js and its add-ons) and ``xterm.css``, with the project's
``Cache-Control: no-store``, so every sign-in, and every reload, fetched half a megabyte.
Fonts and a background image sit in the same folder though the page uses none of them.

Here only what the page needs is served: the script, gzip-compressed once at start-up
(about a quarter of its size), at a URL that names its digest (``?v=``), so a browser keeps
it for a year and asks again only when the file changes; an ``ETag`` answers a revalidation
with 304. The stylesheet is small and inlined into the page (one request fewer).
"""

from __future__ import annotations

import gzip
import hashlib
from dataclasses import dataclass
from pathlib import Path

#: The files of textual-serve's static folder the terminal page loads.
SCRIPT = "js/textual.js"
STYLESHEET = "css/xterm.css"
_TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}
#: A versioned asset never changes: a browser may keep it (per user: it is behind sign-in).
CACHE_FOREVER = "private, max-age=31536000, immutable"
#: An unversioned request: keep it, but ask (ETag) before using it again.
CACHE_REVALIDATE = "private, no-cache"


@dataclass(frozen=True)
class Asset:
    """One file as served.

    Attributes:
        name: Its path under the static folder (``js/textual.js``).
        body: The file's bytes.
        gzipped: The same, gzip-compressed.
        digest: A short sha256 of the bytes (the URL's ``?v=`` and the ETag).
        content_type: Its Content-Type.
    """

    name: str
    body: bytes
    gzipped: bytes
    digest: str
    content_type: str

    @property
    def etag(self) -> str:
        """The ETag header's value."""
        return f'"{self.digest}"'

    def headers(self, *, gzip_ok: bool, versioned: bool) -> tuple[bytes, dict[str, str]]:
        """The body and headers to send (gzip when the browser accepts it)."""
        headers = {
            "Content-Type": self.content_type,
            "ETag": self.etag,
            "Cache-Control": CACHE_FOREVER if versioned else CACHE_REVALIDATE,
            "Vary": "Accept-Encoding",
        }
        if gzip_ok:
            headers["Content-Encoding"] = "gzip"
            return self.gzipped, headers
        return self.body, headers


class Assets:
    """The terminal page's assets from textual-serve's ``static`` folder, loaded once."""

    def __init__(self, static: Path) -> None:
        self.files: dict[str, Asset] = {}
        for name in (SCRIPT, STYLESHEET):
            body = (static / name).read_bytes()
            self.files[name] = Asset(
                name=name,
                body=body,
                gzipped=gzip.compress(body, compresslevel=9, mtime=0),
                digest=hashlib.sha256(body).hexdigest()[:16],
                content_type=_TYPES[Path(name).suffix],
            )
        self.stylesheet = self.files[STYLESHEET].body.decode("utf-8")

    def url(self, name: str, prefix: str = "/static/") -> str:
        """The versioned URL of an asset (a new file, a new URL)."""
        return f"{prefix}{name}?v={self.files[name].digest}"

    def get(self, name: str) -> Asset | None:
        """The asset served at ``/static/NAME`` (None: nothing is)."""
        return self.files.get(name)


def accepts_gzip(header: str | None) -> bool:
    """Whether an ``Accept-Encoding`` header allows gzip (``gzip;q=0`` refuses it)."""
    for part in (header or "").split(","):
        coding, _, params = part.strip().partition(";")
        if coding.strip().lower() in ("gzip", "*"):
            quality = params.strip().lower()
            if not quality.startswith("q="):
                return True
            try:
                return float(quality[2:]) > 0
            except ValueError:
                return False
    return False
