"""`rulemap.toml` / `[tool.rulemap]` → a validated, typed Config; the user's own configuration
file (`config.toml`) → the directories the user lets imports read outside the workspace.

Every problem is a ConfigError that names the file, the key and the fix, never a traceback.

Trust: a repository's configuration may only narrow or reshape what Rulemap reads inside the
workspace. Keys that widen it (`USER_ONLY_KEYS`: `allowImportsFrom`) are the user's alone (their
configuration file, `--allow-imports-from`, their editor's user settings); in a repository's
configuration they are recorded in `Config.ignored` (for an `untrusted-config` finding) and have
no effect. Nothing here touches the disk: the edges (cli/, lsp/) read the user's file.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from dataclasses import field, replace
from typing import TYPE_CHECKING, Any

from rulemap.model import SEVERITIES
from rulemap.readers.base import Reader, ReadError
from rulemap.records import record
from rulemap.text.decoding import decode

if TYPE_CHECKING:
    import tomllib

CONFIG_FILES = ("rulemap.toml", "pyproject.toml")


# Keys that widen what Rulemap reads beyond the workspace: only the user may set them.
USER_ONLY_KEYS = frozenset({"allowImportsFrom"})
# Keys the user's own configuration file (`~/.config/rulemap/config.toml`) may hold.
USER_CONFIG_KEYS = ("allowImportsFrom",)


class ConfigError(Exception):
    pass


@record(frozen=True)
class IgnoredSetting:
    """A user-only key found in a repository's configuration: ignored, reported where it is."""

    key: str
    value: Any
    file: str = ""  # root-relative: "rulemap.toml" or "pyproject.toml" ("" when not from a file)
    line: int = 0  # 0-based position of the key (columns in characters)
    start: int = 0
    end: int = 0


@record(frozen=True)
class Config:
    """Rulemap's own keys, typed. An agent's options are its profile's: written in
    `[profiles.<name>]`, or at the top level for an option its profile declares `top_level`
    (the default model's `files`, `maxChars`, … came first): those land in `top_level`
    unchecked here, and the registry checks them when the workspace opens
    (`profiles.validate_options`), since this module knows no agent."""

    cwd: str = "."
    # Granted by the user only (their configuration file, --allow-imports-from, their editor's
    # user settings); parse_config never fills it from a repository's configuration.
    allow_imports_from: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    severity: Mapping[str, str] = field(default_factory=dict)
    # the agent `explain` uses when none is named (None: the registry's default)
    profile: str | None = None
    # the agents checks run for (None: every agent whose files exist; see profiles.select)
    profiles: tuple[str, ...] | None = None
    # `[profiles.<name>]` tables as written; each profile validates its own (profiles.base)
    profile_options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    # other top-level keys as written: options some profile takes at the top level
    top_level: Mapping[str, Any] = field(default_factory=dict)
    source: str | None = None  # where it was read from, for messages
    # Rulemap's own keys an editor's settings set over the file's (`rulemap.profile`): a
    # selection names them as the editor's, not as the file's
    editor_keys: frozenset[str] = frozenset()
    ignored: tuple[IgnoredSetting, ...] = ()  # user-only keys the repository tried to set
    # stale-reference also looks at paths in fenced code blocks (examples, by default not)
    references_in_fenced_code: bool = False
    # the platform the agents run on, whose file system decides whether `agents.md` is
    # found where an agent opens `AGENTS.md` (None: `host_platform()`; see PLATFORMS)
    platform: str | None = None


# Rulemap's own keys: key in the file → attribute of Config
OWN_KEYS: dict[str, str] = {
    "cwd": "cwd",
    "allowImportsFrom": "allow_imports_from",
    "ignore": "ignore",
    "severity": "severity",
    "profile": "profile",
    "profiles": "profiles",
    "referencesInFencedCode": "references_in_fenced_code",
    "platform": "platform",
}

