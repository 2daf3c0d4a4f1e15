"""Every user side takes what the dialogue loop passes it.

The loop calls ``opening(cancel=..., timeout=...)`` and ``reply(text, cancel=..., timeout=...)``
(crmtui/play/dialogue_sides.UserSide): a side written without ``timeout`` (upstream's
simulated user once was) ends every conversation as a harness error. Every class in
crmtui.agent and crmtui.play that has both methods is held to the protocol's parameters.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import crmtui.agent
import crmtui.play
from crmtui.play.dialogue_sides import UserSide


def _user_sides() -> list[type]:
    found = []
    for package in (crmtui.agent, crmtui.play):
        for info in pkgutil.iter_modules(package.__path__, package.__name__ + "."):
            module = importlib.import_module(info.name)
            for _, cls in inspect.getmembers(module, inspect.isclass):
                if cls is UserSide or cls.__module__ != module.__name__:
                    continue
                if all(callable(getattr(cls, name, None)) for name in ("opening", "reply")):
                    found.append(cls)
    return found


def _parameters(method: object) -> list[str]:
    return [p for p in inspect.signature(method).parameters if p != "self"]  # type: ignore[arg-type]


def test_every_user_side_takes_the_protocols_parameters() -> None:
    sides = _user_sides()
    names = {cls.__name__ for cls in sides}
    assert {"SimulatedUser", "UpstreamSimulatedUser"} <= names, names
    for cls in sides:
        for method in ("opening", "reply"):
            assert _parameters(getattr(cls, method)) == _parameters(getattr(UserSide, method)), (
                f"{cls.__module__}.{cls.__name__}.{method}"
            )
