"""Mastra's AgentsMDInjector (the second seed): see `docs/profiles/mastra.md`.

`inject` models what one tool call on a path injects, step by step; `identity` is how the
injector tells two instruction paths apart; `checks` is what the injector does wrong to the
workspace's files; `profile` puts them behind the `Profile` interface."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rulemap.profiles.mastra.profile import MastraProfile


def __getattr__(name: str) -> object:
    # imported when asked for: its light facts (`names.py`) are imported without it
    if name == "MastraProfile":
        from rulemap.profiles.mastra.profile import MastraProfile

        return MastraProfile
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["MastraProfile"]
