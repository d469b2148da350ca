"""A flaky OpenAI-compatible model on 127.0.0.1: random delays, 5xx errors, 429 with
Retry-After and unreadable answers, chosen by a seeded generator. It counts what it served so a
test can check that every call was logged exactly once."""

from __future__ import annotations

import json
import random
import threading
import time
from collections import Counter

from tests.models.fake_openai import FakeOpenAI, chat_reply

ANSWER = {"source": None, "role_mapping": {}, "confidence": 0.5}


class FlakyModel(FakeOpenAI):
    """Chat replies: 70% a JSON answer, 10% 429 (Retry-After 0), 10% 500, 10% not JSON."""

    def __init__(self, seed: int = 0, max_delay_s: float = 0.004) -> None:
        super().__init__()
        self.rng = random.Random(seed)
        self.max_delay_s = max_delay_s
        self.served: Counter = Counter()
        self._pick = threading.Lock()

    def next_reply(self, path: str, body: dict) -> tuple[int, dict, dict]:
        if not path.endswith("/chat/completions"):
            return super().next_reply(path, body)
        with self._pick:
            roll, delay = self.rng.random(), self.rng.random() * self.max_delay_s
        time.sleep(delay)
        if roll < 0.1:
            kind, reply = "429", (429, {"retry-after": "0"}, {"error": {"message": "slow down"}})
        elif roll < 0.2:
            kind, reply = "500", (500, {}, {"error": {"message": "overloaded"}})
        elif roll < 0.3:
            kind, reply = "garbage", (200, {}, chat_reply("I think it is the cache, probably"))
        else:
            kind, reply = "ok", (200, {}, chat_reply(json.dumps(ANSWER)))
        with self._pick:
            self.served[kind] += 1
        return reply
