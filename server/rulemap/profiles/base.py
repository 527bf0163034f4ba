"""The profile interface: one agent's rules for loading instructions, read over one workspace.

A profile owns everything that differs between agents — which files are instructions, the
import syntax and depth, rule globs and their dialect, the budget and how it truncates — and
answers three questions: what the agent loads for a target (`explain`), what this agent alone
suffers in the workspace (`findings`), and whether it ever reads a file (`reads`). Nothing
outside `profiles/` knows an agent's rules; checks and views ask the selected profiles.

Adding an agent: a module in `profiles/` with a class implementing `Profile`, listed in
`profiles/__init__.py` (or given to `register_profile`), and its conformance fixtures.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol

from rulemap.config import ConfigError
from rulemap.model import Explanation, Finding

if TYPE_CHECKING:
    from rulemap.workspace import Workspace


class Profile(Protocol):
    name: str  # as on the command line: `claude-code`
    title: str  # for people: "Claude Code"
    description: str  # one line: what it loads
    options: tuple[Option, ...]  # what `[profiles.<name>]` may set

    def detect(self, ws: Workspace) -> bool:
        """Whether files only this agent reads exist here (so it is selected by default)."""
        ...

    def explain(self, ws: Workspace, target: str | None, cwd: str) -> Explanation:
        """What the agent loads when working on `target` (None: at start-up) from `cwd`."""
        ...

    def findings(self, ws: Workspace) -> list[Finding]:
        """What this agent's loading does wrong in the workspace (not yet finalized)."""
        ...

    def reads(self, ws: Workspace, key: str) -> bool:
        """Whether the agent ever reads `key` as an instruction file or rule (imports
        aside): by its name and place alone, without loading anything."""
        ...


@dataclass(frozen=True)
class Option:
    """One key of `[profiles.<name>]`: its name as written, the Python types it accepts, its
    default, and one line of help (for docs and error messages)."""

    key: str
    types: tuple[type, ...]
    default: Any
    help: str
    choices: tuple[str, ...] = ()  # the values a string option accepts (empty: any)

    def describe(self) -> str:
        names = " or ".join(_TYPE_NAMES.get(t, t.__name__) for t in self.types)
        if self.choices:
            names = "one of " + ", ".join(f'"{c}"' for c in self.choices)
        return f"`{self.key}` ({names}, default {self.default!r}): {self.help}"


_TYPE_NAMES = {bool: "true/false", int: "an integer", str: "a string", list: "a list"}


def parse_options(profile: Profile, raw: Mapping[str, Any], source: str) -> dict[str, Any]:
    """`[profiles.<name>]` → every option of the profile with its value (defaults filled in).
    An unknown key or a value of the wrong type is a ConfigError naming the key and the fix."""
    known = {o.key: o for o in profile.options}
    values = {o.key: o.default for o in profile.options}
    where = f"{source}: [profiles.{profile.name}]"
    for key, value in raw.items():
        option = known.get(key)
        if option is None:
            hint = difflib.get_close_matches(key, list(known), n=1)
            did_you_mean = f" (did you mean `{hint[0]}`?)" if hint else ""
            keys = ", ".join(known) or "none"
            raise ConfigError(f"{where}: unknown key `{key}`{did_you_mean}; known keys: {keys}")
        # bool is an int in Python: `maxTokens = true` must not pass as 1
        wrong_bool = isinstance(value, bool) and bool not in option.types
        if wrong_bool or not isinstance(value, option.types):
            raise ConfigError(f"{where}: {option.describe()}; got {value!r}")
        if isinstance(value, int) and not isinstance(value, bool) and value < 0:
            raise ConfigError(f"{where}: `{key}` must not be negative, got {value}")
        if option.choices and value not in option.choices:
            raise ConfigError(f"{where}: {option.describe()}; got {value!r}")
        if isinstance(value, list) and not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{where}: `{key}` must list strings, got {value!r}")
        values[key] = value
    return values


def options_of(ws: Workspace, profile: Profile) -> dict[str, Any]:
    """The profile's options in this workspace (parsed once, when the workspace opened)."""
    found = ws.profile_options.get(profile.name)
    if found is None:
        raw = ws.config.profile_options.get(profile.name, {})
        found = parse_options(profile, raw, ws.config.source or "configuration")
    return dict(found)


def cached_explanation(
    ws: Workspace,
    key: tuple[object, ...],
    compute: Callable[[], tuple[Explanation, Iterable[str]]],
) -> Explanation:
    """The explanation under `key` in the workspace's derived cache, else `compute()`'s
    (explanation, the keys it read), stored until one of those files changes."""
    cached: Explanation | None = ws.derived.get(key)
    if cached is None:
        cached, reads = compute()
        ws.derived.put(key, cached, reads=reads)
    return cached


def prefixed(profile: Profile, findings: list[Finding]) -> list[Finding]:
    """Findings of one agent, each naming it (`claude-code: AGENTS.md is not read here …`)."""
    head = profile.name + ": "
    return [
        f if f.profile == profile.name and f.message.startswith(head)
        else replace(f, profile=profile.name,
                     message=f.message if f.message.startswith(head) else head + f.message)
        for f in findings
    ]


def directory_chain(cwd: str) -> list[str]:
    """'' (the root), then each directory down to `cwd` ('.' or '' is the root)."""
    cwd = "" if cwd in (".", "") else cwd.strip("/")
    chain = [""]
    if cwd:
        parts = cwd.split("/")
        chain.extend("/".join(parts[: i + 1]) for i in range(len(parts)))
    return chain


def ancestry(directory: str) -> list[str]:
    """`directory`, then each parent up to the root '' (nearest first)."""
    out = [directory]
    while directory:
        directory = parent_dir(directory)
        out.append(directory)
    return out


def parent_dir(path: str) -> str:
    slash = path.rfind("/")
    return path[:slash] if slash > 0 else ""


def join(directory: str, name: str) -> str:
    return f"{directory}/{name}" if directory else name
