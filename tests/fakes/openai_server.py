"""A scripted, OpenAI-compatible chat-completions server on 127.0.0.1 for offline tests.

The server answers ``POST /v1/chat/completions`` with the next item of a script: text content,
native tool calls, an HTTP error (429 with ``Retry-After``, 500, 401 ...), a delay before the
reply (to provoke client timeouts), malformed tool-call JSON, an empty reply, a raw body sent
verbatim (malformed JSON, empty ``choices``, lone surrogates), a body trickled out byte by
byte (a server that never finishes within a deadline), or a plain JSON reply to a streamed
request (servers that ignore ``stream``). A request with ``"stream": true`` gets the same
reply as server-sent events, split into chunks. Every request body is recorded so tests can
assert on the prompts a client sent.

Example:
    >>> with FakeOpenAI(script=[text("hi")]) as server:  # doctest: +SKIP
    ...     litellm.completion(model="openai/fake", api_base=server.base_url, ...)
"""

from __future__ import annotations

import contextlib
import json
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = [
    "FakeOpenAI",
    "Reply",
    "delayed",
    "empty",
    "empty_choices",
    "error",
    "ignoring_stream",
    "raw",
    "text",
    "tool_call",
    "trickled",
]


@dataclass
class Reply:
    """One scripted answer.

    Attributes:
        content: Assistant text (``None`` for a pure tool-call reply).
        tool_calls: ``(id, name, arguments_text)`` triples; ``arguments_text`` is sent verbatim,
            so it may be malformed JSON on purpose.
        status: HTTP status; anything but 200 sends an OpenAI-style error body instead.
        error_message: Message of the error body.
        headers: Extra response headers (e.g. ``Retry-After``).
        delay_s: Seconds to wait before answering (longer than a client timeout -> timeout).
        prompt_tokens: Reported ``usage.prompt_tokens``; ``None`` means a crude word count of
            the request's messages.
        completion_tokens: Reported ``usage.completion_tokens``; ``None`` means a word count of
            the reply.
        chunks: Number of pieces the text is cut into when streamed.
        raw_body: Sent verbatim as the response body (with ``status``), whatever was asked.
        trickle_s: Seconds between single bytes of the body (0: send it at once).
        ignore_stream: Answer a streamed request with a plain JSON completion.
        hold: Answer only once this event is set (by the test): a call kept in flight for
            as long as the test needs, on however busy a machine (a hang guard of 10
            minutes ends it).
    """

    content: str | None = None
    tool_calls: list[tuple[str, str, str]] = field(default_factory=list)
    status: int = 200
    error_message: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    chunks: int = 3
    raw_body: bytes | None = None
    trickle_s: float = 0.0
    ignore_stream: bool = False
    hold: threading.Event | None = None


def text(content: str, **kwargs: Any) -> Reply:
    """A plain assistant text reply."""
    return Reply(content=content, **kwargs)


def tool_call(
    name: str, arguments: dict[str, Any] | str, *, call_id: str | None = None, **kwargs: Any
) -> Reply:
    """A reply with one native tool call; a ``str`` ``arguments`` is sent as-is (may be bad)."""
    args = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return Reply(content=None, tool_calls=[(call_id or f"call_{name}", name, args)], **kwargs)


def error(
    status: int, message: str = "scripted failure", retry_after: float | str | None = None
) -> Reply:
    """An HTTP error reply; ``retry_after`` adds a ``Retry-After`` header (seconds).

    A string is sent as written, e.g. ``"nan"`` or an HTTP date.
    """
    headers: dict[str, str] = {}
    if retry_after is not None:
        value = retry_after if isinstance(retry_after, str) else f"{retry_after:g}"
        headers["Retry-After"] = value
    return Reply(status=status, error_message=message, headers=headers)


def delayed(seconds: float, reply: Reply | None = None) -> Reply:
    """``reply`` (default: text "late") sent only after ``seconds``."""
    base = reply or text("late")
    base.delay_s = seconds
    return base


def empty() -> Reply:
    """An assistant message with empty content and no tool calls."""
    return Reply(content="")


