"""Records as a Salesforce REST client receives them, for any API version it asked for.

The engine shapes every record with ``attributes.url`` under ``/services/data/v60.0/``
(:data:`crmtui.query.results.API_VERSION`). Salesforce answers with the version in the
request's path (simple-salesforce 1.12.6 asks for ``v59.0`` unless told otherwise), and that
URL is part of what upstream's agents see in a parent record's repr, so the REST API and the
upstream presets rewrite it with :func:`with_api_version`.
"""

from __future__ import annotations

from typing import Any

from crmtui.query.results import API_VERSION

__all__ = ["with_api_version"]

_PREFIX = f"/services/data/{API_VERSION}/"


def _rewrite(value: Any, prefix: str) -> Any:
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if key == "attributes" and isinstance(item, dict):
                url = item.get("url")
                if isinstance(url, str) and url.startswith(_PREFIX):
                    item = {**item, "url": prefix + url[len(_PREFIX) :]}
                out[key] = item
            elif isinstance(item, dict | list):
                out[key] = _rewrite(item, prefix)
            else:
                out[key] = item
        return out
    if isinstance(value, list):
        return [_rewrite(item, prefix) for item in value]
    return value


def with_api_version(records: list[dict[str, Any]], version: str) -> list[dict[str, Any]]:
    """``records`` with every ``attributes.url`` under ``/services/data/<version>/``.

    Args:
        records: Engine records (parents and child subquery records included).
        version: ``v59.0``-style path segment. The engine's own version returns the records
            unchanged (no copy).
    """
    if version == API_VERSION:
        return records
    return _rewrite(records, f"/services/data/{version}/")
