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
    except (OSError, ValueError, RecursionError) as e:
        why = getattr(e, "strerror", None) or str(e).splitlines()[0][:120]
        raise ConfigError(f"config file {p} is not valid JSON ({why}); fix or delete it") from None
    if not isinstance(data, dict):
        raise ConfigError(f'config file {p} must hold a JSON object like {{"db": "..."}}')
    for key, value in data.items():
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            raise ConfigError(
                f"config file {p}: {key!r} must be a string or a number, got "
                f"{json.dumps(value)[:60]}; fix or delete it"
            )
    return data


def setting(name: str, flag: str | None = None, default: str | None = None) -> str | None:
    """Resolve one setting, e.g. ``setting("db", flag_value, DEFAULT_DB)``.

    Raises:
        ConfigError: the config file is invalid, or gives this setting a value that is not a
            non-empty string.
    """
    if flag:
        return flag
    env = os.environ.get(f"ANALOGIST_{name.upper()}")
    if env:
        return env
    value = file_settings().get(name, default)
    if value is not None and (not isinstance(value, str) or not value.strip()):
        raise ConfigError(
            f"config file {config_path()}: {name!r} must be a non-empty string, "
            f"got {json.dumps(value)}; fix or delete it"
        )
    return value


def configured_db() -> str:
    """The database the CLI uses when --db is not given (for ``--help``); never raises."""
    try:
        return setting("db", None, DEFAULT_DB) or DEFAULT_DB
    except ConfigError as e:
        return f"(none: {e})"


def env_choice(name: str, choices: tuple[str, ...]) -> str:
    """``ANALOGIST_<NAME>`` when it names one of ``choices``, ``choices[0]`` when unset or
    empty; anything else is a ConfigError that lists them (read at the point of use)."""
    raw = os.environ.get(f"ANALOGIST_{name}", "") or choices[0]
    if raw not in choices:
        raise ConfigError(f"ANALOGIST_{name}={raw!r} must be one of {', '.join(choices)}")
    return raw
