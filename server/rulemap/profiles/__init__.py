"""Loading models, one per agent. `cogitator` is the default (the first seed).

The registry: `PROFILES` in command-line order, `get_profile`, `register_profile` (a test's toy
profile), `select` (the profiles a workspace checks for), `validate_options`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from rulemap.config import OWN_KEYS, ConfigError, unknown_key
from rulemap.profiles.base import Profile, parse_options
from rulemap.profiles.claude_code import ClaudeCodeProfile
from rulemap.profiles.codex import CodexProfile
from rulemap.profiles.cogitator import CogitatorProfile
from rulemap.profiles.copilot import CopilotProfile
from rulemap.profiles.cursor import CursorProfile
from rulemap.profiles.gemini import GeminiProfile
from rulemap.profiles.mastra import MastraProfile

if TYPE_CHECKING:
    from rulemap.workspace import Workspace

PROFILES: dict[str, Profile] = {
    p.name: p
    for p in (
        CogitatorProfile(),
        MastraProfile(),
        ClaudeCodeProfile(),
        CodexProfile(),
        GeminiProfile(),
        CopilotProfile(),
        CursorProfile(),
    )
}


# The agent `explain` models when neither the command nor the configuration names one.
DEFAULT_PROFILE = "cogitator"


def default_name(ws: Workspace) -> str:
    """The agent the workspace's configuration names (`profile = …`), else the default."""
    return ws.config.profile or DEFAULT_PROFILE


class UnknownProfile(ValueError):
    pass


def is_agent_settings(path: str) -> bool:
    """Whether `path` (a key or an absolute path) is one of an agent's own settings files
    (`Profile.settings_files`): its change re-opens the workspace."""
    return any(path == name or path.endswith("/" + name)
               for profile in PROFILES.values() for name in profile.settings_files)


def get_profile(name: str) -> Profile:
    try:
        return PROFILES[name]
    except KeyError:
        raise UnknownProfile(
            f"unknown profile `{name}`; available: {', '.join(PROFILES)}"
        ) from None


def register_profile(profile: Profile) -> None:
    """Add (or replace) a profile: everything else finds it through this registry."""
    PROFILES[profile.name] = profile


def names(value: Iterable[str], source: str) -> tuple[str, ...]:
    """Profile names as given by a user, checked (a ConfigError names the unknown one)."""
    out = []
    for name in value:
        if name not in PROFILES:
            raise ConfigError(
                f"{source}: unknown profile `{name}`; available: {', '.join(PROFILES)}"
            )
        out.append(name)
    return tuple(dict.fromkeys(out))


def top_level_keys() -> tuple[str, ...]:
    """The options some profile takes as top-level keys of rulemap.toml (`maxChars`, …)."""
    return tuple(dict.fromkeys(
        o.key for p in PROFILES.values() for o in p.options if o.top_level
    ))


def setting_keys() -> tuple[str, ...]:
    """Every top-level key rulemap.toml may hold: Rulemap's own, then the profiles'."""
    return (*OWN_KEYS, *top_level_keys())


def validate_options(
    tables: Mapping[str, Mapping[str, Any]],
    source: str,
    top_level: Mapping[str, Any] | None = None,
) -> dict[str, dict[str, Any]]:
    """Every `[profiles.<name>]` table parsed by its profile, with the top-level keys that
    are some profile's options (unknown names and keys are errors)."""
    top_level = top_level or {}
    aliases = set(top_level_keys())
    for key in top_level:
        if key not in aliases:
            raise unknown_key(source, key, list(setting_keys()))
    out: dict[str, dict[str, Any]] = {}
    for name, table in tables.items():
        if name not in PROFILES:
            raise ConfigError(
                f"{source}: [profiles.{name}] names no agent; available: {', '.join(PROFILES)}"
            )
        out[name] = parse_options(PROFILES[name], table, source, top_level)
    for name, profile in PROFILES.items():
        if name not in out:
            out[name] = parse_options(profile, {}, source, top_level)
    return out


def select(ws: Workspace) -> tuple[Profile, ...]:
    """The profiles checks run for when neither the command line nor the configuration names
    them (`select_with_reasons` says why)."""
    return tuple(p for p, _ in select_with_reasons(ws))


def select_with_reasons(ws: Workspace) -> tuple[tuple[Profile, str], ...]:
    """The profiles checks run for when neither the command line nor the configuration names
    them, each with why: the configuration's `profile` (its file's name and `profile`), the
    default model, and every agent whose own files exist in the workspace (the file that
    selected it, `detected_by`)."""
    named = ws.config.profile
    out = []
    for profile in PROFILES.values():
        if profile.name == named:
            from rulemap.config import named_by

            out.append((profile, named_by(ws.config, "profile")))
            continue
        why = profile.detected_by(ws)
        if why is None and profile.detect(ws):
            why = "its own files"  # a profile that says whether, not why
        if why is not None:
            out.append((profile, why))
    return tuple(out)
