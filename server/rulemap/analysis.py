"""The composition root and the engine's questions over one workspace.

`open_workspace` (and `new_workspace`, for a configuration already read) builds a `Workspace`
with its readers, configuration, the profiles' checked options, the layout the default profile
gives and the selected profiles — the only place that knows all of them. The functions below
answer in the selected agent's terms (an effective load, findings, whether a file loads, a
glob's matches in the agent's dialect), with no module-level caches (values live in the
workspace's derived cache). The edges reach them through `rulemap.host`.

Layers (tests/core/test_layers.py holds them): model, text, globs, readers, config, derived
→ workspace → profiles → checks → analysis → cli, lsp.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any

from rulemap.checks import run_checks
from rulemap.checks.registry import CHECK_CODES
from rulemap.config import (
    OWN_KEYS,
    USER_ONLY_KEYS,
    Config,
    named_by,
    parse_config,
    read_config,
)
from rulemap.model import Budget, Explanation, Finding, LoadStatus
from rulemap.profiles import (
    DEFAULT_PROFILE,
    PROFILES,
    default_name,
    get_profile,
    names,
    select_with_reasons,
    validate_options,
)
from rulemap.profiles import setting_keys as profile_setting_keys
from rulemap.profiles.base import Profile, parse_options, selected
from rulemap.profiles.documents import read_documents
from rulemap.readers.base import Reader, WalkingReader
from rulemap.workspace import Layout, Workspace
from rulemap.workspace.letter_case import named_as

# builds the reader of a root, given the directories the user lets imports read outside it
ReaderFactory = Callable[[str, tuple[str, ...]], WalkingReader]


def local_reader(root: str, allowed: tuple[str, ...] = ()) -> WalkingReader:
    """The default reader factory: the working tree on the local disk."""
    from rulemap.readers.local import LocalReader

    return LocalReader(root, allowed=allowed)


def one_shot_reader(root: str, allowed: tuple[str, ...] = ()) -> WalkingReader:
    """`local_reader` for a command that exits after one look at the tree: a probe below a
    directory the walk listed is answered from that listing (readers/local.py)."""
    from rulemap.readers.local import LocalReader

    return LocalReader(root, allowed=allowed, one_shot=True)


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
        config = _overridden(config, overrides)
    config = replace(config, allow_imports_from=allowed)
    if reader is None and allowed:
        base_reader = reader_factory(root, allowed)
    source = config.source or "configuration"
    options = validate_options(config.profile_options, source, config.top_level)
    if config.profile is not None:
        names([config.profile], source)
    chosen, why = chosen_profiles(profiles, config)
    ws = Workspace(
        base_reader,
        layout_of(options),
        config,
        home=home,
        profile_options=options,
        home_reader=reader_factory(user_home, ()) if user_home else None,
    )
    if chosen is not None:
        ws.selected_profiles = tuple(get_profile(n) for n in chosen)
        ws.selection_reasons = dict.fromkeys(chosen, why)
    return ws


# `--profiles all` (or `profiles = ["all"]`): every registered agent
ALL_PROFILES = "all"


def chosen_profiles(
    profiles: Iterable[str] | None, config: Config
) -> tuple[tuple[str, ...] | None, str]:
    """The agents named by the command line (`profiles`), else by the configuration's
    `profiles`, with what named them ("--profiles", "rulemap.toml `profiles`"); (None, "")
    when neither does (the default model and the detected agents are then selected). `all`
    names every registered agent. Raises ConfigError for an unknown name."""
    if profiles is not None:
        given, source, why = list(profiles), "--profiles", "--profiles"
    elif config.profiles is not None:
        source = config.source or "configuration"
        given, why = list(config.profiles), named_by(config, "profiles")
    else:
        return None, ""
    if ALL_PROFILES in given:
        given = [*PROFILES, *(n for n in given if n != ALL_PROFILES)]
    return names(given, source), why


def layout_of(options: Mapping[str, Mapping[str, Any]]) -> Layout:
    """Where the workspace's documents are: the registry's default model's answer."""
    layout = PROFILES[DEFAULT_PROFILE].layout(options[DEFAULT_PROFILE])
    assert layout is not None, f"the default profile `{DEFAULT_PROFILE}` must give a layout"
    return layout


