"""What comes before an instance opens in the play app: the plan's instructions and gate.

A mixin of :class:`~crmtui.ui.app.CrmtuiApp`. A study's plan may ask for its instructions
to be accepted before anything is shown (and again when their text changed), and may keep
counted instances closed until the practice qualifies the annotator; free play asks for
neither. The plan decides and records; this only asks it and shows the answers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from crmtui.errors import CrmtuiError
from crmtui.play.policy import Gate

if TYPE_CHECKING:
    from crmtui.play.policy import PlayPlan
    from crmtui.ui.screens.picker import PickerScreen


class PlanGates:
    """Instructions first, closed instances never: :meth:`may_open` before every instance."""

    plan: PlayPlan
    picker: PickerScreen | None

    def may_open(self, idx: int, reopen: Callable[[], None]) -> bool:
        """Whether ``idx`` may open now; if the instructions must be accepted first, they
        are shown and ``reopen`` runs once they are."""
        app: Any = self
        gate = self.refresh_gate()
        if gate is not None and idx in gate.locked:
            app.notify(gate.message, severity="warning", title="Not open", timeout=15)
            return False
        try:
            pending = self.plan.instructions() is not None
        except CrmtuiError as exc:
            app.notify(str(exc), severity="error", title="Instructions", timeout=30)
            return False
        if pending:
            self.after_instructions(reopen)
        return not pending

    def refresh_gate(self) -> Gate | None:
        """Ask the plan which instances are closed now, and show it in the picker."""
        gate = self.plan.gate()
        if self.picker is not None:
            self.picker.set_gate(gate)
        return gate

    def after_instructions(self, then: Callable[[], None]) -> None:
        """Run ``then`` once the plan's instructions are accepted (at once if there are none).

        Declining records the answer and opens nothing: the annotator may read them again
        or quit.
        """
        app: Any = self
        try:
            instructions = self.plan.instructions()
        except CrmtuiError as exc:  # unreadable instructions: nothing opens without them
            app.notify(str(exc), severity="error", title="Instructions", timeout=30)
            return
        if instructions is None:
            then()
            return
        from crmtui.ui.screens.dialogs import ConfirmScreen
        from crmtui.ui.screens.instructions import InstructionsScreen

        def declined(again: bool | None) -> None:
            if again:
                self.after_instructions(then)
            else:
                app.exit()

        def answered(accepted: bool | None) -> None:
            try:
                self.plan.answer_instructions(instructions, bool(accepted))
            except CrmtuiError as exc:
                app.notify(str(exc), severity="error", title="Instructions", timeout=30)
                return
            if accepted:
                then()
                return
            app.push_screen(
                ConfirmScreen(
                    "You did not accept the instructions, so no instances are shown.\n"
                    "Your answer was recorded. You may read them again, or quit.",
                    yes="Read them again",
                    no="Quit",
                ),
                declined,
            )

        app.push_screen(InstructionsScreen(instructions), answered)
