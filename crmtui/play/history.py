"""Back/forward navigation history of the record browser."""

from __future__ import annotations

from dataclasses import dataclass, field

from crmtui.play.views import View


@dataclass
class History:
    """A browser-style history: visiting a view clears the forward stack.

    Scrolling updates the current entry in place (:meth:`replace`), so going back restores
    the previous view with its filter, sort and scroll position.
    """

    limit: int = 200
    _back: list[View] = field(default_factory=list)
    _forward: list[View] = field(default_factory=list)
    current: View | None = None

    def visit(self, view: View) -> None:
        """Navigate to ``view``."""
        if self.current is not None and view != self.current:
            self._back.append(self.current)
            del self._back[: -self.limit]
        self.current = view
        self._forward.clear()

    def replace(self, view: View) -> None:
        """Update the current entry (e.g. its scroll position) without a new entry."""
        self.current = view

    @property
    def can_go_back(self) -> bool:
        """Whether there is a view to go back to."""
        return bool(self._back)

    @property
    def can_go_forward(self) -> bool:
        """Whether there is a view to go forward to."""
        return bool(self._forward)

    def back(self) -> View | None:
        """Go back one view; returns it, or None when there is none."""
        if not self._back:
            return None
        if self.current is not None:
            self._forward.append(self.current)
        self.current = self._back.pop()
        return self.current

    def forward(self) -> View | None:
        """Go forward one view; returns it, or None when there is none."""
        if not self._forward:
            return None
        if self.current is not None:
            self._back.append(self.current)
        self.current = self._forward.pop()
        return self.current
