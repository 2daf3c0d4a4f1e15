"""One factory builds the app for the CLI, the tests and the screenshots."""

from __future__ import annotations

from typing import Any

from crmtui.config import PlayConfig


def build_play_app(config: PlayConfig | None = None, **kwargs: Any) -> Any:
    """Build the play app (imports textual lazily so the CLI stays fast)."""
    from crmtui.ui.app import CrmtuiApp

    return CrmtuiApp(config or PlayConfig(), **kwargs)
