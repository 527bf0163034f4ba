"""Loading models, one per agent. `cogitator` is the default (the first seed).

The registry: `PROFILES` in command-line order, `get_profile`, `register_profile` (a test's toy
profile), `select` (the profiles a workspace checks for), `validate_options`. An agent is one
line of `BUILT_IN`: its name, the function that imports its package and makes its profile,
when it is first asked for (`rulemap check --help` names the agents without importing one),
and, when they live apart, the one that makes its light facts (`Facts`: what detection and
the checks ask of every agent, selected or not), so a check makes only the profiles of the
agents it selects.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, MutableMapping
from typing import TYPE_CHECKING, Any, NamedTuple

from rulemap.config import OWN_KEYS, ConfigError, unknown_key
from rulemap.profiles.base import Facts, Profile, parse_options

if TYPE_CHECKING:
    from rulemap.workspace import Workspace


# ----- the registry lines: each agent's name, its profile made on first use, and where its
# light facts are when they live apart (its package is imported then: `rulemap --help` lists
# the names without importing any)


class Agent(NamedTuple):
    """One registry line: the function that imports an agent's package and makes its profile,
    and the one that makes its light facts alone (None: the profile answers them)."""

    profile: Callable[[], Profile]
    facts: Callable[[], Facts] | None = None


def _cogitator() -> Profile:
    from rulemap.profiles.cogitator import CogitatorProfile

    return CogitatorProfile()


def _mastra() -> Profile:
    from rulemap.profiles.mastra import MastraProfile

    return MastraProfile()


def _mastra_facts() -> Facts:
    from rulemap.profiles.mastra.names import MastraFacts

    return MastraFacts()


def _claude_code() -> Profile:
    from rulemap.profiles.claude_code import ClaudeCodeProfile

    return ClaudeCodeProfile()


def _codex() -> Profile:
    from rulemap.profiles.codex import CodexProfile

    return CodexProfile()


def _gemini() -> Profile:
    from rulemap.profiles.gemini import GeminiProfile

    return GeminiProfile()


def _gemini_facts() -> Facts:
    from rulemap.profiles.gemini.names import GeminiFacts

    return GeminiFacts()


def _copilot() -> Profile:
    from rulemap.profiles.copilot import CopilotProfile

    return CopilotProfile()


def _copilot_facts() -> Facts:
    from rulemap.profiles.copilot_names import CopilotFacts

    return CopilotFacts()


def _cursor() -> Profile:
    from rulemap.profiles.cursor import CursorProfile

    return CursorProfile()


def _cursor_facts() -> Facts:
    from rulemap.profiles.cursor.names import CursorFacts

    return CursorFacts()


BUILT_IN: dict[str, Agent] = {
    "cogitator": Agent(_cogitator),
    "mastra": Agent(_mastra, _mastra_facts),
    "claude-code": Agent(_claude_code),
    "codex": Agent(_codex),
    "gemini": Agent(_gemini, _gemini_facts),
    "copilot": Agent(_copilot, _copilot_facts),
    "cursor": Agent(_cursor, _cursor_facts),
}


class Registry(MutableMapping[str, Profile]):
    """The agents by name, in command-line order, as a dict of profiles that makes each one
    when it is first asked for: its names, `in` and `len` import no profile, and `facts`
    answers what a check asks of every agent without making those it does not select."""

    def __init__(self, agents: Mapping[str, Agent]) -> None:
        self._makers = {name: agent.profile for name, agent in agents.items()}
        self._fact_makers = {name: agent.facts for name, agent in agents.items()
                             if agent.facts is not None}
        self._made: dict[str, Profile] = {}
        self._facts: dict[str, Facts] = {}

    def __getitem__(self, name: str) -> Profile:
        profile = self._made.get(name)
        if profile is None:
            profile = self._made[name] = self._makers[name]()
        return profile

    def __setitem__(self, name: str, profile: Profile) -> None:
        # a name already there keeps its place, as in a dict
        self._makers[name] = lambda: profile
        self._made[name] = profile
        self._fact_makers.pop(name, None)
        self._facts.pop(name, None)

    def __delitem__(self, name: str) -> None:
        del self._makers[name]
        self._made.pop(name, None)
        self._fact_makers.pop(name, None)
        self._facts.pop(name, None)

    def __iter__(self) -> Iterator[str]:
        return iter(self._makers)

    def __len__(self) -> int:
        return len(self._makers)

    def __contains__(self, name: object) -> bool:
        return name in self._makers

    def made(self) -> tuple[Profile, ...]:
        """The profiles made so far: every profile a workspace can hold (a pickle's table of
        them needs no other, and making the others would undo the light facts)."""
        return tuple(self._made.values())

    def facts_of(self, name: str) -> Facts:
        """The agent's light facts: its profile once made (the same answers), else its light
        module's, else its profile (an agent whose facts do not live apart)."""
        made = self._made.get(name)
        if made is not None:
            return made
        facts = self._facts.get(name)
        if facts is None:
            maker = self._fact_makers.get(name)
            if maker is None:
                return self[name]
            facts = self._facts[name] = maker()
        return facts

    def facts(self) -> tuple[Facts, ...]:
        """Every agent's light facts, in command-line order."""
        return tuple(self.facts_of(name) for name in self._makers)


