"""Mastra's AgentsMDInjector (the second seed): see `docs/profiles/mastra.md`.

`inject` models what one tool call on a path injects, step by step; `identity` is how the
injector tells two instruction paths apart; `checks` is what the injector does wrong to the
workspace's files; `profile` puts them behind the `Profile` interface."""

from rulemap.profiles.mastra.profile import MastraProfile

__all__ = ["MastraProfile"]
