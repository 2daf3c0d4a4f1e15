"""Command-palette providers of the play screen: the schema and going to a record.

Typing an object or a field name (``ShippingState``, ``Case.Owner``) in the palette (Ctrl+P)
offers to open the schema tab on it; typing a record Id offers to open the record. Both only
answer on a screen that can do it (a :class:`~crmtui.ui.screen_roles.BrowsesOrg`: the play
screen).
The key commands ("Schema", "Go to record", ...) come from :mod:`crmtui.ui.keys`, once each.
"""

from __future__ import annotations

from functools import partial

from textual.command import Hit, Hits, Provider

from crmtui.data.schema import Schema
from crmtui.play.goto import GotoError, looks_like_id, parse_record_id
from crmtui.play.schema_search import search_schema
from crmtui.ui.screen_roles import BrowsesOrg

#: Most schema hits offered at once (the palette shows about this many).
SCHEMA_HITS = 25


class SchemaCommands(Provider):
    """Objects and fields of the org's schema."""

    def _schema(self) -> Schema | None:
        screen = self.screen
        if not isinstance(screen, BrowsesOrg) or screen.session is None:
            return None
        return screen.session.org.schema

    async def search(self, query: str) -> Hits:
        schema = self._schema()
        screen = self.screen
        if schema is None or not isinstance(screen, BrowsesOrg):
            return
        matcher = self.matcher(query)
        show = screen.show_schema
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
        if not isinstance(screen, BrowsesOrg):
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