PROFILES: Registry = Registry(BUILT_IN)


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
               for facts in PROFILES.facts() for name in facts.settings_files)


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
        o.key for p in PROFILES.facts() for o in p.options if o.top_level
    ))


def setting_keys() -> tuple[str, ...]:
    """Every top-level key rulemap.toml may hold: Rulemap's own, then the profiles'."""
    return (*OWN_KEYS, *top_level_keys())


def validate_options(
    tables: Mapping[str, Mapping[str, Any]],
    source: str,
    top_level: Mapping[str, Any] | None = None,
) -> Mapping[str, dict[str, Any]]:
    """Every `[profiles.<name>]` table parsed by its profile, with the top-level keys that
    are some profile's options (unknown names and keys are errors)."""
    top_level = top_level or {}
    if top_level:
        # a top-level key may be any agent's option: every profile is asked
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
        out[name] = parse_options(PROFILES.facts_of(name), table, source, top_level)
    if top_level:
        for facts in PROFILES.facts():
            if facts.name not in out:
                out[facts.name] = parse_options(facts, {}, source, top_level)
        return out
    return Defaulted(out, source)


class Defaulted(Mapping[str, dict[str, Any]]):
    """Each agent's options: those the configuration sets, parsed when it was read, and the
    defaults of every other agent, filled in when first asked for — defaults cannot be
    wrong, so a check of a one-agent workspace makes no other agent's profile for them."""

    def __init__(self, parsed: dict[str, dict[str, Any]], source: str) -> None:
        self._configured = tuple(parsed)
        self._parsed = parsed
        self._source = source

    def __getitem__(self, name: str) -> dict[str, Any]:
        found = self._parsed.get(name)
        if found is None:
            if name not in PROFILES:
                raise KeyError(name)
            found = self._parsed[name] = parse_options(PROFILES.facts_of(name), {},
                                                       self._source)
        return found

    def __iter__(self) -> Iterator[str]:
        # the configured agents first, then the rest in command-line order, as before
        return iter({**dict.fromkeys(self._configured), **dict.fromkeys(PROFILES)})

    def __len__(self) -> int:
        return len({*self._configured, *PROFILES})


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
    out: list[tuple[Profile, str]] = []
    for name in PROFILES:
        if name == named:
            from rulemap.config import named_by

            out.append((PROFILES[name], named_by(ws.config, "profile")))
            continue
        # asked of its light facts: an agent nothing here selects is never made
        facts = PROFILES.facts_of(name)
        why = facts.detected_by(ws)
        if why is None and facts.detect(ws):
            why = "its own files"  # a profile that says whether, not why
        if why is not None:
            out.append((PROFILES[name], why))
    return tuple(out)