# The platforms `platform` (and `--platform`) names: the default file system of each. Linux's
# ext4 tells `agents.md` from `AGENTS.md`; macOS's APFS (as formatted by default) and
# Windows's NTFS do not, so an agent that opens `dir/AGENTS.md` by name reads `agents.md`.
PLATFORMS = ("linux", "macos", "windows")
CASE_INSENSITIVE_PLATFORMS = frozenset({"macos", "windows"})
# Read when neither `--platform` nor the configuration names one, before the host's own OS:
# the test suite pins it, so that pinned output is the same on a Mac and on Linux CI.
PLATFORM_ENV = "RULEMAP_PLATFORM"


def host_platform(env: Mapping[str, str] | None = None) -> str:
    """The platform assumed when none is named: $RULEMAP_PLATFORM when it names one, else the
    operating system Rulemap runs on (the agents a user runs run there too)."""
    import os
    import sys

    named = (os.environ if env is None else env).get(PLATFORM_ENV, "")
    if named in PLATFORMS:
        return named
    if sys.platform == "darwin":
        return "macos"
    if sys.platform in ("win32", "cygwin"):
        return "windows"
    return "linux"


def platform_of(config: Config) -> str:
    """The platform a workspace of `config` models: its `platform`, else the host's."""
    return config.platform or host_platform()


# other names of the platforms, for the did-you-mean of a wrong one
_PLATFORM_ALIASES = {"darwin": "macos", "osx": "macos", "mac": "macos", "macosx": "macos",
                     "win": "windows", "win32": "windows", "win64": "windows"}


def platform_error(source: str, value: Any) -> ConfigError | None:
    """The error for a `platform` that names none of PLATFORMS (None when it does), with the
    nearest one."""
    if isinstance(value, str) and value in PLATFORMS:
        return None
    import difflib  # only on an error: not at every start-up

    spelt = str(value).lower()
    hint = ([_PLATFORM_ALIASES[spelt]] if spelt in _PLATFORM_ALIASES
            else difflib.get_close_matches(spelt, PLATFORMS, n=1, cutoff=0.5))
    did_you_mean = f" (did you mean `{hint[0]}`?)" if hint else ""
    return ConfigError(f"{source}: `platform` must be one of {', '.join(PLATFORMS)}, not "
                       f"{value!r}{did_you_mean}")


def parse_config(
    data: Mapping[str, Any], source: str, known_codes: frozenset[str] = frozenset()
) -> Config:
    """Validate a mapping of configuration keys (already decoded from TOML or JSON) of a
    repository's configuration or an editor's folder settings. A user-only key is not applied:
    it lands in `Config.ignored`, whatever its value. A key that is not Rulemap's own lands in
    `Config.top_level` for the profiles (`unknown_key` words the error when none takes it)."""
    values: dict[str, Any] = {}
    ignored: list[IgnoredSetting] = []
    top_level: dict[str, Any] = {}
    for key, value in data.items():
        if key not in OWN_KEYS:
            top_level[key] = value
            continue
        if key in USER_ONLY_KEYS:
            ignored.append(IgnoredSetting(key, value))
            continue
        if key == "profiles":
            values["profiles"], values["profile_options"] = _profiles(value, source)
            continue
        values[OWN_KEYS[key]] = _check(key, value, source, known_codes)
    return replace(Config(), **values, top_level=top_level, source=source,
                   ignored=tuple(ignored))


def named_by(config: Config, key: str) -> str:
    """What set `key` (`profile` or `profiles`) of `config`, as a selection's reason says it:
    "the rulemap.profile setting" (an editor's), "rulemap.toml `profile`" (the file's)."""
    if key in config.editor_keys:
        return f"the rulemap.{key} setting"
    source = (config.source or "configuration").replace("\\", "/").rpartition("/")[2]
    return f"{source} `{key}`"


def unknown_key(source: str, key: str, known: list[str]) -> ConfigError:
    """The error for a key nobody takes, with the nearest known key."""
    import difflib  # only on an error: not at every start-up

    hint = difflib.get_close_matches(key, known, n=1)
    did_you_mean = f" (did you mean `{hint[0]}`?)" if hint else ""
    return ConfigError(
        f"{source}: unknown key `{key}`{did_you_mean}; known keys: {', '.join(known)}"
    )


