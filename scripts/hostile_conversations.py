"""The conversation probes of the hostile-surfaces battery: channels between two people,
20 MB messages and conversation-rule forgeries in ``verify`` (see scripts/hostile_surfaces.py)."""

from __future__ import annotations

import json
import secrets
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hostile_common import STOP, Models, crmtui, row


def honest_dialogue(path: Path) -> Path:
    """A small, true dialogue recording (a person as the agent, a model user)."""
    from crmtui.play.dialogue import DialogueSpec, Side
    from crmtui.record import Recorder

    spec = DialogueSpec("agent", Side("human", "ann"), Side("model", "openai/sim"), 3)
    rec = Recorder.create(
        path,
        actor={"kind": "human", "id": "ann"},
        instance={"idx": 3, "task": "lead_routing", "query": "Who gets it?", "reward_metric": "x"},
        org={"path": "/o.db", "digest": "d" * 64, "name": "o"},
        tasks_source="t",
        dialogue=spec.to_json(),
        fsync=False,
    )
    sim = "openai/sim"
    rec.emit("user_message", {"text": "I need a lead routed", "turn": 0, "stop": False}, actor=sim)
    rec.emit("agent_message", {"text": "Which state?", "turn": 1})
    rec.emit("user_message", {"text": "CA", "turn": 1, "stop": False}, actor=sim)
    rec.emit("agent_message", {"text": "Route it to U4", "turn": 2})
    rec.emit("user_message", {"text": STOP, "turn": 2, "stop": True}, actor=sim)
    rec.emit("submit", {"answer": "Route it to U4", "reward": 1.0, "scoring": "s", "gold": "U4"})
    rec.close("Submit action")
    return path


def rechain(lines: list[dict[str, Any]]) -> bytes:
    """Re-seal every line as a careful forger would (seq, prev and hash recomputed)."""
    from crmtui.record.format import sealed_line

    out, prev = [], ""
    for number, obj in enumerate(lines):
        if number:
            obj = {**obj, "seq": number, "prev": prev}
        sealed, text = sealed_line(obj)
        prev = sealed["hash"]
        out.append(text.encode("utf-8"))
    return b"".join(out)


# -- probes -------------------------------------------------------------------------------


