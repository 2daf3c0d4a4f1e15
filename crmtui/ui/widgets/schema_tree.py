"""The org's schema as a searchable tree: objects, then fields with type and description.

Typing in the search box narrows the tree to the objects and fields that match
(:func:`crmtui.play.schema_search.search_schema`); Enter on a reference field jumps to the
object it points at. The highlighted node's full description shows below the tree, so
nothing is lost to a narrow panel.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Input, Static, Tree
from textual.widgets.tree import TreeNode

from crmtui.data.schema import Field, Schema, SObject
from crmtui.play.schema_search import search_schema
from crmtui.ui.widgets.steady_input import SteadyInput

#: Tree node data: (object name, field name or None).
NodeData = tuple[str, str | None]


def field_label(f: Field) -> Text:
    """``AccountId → Account`` or ``Subject string``, description dimmed."""
    text = Text()
    text.append(f.name, style="bold")
    if f.reference_to:
        text.append(f" → {f.reference_to}", style="cyan")
    else:
        text.append(f" {f.type}", style="cyan")
    if f.description:
        text.append(f"  {f.description}", style="dim")
    return text


def object_label(obj: SObject) -> Text:
    """``Case  500 · 18 fields``, description dimmed."""
    text = Text()
    text.append(obj.name, style="bold underline")
    prefix = f"{obj.key_prefix} · " if obj.key_prefix else ""
    text.append(f"  {prefix}{len(obj.fields)} fields", style="dim")
    if obj.description:
        text.append(f"  {obj.description}", style="dim italic")
    return text


class SchemaTree(Vertical):
    """Search box, tree, and the highlighted node's description."""

    HELP_GROUP = "Schema"
    BINDINGS = [
        Binding("slash", "focus_search", "Search the schema", show=False),
    ]

    def __init__(self, schema: Schema, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.schema = schema
        self.border_title = "Schema"

    def compose(self) -> ComposeResult:
        yield SteadyInput(
            placeholder="search objects and fields (Case.Own…, ShippingState, date…)",
            id="schema-search",
        )
        tree: Tree[NodeData] = Tree("Schema", id="schema-tree")
        tree.show_root = False
        tree.guide_depth = 2
        yield tree
        yield Static("", id="schema-detail")

    def on_mount(self) -> None:
        self.filter("")

    @property
    def tree(self) -> Tree[NodeData]:
        """The tree widget."""
        return self.query_one("#schema-tree", Tree)

    def filter(self, text: str) -> None:
        """Show only what matches ``text`` (everything, collapsed, when empty)."""
        tree = self.tree
        tree.clear()
        hits = search_schema(self.schema, text)
        if not text.strip():
            for obj in self.schema:
                self._add_object(tree.root, obj, obj.fields, expand=False)
            return
        fields: dict[str, list[str]] = {}
        for hit in hits:
            names = fields.setdefault(hit.object, [])
            if hit.field is not None:
                names.append(hit.field)
        for name, names in fields.items():
            obj = self.schema.require(name)
            shown = [f for f in obj.fields if f.name in names] if names else list(obj.fields)
            self._add_object(tree.root, obj, shown, expand=bool(names))
        first = tree.root.children[0] if tree.root.children else None
        if first is not None:
            target = first.children[0] if first.is_expanded and first.children else first
            # The tree lays its new lines out on the next refresh; the cursor goes then.
            self.call_after_refresh(self._land, target, False)

    def _add_object(
        self, root: TreeNode[NodeData], obj: SObject, fields: Any, expand: bool
    ) -> None:
        node = root.add(object_label(obj), data=(obj.name, None), expand=expand)
        for f in fields:
            node.add_leaf(field_label(f), data=(obj.name, f.name))

    def show(self, path: str) -> bool:
        """Reveal ``Object`` or ``Object.Field`` in the full tree and put the cursor on it."""
        self.query_one("#schema-search", Input).value = ""
        self.filter("")
        name, _, field = path.partition(".")
        tree = self.tree
        for node in tree.root.children:
            if node.data and node.data[0].lower() == name.lower():
                target = node
                if field:
                    node.expand()
                    target = next((c for c in node.children if c.data and c.data[1] == field), node)
                self.call_after_refresh(self._land, target)
                return True
        return False

    def _land(self, node: TreeNode[NodeData], focus: bool = True) -> None:
        tree = self.tree
        tree.move_cursor(node)
        tree.scroll_to_node(node, animate=False)
        self._describe(node.data)
        if focus:
            tree.focus()

    # -- events ----------------------------------------------------------------------------

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "schema-search":
            event.stop()
            self.filter(event.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "schema-search":
            event.stop()
            self.tree.focus()

    def on_tree_node_highlighted(self, event: Tree.NodeHighlighted[NodeData]) -> None:
        event.stop()
        # The event may be about a node of an earlier filter: describe what is under the
        # cursor now.
        node = self.tree.cursor_node
        self._describe(node.data if node is not None else None)

    def on_tree_node_selected(self, event: Tree.NodeSelected[NodeData]) -> None:
        event.stop()
        data = event.node.data
        if data is None or data[1] is None:
            return
        f = self.schema.require(data[0]).field(data[1])
        if f is not None and f.reference_to:
            self.show(f.reference_to)

    def _describe(self, data: NodeData | None) -> None:
        detail = self.query_one("#schema-detail", Static)
        if data is None:
            detail.update("")
            return
        obj = self.schema.require(data[0])
        if data[1] is None:
            text = object_label(obj)
            children = self.schema.children(obj.name)
            if children:
                related = ", ".join(f"{c.name} ({c.child}.{c.field})" for c in children)
                text.append(f"\nChild relationships: {related}")
            detail.update(text)
            return
        f = obj.field(data[1])
        if f is None:
            detail.update("")
            return
        text = Text()
        text.append(f"{obj.name}.{f.name}", style="bold")
        text.append(f"  {f.type}", style="cyan")
        if f.reference_to:
            text.append(f" → {f.reference_to} (Enter jumps there;", style="cyan")
            text.append(f" relationship {f.relationship_name})", style="cyan")
        if f.description:
            text.append(f"\n{f.description}")
        detail.update(text)

    def action_focus_search(self) -> None:
        self.query_one("#schema-search", Input).focus()
