"""The terminal grid, and bench_serve's rule for when a typed key is on screen."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

from tests.serve.terminal import Terminal

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_serve.py"

# Frames as Textual sends them for the answer box at 160x48 (row 44, text from column 52):
# a cursor move, styled runs, and the text cursor's final position.
_BOX = "\x1b[44;49H\x1b[7;38;2;1;120;212m▊\x1b[0m\x1b[48;2;39;39;39m  \x1b[0m"
_END = "\x1b[38;2;18;18;18;48;2;224;224;224m \x1b[0m"


def _bench() -> Any:
    spec = importlib.util.spec_from_file_location("bench_serve", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("bench_serve", module)  # its dataclasses look their module up
    spec.loader.exec_module(sys.modules["bench_serve"])
    return sys.modules["bench_serve"]


def test_frames_land_where_the_cursor_moves_not_where_they_sit_in_the_stream() -> None:
    terminal = Terminal(160, 48)
    terminal.feed(f"{_BOX}\x1b[38;2;224;224;224;48;2;39;39;39mb\x1b[0m{_END}\x1b[44;53H")
    # The next key repaints only its own cell: the word is never one run of bytes.
    terminal.feed("\x1b[44;53H\x1b[38;2;224;224;224mc\x1b[0m" + _END + "\x1b[1;1H ")
    terminal.feed("\x1b[1;2Hidx 10 · a".encode())  # bytes, as the websocket carries them
    terminal.feed("\x1b[44;54")  # a sequence cut between two messages ...
    terminal.feed("Hd\x1b[44;55H")  # ... is finished by the next
    assert terminal.line(43)[48:56] == "▊  bcd  "
    assert terminal.line(0).startswith(" idx 10 · a")
    assert (terminal.x, terminal.y) == (54, 43)
    terminal.feed("\x1b[2J")
    assert terminal.text.strip() == ""


def test_a_key_counts_as_drawn_when_the_screen_shows_it() -> None:
    bench = _bench()
    client = bench.Client("ann", "token", step_timeout=1, key_timeout=1)
    client.on_frame(f"{_BOX}{_END}\x1b[44;52H".encode())

    def send(char: str, typed: str) -> None:
        needle = typed[-bench.NEEDLE :]
        before = client.terminal.text.count(needle)
        client.pending.append(bench.Key("answer", 0.0, needle, before))

    send("b", "▊  b")
    client.on_frame(b"\x1b[1;1Hclock")  # another widget's frame: the key is not drawn yet
    assert client.pending and not client.latencies["answer"]
    client.on_frame(b"\x1b[44;52Hb\x1b[44;53H")
    assert not client.pending and len(client.latencies["answer"]) == 1

    send(" ", "▊  b ")  # a space shows only as the cursor moving on
    client.on_frame(b"\x1b[44;54H")
    assert not client.pending

    send("c", "▊  b c")
    send("d", "▊  b cd")  # two keys in one frame: both drawn by it
    client.on_frame(b"\x1b[44;54Hcd\x1b[44;56H")
    assert not client.pending and len(client.latencies["answer"]) == 4
