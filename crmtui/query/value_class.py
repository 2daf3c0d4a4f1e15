"""The engine's value classes' bases, which live in :mod:`crmtui.value_class` (the play app's
start uses them too)."""

from __future__ import annotations

from crmtui.value_class import FrozenValue as FrozenValue
from crmtui.value_class import ValueClass as ValueClass
