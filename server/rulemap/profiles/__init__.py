"""Loading models, one per agent. `cogitator` is the default (the first seed)."""

from __future__ import annotations

from rulemap.profiles.base import Profile
from rulemap.profiles.cogitator import CogitatorProfile
from rulemap.profiles.mastra import MastraProfile

PROFILES: dict[str, Profile] = {p.name: p for p in (CogitatorProfile(), MastraProfile())}


class UnknownProfile(ValueError):
    pass


def get_profile(name: str) -> Profile:
    try:
        return PROFILES[name]
    except KeyError:
        raise UnknownProfile(
            f"unknown profile `{name}`; available: {', '.join(PROFILES)}"
        ) from None