def probe_channels(work: Path) -> None:
    from crmtui.play.channel import Channel, ChannelError, PartnerGone
    from crmtui.play.channel_sides import ChannelAgent, ChannelUser
    from crmtui.play.dialogue import Side
    from crmtui.study.roles import channel_name

    one = channel_name("relpairs", "ann.lee", "bo")
    two = channel_name("relpairs", "ann", "lee.bo")
    row("channels", "dotted names (ann.lee+bo vs ann+lee.bo)",
        f"{one[:13]}... vs {two[:13]}...", one != two)  # fmt: skip

    def pair(root: Path, **kwargs: Any) -> tuple[Any, Any]:
        a = Channel.open(root, "pair", 9, "agent", "ann", max_user_turns=50, **kwargs)
        u = Channel.open(root, "pair", 9, "user", "ben", max_user_turns=50, **kwargs)
        return a, u

    def append(path: Path, data: bytes) -> None:
        with path.open("ab") as out:
            out.write(data)

    def forged(role: str, kind: str = "message", **data: Any) -> bytes:
        value = {"kind": kind, "role": role, **data, "tok": secrets.token_hex(32)}
        return (json.dumps(value) + "\n").encode()

    root = work / "ch1"
    a, u = pair(root)
    listener = ChannelUser(a, Side("human", "ben"))
    append(a.path, b'{"kind":"message","role":"user","text":"x"}\n')
    ChannelAgent(u).send("the real opening")
    got = listener.listen().text
    row("channels", "stranger's user line (no token)",
        f"agent read {got!r}; {len(a.problems)} line reported", got == "the real opening"
        and len(a.problems) == 1)  # fmt: skip

    root = work / "ch2"
    a, u = pair(root)
    agent_side, user_side = ChannelUser(a, Side("human", "ben")), ChannelAgent(u)
    user_side.send("hello")
    agent_side.listen()
    append(a.path, forged("agent", text="forged answer"))
    append(a.path, forged("agent", "end", end_reason={"message": "Submit action"}))
    copy = [line for line in a.path.read_bytes().split(b"\n") if b'"tok"' in line][-1]
    append(a.path, copy + b"\n")
    append(a.path, forged("user", "join", name="eve", commit="0" * 64))
    agent_side.deliver("the real answer")
    heard: list[str] = []
    user_side.feed(heard.append, lambda reason, reward: None)
    row(
        "channels",
        "forged agent message, end, copy, 2nd join",
        f"user heard {heard}; {len(u.problems)} reported",
        heard == ["the real answer"],
    )

    root = work / "ch3"
    a, u = pair(root)
    append(a.path, b'{"kind":"message","role":"user","text":"half')
    u.say("after the tear")
    got = a.next_event().text
    row("channels", "torn line (no newline, ever)", f"next message {got!r}",
        got == "after the tear")  # fmt: skip

    root = work / "ch4"
    a, u = pair(root)
    u.say("one")
    a.next_event()
    a.say("two")
    with a.path.open("r+b") as handle:
        handle.truncate(len(a.path.read_bytes().split(b"\n", 1)[0]) + 1)
    u.say("three")
    got = a.next_event().text
    noticed = any("cut or rewritten" in p.why for p in a.problems)
    row("channels", "file truncated under a reader",
        f"next message {got!r}, cut reported: {noticed}", got == "three" and noticed)  # fmt: skip

    now = [1000.0]
    a, u = pair(work / "ch5", partner_timeout_s=5.0, now=lambda: now[0])
    a.poll()
    now[0] += 6.0
    try:
        a.next_event()
        gone = "no"
    except PartnerGone as exc:
        gone = str(exc)[:50]
    row("channels", "dead partner, no .alive file (timeout 5 s)", gone, gone != "no")

    headers = ['"max_user_turns":"abc"', '"max_user_turns":1e999', '"max_user_turns":[1]',
               '"max_user_turns":true', '"max_user_turns":0', '"dialogue_id":null,'
               '"max_user_turns":4', '"max_user_turns":4']  # fmt: skip
    clean = 0
    for number, header in enumerate(headers):
        folder = work / f"hdr{number}" / "channels" / "pair"
        folder.mkdir(parents=True)
        body = '{"kind":"open","idx":9,' + header
        if number < 5:
            body += ',"dialogue_id":"abc"'
        (folder / "9-1.channel").write_text(body + "}\n", "utf-8")
        try:
            Channel.open(folder.parent.parent, "pair", 9, "agent", "ann", max_user_turns=4)
        except ChannelError as exc:
            clean += "\n" not in str(exc) and "bad header" in str(exc)
        except Exception:  # noqa: BLE001 - counted as an internal error
            pass
    row("channels", "hostile headers", f"{clean}/{len(headers)} one clean line",
        clean == len(headers))  # fmt: skip


def probe_messages(work: Path, home: Path, models: Models) -> None:
    from crmtui.limits import MAX_MESSAGE_CHARS
    from crmtui.play.channel import Channel, ChannelError
    from crmtui.play.dialogue import Dialogue

    big = "x" * (20 * 1024 * 1024)
    began = time.monotonic()
    message = Dialogue(10).user_says(big)
    row("messages", "20 MB user message, dialogue core",
        f"kept {len(message.text):,} chars in {time.monotonic() - began:.2f} s",
        len(message.text) <= MAX_MESSAGE_CHARS)  # fmt: skip

    root = work / "ch-big"
    a = Channel.open(root, "pair", 9, "agent", "ann", max_user_turns=5)
    u = Channel.open(root, "pair", 9, "user", "ben", max_user_turns=5)
    try:
        u.say(big)
        refused = "sent"
    except ChannelError as exc:
        refused = str(exc)[:60]
    line = json.dumps({"kind": "message", "role": "user", "text": big}) + "\n"
    with a.path.open("ab") as out:
        out.write(line.encode())
    u.say("small")
    tracemalloc.start()
    began = time.monotonic()
    got = a.next_event().text
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    took = time.monotonic() - began
    row("messages", "20 MB channel line (sent, and appended raw)",
        f"send: {refused!r}; raw skipped in {took:.2f} s, peak {peak / 2**20:.1f} MB, "
        f"next {got!r}", got == "small" and refused != "sent" and peak < 4 * 2**20)  # fmt: skip

    # A simulated user replying 20 MB, end to end through crmtui run --interactive.
    models.plan["agent"] = [(0, "<respond>Which state?</respond>")]
    models.plan["user"] = [(0, "I need a lead routed."), (0, "y" * (20 * 1024 * 1024))]
    out = work / "run-big"
    code, said, took = crmtui(
        "run", "--model", "openai/agent", "--api-base", models.base, "--org", "sample-b2b",
        "--idx", "0", "--interactive", "--user-model", "openai/user", "--user-api-base",
        models.base, "--max-user-turns", "1", "--out", str(out), home=home, timeout=300,
    )  # fmt: skip
    sizes = [p.stat().st_size for p in out.rglob("*.jsonl")]
    largest = max(sizes, default=0)
    row("messages", "simulated user replies 20 MB (run)",
        f"exit {code}, {took:.1f} s, largest recording {largest / 1024:.0f} KB",
        code == 0 and 0 < largest < 1024 * 1024)  # fmt: skip


