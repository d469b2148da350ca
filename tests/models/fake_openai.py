"""A tiny OpenAI-compatible HTTP server on 127.0.0.1 for tests: scripted replies per path.

A reply is ``(status, headers, payload)``; the payload is JSON (a dict), raw bytes sent as they
are (garbage), or a :class:`Fault`: a delay before answering, a body cut short by closing the
connection, or a connection reset (RST) after part of the body.
"""

from __future__ import annotations

import json
import socket
import struct
import threading
import time
from collections import deque
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Self


@dataclass(frozen=True)
class Fault:
    """A misbehaving reply.

    kind: ``delay`` (send ``payload`` after ``delay_s``), ``truncate`` (announce the full
    length, send half the body, close), ``reset`` (send half the body, then reset the
    connection).
    """

    kind: str
    payload: dict | None = None
    delay_s: float = 0.0


class FakeOpenAI:
    """Queue (status, headers, body) replies per path; records every request body."""

    def __init__(self) -> None:
        self.replies: dict[str, deque] = {}
        self.requests: list[tuple[str, dict]] = []
        self.delay_s = 0.0
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a: object) -> None:
                pass

            def _reply(self) -> None:
                n = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(n) or b"{}") if n else {}
                with fake._lock:
                    fake.requests.append((self.path, body))
                    fake.in_flight += 1
                    fake.max_in_flight = max(fake.max_in_flight, fake.in_flight)
                time.sleep(fake.delay_s)
                status, headers, payload = fake.next_reply(self.path, body)
                fault = payload if isinstance(payload, Fault) else None
                if fault is not None:
                    time.sleep(fault.delay_s)
                    payload = fault.payload or {}
                with fake._lock:
                    fake.in_flight -= 1
                data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    for k, v in headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    if fault is not None and fault.kind in ("truncate", "reset"):
                        self.wfile.write(data[: len(data) // 2])
                        self.wfile.flush()
                        if fault.kind == "reset":  # RST instead of FIN
                            self.connection.setsockopt(
                                socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0)
                            )
                        self.connection.close()
                        self.close_connection = True
                        return
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    self.close_connection = True  # the client gave up (a timeout test)

            do_GET = do_POST = _reply

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def push(self, path: str, status: int, payload: dict, headers: dict | None = None) -> None:
        self.replies.setdefault(path, deque()).append((status, headers or {}, payload))

    def next_reply(self, path: str, body: dict) -> tuple[int, dict, dict]:
        q = self.replies.get(path)
        if q:
            return q.popleft()
        if path.endswith("/models"):
            return (
                200,
                {},
                {
                    "object": "list",
                    "data": [{"id": "qwen2.5", "object": "model", "created": 0, "owned_by": "me"}],
                },
            )
        if path.endswith("/embeddings"):
            data = [
                {"object": "embedding", "index": i, "embedding": [float(len(t)), 1.0, 0.0]}
                for i, t in enumerate(body.get("input", []))
            ]
            return (
                200,
                {},
                {
                    "object": "list",
                    "data": data,
                    "model": body.get("model"),
                    "usage": {"prompt_tokens": 1, "total_tokens": 1},
                },
            )
        return 500, {}, {"error": {"message": f"no reply queued for {path}"}}

    def __enter__(self) -> Self:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def chat_reply(content: str, prompt_tokens: int = 11, completion_tokens: int = 7) -> dict:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": "qwen2.5",
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": content},
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }
