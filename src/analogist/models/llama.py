"""A local GGUF model through llama.cpp (``llama-cpp-python``, installed by ``make local``).

``llama:/path/model.gguf`` loads the file once, lazily, and answers chat messages with the
chat template stored in the GGUF. With a schema, decoding is constrained by a grammar generated
from the JSON schema (enums included), so even a very small model returns JSON of the right
shape and needs no repair round trip (its content is still checked client-side). The cache key
names the file by its base name, so recorded calls replay on any machine
(``replay:llama:model.gguf``).

Threads default to the cores this process may use that are not busy (see
:func:`~analogist.models.settings.auto_threads`) and the context to 8192 tokens
(``ANALOGIST_THREADS`` / ``ANALOGIST_CTX``); the first call prints which file, threads (and
why) and context were used. One ``Llama`` object answers one call at a time (a lock): llama.cpp reuses
the KV cache of the longest prefix a call shares with the previous one, and a RAM cache of the
states of recent prompts (``ANALOGIST_PROMPT_CACHE_MB``, default 1024) extends that to any
recent prompt, so interleaved prompt kinds each keep their long shared prefix (its capacity
bounds every byte it keeps: :mod:`~analogist.models.prompt_cache`). A caller that runs several threads is told, once and
loudly, that the calls are serialised (:attr:`LlamaCppLLM.max_parallel` is 1).
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from analogist.errors import ConfigError, ModelError
from analogist.models.backend import BaseLLM, Identity, Ping
from analogist.models.llm import Completion, Request, completion_from_text
from analogist.models.prompt_cache import ram_cache
from analogist.models.scoring import Scored
from analogist.models.settings import ModelSettings, auto_threads

INSTALL_HINT = (
    "run `make local` or `python -m analogist.models.install` (builds llama-cpp-python once per "
    "machine with flags that work on this CPU; about 8 minutes)"
)


@dataclass(frozen=True)
class LlamaSettings:
    """Sampling, context and thread settings; the sampling ones are part of every cache key.

    Threads and context are not: they change speed and what fits, not the answer.
    """

    n_ctx: int = 8192
    top_p: float = 0.95
    top_k: int = 40
    repeat_penalty: float = 1.0
    n_threads: int = 0  # 0 = the idle cores in this process's affinity (auto_threads)
    prompt_cache_mb: int = 1024  # RAM for states of recent prompts; 0 = the last prompt only

    def sampling(self) -> dict[str, Any]:
        return {"top_p": self.top_p, "top_k": self.top_k, "repeat_penalty": self.repeat_penalty}

    @classmethod
    def from_settings(cls, settings: ModelSettings) -> LlamaSettings:
        return cls(
            n_ctx=settings.n_ctx,
            n_threads=settings.threads,
            prompt_cache_mb=settings.prompt_cache_mb,
        )


def _perf(llm: Any) -> dict[str, float]:
    """llama.cpp's counters for the last call: prompt tokens actually evaluated (the rest came
    from the KV cache) and generated, with their milliseconds; {} when unavailable."""
    try:
        import llama_cpp

        p = llama_cpp.llama_perf_context(llm._ctx.ctx)
        out = {
            "prompt_eval_tokens": p.n_p_eval,
            "prompt_eval_ms": p.t_p_eval_ms,
            "gen_tokens": p.n_eval,
            "gen_ms": p.t_eval_ms,
        }
        llama_cpp.llama_perf_context_reset(llm._ctx.ctx)
        return out
    except (AttributeError, ImportError, TypeError):  # older bindings: no perf counters
        return {}


def _gguf_ok(path: Path) -> str | None:
    """None when ``path`` looks like a GGUF file, else what is wrong."""
    if not path.is_file():
        return f"no file at {path}"
    with open(path, "rb") as f:
        if f.read(4) != b"GGUF":
            return f"{path} is not a GGUF file (no GGUF magic bytes)"
    return None


class LlamaCppLLM(BaseLLM):
    """Chat completions from a local GGUF file via llama.cpp; one call at a time."""

    provider = "llama"
    summary: ClassVar[str] = (
        "any GGUF file via llama-cpp-python (llama:/path/model.gguf; make local)"
    )
    max_parallel: ClassVar[int] = 1
    can_score = True

    def __init__(self, path: str | Path, settings: LlamaSettings = LlamaSettings()):
        self.path = Path(path).expanduser()
        problem = _gguf_ok(self.path)
        if problem:
            raise ConfigError(f"llama:{path}: {problem}; give the path of a .gguf model file")
        self.model = self.path.name
        self.base_url = None
        self.params = settings.sampling()
        self.settings = settings
        self.runtime: dict[str, Any] = {}
        self._llama: Any = None
        self._scorer: Any = None
        self._lock = threading.Lock()
        self._warned_parallel = False

    def _load(self) -> Any:
        if self._llama is None:
            try:
                from llama_cpp import Llama
            except ImportError:
                raise ConfigError(
                    f"{self.provider}:{self.model} needs llama-cpp-python: {INSTALL_HINT}"
                ) from None
            threads, why = self.settings.n_threads, "ANALOGIST_THREADS"
            if not threads:
                threads, why = auto_threads()
            t0 = time.perf_counter()
            self._llama = Llama(
                model_path=str(self.path),
                n_ctx=self.settings.n_ctx,
                n_threads=threads,
                n_threads_batch=threads,
                verbose=False,
            )
            cache_mb = self.settings.prompt_cache_mb
            if cache_mb:
                self._llama.set_cache(ram_cache(cache_mb << 20))
            self.runtime = {
                "file": str(self.path),
                "threads": threads,
                "threads_from": why,
                "n_ctx": self._llama.n_ctx(),
                "prompt_cache_mb": cache_mb,
                "load_s": round(time.perf_counter() - t0, 2),
            }
            cache = f"{cache_mb} MB" if cache_mb else "off (last prompt only)"
            print(
                f"{self.provider}:{self.model}: loaded {self.path.name} "
                f"({self.path.stat().st_size / 1e6:.0f} MB) with {threads} thread(s) ({why}), "
                f"n_ctx {self.runtime['n_ctx']}, prompt cache {cache}, "
                f"in {self.runtime['load_s']:.1f} s",
                file=sys.stderr,
                flush=True,
            )
        return self._llama

    def _acquire(self) -> None:
        """Take the one-call lock; say once, loudly, when other threads have to wait for it."""
        if self._lock.acquire(blocking=False):
            return
        if not self._warned_parallel:
            self._warned_parallel = True
            print(
                f"{self.provider}:{self.model}: calls run one at a time (one llama.cpp context); "
                "concurrency above 1 only queues them — use concurrency 1, or an "
                "OpenAI-compatible server with parallel slots",
                file=sys.stderr,
                flush=True,
            )
        self._lock.acquire()

    def _grammar(self, schema: Any) -> Any:
        from llama_cpp import LlamaGrammar

        try:
            return LlamaGrammar.from_json_schema(json.dumps(schema), verbose=False)
        except Exception as e:  # noqa: BLE001 - llama.cpp's converter raises bare Exception
            raise ModelError(f"llama: cannot turn the JSON schema into a grammar: {e}") from None

    def generate(self, request: Request) -> Completion:
        self._acquire()
        try:
            llm = self._load()
            kw: dict[str, Any] = dict(
                messages=request.message_dicts(),
                temperature=request.temperature,
                max_tokens=request.max_tokens,
                **self.settings.sampling(),
            )
            if request.seed is not None:
                kw["seed"] = request.seed
            if request.schema is not None:
                kw["grammar"] = self._grammar(request.schema)
            t0 = time.perf_counter()
            try:
                resp = llm.create_chat_completion(**kw)
            except (RuntimeError, ValueError) as e:
                raise ModelError(
                    f"{self.provider}:{self.model}: generation failed: {e}"
                    + ("; raise ANALOGIST_CTX or shorten the prompt" if "context" in str(e) else "")
                ) from None
            latency = (time.perf_counter() - t0) * 1000
            timings = _perf(llm)
        finally:
            self._lock.release()
        usage = resp.get("usage") or {}
        choice = resp["choices"][0]
        return completion_from_text(
            choice["message"].get("content") or "",
            request,
            input_tokens=usage.get("prompt_tokens"),
            output_tokens=usage.get("completion_tokens"),
            latency_ms=latency,
            finish_reason=choice.get("finish_reason"),
            timings=timings,
        )

    def score_request(self, request: Request) -> Scored:
        """Log-probabilities of each continuation (:mod:`analogist.models.scoring`), in a
        scoring context of its own (:class:`~analogist.models.llama_score.LlamaScorer`), so
        generation's KV cache is left as it was."""
        self._acquire()
        try:
            llm = self._load()
            t0 = time.perf_counter()
            try:
                if self._scorer is None:
                    from analogist.models.llama_score import LlamaScorer

                    self._scorer = LlamaScorer(llm)
                prompt = self._scorer.prompt_tokens(request.message_dicts())
                scores, evaluated = self._scorer.score(prompt, request.continuations or ())
            except (RuntimeError, ValueError) as e:
                raise ModelError(
                    f"{self.provider}:{self.model}: scoring failed: {e}"
                    + ("; raise ANALOGIST_CTX or shorten the prompt" if "context" in str(e) else "")
                ) from None
            latency = (time.perf_counter() - t0) * 1000
        finally:
            self._lock.release()
        return Scored(
            scores,
            input_tokens=len(prompt),
            latency_ms=latency,
            timings={
                "prompt_eval_tokens": evaluated,
                "scored_tokens": sum(s.tokens for s in scores),
            },
        )

    # registry -------------------------------------------------------------------
    @classmethod
    def identity(cls, name: str, settings: ModelSettings) -> Identity:
        if not name:
            raise ConfigError("llama: give the model file, e.g. llama:/models/qwen2.5-1.5b.gguf")
        return Identity(cls.provider, Path(name).name, None, LlamaSettings().sampling())

    @classmethod
    def create(cls, name: str, settings: ModelSettings) -> LlamaCppLLM:
        cls.identity(name, settings)
        return cls(name, LlamaSettings.from_settings(settings))

    @classmethod
    def configured(cls, settings: ModelSettings) -> str | None:
        path = os.environ.get("ANALOGIST_LLAMA_MODEL")
        return f"llama:{path}" if path else None

    @classmethod
    def ping(cls, name: str, settings: ModelSettings) -> Ping:
        """Checks the file and the package without loading the weights (cheap)."""
        if not name:
            return Ping(
                cls.provider,
                "",
                "not configured",
                "use --model llama:/path/model.gguf or set ANALOGIST_LLAMA_MODEL",
            )
        spec = f"llama:{name}"
        problem = _gguf_ok(Path(name).expanduser())
        if problem:
            return Ping(cls.provider, spec, "error", problem)
        import importlib.util

        if importlib.util.find_spec("llama_cpp") is None:
            return Ping(cls.provider, spec, "missing dependency", INSTALL_HINT)
        size = Path(name).expanduser().stat().st_size / 1e6
        return Ping(
            cls.provider, spec, "ok", f"GGUF file found ({size:.0f} MB); loads on first call"
        )
