"""What typing into the play screen's text fields should produce: a model and a generator.

The model knows three fields (the answer box, the console editor, the notes), which one has
focus, and each field's text and cursor, and applies the operations a person performs on
them: type, paste, insert the copied value (Ctrl+T), delete, move, select all and replace,
move to another field (F4, F3, Ctrl+N), run the query (F5), ask to submit and cancel
(Ctrl+S, Escape). The generator draws such operations from a seeded random source, each
with a pause before the next (none at all: a burst), and turns them into the Textual events
a terminal would deliver. ``tests/ui/test_input_integrity.py`` drives the real app with them
and compares what the app shows and records with the model.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from textual import events
from textual.keys import _character_to_key

FIELDS = ("answer", "editor", "notes")
FOCUS_KEYS = {"answer": "f4", "editor": "f3", "notes": "ctrl+n"}
#: What a person types (no Enter or Tab: the editor's completion list takes those).
CHARACTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 =,.'-_()*/"
#: Keys whose meaning the model knows, per field (TextArea's Home, Ctrl+U and Up/Down follow
#: soft-wrapped screen lines, so they are left to the answer box).
EDIT_KEYS = {
    "answer": ("backspace", "left", "right", "home", "end", "ctrl+u", "ctrl+k"),
    "editor": ("backspace", "left", "right"),
    "notes": ("backspace", "left", "right"),
}


@dataclass
class Box:
    """One text field: its text, its cursor (an index into the text), every state it had."""

    text: str = ""
    cursor: int = 0
    all_selected: bool = False
    states: list[str] = field(default_factory=lambda: [""])

    def replace(self, start: int, end: int, new: str) -> None:
        self.text = self.text[:start] + new + self.text[end:]
        self.cursor = start + len(new)
        self.all_selected = False
        if self.states[-1] != self.text:
            self.states.append(self.text)

    def insert(self, new: str) -> None:
        if self.all_selected:
            self.replace(0, len(self.text), new)
        else:
            self.replace(self.cursor, self.cursor, new)


@dataclass(frozen=True)
class Op:
    """One thing the person does, then ``pause`` seconds before the next.

    Attributes:
        kind: ``focus``, ``type``, ``paste``, ``insert``, ``key``, ``select_all``, ``run``,
            ``ask_submit`` (Ctrl+S, then Escape on the dialog) or ``submit`` (Ctrl+S, y).
        arg: The field, the text, or the key name.
        pause: Real seconds to wait after it; None for no wait at all (a burst).
        clock: Seconds the app's clock moves on after it (debounce windows elapse).
    """

    kind: str
    arg: str = ""
    pause: float | None = None
    clock: float = 0.0


class Model:
    """The expected state of the fields after a sequence of :class:`Op`."""

    def __init__(self, register: str) -> None:
        self.register = register
        self.boxes = {name: Box() for name in FIELDS}
        self.focus: str | None = None
        #: The answer box's text at each Ctrl+S, in order.
        self.asked: list[str] = []
        #: The editor's text at each F5 that runs something.
        self.runs: list[str] = []

    def apply(self, op: Op) -> None:
        if op.kind == "focus":
            self.focus = op.arg
            return
        if op.kind in ("ask_submit", "submit"):
            self.asked.append(self.boxes["answer"].text)
            return
        assert self.focus is not None, "the first operation moves to a field"
        box = self.boxes[self.focus]
        if op.kind == "type":
            for character in op.arg:
                box.insert(character)
        elif op.kind == "paste":
            # An Input takes the first line of a paste; a TextArea takes it all.
            box.insert(op.arg.splitlines()[0] if self.focus == "answer" and op.arg else op.arg)
        elif op.kind == "insert":
            box.insert(self.register)
        elif op.kind == "select_all":
            box.all_selected = True
        elif op.kind == "run":
            if self.focus == "editor" and box.text.strip():
                self.runs.append(box.text.strip())
        elif op.kind == "key":
            self._key(box, op.arg)
        else:
            raise ValueError(op.kind)

    def _key(self, box: Box, key: str) -> None:
        text, cursor = box.text, box.cursor
        if key == "backspace":
            if cursor > 0:
                box.replace(cursor - 1, cursor, "")
        elif key == "left":
            box.cursor = max(0, cursor - 1)
        elif key == "right":
            box.cursor = min(len(text), cursor + 1)
        elif key == "home":
            box.cursor = 0
        elif key == "end":
            box.cursor = len(text)
        elif key == "ctrl+u":
            box.replace(0, cursor, "")
        elif key == "ctrl+k":
            box.replace(cursor, len(text), "")
        else:
            raise ValueError(key)


def key_events(op: Op) -> list[events.Event]:
    """The events a terminal delivers for ``op``."""
    if op.kind == "focus":
        return [events.Key(FOCUS_KEYS[op.arg], None)]
    if op.kind == "type":
        return [events.Key(_character_to_key(c) if c != " " else "space", c) for c in op.arg]
    if op.kind == "paste":
        return [events.Paste(op.arg)]
    named = {
        "insert": ["ctrl+t"],
        "select_all": ["ctrl+a"],
        "run": ["f5"],
        "ask_submit": ["ctrl+s", "escape"],
        "submit": ["ctrl+s", "y"],
    }
    keys = named.get(op.kind, [op.arg])
    return [events.Key(key, "y" if key == "y" else None) for key in keys]


def _pause(rng: random.Random) -> float | None:
    """Mostly bursts (no pause), some short pauses, now and then a long one."""
    roll = rng.random()
    if roll < 0.55:
        return None
    if roll < 0.7:
        return 0.0  # one turn of the event loop
    if roll < 0.93:
        return rng.uniform(0.001, 0.03)
    if roll < 0.99:
        return rng.uniform(0.05, 0.3)
    return rng.uniform(0.5, 1.0)


def _text(rng: random.Random, low: int, high: int) -> str:
    return "".join(rng.choice(CHARACTERS) for _ in range(rng.randint(low, high)))


def generate(seed: int, count: int) -> list[Op]:
    """``count`` operations drawn from ``seed``, ending with a submit."""
    rng = random.Random(seed)
    ops: list[Op] = []
    focus: str | None = None
    while len(ops) < count:
        if focus is None or rng.random() < 0.1:
            focus = rng.choice(FIELDS)
            ops.append(Op("focus", focus, _pause(rng), rng.uniform(0, 1.5)))
            continue
        roll = rng.random()
        kind: str
        arg = ""
        if roll < 0.45:
            kind, arg = "type", _text(rng, 1, 8)
        elif roll < 0.55:
            kind = "paste"
            lines = [_text(rng, 1, 12) for _ in range(rng.choice((1, 1, 2)))]
            arg = "\n".join(lines)
        elif roll < 0.63:
            kind = "insert"
        elif roll < 0.85:
            kind, arg = "key", rng.choice(EDIT_KEYS[focus])
        elif roll < 0.9 and focus == "editor":
            # Select all, then replace it (what the model knows of a selection).
            ops.append(Op("select_all", "", _pause(rng)))
            kind, arg = "type", _text(rng, 1, 6)
        elif roll < 0.95 and focus == "editor":
            kind = "run"
        elif roll < 0.97:
            kind = "ask_submit"
        else:
            kind, arg = "type", _text(rng, 1, 3)
        ops.append(Op(kind, arg, _pause(rng), rng.uniform(0, 1.5)))
    ops.append(Op("submit", "", 0.0))
    return ops


def expected(ops: list[Op], register: str) -> Model:
    """The model after ``ops``."""
    model = Model(register)
    for op in ops:
        model.apply(op)
    return model


def is_subsequence(recorded: list[Any], states: list[Any]) -> bool:
    """Whether ``recorded`` appears in ``states`` in order (debouncing drops states)."""
    remaining = iter(states)
    return all(any(item == state for state in remaining) for item in recorded)
