"""Command-palette providers of the play screen: the schema and going to a record.

Typing an object or a field name (``ShippingState``, ``Case.Owner``) in the palette (Ctrl+P)
offers to open the schema tab on it; typing a record Id offers to open the record. Both only
answer on a screen that can do it (the play screen's ``show_schema`` and ``goto_record``).
The key commands ("Schema", "Go to record", ...) come from :mod:`crmtui.ui.keys`, once each.
"""

from __future__ import annotations

from functools import partial

from textual.command import Hit, Hits, Provider

from crmtui.data.schema import Schema
from crmtui.play.goto import GotoError, looks_like_id, parse_record_id
from crmtui.play.schema_search import search_schema

#: Most schema hits offered at once (the palette shows about this many).
SCHEMA_HITS = 25


class SchemaCommands(Provider):
    """Objects and fields of the org's schema."""

    def _schema(self) -> Schema | None:
        session = getattr(self.screen, "session", None)
        return session.org.schema if session is not None else None

    async def search(self, query: str) -> Hits:
        schema = self._schema()
        if schema is None or not hasattr(self.screen, "show_schema"):
            return
        matcher = self.matcher(query)
        show = self.screen.show_schema
        for n, hit in enumerate(search_schema(schema, query, limit=SCHEMA_HITS)):
            obj = schema.require(hit.object)
            if hit.field is None:
                help_text = obj.description or f"{len(obj.fields)} fields"
            else:
                f = obj.field(hit.field)
                kind = f"→ {f.reference_to}" if f and f.reference_to else (f.type if f else "")
                help_text = f"{kind} · {f.description}" if f and f.description else kind
            score = 0.9 - hit.rank * 0.1 - n * 0.001
            label = f"Schema: {hit.path}"
            yield Hit(score, matcher.highlight(label), partial(show, hit.path), help=help_text)


class GotoCommands(Provider):
    """Open a record by its Id (the key prefix names the object)."""

    async def search(self, query: str) -> Hits:
        screen = self.screen
        if not hasattr(screen, "goto_record"):
            return
        if looks_like_id(query):
            try:
                object_name, record_id = parse_record_id(screen.session.org.schema, query)
            except GotoError as exc:
                yield Hit(
                    1.0, f"Go to record {query.strip()}", screen.action_goto_record, help=str(exc)
                )
                return
            yield Hit(
                1.0,
                f"Go to {object_name} {record_id}",
                partial(screen.goto_record, record_id),
                help="open the record in the browser",
            )
            return