def new_workspace(
    reader: WalkingReader,
    config: Config | None = None,
    home: str | None = None,
    profiles: tuple[Profile, ...] | None = None,
    profile_options: Mapping[str, Mapping[str, Any]] | None = None,
    home_reader: Reader | None = None,
) -> Workspace:
    """A workspace over `reader` with a configuration already read (the editor's overlay,
    tests): its profiles' options checked (`profile_options`: already checked ones) and its
    layout given, as `open_workspace` does."""
    config = config or Config()
    options: Mapping[str, Mapping[str, Any]]
    if profile_options:
        options = dict(profile_options)
        for name in PROFILES:  # an agent's defaults: its light facts, its profile not made
            if name not in options:
                options[name] = parse_options(PROFILES.facts_of(name), {}, "defaults")
    else:
        options = validate_options(
            config.profile_options, config.source or "configuration", config.top_level
        )
    return Workspace(reader, layout_of(options), config, home=home, profiles=profiles,
                     profile_options=options, home_reader=home_reader)


def _overridden(config: Config, overrides: Mapping[str, Any]) -> Config:
    """`config` with an editor's settings on top: Rulemap's own keys replace the file's;
    a profile's top-level option joins (and replaces) the file's top-level ones."""
    extra = parse_config(overrides, "settings", CHECK_CODES)
    own = {
        OWN_KEYS[k]: getattr(extra, OWN_KEYS[k]) for k in overrides
        if k in OWN_KEYS and k not in USER_ONLY_KEYS
    }
    if "profiles" in overrides:
        own["profile_options"] = extra.profile_options
    top_level = {**config.top_level, **extra.top_level}
    editor = config.editor_keys | {k for k in overrides if k in OWN_KEYS}
    return replace(config, **own, top_level=top_level, editor_keys=frozenset(editor))


def setting_keys() -> tuple[str, ...]:
    """Every top-level key of rulemap.toml (and of an editor's `rulemap` settings): Rulemap's
    own, then the options profiles take at the top level."""
    return profile_setting_keys()


def check_setting(key: str, value: Any, source: str) -> None:
    """Raise ConfigError when `key = value` is not a valid top-level setting."""
    config = parse_config({key: value}, source, CHECK_CODES)
    validate_options({}, source, config.top_level)


def default_profile_name(ws: Workspace | None = None) -> str:
    """The agent views model when none is picked: the configuration's, else the default."""
    return default_name(ws) if ws is not None else DEFAULT_PROFILE


def active_profile(ws: Workspace, name: str | None = None) -> Profile:
    """The profile called `name`, else the one the workspace's configuration names, else the
    registry's default. Raises UnknownProfile."""
    return get_profile(name or default_name(ws))


def select_profiles(ws: Workspace) -> tuple[Profile, ...]:
    """The workspace's agents: chosen when it opened, else the default model plus every agent
    whose own files exist (decided once; a created file does not change the selection)."""
    if ws.selected_profiles is None:
        chosen, why = chosen_profiles(None, ws.config)
        reasons = (select_with_reasons(ws) if chosen is None
                   else tuple((get_profile(n), why) for n in chosen))
        ws.selected_profiles = tuple(p for p, _ in reasons)
        ws.selection_reasons = {p.name: why for p, why in reasons}
        ws.selection_detected = chosen is None
    return selected(ws)


def selection_reads(ws: Workspace) -> set[str]:
    """The files whose text the detected selection was decided from (a `package.json` for
    Mastra); none when --profiles or the configuration named the agents."""
    if not getattr(ws, "selection_detected", False):
        return set()
    return {key for facts in PROFILES.facts() for key in facts.detection_reads(ws)}


def selection_holds(ws: Workspace) -> bool:
    """Whether the agents detected when the workspace opened are still those detected now,
    with the same reasons (asked by a resumed check after an edit of `selection_reads`)."""
    if not getattr(ws, "selection_detected", False):
        return True
    return {p.name: why for p, why in select_with_reasons(ws)} == ws.selection_reasons


def selection_reasons(ws: Workspace) -> list[tuple[Profile, str]]:
    """The selected agents, each with why it was selected (`select_profiles`): what named it
    ("--profiles", "rulemap.toml `profiles`"), else its own file (`CLAUDE.md`) or "the
    default model". An agent selected since (`rulemap diff` joins both sides' agents) says
    why it would be detected."""
    chosen = select_profiles(ws)
    reasons = ws.selection_reasons
    return [(p, reasons.get(p.name) or p.detected_by(ws) or "selected") for p in chosen]