def raw(body: str | bytes, status: int = 200) -> Reply:
    """A response whose body is ``body`` exactly (JSON content type), valid or not."""
    data = body.encode("utf-8", "surrogatepass") if isinstance(body, str) else body
    return Reply(status=status, raw_body=data)


def empty_choices() -> Reply:
    """A well-formed completion object whose ``choices`` list is empty."""
    body = {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": "fake",
        "choices": [],
        "usage": {"prompt_tokens": 1, "completion_tokens": 0, "total_tokens": 1},
    }
    return raw(json.dumps(body))


def trickled(reply: Reply, seconds_per_byte: float) -> Reply:
    """``reply`` with its body sent one byte every ``seconds_per_byte`` (never a read timeout)."""
    reply.trickle_s = seconds_per_byte
    return reply


def ignoring_stream(reply: Reply) -> Reply:
    """``reply`` sent as one JSON completion even when the request asked for a stream."""
    reply.ignore_stream = True
    return reply


def _word_count(value: Any) -> int:
    return len(json.dumps(value).split()) if value else 0


class FakeOpenAI:
    """The server. Use as a context manager; ``base_url`` ends in ``/v1``.

    Args:
        script: The replies, in order.
        model_name: ``model`` echoed in replies and listed by ``GET /models``.
        require_key: When set, any request without ``Authorization: Bearer <key>`` gets a
            401 (as a real provider does for a wrong key).

    Attributes:
        requests: Decoded JSON bodies of every chat-completions request received, in order.
        model_name: ``model`` echoed in replies.
        gets: Paths of the GET requests received (e.g. a reachability probe's ``/models``).
    """

    def __init__(
        self,
        script: list[Reply] | None = None,
        *,
        model_name: str = "fake",
        require_key: str | None = None,
    ) -> None:
        self._script: deque[Reply] = deque(script or [])
        self.require_key = require_key
        self.gets: list[str] = []
        self._lock = threading.Lock()
        self.requests: list[dict[str, Any]] = []
        self.model_name = model_name
        self.unexpected: list[str] = []
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- script ----------------------------------------------------------------------------

    def push(self, *replies: Reply) -> None:
        """Append replies to the script (thread-safe)."""
        with self._lock:
            self._script.extend(replies)

    @property
    def remaining(self) -> int:
        """Script items not yet consumed."""
        with self._lock:
            return len(self._script)

    def _next(self, body: dict[str, Any]) -> Reply | None:
        with self._lock:
            self.requests.append(body)
            return self._script.popleft() if self._script else None

    # -- lifecycle -------------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>/v1``."""
        if self._httpd is None:
            raise RuntimeError("server not started")
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def start(self) -> FakeOpenAI:
        """Bind an ephemeral port and serve in a daemon thread."""
        owner = self

        class Handler(_Handler):
            server_owner = owner

        self._httpd = _QuietServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        # A short poll interval keeps ``stop()`` (shutdown) from waiting the default 0.5 s.
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket."""
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class _QuietServer(ThreadingHTTPServer):
    """Ignores clients that hang up (timeouts, closed keep-alive sockets)."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Drop disconnect noise; report anything else the stdlib way."""
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    # Without this every response stalls ~40 ms on delayed ACKs.
    disable_nagle_algorithm = True
    protocol_version = "HTTP/1.1"
    server_owner: FakeOpenAI

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        """Silence the per-request stderr log."""

    def _authorised(self) -> bool:
        key = self.server_owner.require_key
        if key is None or self.headers.get("Authorization") == f"Bearer {key}":
            return True
        message = "Incorrect API key provided."
        self._send_json(401, {"error": {"message": message, "type": "invalid_request_error"}})
        return False

    def do_GET(self) -> None:  # noqa: N802 - stdlib naming
        owner = self.server_owner
        owner.gets.append(self.path)
        if not self._authorised():
            return
        if self.path.rstrip("/").endswith("/models"):
            listing = {"object": "list", "data": [{"id": owner.model_name, "object": "model"}]}
            self._send_json(200, listing)
            return
        self._send_json(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self) -> None:  # noqa: N802 - stdlib naming
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if not self._authorised():
            return
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send_json(404, {"error": {"message": f"no route {self.path}"}})
            return
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            self._send_json(400, {"error": {"message": "request body is not JSON"}})
            return
        owner = self.server_owner
        reply = owner._next(body)
        if reply is None:
            owner.unexpected.append("script exhausted")
            self._send_json(500, {"error": {"message": "fake server script exhausted"}})
            return
        if reply.delay_s:
            time.sleep(reply.delay_s)
        if reply.hold is not None:
            reply.hold.wait(600)
        if reply.raw_body is not None:
            self._send_bytes(reply.status, reply.raw_body, reply.headers, reply.trickle_s)
            return
        if reply.status != 200:
            payload = {
                "error": {
                    "message": reply.error_message,
                    "type": "scripted_error",
                    "code": str(reply.status),
                }
            }
            self._send_json(reply.status, payload, reply.headers)
            return
        usage = self._usage(body, reply)
        if body.get("stream") and not reply.ignore_stream:
            self._send_stream(body, reply, usage)
        else:
            data = json.dumps(self._completion(reply, usage)).encode()
            self._send_bytes(200, data, reply.headers, reply.trickle_s)

    # -- payloads --------------------------------------------------------------------------

    def _usage(self, body: dict[str, Any], reply: Reply) -> dict[str, int]:
        prompt = reply.prompt_tokens
        if prompt is None:
            prompt = _word_count(body.get("messages"))
        completion = reply.completion_tokens
        if completion is None:
            completion = len((reply.content or "").split()) + sum(
                len(args.split()) + 1 for _, _, args in reply.tool_calls
            )
        return {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        }

    def _completion(self, reply: Reply, usage: dict[str, int]) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": reply.content}
        if reply.tool_calls:
            message["tool_calls"] = [
                {"id": cid, "type": "function", "function": {"name": name, "arguments": args}}
                for cid, name, args in reply.tool_calls
            ]
        return {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": 1_700_000_000,
            "model": self.server_owner.model_name,
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": "tool_calls" if reply.tool_calls else "stop",
                }
            ],
            "usage": usage,
        }

    def _send_stream(self, body: dict[str, Any], reply: Reply, usage: dict[str, int]) -> None:
        def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            return {
                "id": "chatcmpl-fake",
                "object": "chat.completion.chunk",
                "created": 1_700_000_000,
                "model": self.server_owner.model_name,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }

        events: list[dict[str, Any]] = [chunk({"role": "assistant", "content": ""})]
        content = reply.content or ""
        if content:
            size = max(1, -(-len(content) // max(1, reply.chunks)))
            for start in range(0, len(content), size):
                events.append(chunk({"content": content[start : start + size]}))
        for index, (cid, name, args) in enumerate(reply.tool_calls):
            head = {"index": index, "id": cid, "type": "function"}
            head["function"] = {"name": name, "arguments": ""}
            events.append(chunk({"tool_calls": [head]}))
            half = len(args) // 2
            for part in (args[:half], args[half:]):
                delta = {"tool_calls": [{"index": index, "function": {"arguments": part}}]}
                events.append(chunk(delta))
        events.append(chunk({}, "tool_calls" if reply.tool_calls else "stop"))
        if (body.get("stream_options") or {}).get("include_usage"):
            last = chunk({})
            last["choices"] = []
            last["usage"] = usage
            events.append(last)
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for event in events:
            self._write_chunk(f"data: {json.dumps(event)}\n\n".encode())
        self._write_chunk(b"data: [DONE]\n\n")
        self._write_chunk(b"")

    def _write_chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _send_bytes(
        self, status: int, data: bytes, headers: dict[str, str], trickle_s: float
    ) -> None:
        if not trickle_s:
            self._send_json(status, None, headers, data)
            return
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for key, value in headers.items():
            self.send_header(key, value)
        self.end_headers()
        # One byte at a time: every read gets data before any per-read timeout, so only a
        # total deadline on the client's side ends the call.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            for index in range(len(data)):
                self.wfile.write(data[index : index + 1])
                self.wfile.flush()
                time.sleep(trickle_s)

    def _send_json(
        self,
        status: int,
        payload: dict[str, Any] | None,
        headers: dict[str, str] | None = None,
        data: bytes | None = None,
    ) -> None:
        if data is None:
            data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        # The client may have given up already (timeout tests); nothing to report then.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self.wfile.write(data)
