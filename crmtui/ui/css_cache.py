"""Parsed CSS shared by every play app of a process (and of its forked copies).

Textual parses each stylesheet source (the app's ``.tcss`` files, every widget class's
default CSS) into rule sets and caches them per ``Stylesheet``: every new app, and every
re-parse after a screen brings new CSS, parses it all again. A served study's copies are
forked from one standby process (:mod:`crmtui.ui.standby`) that has already run the app
once, so with the cache shared across the process they start with every rule parsed:
~30 ms less CPU per session (a quarter of what a copy spends on its first frame).

Rules depend on the CSS variables (the theme) as well as on the text, so both are in the
key. Textual treats parsed rule sets as read-only; sharing them between stylesheets is
what its own per-stylesheet cache already does between re-parses.
"""

from __future__ import annotations

from typing import Any, ClassVar

from textual.css.model import RuleSet
from textual.css.stylesheet import Stylesheet


class SharedStylesheet(Stylesheet):
    """A :class:`~textual.css.stylesheet.Stylesheet` whose parses are kept for the process."""

    _shared: ClassVar[dict[tuple[Any, ...], list[RuleSet]]] = {}

    def __init__(self, *, variables: dict[str, str] | None = None) -> None:
        super().__init__(variables=variables)
        self._variables_key: tuple[tuple[str, str], ...] | None = None

    def _key_of_variables(self) -> tuple[tuple[str, str], ...]:
        if self._variables_key is None:
            self._variables_key = tuple(sorted(self._variables.items()))
        return self._variables_key

    def set_variables(self, variables: dict[str, str]) -> None:
        super().set_variables(variables)
        self._variables_key = None

    def _parse_rules(
        self,
        css: str,
        read_from: Any,
        is_default_rules: bool = False,
        tie_breaker: int = 0,
        scope: str = "",
    ) -> list[RuleSet]:
        key = (self._key_of_variables(), css, read_from, is_default_rules, tie_breaker, scope)
        rules = self._shared.get(key)
        if rules is None:
            rules = super()._parse_rules(css, read_from, is_default_rules, tie_breaker, scope)
            self._shared[key] = rules
        return rules

    def copy(self) -> SharedStylesheet:
        stylesheet = SharedStylesheet(variables=self._variables.copy())
        stylesheet.source = self.source.copy()
        return stylesheet

    def reparse(self) -> None:
        # Textual's reparse, in a SharedStylesheet rather than a plain one (so the fresh
        # parse it does on a screen's new CSS finds the rules already parsed).
        stylesheet = SharedStylesheet(variables=self._variables)
        for read_from, (css, is_defaults, tie_breaker, scope) in self.source.items():
            stylesheet.add_source(
                css,
                read_from=read_from,
                is_default_css=is_defaults,
                tie_breaker=tie_breaker,
                scope=scope,
            )
        try:
            stylesheet.parse()
        except Exception:
            self._invalid_css.update(stylesheet._invalid_css)
            raise
        self._rules = stylesheet.rules
        self._rules_map = None
        self.source = stylesheet.source
        self._require_parse = False