def parse_allow_list(value: Any, source: str, key: str = "allowImportsFrom") -> tuple[str, ...]:
    """A user-granted `allowImportsFrom`: absolute directories, `~` or `~/...`."""
    items = _string_list(key, value, source)
    for item in items:
        if not (item.startswith("/") or item == "~" or item.startswith("~/")):
            raise ConfigError(
                f"{source}: `{key}` entries must be absolute directories "
                f"(or `~/...`), not {item!r}"
            )
    return items


def parse_user_config(data: Mapping[str, Any], source: str) -> tuple[str, ...]:
    """The user's configuration file (already decoded): the directories it grants."""
    for key in data:
        if key not in USER_CONFIG_KEYS:
            import difflib  # only on an error: not at every start-up

            hint = difflib.get_close_matches(key, [*USER_CONFIG_KEYS, *OWN_KEYS], n=1)
            did_you_mean = f" (did you mean `{hint[0]}`?)" if hint else ""
            raise ConfigError(
                f"{source}: unknown key `{key}`{did_you_mean}; the user configuration file "
                f"holds only {', '.join(USER_CONFIG_KEYS)} (the rest belongs in the "
                f"repository's rulemap.toml)"
            )
    if "allowImportsFrom" not in data:
        return ()
    return parse_allow_list(data["allowImportsFrom"], source)


def load_user_config_text(text: str, source: str) -> tuple[str, ...]:
    """Parse the user's `config.toml` text (read by the caller): the directories it grants."""
    import tomllib  # only when there is a file to parse (4 ms of imports)

    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(_toml_error(source, text, exc)) from None
    return parse_user_config(document, source)


def _toml_error(source: str, text: str, exc: tomllib.TOMLDecodeError) -> str:
    """`FILE:LINE: invalid TOML: …`, with the line even when tomllib says "end of document"."""
    message = str(exc)
    found = re.search(r"\(at line (\d+), column (\d+)\)", message)
    if found:
        line, col = found.group(1), found.group(2)
        reason = message[: found.start()].strip()
        return f"{source}:{line}:{col}: invalid TOML: {reason}; fix the file or remove it"
    line = str(text.count("\n") + (0 if text.endswith("\n") else 1))
    reason = message.replace("(at end of document)", "").strip()
    return (f"{source}:{line}: invalid TOML: {reason} at the end of the file (an unclosed "
            f"`[`, `{{` or string?); fix the file or remove it")


def _type_error(source: str, key: str, expected: str, value: Any) -> ConfigError:
    return ConfigError(
        f"{source}: `{key}` must be {expected}, not {type(value).__name__} {value!r}"
    )


