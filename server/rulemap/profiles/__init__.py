"""Loading models, one per agent. `cogitator` is the default (the first seed).

The registry: `PROFILES` in command-line order, `get_profile`, `register_profile` (a test's toy
profile), `select` (the profiles a workspace checks for), `validate_options`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from rulemap.config import ConfigError
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


class UnknownProfile(ValueError):
    pass


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


def validate_options(
    tables: Mapping[str, Mapping[str, Any]], source: str
) -> dict[str, dict[str, Any]]:
    """Every `[profiles.<name>]` table parsed by its profile (unknown names are errors)."""
    out: dict[str, dict[str, Any]] = {}
    for name, table in tables.items():
        if name not in PROFILES:
            raise ConfigError(
                f"{source}: [profiles.{name}] names no agent; available: {', '.join(PROFILES)}"
            )
        out[name] = parse_options(PROFILES[name], table, source)
    for name, profile in PROFILES.items():
        out.setdefault(name, parse_options(profile, {}, source))
    return out


def select(ws: Workspace, chosen: Iterable[str] | None = None) -> tuple[Profile, ...]:
    """The profiles checks run for: `chosen`, else the configuration's `profiles`, else the
    default model plus every agent whose own files exist in the workspace."""
    if chosen is None:
        chosen = ws.config.profiles
    if chosen is not None:
        return tuple(get_profile(n) for n in chosen)
    default = ws.config.profile if ws.config.profile in PROFILES else "cogitator"
    return tuple(
        p for p in PROFILES.values() if p.name == default or p.detect(ws)
    )
