"""A tiny OpenAI-compatible HTTP server on 127.0.0.1 for tests: scripted replies per path."""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Self


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
                with fake._lock:
                    fake.in_flight -= 1
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                for k, v in headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

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
            return 200, {}, {"object": "list", "data": [
                {"id": "qwen2.5", "object": "model", "created": 0, "owned_by": "me"}]}
        if path.endswith("/embeddings"):
            data = [{"object": "embedding", "index": i, "embedding": [float(len(t)), 1.0, 0.0]}
                    for i, t in enumerate(body.get("input", []))]
            return 200, {}, {"object": "list", "data": data, "model": body.get("model"),
                             "usage": {"prompt_tokens": 1, "total_tokens": 1}}
        return 500, {}, {"error": {"message": f"no reply queued for {path}"}}

    def __enter__(self) -> Self:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def chat_reply(content: str, prompt_tokens: int = 11, completion_tokens: int = 7) -> dict:
    return {
        "id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "qwen2.5",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens},
    }
