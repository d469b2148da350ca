"""Settings resolved in one order: command-line flag, then ``ANALOGIST_*`` environment, then
the config file (``$XDG_CONFIG_HOME/analogist/config.json``), then the built-in default."""

from __future__ import annotations

import json
import os
from pathlib import Path

from analogist.errors import ConfigError


def data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "analogist"


def config_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "analogist" / "config.json"


DEFAULT_DB = str(data_dir() / "analogist.db")


def file_settings() -> dict:
    p = config_path()
    if not p.exists():
        return {}
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as e:
        raise ConfigError(f"config file {p} is not valid JSON ({e}); fix or delete it") from None
    if not isinstance(data, dict):
        raise ConfigError(f'config file {p} must hold a JSON object like {{"db": "..."}}')
    return data


def setting(name: str, flag: str | None = None, default: str | None = None) -> str | None:
    """Resolve one setting, e.g. ``setting("db", flag_value, DEFAULT_DB)``."""
    if flag:
        return flag
    env = os.environ.get(f"ANALOGIST_{name.upper()}")
    if env:
        return env
    return file_settings().get(name, default)
