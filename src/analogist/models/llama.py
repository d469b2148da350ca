"""A local GGUF model through llama.cpp (``llama-cpp-python``, the optional extra ``[llama]``).

``llama:/path/model.gguf`` loads the file once, lazily, and answers chat messages with the
chat template stored in the GGUF. With a schema, decoding is constrained by a grammar generated
from the JSON schema, so even a very small model returns JSON of the right shape (its content
is still checked client-side). The cache key names the file by its base name, so recorded calls
replay on any machine (``replay:llama:model.gguf``).
"""

from __future__ import annotations

import json
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from analogist.errors import ConfigError, ModelError
from analogist.models.backend import BaseLLM, Identity, Ping
from analogist.models.llm import Completion, Request, completion_from_text
from analogist.models.settings import ModelSettings

INSTALL_HINT = "pip install 'analogist[llama]' (builds llama-cpp-python; takes minutes)"


@dataclass(frozen=True)
class LlamaSettings:
    """Fixed sampling and context settings; the sampling ones are part of every cache key."""

    n_ctx: int = 4096
    top_p: float = 0.95
    top_k: int = 40
    repeat_penalty: float = 1.0
    n_threads: int = 0  # 0 = llama.cpp's default

    def sampling(self) -> dict[str, Any]:
        return {"top_p": self.top_p, "top_k": self.top_k, "repeat_penalty": self.repeat_penalty}


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

    provider: ClassVar[str] = "llama"
    summary: ClassVar[str] = "local GGUF via llama-cpp-python (llama:/path/model.gguf; extra [llama])"

    def __init__(self, path: str | Path, settings: LlamaSettings = LlamaSettings()):
        self.path = Path(path).expanduser()
        problem = _gguf_ok(self.path)
        if problem:
            raise ConfigError(f"llama:{path}: {problem}; give the path of a .gguf model file")
        self.model = self.path.name
        self.base_url = None
        self.params = settings.sampling()
        self.settings = settings
        self._llama: Any = None
        self._lock = threading.Lock()

    def _load(self) -> Any:
        if self._llama is None:
            try:
                from llama_cpp import Llama
            except ImportError:
                raise ConfigError(f"llama:{self.path} needs llama-cpp-python: {INSTALL_HINT}") from None
            kw: dict[str, Any] = {"model_path": str(self.path), "n_ctx": self.settings.n_ctx,
                                  "verbose": False}
            if self.settings.n_threads:
                kw["n_threads"] = self.settings.n_threads
            self._llama = Llama(**kw)
        return self._llama

    def _grammar(self, schema: Any) -> Any:
        from llama_cpp import LlamaGrammar

        try:
            return LlamaGrammar.from_json_schema(json.dumps(schema), verbose=False)
        except Exception as e:  # noqa: BLE001 - llama.cpp's converter raises bare Exception
            raise ModelError(f"llama: cannot turn the JSON schema into a grammar: {e}") from None

    def generate(self, request: Request) -> Completion:
        with self._lock:
            llm = self._load()
            kw: dict[str, Any] = dict(
                messages=request.message_dicts(), temperature=request.temperature,
                max_tokens=request.max_tokens, **self.settings.sampling(),
            )
            if request.seed is not None:
                kw["seed"] = request.seed
            if request.schema is not None:
                kw["grammar"] = self._grammar(request.schema)
            t0 = time.perf_counter()
            try:
                resp = llm.create_chat_completion(**kw)
            except (RuntimeError, ValueError) as e:
                raise ModelError(f"llama:{self.model}: generation failed: {e}") from None
            latency = (time.perf_counter() - t0) * 1000
        usage = resp.get("usage") or {}
        return completion_from_text(
            resp["choices"][0]["message"].get("content") or "", request,
            input_tokens=usage.get("prompt_tokens"), output_tokens=usage.get("completion_tokens"),
            latency_ms=latency,
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
        return cls(name)

    @classmethod
    def configured(cls, settings: ModelSettings) -> str | None:
        path = os.environ.get("ANALOGIST_LLAMA_MODEL")
        return f"llama:{path}" if path else None

    @classmethod
    def ping(cls, name: str, settings: ModelSettings) -> Ping:
        """Checks the file and the package without loading the weights (cheap)."""
        if not name:
            return Ping(cls.provider, "", "not configured",
                        "use --model llama:/path/model.gguf or set ANALOGIST_LLAMA_MODEL")
        spec = f"llama:{name}"
        problem = _gguf_ok(Path(name).expanduser())
        if problem:
            return Ping(cls.provider, spec, "error", problem)
        import importlib.util

        if importlib.util.find_spec("llama_cpp") is None:
            return Ping(cls.provider, spec, "missing dependency", INSTALL_HINT)
        size = Path(name).expanduser().stat().st_size / 1e6
        return Ping(cls.provider, spec, "ok", f"GGUF file found ({size:.0f} MB); loads on first call")