def explain(
    ws: Workspace, target: str | None = None, cwd: str | None = None, profile: str | None = None
) -> Explanation:
    """What `profile` (default: the configuration's) loads for `target` from `cwd`; on a
    case-insensitive platform, with a note for each file it reads under a name in other
    letter case (`agents.md` as `AGENTS.md`), which it would not read on Linux."""
    select_profiles(ws)
    chosen = active_profile(ws, profile)
    explanation = chosen.explain(ws, target, ws.config.cwd if cwd is None else cwd)
    if not ws.case_insensitive:
        return explanation
    names = chosen.names_opened(ws)
    cased = [(f.path, name) for f in explanation.files if not f.path.startswith("/")
             and (name := named_as(ws, f.path, names)) is not None
             and not (f.path == name or f.path.endswith("/" + name))]
    if not cased:
        return explanation
    platform = {"macos": "macOS", "windows": "Windows"}.get(ws.platform, ws.platform)
    notes = tuple(f"`{path}` is read as `{name}`: {platform}'s file system ignores letter "
                  f"case (--platform); on Linux it would not be read (name-case)"
                  for path, name in cased)
    return replace(explanation, notes=(*explanation.notes, *notes))


def check(ws: Workspace) -> list[Finding]:
    """Every finding of the workspace, sorted (cached until the next change)."""
    if ws.findings_cache is None:
        select_profiles(ws)
        ws.findings_cache = run_checks(ws)
    return ws.findings_cache


def with_suggestions(ws: Workspace, findings: list[Finding]) -> list[Finding]:
    """`findings` with their did-you-means worked out (a check leaves them pending: they are
    for a person to read, and cost a search each; `rulemap.checks.hints`)."""
    from rulemap.checks.hints import with_suggestions as resolve

    return resolve(ws, findings)


def load_status(ws: Workspace, key: str, profile: str | None = None) -> LoadStatus:
    """Whether `profile` (default: the configuration's) ever loads `key` by its own place —
    for how many files, an example target — or why it never does."""
    from rulemap.checks.name_case import in_case_words

    agent = active_profile(ws, profile)
    return in_case_words(ws, agent.title, key, agent.load_status(ws, key))


def budget_of(ws: Workspace, profile: str | None = None) -> Budget:
    """How `profile` (default: the configuration's) limits what it loads — its start-up
    load's budget (cached by the profile), for views that show a size without a load."""
    return explain(ws, None, profile=profile).budget


def has_own_glob_dialect(ws: Workspace, profile: str | None = None) -> bool:
    """Whether `profile` (default: the configuration's) matches `paths` globs other than the
    workspace does (Claude Code: a trailing `/**` dropped, case ignored)."""
    return active_profile(ws, profile).own_glob_dialect


def glob_matches(ws: Workspace, rule: str, pattern: str, profile: str | None = None) -> list[str]:
    """Files one written `paths` glob of `rule` matches, as `profile` (default: the
    configuration's) matches globs."""
    return active_profile(ws, profile).glob_matches(ws, rule, pattern)


def rule_matches(ws: Workspace, rule: str, profile: str | None = None) -> list[str]:
    """Files all `paths` globs of `rule` together match, in `profile`'s dialect."""
    return active_profile(ws, profile).rule_matches(ws, rule)


def first_matching_glob(
    ws: Workspace, rule: str, target: str, profile: str | None = None
) -> str | None:
    """The first written glob of `rule` that matches `target`, in `profile`'s dialect."""
    return active_profile(ws, profile).first_matching_glob(ws, rule, target)


def agent_documents(ws: Workspace) -> tuple[str, ...]:
    """Every file some selected agent reads as an instruction file or rule (imports aside),
    sorted: the workspace's documents, and the files other agents read by their own names
    (`TOY.txt`, `.cursorrules`, `AGENTS.override.md`). Kept until a file is created or
    deleted."""
    return read_documents(ws, select_profiles(ws))


def checked_documents(ws: Workspace) -> tuple[str, ...]:
    """Every file `rulemap check` looks at for the selected agents, each real file once:
    the documents it lints (the default model's instruction files, rules and what they
    import) and the files any other selected agent reads by its own names. `check`'s summary
    counts these ("in 2 of 13 files")."""
    chosen: dict[str, str] = {}
    for path in [*ws.lint_documents(), *agent_documents(ws)]:
        chosen.setdefault(ws.identity(path), path)
    return tuple(sorted(chosen.values()))


def load_target(
    ws: Workspace, key: str, profile: str | None = None
) -> tuple[bool, str | None]:
    """A target whose load by `profile` (default: the configuration's) includes `key` — a
    file it reads, or a file they import, following the shortest import chain up: (found,
    target for `explain`; None is the start-up load)."""
    chosen = active_profile(ws, profile)
    reach = ws.import_reach()
    seen: set[str] = set()
    current: str | None = key
    while current is not None and current not in seen:
        seen.add(current)
        if ws.is_instruction(current) or chosen.reads(ws, current):
            status = chosen.load_status(ws, current)
            if status.loads:
                return True, status.target
        current = reach.parent.get(current)
    return False, None
