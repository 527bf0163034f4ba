"""`rulemap.toml` / `[tool.rulemap]` → a validated, typed Config.

Every problem is a ConfigError that names the file, the key and the fix, never a traceback.
"""

from __future__ import annotations

import difflib
import posixpath
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from rulemap.model import SEVERITIES
from rulemap.readers.base import Reader, ReadError
from rulemap.text.decoding import decode

CONFIG_FILES = ("rulemap.toml", "pyproject.toml")
DEFAULT_FILES = ("AGENTS.md", "CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md")


class ConfigError(Exception):
    pass


@dataclass(frozen=True)
class Config:
    files: tuple[str, ...] = DEFAULT_FILES
    cwd: str = "."
    max_chars: int = 32000
    max_import_depth: int = 4
    allow_imports_from: tuple[str, ...] = ()
    rules: bool = True
    nested: bool = True
    ignore: tuple[str, ...] = ()
    severity: Mapping[str, str] = field(default_factory=dict)
    profile: str = "cogitator"
    source: str | None = None  # where it was read from, for messages


# key in the file → (attribute, expected type description, validator)
_KEYS: dict[str, str] = {
    "files": "files",
    "cwd": "cwd",
    "maxChars": "max_chars",
    "maxImportDepth": "max_import_depth",
    "allowImportsFrom": "allow_imports_from",
    "rules": "rules",
    "nested": "nested",
    "ignore": "ignore",
    "severity": "severity",
    "profile": "profile",
}


def parse_config(
    data: Mapping[str, Any], source: str, known_codes: frozenset[str] = frozenset()
) -> Config:
    """Validate a mapping of configuration keys (already decoded from TOML or JSON)."""
    values: dict[str, Any] = {}
    for key, value in data.items():
        if key not in _KEYS:
            hint = difflib.get_close_matches(key, list(_KEYS), n=1)
            did_you_mean = f" (did you mean `{hint[0]}`?)" if hint else ""
            raise ConfigError(
                f"{source}: unknown key `{key}`{did_you_mean}; known keys: {', '.join(_KEYS)}"
            )
        values[_KEYS[key]] = _check(key, value, source, known_codes)
    return replace(Config(), **values, source=source)


def _type_error(source: str, key: str, expected: str, value: Any) -> ConfigError:
    return ConfigError(
        f"{source}: `{key}` must be {expected}, not {type(value).__name__} {value!r}"
    )


def _string_list(key: str, value: Any, source: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _type_error(source, key, "a list of strings", value)
    return tuple(value)


def _check(key: str, value: Any, source: str, known_codes: frozenset[str]) -> Any:
    if key in ("files", "ignore"):
        items = _string_list(key, value, source)
        if key == "files" and not items:
            raise ConfigError(f"{source}: `files` is empty, so nothing would ever load")
        return items
    if key == "allowImportsFrom":
        items = _string_list(key, value, source)
        for item in items:
            if not (item.startswith("/") or item.startswith("~")):
                raise ConfigError(
                    f"{source}: `allowImportsFrom` entries must be absolute directories "
                    f"(or start with `~/`), not {item!r}"
                )
        return items
    if key in ("cwd", "profile"):
        if not isinstance(value, str) or not value:
            raise _type_error(source, key, "a non-empty string", value)
        if key == "cwd" and (value.startswith("/") or ".." in value.split("/")):
            raise ConfigError(f"{source}: `cwd` must be a directory inside the root, not {value!r}")
        return value
    if key in ("maxChars", "maxImportDepth"):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise _type_error(source, key, "a whole number ≥ 0", value)
        return value
    if key in ("rules", "nested"):
        if not isinstance(value, bool):
            raise _type_error(source, key, "true or false", value)
        return value
    if key == "severity":
        if not isinstance(value, dict):
            raise _type_error(source, key, "a table of check code = severity", value)
        allowed = (*SEVERITIES, "off")
        for code, level in value.items():
            if known_codes and code not in known_codes:
                hint = difflib.get_close_matches(code, sorted(known_codes), n=1)
                did_you_mean = f" (did you mean `{hint[0]}`?)" if hint else ""
                raise ConfigError(
                    f"{source}: `severity` names an unknown check `{code}`{did_you_mean}"
                )
            if level not in allowed:
                raise ConfigError(
                    f"{source}: `severity.{code}` must be one of "
                    f"{', '.join(allowed)}, not {level!r}"
                )
        return dict(value)
    raise AssertionError(key)


def load_config_text(
    name: str, text: str, source: str, known_codes: frozenset[str] = frozenset()
) -> Config | None:
    """Parse `rulemap.toml` or `pyproject.toml` text; None when pyproject has no section."""
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source}: invalid TOML: {exc}") from None
    if name == "pyproject.toml":
        section = document.get("tool", {}).get("rulemap")
        if section is None:
            return None
        if not isinstance(section, dict):
            raise ConfigError(f"{source}: [tool.rulemap] must be a table")
        return parse_config(section, source + " [tool.rulemap]", known_codes)
    return parse_config(document, source, known_codes)


def read_config(reader: Reader, known_codes: frozenset[str] = frozenset()) -> Config:
    """The configuration of the reader's root: rulemap.toml, else pyproject [tool.rulemap]."""
    for name in CONFIG_FILES:
        path = posixpath.join(reader.root, name)
        if not reader.exists(path):
            continue
        try:
            text, why = decode(reader.read_bytes(path))
        except ReadError as exc:
            raise ConfigError(f"{path}: cannot be read: {exc}") from None
        if why is not None:
            raise ConfigError(f"{path}: cannot be read: {why}")
        config = load_config_text(name, text, path, known_codes)
        if config is not None:
            return config
    return Config()
