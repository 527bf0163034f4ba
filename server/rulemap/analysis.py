"""The engine's front door: the composition root and the plain-data API every edge calls.

`open_workspace` builds a `Workspace` with its readers, configuration and selected profiles
(the only place that knows all three); `Analysis` answers the questions the CLI, the server's
features and the custom requests ask — an effective load, the rules for a target, whether an
instruction file loads, findings, the graph — as frozen dataclasses or the core's data, with
no module-level caches (values live in the workspace's derived cache). Modelled on
vscode-markdown-languageservice's `createLanguageService` and rust-analyzer's `Analysis`.

Layers (tests/core/test_layers.py holds them): model, text, globs, readers, config, derived
→ workspace → profiles → checks → analysis → cli, lsp.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from rulemap.checks import run_checks
from rulemap.checks.registry import CHECK_CODES
from rulemap.config import _KEYS, USER_ONLY_KEYS, parse_config, read_config
from rulemap.model import Budget, Explanation, Finding, LoadStatus
from rulemap.profiles import get_profile, names, select, validate_options
from rulemap.profiles.base import Profile
from rulemap.readers.base import WalkingReader
from rulemap.workspace import Workspace

# builds the reader of a root, given the directories the user lets imports read outside it
ReaderFactory = Callable[[str, tuple[str, ...]], WalkingReader]


def local_reader(root: str, allowed: tuple[str, ...] = ()) -> WalkingReader:
    """The default reader factory: the working tree on the local disk."""
    from rulemap.readers.local import LocalReader

    return LocalReader(root, allowed=allowed)


def open_workspace(
    root: str,
    reader: WalkingReader | None = None,
    overrides: Mapping[str, Any] | None = None,
    home: str | None = None,
    allow_imports_from: Iterable[str] = (),
    profiles: Iterable[str] | None = None,
    user_home: str | None = None,
    reader_factory: ReaderFactory = local_reader,
) -> Workspace:
    """Open a workspace, reading `rulemap.toml` or `[tool.rulemap]` through its reader.

    `allow_imports_from` is what the user grants (never the repository: its own
    `allowImportsFrom` is ignored and reported). `profiles` chooses the agents checks run for
    (default: the configuration's, else detected); `user_home` is the home directory whose
    user-level instruction files agents read (`--home`; none by default, so a check never
    depends on who runs it). A given `reader` is used as is; otherwise `reader_factory` builds
    one (the local disk by default). Raises ConfigError for an invalid configuration.
    """
    allowed = tuple(allow_imports_from)
    base_reader = reader or reader_factory(root, ())
    config = read_config(base_reader, CHECK_CODES)
    if overrides:
        extra = parse_config(overrides, "settings", CHECK_CODES)
        config = replace(config, **{k: getattr(extra, k) for k in _explicit_fields(overrides)})
    config = replace(config, allow_imports_from=allowed)
    if reader is None and allowed:
        base_reader = reader_factory(root, allowed)
    source = config.source or "configuration"
    options = validate_options(config.profile_options, source)
    names([config.profile], source)
    if profiles is not None:
        chosen: tuple[str, ...] | None = names(profiles, "--profiles")
    elif config.profiles is not None:
        chosen = names(config.profiles, source)
    else:
        chosen = None
    ws = Workspace(
        base_reader,
        config,
        home=home,
        profile_options=options,
        home_reader=reader_factory(user_home, ()) if user_home else None,
    )
    if chosen is not None:
        ws.selected_profiles = tuple(get_profile(n) for n in chosen)
    return ws


def select_profiles(ws: Workspace) -> tuple[Profile, ...]:
    """The workspace's agents: chosen when it opened, else the default model plus every agent
    whose own files exist (decided once; a created file does not change the selection)."""
    if ws.selected_profiles is None:
        ws.selected_profiles = select(ws)
    return ws.selected_profiles


def explain(
    ws: Workspace, target: str | None = None, cwd: str | None = None, profile: str | None = None
) -> Explanation:
    """What `profile` (default: the configuration's) loads for `target` from `cwd`."""
    select_profiles(ws)
    return get_profile(profile or ws.config.profile).explain(
        ws, target, ws.config.cwd if cwd is None else cwd
    )


def check(ws: Workspace) -> list[Finding]:
    """Every finding of the workspace, sorted (cached until the next change)."""
    if ws.findings_cache is None:
        select_profiles(ws)
        ws.findings_cache = run_checks(ws)
    return ws.findings_cache


@dataclass(frozen=True)
class RuleMatch:
    """A path-scoped rule whose globs match a target, and the first glob that does."""

    rule: str
    globs: tuple[str, ...]
    matched_by: str


def load_status(ws: Workspace, key: str, profile: str | None = None) -> LoadStatus:
    """Whether `profile` (default: the configuration's) ever loads `key` by its own place —
    for how many files, an example target — or why it never does."""
    chosen = get_profile(profile or ws.config.profile)
    ask = getattr(chosen, "load_status", None)
    if ask is not None:
        status: LoadStatus = ask(ws, key)
        return status
    if chosen.reads(ws, key):
        return LoadStatus(True, len(ws.files))
    return LoadStatus(False, why_not=f"{chosen.title} does not read it")


def budget_of(ws: Workspace, profile: str | None = None) -> Budget:
    """How `profile` (default: the configuration's) limits what it loads — its start-up
    load's budget (cached by the profile), for views that show a size without a load."""
    return explain(ws, None, profile=profile).budget


def _dialect(profile: str | None) -> Profile | None:
    """The profile when it matches rule globs in its own dialect (None: the workspace's,
    which is the default model's)."""
    chosen = get_profile(profile) if profile else None
    return chosen if chosen is not None and hasattr(chosen, "glob_matches") else None


def has_own_glob_dialect(ws: Workspace, profile: str | None = None) -> bool:
    """Whether `profile` (default: the configuration's) matches `paths` globs other than the
    workspace does (Claude Code: a trailing `/**` dropped, case ignored)."""
    return _dialect(profile or ws.config.profile) is not None


def glob_matches(ws: Workspace, rule: str, pattern: str, profile: str | None = None) -> list[str]:
    """Files one written `paths` glob of `rule` matches, as `profile` (default: the
    configuration's) matches globs."""
    chosen = _dialect(profile or ws.config.profile)
    if chosen is not None:
        found: list[str] = chosen.glob_matches(ws, rule, pattern)  # type: ignore[attr-defined]
        return found
    return ws.glob_matches(rule, pattern)


def rule_matches(ws: Workspace, rule: str, profile: str | None = None) -> list[str]:
    """Files all `paths` globs of `rule` together match, in `profile`'s dialect."""
    chosen = _dialect(profile or ws.config.profile)
    if chosen is not None:
        found: list[str] = chosen.rule_matches(ws, rule)  # type: ignore[attr-defined]
        return found
    return ws.rule_matches(rule)


def first_matching_glob(
    ws: Workspace, rule: str, target: str, profile: str | None = None
) -> str | None:
    """The first written glob of `rule` that matches `target`, in `profile`'s dialect."""
    chosen = _dialect(profile or ws.config.profile)
    if chosen is not None:
        hit: str | None = chosen.first_matching_glob(ws, rule, target)  # type: ignore[attr-defined]
        return hit
    return ws.first_matching_glob(rule, target)


def load_target(ws: Workspace, key: str) -> tuple[bool, str | None]:
    """A target whose load (default model) includes `key` — an instruction file, a rule, or a
    file they import, following the shortest import chain up: (found, target for `explain`;
    None is the start-up load)."""
    reach = ws.import_reach()
    seen: set[str] = set()
    current: str | None = key
    while current is not None and current not in seen:
        seen.add(current)
        if ws.is_instruction(current):
            status = load_status(ws, current)
            if status.loads:
                return True, status.target
        current = reach.parent.get(current)
    return False, None


class Analysis:
    """The plain-data questions about one workspace; edges call only these."""

    def __init__(self, ws: Workspace):
        self.ws = ws

    @classmethod
    def open(cls, root: str, **kwargs: Any) -> Analysis:
        return cls(open_workspace(root, **kwargs))

    @property
    def profiles(self) -> tuple[str, ...]:
        return tuple(p.name for p in select_profiles(self.ws))

    def effective(
        self, target: str | None, cwd: str | None = None, profile: str | None = None
    ) -> Explanation:
        return explain(self.ws, target, cwd, profile)

    def findings(self) -> list[Finding]:
        return check(self.ws)

    def load_status(self, key: str, profile: str | None = None) -> LoadStatus:
        return load_status(self.ws, key, profile)

    def rules_for(self, target: str) -> tuple[RuleMatch, ...]:
        ws = self.ws
        return tuple(
            RuleMatch(rule, tuple(g.pattern for g in ws.document(rule).globs or []), first)
            for rule, first in ws.rules_for_file(target)
        )

    def graph(self) -> dict[str, Any]:
        from rulemap.graph_export import build_graph

        return build_graph(self.ws)


def _explicit_fields(overrides: Mapping[str, Any]) -> list[str]:
    return [_KEYS[k] for k in overrides if k in _KEYS and k not in USER_ONLY_KEYS]
