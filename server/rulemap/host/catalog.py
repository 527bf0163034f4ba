"""The registries as the edges see them: the agents Rulemap models and the check codes.

Plain data (`AgentInfo`, the registry's `Check`), looked up at call time so a profile
registered later (a test's toy agent) is listed like the built-in ones.
"""

from __future__ import annotations

from rulemap.checks.registry import CHECK_CODES, CHECKS, Check, doc_url
from rulemap.config import CONFIG_FILES
from rulemap.profiles import DEFAULT_PROFILE, PROFILES, UnknownProfile
from rulemap.profiles import setting_keys as profile_setting_keys
from rulemap.records import record

__all__ = [
    "AgentInfo", "Check", "SessionFormat", "UnknownProfile", "agent", "agent_names", "agents",
    "check", "check_codes", "checks", "default_agent", "doc_url", "session_formats",
    "setting_keys", "watched_globs",
]


@record(frozen=True)
class AgentInfo:
    """One agent as a user picks it: `name` as on the command line, `title` for people."""

    name: str
    title: str
    description: str


def agents() -> tuple[AgentInfo, ...]:
    """Every registered agent, in command-line order."""
    return tuple(AgentInfo(p.name, p.title, p.description) for p in PROFILES.values())


def agent_names() -> tuple[str, ...]:
    return tuple(PROFILES)


def agent(name: str) -> AgentInfo:
    """The agent called `name`; UnknownProfile (naming the ones there are) otherwise."""
    profile = PROFILES.get(name)
    if profile is None:
        raise UnknownProfile(f"unknown profile `{name}`; available: {', '.join(PROFILES)}")
    return AgentInfo(profile.name, profile.title, profile.description)


def default_agent() -> str:
    """The agent `explain` models when neither the command nor the configuration names one."""
    return DEFAULT_PROFILE


def setting_keys() -> tuple[str, ...]:
    """The top-level keys of rulemap.toml: Rulemap's own, then the agents' aliased options."""
    return profile_setting_keys()


@record(frozen=True)
class SessionFormat:
    """An agent's own session format, for help and messages: its agent's name, what it is
    ("a Claude Code session log (JSON lines)") and where under home the agent keeps it."""

    agent: str
    what: str
    log_dirs: tuple[str, ...]
    example: str  # a file name such a log has: `SESSION.jsonl`, `messages.json`


def session_formats() -> tuple[SessionFormat, ...]:
    return tuple(
        SessionFormat(p.name, p.transcript_format.what, p.transcript_format.log_dirs,
                      "SESSION.jsonl" if p.transcript_format.shape == "json-lines"
                      else "messages.json")
        for p in PROFILES.values() if p.transcript_format is not None
    )


def checks() -> tuple[Check, ...]:
    """Every check code with its severity, agents, fix safety and doc anchor."""
    return tuple(CHECKS.values())


def check(code: str) -> Check | None:
    return CHECKS.get(code)


def check_codes() -> frozenset[str]:
    return CHECK_CODES


def watched_globs() -> tuple[str, ...]:
    """Globs of the files whose content changes what Rulemap reads: every registered agent's
    own files (`watched_globs` of each profile, in registry order, each glob once), their
    settings files (`settings_files`), Markdown (any of it may be imported) and the
    configuration files. Asked when a client connects, so an agent registered before the
    server started is watched like a built-in one."""
    from rulemap.checks.manifests import TASK_FILE_GLOBS  # the task files' parsers: not for help

    globs: dict[str, None] = {"**/*.md": None}
    for profile in PROFILES.values():
        globs.update(dict.fromkeys(profile.watched_globs))
    for profile in PROFILES.values():  # their own settings files (a change re-opens)
        globs.update(dict.fromkeys(f"**/{name}" for name in profile.settings_files))
    globs.update(dict.fromkeys(f"**/{name}" for name in CONFIG_FILES))
    # the task files an instruction's `npm run X` or `make X` resolves to (stale-command)
    globs.update(dict.fromkeys(f"**/{name}" for name in TASK_FILE_GLOBS))
    globs["**/.gitignore"] = None
    return tuple(globs)