def _string_list(key: str, value: Any, source: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _type_error(source, key, "a list of strings", value)
    return tuple(value)


def _profiles(
    value: Any, source: str
) -> tuple[tuple[str, ...] | None, dict[str, dict[str, Any]]]:
    """`profiles = ["cogitator", "codex"]` selects agents; a `[profiles]` table may select with
    `select = [...]` and hold `[profiles.<name>]` option tables (TOML cannot have both a list
    and sub-tables under one key). Names are checked against the registry when the workspace
    opens (config knows no profile)."""
    if isinstance(value, list):
        return _string_list("profiles", value, source), {}
    if not isinstance(value, dict):
        raise _type_error(source, "profiles", "a list of agent names or a table", value)
    selected = None
    options: dict[str, dict[str, Any]] = {}
    for name, table in value.items():
        if name == "select":
            selected = _string_list("profiles.select", table, source)
        elif isinstance(table, dict):
            options[name] = dict(table)
        else:
            raise _type_error(source, f"profiles.{name}", "a table of options ([profiles."
                              f"{name}]) — or use `profiles.select` for the list", table)
    return selected, options


def _check(key: str, value: Any, source: str, known_codes: frozenset[str]) -> Any:
    if key == "ignore":
        return _string_list(key, value, source)
    if key in ("cwd", "profile"):
        if not isinstance(value, str) or not value:
            raise _type_error(source, key, "a non-empty string", value)
        if key == "cwd" and (value.startswith("/") or ".." in value.split("/")):
            raise ConfigError(f"{source}: `cwd` must be a directory inside the root, not {value!r}")
        return value
    if key == "platform":
        problem = platform_error(source, value)
        if problem is not None:
            raise problem
        return value
    if key == "referencesInFencedCode":
        if not isinstance(value, bool):
            raise _type_error(source, key, "true or false", value)
        return value
    if key == "severity":
        if not isinstance(value, dict):
            raise _type_error(source, key, "a table of check code = severity", value)
        allowed = (*SEVERITIES, "off")
        for code, level in value.items():
            if known_codes and code not in known_codes:
                import difflib  # only on an error: not at every start-up

                hint = difflib.get_close_matches(code, sorted(known_codes), n=1)
                did_you_mean = f" (did you mean `{hint[0]}`?)" if hint else ""
                raise ConfigError(
                    f"{source}: `severity` names an unknown check `{code}`{did_you_mean}"
                )
            if level not in allowed:
                raise ConfigError(
                    f"{source}: `severity.{code}` must be one of "
                    f"{', '.join(allowed)}, not {level!r}"
                )
        return dict(value)
    raise AssertionError(key)


def load_config_text(
    name: str, text: str, source: str, known_codes: frozenset[str] = frozenset()
) -> Config | None:
    """Parse `rulemap.toml` or `pyproject.toml` text; None when pyproject has no section."""
    import tomllib  # only when there is a file to parse (4 ms of imports)

    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(_toml_error(source, text, exc)) from None
    if name == "pyproject.toml":
        section = document.get("tool", {}).get("rulemap")
        if section is None:
            return None
        if not isinstance(section, dict):
            raise ConfigError(f"{source}: [tool.rulemap] must be a table")
        config = parse_config(section, source + " [tool.rulemap]", known_codes)
        return _locate_ignored(config, name, text, ("tool", "rulemap"))
    return _locate_ignored(parse_config(document, source, known_codes), name, text, ())


def _locate_ignored(config: Config, name: str, text: str, table: tuple[str, ...]) -> Config:
    """Give each ignored key the file and position where it is written."""
    if not config.ignored:
        return config
    lines = text.splitlines()
    located = []
    for item in config.ignored:
        line, start, end = _key_position(lines, table, item.key)
        located.append(replace(item, file=name, line=line, start=start, end=end))
    return replace(config, ignored=tuple(located))


def _toml_key_parts(written: str) -> tuple[str, ...]:
    """`tool. "rulemap"` → ("tool", "rulemap") (good enough for locating a key)."""
    return tuple(p.strip().strip("\"'") for p in written.split("."))


def _key_position(lines: list[str], table: tuple[str, ...], key: str) -> tuple[int, int, int]:
    """(line, start, end) of `key` of `table` in TOML text: a plain line scan that follows
    `[table]` headers and dotted keys; the first line naming the key, else the file's start."""
    current: tuple[str, ...] = ()
    for number, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith("["):
            header = stripped.lstrip("[").split("]", 1)[0]
            current = _toml_key_parts(header)
            continue
        if "=" not in stripped or stripped.startswith("#"):
            continue
        written = line.split("=", 1)[0]
        parts = _toml_key_parts(written)
        if current + parts == (*table, key):
            quoted = written.rfind(key)
            start = quoted if quoted >= 0 else len(written) - len(written.lstrip())
            end = quoted + len(key) if quoted >= 0 else len(written.rstrip())
            return number, start, end
    for number, line in enumerate(lines):  # an inline table, say
        found = line.find(key)
        if found >= 0:
            return number, found, found + len(key)
    return 0, 0, 0


def read_config(reader: Reader, known_codes: frozenset[str] = frozenset()) -> Config:
    """The configuration of the reader's root: rulemap.toml, else pyproject [tool.rulemap]."""
    for name in CONFIG_FILES:
        path = posixpath.join(reader.root, name)
        if not reader.exists(path):
            continue
        try:
            text, why = decode(reader.read_bytes(path))
        except ReadError as exc:
            raise ConfigError(f"{path}: cannot be read: {exc}") from None
        if why is not None:
            raise ConfigError(f"{path}: cannot be read: {why}")
        config = load_config_text(name, text, path, known_codes)
        if config is not None:
            return config
    return Config()
