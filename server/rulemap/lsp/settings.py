"""The `rulemap` settings section: server-only keys plus `rulemap.toml` overrides.

Settings arrive from `initializationOptions` and from `workspace/configuration` (per folder), as
nested objects (`{"hover": {"sourceFiles": "off"}}`) or dotted keys (`{"hover.sourceFiles":
"off"}`). Every invalid value is reported (the message names the key and the fix) and replaced by
its default; the rest still apply.

`allowImportsFrom` lets imports read outside the workspace, which only the user may grant: it
counts from `initializationOptions` alone (how the user's editor starts the server; the VS Code
extension sends only the user-scope value there). In `workspace/configuration` answers and
`workspace/didChangeConfiguration`, which may carry a folder's own settings, it is ignored, with
a message when it asks for more than `initializationOptions` grants (docs/security.md).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

# `rulemap.hover.sourceFiles`: where a source file's hover shows what loads for it
SourceFiles = Literal["firstLine", "everywhere", "off"]
HOVER_MODES: tuple[SourceFiles, ...] = ("firstLine", "everywhere", "off")
DEFAULT_DEBOUNCE_MS = 150
# Keys a client may send in the section that only configure the client itself (the VS Code
# extension's: tests/lsp/test_contributed_settings.py).
CLIENT_KEYS = frozenset({"server", "trace", "unseenLines"})
# The user-only key (rulemap.config.USER_ONLY_KEYS): trusted from initializationOptions only.
GRANT_KEY = "allowImportsFrom"


@dataclass(frozen=True)
class Settings:
    profile: str | None = None  # None: rulemap.toml's (else cogitator)
    hover_source_files: SourceFiles = "firstLine"
    debounce_ms: int = DEFAULT_DEBOUNCE_MS
    overrides: Mapping[str, Any] = field(default_factory=dict)  # rulemap.toml keys
    allow_imports_from: tuple[str, ...] = ()  # granted by the user (initializationOptions)


def merge(base: Mapping[str, Any] | None, top: Mapping[str, Any] | None) -> dict[str, Any]:
    """Deep-merge two settings objects (`top` wins)."""
    out: dict[str, Any] = dict(base or {})
    for key, value in (top or {}).items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = merge(out[key], value)
        else:
            out[key] = value
    return out


def _flatten(raw: Mapping[str, Any]) -> dict[str, Any]:
    """`{"hover": {"sourceFiles": x}}` and `{"hover.sourceFiles": x}` → `{"hover.sourceFiles": x}`.

    Only the server's own nested sections are flattened; `severity` stays a table."""
    out: dict[str, Any] = {}
    for key, value in raw.items():
        if key in ("hover", "diagnostics") and isinstance(value, Mapping):
            for sub, inner in value.items():
                out[f"{key}.{sub}"] = inner
        else:
            out[key] = value
    return out


def parse_settings(raw: object, source: str = "settings") -> tuple[Settings, list[str]]:
    """Validate a `rulemap` section; returns the settings and one message per problem. The
    engine (its setting keys, the agents' names) is imported only for a key the server does
    not know itself: a start from the cache publishes before it (~100 ms)."""
    from rulemap.host.settings import ConfigError, parse_allow_list

    if raw is None:
        return Settings(), []
    if not isinstance(raw, Mapping):
        return Settings(), [
            f"{source}: the `rulemap` section must be an object, not {type(raw).__name__}"
        ]
    errors: list[str] = []
    engine_keys: tuple[str, ...] | None = None  # asked of the engine once, when needed
    values: dict[str, Any] = {}
    overrides: dict[str, Any] = {}
    for key, value in _flatten(raw).items():
        if value is None or key in CLIENT_KEYS:
            continue  # null: "not set here"
        if key == "hover.sourceFiles":
            if value not in HOVER_MODES:
                errors.append(
                    f"{source}: `hover.sourceFiles` must be one of "
                    f"{', '.join(HOVER_MODES)}, not {value!r}; using `firstLine`"
                )
            else:
                values["hover_source_files"] = value
        elif key == "diagnostics.debounceMs":
            if (
                isinstance(value, bool)
                or not isinstance(value, int | float)
                or not 0 <= value <= 60_000
            ):
                errors.append(
                    f"{source}: `diagnostics.debounceMs` must be a number of milliseconds "
                    f"from 0 to 60000, not {value!r}; using {DEFAULT_DEBOUNCE_MS}"
                )
            else:
                values["debounce_ms"] = int(value)
        elif key == "profile":
            from rulemap.host.catalog import agent_names

            agents = agent_names()
            if value not in agents:
                errors.append(
                    f"{source}: `profile` must be one of {', '.join(agents)}, not "
                    f"{value!r}; using the default"
                )
            else:
                values["profile"] = value
                overrides["profile"] = value
        elif key == GRANT_KEY:
            try:
                values["allow_imports_from"] = parse_allow_list(value, source)
            except ConfigError as exc:
                errors.append(f"{exc}; ignoring it")
        elif key in (engine_keys := engine_keys or _engine_keys()):
            from rulemap.host.settings import check_setting

            try:
                check_setting(key, value, source)
            except ConfigError as exc:
                errors.append(f"{exc}; ignoring it")
            else:
                overrides[key] = value
        else:
            known = ["profile", "hover.sourceFiles", "diagnostics.debounceMs", *engine_keys]
            hint = difflib.get_close_matches(key, known, n=1)
            did_you_mean = f" (did you mean `{hint[0]}`?)" if hint else ""
            errors.append(f"{source}: unknown setting `rulemap.{key}`{did_you_mean}; ignoring it")
    return Settings(overrides=overrides, **values), errors


def _engine_keys() -> tuple[str, ...]:
    from rulemap.host.settings import setting_keys

    return setting_keys()


def folder_settings(
    init_options: dict[str, Any], client_settings: dict[str, Any], scoped: Any
) -> tuple[dict[str, Any], Settings, list[str]]:
    """One folder's settings: initializationOptions, then didChangeConfiguration's, then the
    folder's `workspace/configuration` answer (anything but a table there is an error).
    `allowImportsFrom` counts from initializationOptions only."""
    notes: list[str] = []
    client_settings = _without_grant(
        client_settings, init_options, "workspace/didChangeConfiguration", notes
    )
    raw = merge(init_options, client_settings)
    if isinstance(scoped, dict):
        raw = merge(raw, _without_grant(scoped, init_options, "workspace/configuration", notes))
    elif scoped is not None:
        raw = {"__invalid__": scoped}
    settings, errors = parse_settings(raw.get("__invalid__", raw), "settings")
    return raw, settings, [*errors, *notes]


def _without_grant(
    settings: dict[str, Any], init_options: Mapping[str, Any], channel: str, notes: list[str]
) -> dict[str, Any]:
    """`settings` without `allowImportsFrom`; a note when it asked for more than
    initializationOptions grants (the same value, as some clients send both, is no news)."""
    if GRANT_KEY not in settings:
        return settings
    value = settings[GRANT_KEY]
    if value is not None and value != init_options.get(GRANT_KEY) and value != []:
        notes.append(
            f"settings: `rulemap.{GRANT_KEY}` from {channel} is ignored: only you may let "
            f"imports read outside the workspace, and these settings may come from the "
            f"workspace itself. Set it in the server's initializationOptions (your editor's "
            f"user-level configuration) or in your user configuration file "
            f"(~/.config/rulemap/config.toml or $RULEMAP_CONFIG); ignoring it"
        )
    return {k: v for k, v in settings.items() if k != GRANT_KEY}
