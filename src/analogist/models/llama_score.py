"""Scoring continuations with llama.cpp: the prompt once, then many continuations per batch.

:class:`LlamaScorer` owns a second llama.cpp context on the loaded model (the weights are shared;
only a KV cache is added), created with several sequences in one unified KV cache. The prompt is
evaluated once in sequence 0 (reusing the longest prefix it shares with the previous prompt);
each continuation then gets a sequence of its own that shares the prompt's cells
(``llama_memory_seq_cp``) and holds only its own tokens, and as many continuations as fit in a
batch are decoded together with the logits of every position. Decoding continuations one by one
runs at generation speed (memory-bound: ~15 tokens/s for the 1.5B on this machine); batched they
run at prompt speed.

The log-probability of a continuation's first token comes from the prompt's last logits, each
later token's from the position before it. A repeated prompt reuses its stored last logits
rather than re-decoding its last token alone (whose rounding would differ), so the same request
scores the same.
"""

from __future__ import annotations

import contextlib
from typing import Any

import numpy as np

from analogist.models.scoring import Score

SEQUENCES = 64  # continuations decoded together at most (plus sequence 0, the prompt)


class LlamaScorer:
    """Scores continuations on a loaded ``llama_cpp.Llama`` (see the module docstring)."""

    def __init__(self, llm: Any):
        import llama_cpp
        from llama_cpp import _internals

        self.llm = llm
        self.lib = llama_cpp
        params = llama_cpp.llama_context_default_params()
        for name in ("n_ctx", "n_batch", "n_ubatch", "n_threads", "n_threads_batch"):
            setattr(params, name, getattr(llm.context_params, name))
        params.n_seq_max = min(SEQUENCES + 1, llama_cpp.llama_max_parallel_sequences())
        params.kv_unified = True  # every sequence may use the whole cache
        self.seqs = params.n_seq_max - 1
        self._stack = contextlib.ExitStack()
        self.ctx = self._stack.enter_context(
            contextlib.closing(
                _internals.LlamaContext(model=llm._model, params=params, verbose=False)
            )
        )
        self.n_ctx, self.n_batch = params.n_ctx, params.n_batch
        self.batch = self._stack.enter_context(
            contextlib.closing(
                _internals.LlamaBatch(n_tokens=self.n_batch, embd=0, n_seq_max=1, verbose=False)
            )
        )
        self.n_vocab = llm.n_vocab()
        self.prompt: list[int] = []  # the tokens sequence 0 holds
        self.last: Any = None  # the logits after the whole prompt

    def prompt_tokens(self, messages: list[dict[str, str]]) -> list[int]:
        """The prompt as generation would see it: the GGUF's chat template with the generation
        prompt, then the content of a last ``assistant`` message (the start of the answer)."""
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        llm = self.llm
        fmt = str(llm.chat_format or "")
        key = "tokenizer.chat_template" + fmt.removeprefix("chat_template").removesuffix(".default")
        template = llm.metadata.get(key) if fmt.startswith("chat_template") else None
        if not template:
            raise ValueError(
                f"the model's chat format {fmt!r} is not a GGUF chat template, so the prompt "
                "that generation uses cannot be rebuilt for scoring"
            )
        start = ""
        if messages and messages[-1]["role"] == "assistant":
            start, messages = messages[-1]["content"], messages[:-1]
        model = llm._model
        eos, bos = model.token_eos(), model.token_bos()
        formatter = Jinja2ChatFormatter(
            template=template,
            eos_token=model.token_get_text(eos) if eos != -1 else "",
            bos_token=model.token_get_text(bos) if bos != -1 else "",
        )
        # llama_cpp types the messages as its TypedDicts; Any keeps this file type-clean with
        # and without llama_cpp installed (a type: ignore is unused where it is missing).
        chat: Any = messages
        text = formatter(messages=chat).prompt + start
        return list(llm.tokenize(text.encode("utf-8"), special=True))

    # ------------------------------------------------------------------------ decoding
    def _fill(self, rows: list[tuple[int, int, int, bool]]) -> None:
        """Put (token, position, sequence, wants logits) rows into the batch."""
        b = self.batch.batch
        b.n_tokens = len(rows)
        for j, (tok, pos, seq, logits) in enumerate(rows):
            b.token[j], b.pos[j], b.n_seq_id[j], b.logits[j] = tok, pos, 1, logits
            b.seq_id[j][0] = seq

    def _logits(self, n_out: int) -> Any:
        out = np.ctypeslib.as_array(self.ctx.get_logits(), shape=(n_out * self.n_vocab,))
        return out.reshape(n_out, self.n_vocab).copy()

    def _eval_prompt(self, prompt: list[int]) -> int:
        """Sequence 0 holds ``prompt`` and ``self.last`` its last logits; returns the tokens
        that had to be evaluated."""
        keep = 0
        for a, b in zip(self.prompt, prompt):
            if a != b:
                break
            keep += 1
        if keep == len(prompt) == len(self.prompt) and self.last is not None:
            return 0
        if len(prompt) + 1 > self.n_ctx:
            raise ValueError(
                f"the prompt's {len(prompt)} tokens do not fit the context of {self.n_ctx} tokens"
            )
        keep = min(keep, len(prompt) - 1)  # the last prompt token is evaluated for its logits
        mem = self.lib.llama_get_memory(self.ctx.ctx)
        self.lib.llama_memory_seq_rm(mem, -1, keep, -1)
        self.prompt, self.last = prompt[:keep], None
        for i in range(keep, len(prompt), self.n_batch):
            chunk = prompt[i : i + self.n_batch]
            self._fill([(t, i + j, 0, j == len(chunk) - 1) for j, t in enumerate(chunk)])
            self.ctx.decode(self.batch)
            self.prompt = prompt[: i + len(chunk)]
        self.last = self._logits(1)
        return len(prompt) - keep

    def score(self, prompt: list[int], continuations: tuple[str, ...]) -> tuple[tuple, int]:
        """(a :class:`Score` per continuation, prompt tokens evaluated)."""
        evaluated = self._eval_prompt(prompt)
        n = len(prompt)
        ids = []
        for text in continuations:
            toks = list(self.llm.tokenize(text.encode("utf-8"), add_bos=False, special=False))
            if not toks:
                raise ValueError(f"the continuation {text!r} has no tokens")
            if len(toks) > self.n_batch:
                raise ValueError(f"a continuation of {len(toks)} tokens exceeds the batch")
            ids.append(toks)
        logprobs: list[float] = [0.0] * len(ids)
        group: list[int] = []
        size = 0
        for k, toks in enumerate(ids):
            need = len(toks) - 1  # the last token is predicted, never fed
            if group and (size + need > self.n_batch or len(group) == self.seqs):
                self._run(group, ids, n, logprobs)
                group, size = [], 0
            group.append(k)
            size += need
        if group:
            self._run(group, ids, n, logprobs)
        return tuple(
            Score(c, lp, len(t)) for c, lp, t in zip(continuations, logprobs, ids)
        ), evaluated

    def _run(self, group: list[int], ids: list[list[int]], n: int, out: list[float]) -> None:
        """Decode one batch of continuations, each in its own sequence sharing the prompt."""
        if n + sum(len(ids[k]) for k in group) > self.n_ctx:
            raise ValueError(
                f"the prompt and its continuations do not fit the context of {self.n_ctx} tokens"
            )
        mem = self.lib.llama_get_memory(self.ctx.ctx)
        rows: list[tuple[int, int, int, bool]] = []
        for s, k in enumerate(group, 1):
            self.lib.llama_memory_seq_cp(mem, 0, s, 0, n)
            rows += [(t, n + j, s, True) for j, t in enumerate(ids[k][:-1])]
        logits = self.last[:0]
        if rows:
            self._fill(rows)
            self.ctx.decode(self.batch)
            logits = self._logits(len(rows))
        at = 0
        for k in group:
            toks = ids[k]
            m = len(toks) - 1
            block = self.last if m == 0 else np.concatenate([self.last, logits[at : at + m]])
            at += m
            out[k] = float(_log_softmax_at(block, toks).sum())
        for s in range(1, len(group) + 1):
            self.lib.llama_memory_seq_rm(mem, s, -1, -1)


def _log_softmax_at(logits: Any, ids: list[int]) -> Any:
    """log p(ids[i]) under row i of ``logits``."""
    m = logits.max(axis=1, keepdims=True)
    lse = m[:, 0] + np.log(np.exp(logits - m).sum(axis=1))
    return logits[np.arange(len(ids)), ids] - lse