def probe_verify(work: Path) -> None:
    from crmtui.record import verify

    def msg(lines: list[dict[str, Any]], kind: str, n: int) -> dict[str, Any]:
        return [line for line in lines if line.get("type") == kind][n]

    def set_payload(kind: str, n: int, **change: Any) -> Callable[[list[dict[str, Any]]], None]:
        return lambda lines: msg(lines, kind, n)["payload"].update(change)

    def insert_at(at: int, kind: str, actor: str, payload: dict[str, Any]):
        def edit(lines: list[dict[str, Any]]) -> None:
            lines.insert(at, {**msg(lines, kind, 0), "actor": actor, "payload": payload})

        return edit

    def swap_turns(lines: list[dict[str, Any]]) -> None:
        first, second = msg(lines, "agent_message", 0), msg(lines, "agent_message", 1)
        first["payload"]["turn"], second["payload"]["turn"] = 2, 1

    def drop(kind: str, n: int) -> Callable[[list[dict[str, Any]]], None]:
        return lambda lines: lines.remove(msg(lines, kind, n))

    def limit(lines: list[dict[str, Any]]) -> None:
        lines[0]["dialogue"]["max_user_turns"] = 1

    def swap_lines(lines: list[dict[str, Any]]) -> None:
        lines[3], lines[4] = lines[4], lines[3]

    sim = "openai/sim"
    forgeries: dict[str, Callable[[list[dict[str, Any]]], None]] = {
        "agent turn after STOP": insert_at(6, "agent_message", "ann", {"text": "more", "turn": 3}),
        "user turn after STOP": insert_at(
            6, "user_message", sim, {"text": "more", "turn": 3, "stop": False}
        ),
        "STOP dropped, answer scored": drop("user_message", 2),
        "opening dropped (agent opens)": drop("user_message", 0),
        "more user turns than the limit": limit,
        "duplicated turn number": set_payload("agent_message", 1, turn=1),
        "swapped turn numbers": swap_turns,
        "skipped turn number": set_payload("agent_message", 1, turn=5),
        "user turn number wrong": set_payload("user_message", 1, turn=0),
        "agent speaks twice": swap_lines,
        "STOP flag false on the STOP": set_payload("user_message", 2, stop=False),
        "STOP flag true on a reply": set_payload("user_message", 1, stop=True),
        "STOP text swapped for thanks": set_payload("user_message", 2, text="thanks"),
    }
    honest = honest_dialogue(work / "honest.jsonl")
    lines = [json.loads(line) for line in honest.read_text("utf-8").splitlines()]
    resealed = work / "resealed.jsonl"
    resealed.write_bytes(rechain([dict(line) for line in lines]))
    row("verify", "honest recording, re-sealed", "ok" if verify(resealed).ok else "BAD",
        verify(resealed).ok)  # fmt: skip
    caught = 0
    for name, edit in forgeries.items():
        copy = json.loads(json.dumps(lines))
        edit(copy)
        path = work / f"forged-{caught}-{len(name)}.jsonl"
        path.write_bytes(rechain(copy))
        report = verify(path)
        named = (not report.ok) and "conversation rule" in (report.problem or "")
        caught += named
        row("verify", name, (report.problem or "passed verify")[:80], named)
    row("verify", "conversation-rule forgeries, total", f"{caught}/{len(forgeries)} named",
        caught == len(forgeries))  # fmt: skip
