"""Gemini CLI's own settings files, as far as they decide which context files it reads:
`context.fileName` in the project's `.gemini/settings.json` (in the cwd) and the user's
`~/.gemini/settings.json` (with `--home`).

What Gemini CLI v0.56.0 does (docs/profiles/gemini.md cites each):
- a settings file is JSON with comments: `strip-json-comments` 3.1.1, then `JSON.parse`
  (packages/cli/src/config/settings.ts `_doLoadSettings`); a file that does not parse, or is
  not an object, is a fatal error: Gemini refuses to start;
- the scopes merge system defaults < user < workspace < system; `context.fileName` has no
  merge strategy, so the nearest scope's value replaces the other's, a list as a whole;
- the workspace file counts only in a trusted folder (`security.folderTrust.enabled`,
  default true): Rulemap assumes the folder is trusted (Gemini asks at its first start);
- the value, a string or a list, is added *before* the default `GEMINI.md`, which stays
  (`setGeminiMdFilename`, packages/core/src/tools/memoryTool.ts, since v0.44.0 / #26950):
  `["AGENTS.md"]` reads `AGENTS.md` and then `GEMINI.md` in each directory.

Files are read through the workspace's reader (the project's) and the home reader (the
user's), each once per workspace (`_SETTINGS`); an edit of the project's file re-opens the
workspace (`GeminiProfile.settings_files`).
"""

from __future__ import annotations

import json
import posixpath
import re
from typing import TYPE_CHECKING, Any, Final, Literal

from rulemap.derived import KeyFamily
from rulemap.model import Finding, Related, Span
from rulemap.profiles.base import options_of
from rulemap.readers.base import ReadError
from rulemap.records import record

if TYPE_CHECKING:
    from collections.abc import Iterable

    from rulemap.profiles.base import Facts
    from rulemap.workspace import Workspace

DEFAULT_NAME: Final = "GEMINI.md"  # memoryTool.ts DEFAULT_CONTEXT_FILENAME
SETTINGS_FILE: Final = ".gemini/settings.json"  # storage.ts getWorkspaceSettingsPath
SETTING: Final = "context.fileName"
LEGACY_KEY: Final = "contextFileName"  # the flat settings format before v0.25.0

Scope = Literal["project", "user"]


@record(frozen=True)
class SettingsFile:
    """One settings file as Gemini reads it: what it sets `context.fileName` to (None: not
    set, or unusable), where, or why Gemini cannot use the file."""

    key: str  # a workspace key (the project's), an absolute path (the user's)
    scope: Scope
    names: tuple[str, ...] | None
    line: int  # 0-based: the `fileName` key's line (the error's, for `error`)
    error: str | None = None  # why Gemini refuses the file (it does not start)
    invalid: str | None = None  # why the `fileName` value is unusable (the file is fine)
    # the names of the top-level `contextFileName` of releases before v0.25.0, which current
    # releases ignore (#16252 removed its migration), and its line
    legacy: tuple[str, ...] | None = None
    legacy_line: int = 0


@record(frozen=True)
class Names:
    """The context file names in force and where they come from."""

    names: tuple[str, ...]
    source: Literal["rulemap", "settings", "default"]
    settings: SettingsFile | None  # the file whose `context.fileName` is in force
    files: tuple[SettingsFile, ...]  # every settings file found (for findings)


_SETTINGS: Final = KeyFamily[Names]("gemini-settings")  # profile name, cwd


def strip_json_comments(text: str) -> str:
    """`text` with its `//` and `/* */` comments outside strings blanked (each non-space
    character a space, so lines and columns stay): strip-json-comments 3.1.1 with its
    default `whitespace: true`. Trailing commas stay (that release knows no such option).
    Ported rather than taken from PyPI: the JSON-with-comments readers there (json5,
    commentjson) also accept trailing commas and other JSON5 that Gemini refuses, and the
    line of a key must stay where Gemini's text has it."""
    out: list[str] = []
    in_string = False
    comment: Literal["", "single", "multi"] = ""
    offset = 0
    i = 0
    n = len(text)

    def blank(start: int, end: int) -> str:
        return re.sub(r"\S", " ", text[start:end])

    while i < n:
        char = text[i]
        pair = text[i:i + 2]
        if not comment and char == '"':
            backslashes = 0
            j = i - 1
            while j >= 0 and text[j] == "\\":
                backslashes += 1
                j -= 1
            if backslashes % 2 == 0:
                in_string = not in_string
        if in_string:
            i += 1
            continue
        if not comment and pair == "//":
            out.append(text[offset:i])
            offset = i
            comment = "single"
            i += 2
            continue
        if comment == "single" and pair == "\r\n":
            i += 1
            comment = ""
            out.append(blank(offset, i))
            offset = i
            i += 1
            continue
        if comment == "single" and char == "\n":
            comment = ""
            out.append(blank(offset, i))
            offset = i
        elif not comment and pair == "/*":
            out.append(text[offset:i])
            offset = i
            comment = "multi"
            i += 2
            continue
        elif comment == "multi" and pair == "*/":
            i += 1
            comment = ""
            out.append(blank(offset, i + 1))
            offset = i + 1
            i += 1
            continue
        i += 1
    out.append(blank(offset, n) if comment else text[offset:])
    return "".join(out)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")  # JSON.parse refuses NaN and Infinity


def parse_settings(key: str, scope: Scope, text: str) -> SettingsFile:
    """A settings file's `context.fileName` as Gemini reads it from `text`."""
    stripped = strip_json_comments(text)
    try:
        data = json.loads(stripped, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        return SettingsFile(key, scope, None, exc.lineno - 1, f"invalid JSON: {exc.msg}")
    except (ValueError, RecursionError) as exc:
        return SettingsFile(key, scope, None, 0, f"invalid JSON: {exc}")
    if not isinstance(data, dict):
        return SettingsFile(key, scope, None, 0, "not a JSON object")
    context = data.get("context")
    value = context.get("fileName") if isinstance(context, dict) else None
    line = _line_of_key(stripped, "fileName")
    if value is None:
        return SettingsFile(key, scope, None, line, legacy=_names(data.get(LEGACY_KEY)),
                            legacy_line=_line_of_key(stripped, LEGACY_KEY))
    if value == "":
        # set, so it replaces the user's value, but falsy: Gemini resets to its default
        return SettingsFile(key, scope, (), line)
    names = _names(value)
    if names is None:
        return SettingsFile(key, scope, None, line,
                            invalid=f"`{SETTING}` must be a string or a list of strings")
    return SettingsFile(key, scope, names, line)


def _names(value: object) -> tuple[str, ...] | None:
    """A string or a list of strings as Gemini cleans it (trimmed, normalized, each once);
    None for anything else."""
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        return None
    return tuple(dict.fromkeys(
        posixpath.normpath(v.strip()).strip("/") for v in value if v.strip().strip("/")))


def _line_of_key(text: str, name: str) -> int:
    """The 0-based line of the last `"name":` key in `text` (the one JSON.parse keeps), else
    0."""
    found = list(re.finditer(r'"' + re.escape(name) + r'"\s*:', text))
    return text.count("\n", 0, found[-1].start()) if found else 0


def in_force(ws: Workspace, profile: Facts, cwd: str) -> Names:
    """The context file names Gemini reads here, and why: an explicit `fileNames` in
    rulemap.toml (the whole list, as the user told Rulemap); else `context.fileName` of the
    project's settings, else of the user's, with `GEMINI.md` after it; else `GEMINI.md`."""
    cache_key = _SETTINGS.key(profile.name, cwd)
    cached = ws.derived.get(cache_key)
    if cached is not None:
        return cached
    files = tuple(f for f in (_project_file(ws, cwd), _user_file(ws)) if f is not None)
    explicit = _explicit_names(ws, profile)
    if explicit is not None:
        result = Names(explicit, "rulemap", None, files)
    else:
        chosen = next((f for f in files if f.names is not None), None)
        if chosen is not None and chosen.names is not None:
            result = Names(tuple(dict.fromkeys((*chosen.names, DEFAULT_NAME))), "settings",
                           chosen, files)
        else:
            result = Names((DEFAULT_NAME,), "default", None, files)
    project = posixpath.join(cwd, SETTINGS_FILE) if cwd else SETTINGS_FILE
    ws.derived.put(cache_key, result, reads=(project,))
    return result


def _explicit_names(ws: Workspace, profile: Facts) -> tuple[str, ...] | None:
    """`fileNames` when the user set it for Rulemap (rulemap.toml, or options handed to the
    workspace that differ from the default), else None."""
    names = options_of(ws, profile)["fileNames"]
    raw = ws.config.profile_options.get(profile.name, {})
    if "fileNames" not in raw and list(names) == [DEFAULT_NAME]:
        return None
    return tuple(dict.fromkeys(n.strip("/") for n in names if n.strip("/")))


def _project_file(ws: Workspace, cwd: str) -> SettingsFile | None:
    key = posixpath.join(cwd, SETTINGS_FILE) if cwd else SETTINGS_FILE
    full = ws.abs(key)
    if not ws.reader.exists(full) or ws.reader.is_dir(full):
        return None
    return _read(key, "project", lambda: ws.reader.read_bytes(full))


def _user_file(ws: Workspace) -> SettingsFile | None:
    home = ws.home_reader
    if home is None:
        return None
    full = posixpath.join(home.root, SETTINGS_FILE)
    if not home.exists(full) or home.is_dir(full):
        return None
    return _read(full, "user", lambda: home.read_bytes(full))


def _read(key: str, scope: Scope, read: Any) -> SettingsFile:
    try:
        data: bytes = read()
    except ReadError as exc:
        return SettingsFile(key, scope, None, 0, f"unreadable: {exc}")
    # fs.readFileSync(path, 'utf-8'): bad bytes become U+FFFD, a BOM stays (JSON.parse
    # then refuses it, as json.loads does)
    return parse_settings(key, scope, data.decode("utf-8", errors="replace"))


def project_settings(ws: Workspace) -> str:
    """The key of the project's settings file Gemini reads (in the configured cwd)."""
    cwd = ws.config.cwd
    cwd = "" if cwd in (".", "") else cwd.strip("/")
    return posixpath.join(cwd, SETTINGS_FILE) if cwd else SETTINGS_FILE


def where(file: SettingsFile) -> str:
    """`.gemini/settings.json` (line 3), for messages and notes."""
    return f"{file.key} (line {file.line + 1})"


def names_notes(found: Names) -> list[str]:
    """What an explanation says of the names it looked for, when they are not the default
    or a settings file cannot be used."""
    notes: list[str] = []
    listed = ", ".join(found.names)
    if found.source == "settings" and found.settings is not None:
        notes.append(f"context file names {listed}: `{SETTING}` of {where(found.settings)}, "
                     f"then {DEFAULT_NAME}, which Gemini always reads")
    elif found.source == "rulemap":
        notes.append(f"context file names {listed}: `fileNames` of Rulemap's configuration "
                     f"(Gemini's own settings files are not asked)")
    for file in found.files:
        if file.error is not None:
            notes.append(f"{where(file)}: {file.error}; Gemini CLI refuses to start until it is "
                         f"fixed (shown here without it)")
    return notes


def settings_findings(ws: Workspace, found: Names) -> list[Finding]:
    """The project's settings file when Gemini cannot use it (the user's is never a source of
    findings: a check does not depend on who runs it)."""
    out: list[Finding] = []
    for file in found.files:
        if file.scope == "project" and file.legacy and file.legacy != (DEFAULT_NAME,):
            line = _line_text(ws, file.key, file.legacy_line)
            out.append(Finding(
                file.key,
                Span.at(file.legacy_line, len(line) - len(line.lstrip()), len(line.rstrip())),
                "warning", "invalid-agent-settings",
                f"`{LEGACY_KEY}` is the key of Gemini CLI's settings before v0.25.0, which "
                f"current releases ignore, so it reads {DEFAULT_NAME} only, not "
                f"{', '.join(file.legacy)}; write it as "
                f'`"context": {{"fileName": {json.dumps(list(file.legacy))}}}`'))
        if file.scope != "project" or not (file.error or file.invalid):
            continue
        line = _line_text(ws, file.key, file.line)
        span = Span.at(file.line, len(line) - len(line.lstrip()), len(line.rstrip()))
        if file.error is not None:
            out.append(Finding(
                file.key, span, "error", "invalid-agent-settings",
                f"{file.key} is {file.error} (line {file.line + 1}): Gemini CLI reads it as "
                f"JSON with comments and refuses to start until it is fixed; fix the JSON "
                f"(no trailing commas) or remove the file"))
        else:
            out.append(Finding(
                file.key, span, "error", "invalid-agent-settings",
                f"{file.invalid}, so Gemini CLI cannot use it; write "
                f'`"fileName": "AGENTS.md"` or `"fileName": ["AGENTS.md", "GEMINI.md"]`'))
    return out


def unread_findings(ws: Workspace, found: Names, unread: Iterable[str]) -> list[Finding]:
    """A file of Gemini's default context file name (`GEMINI.md`) that the names in force
    leave out, so Gemini never reads it: a warning on it naming the setting and the fix."""
    if DEFAULT_NAME in found.names:
        return []
    listed = ", ".join(f'"{n}"' for n in found.names)
    into = f"into {found.names[0]}" if found.names else "into a file it reads"
    where_set, related = _setting_place(ws, found)
    out = []
    for key in unread:
        lines = ws.document(key).lines
        first = lines[0] if lines else ""
        out.append(Finding(
            key, Span.at(0, 0, len(first)), "warning", "unread-context-file",
            f"{key} is never read by Gemini CLI: the context file names are [{listed}] "
            f"({where_set}), which leave {DEFAULT_NAME} out; add \"{DEFAULT_NAME}\" to "
            f"them or move this file's text {into}",
            related=related))
    return out


def _setting_place(ws: Workspace, found: Names) -> tuple[str, list[Related]]:
    """Where the names in force are set, in words, and as a related location."""
    if found.source == "settings" and found.settings is not None:
        file = found.settings
        related = [] if file.key.startswith("/") else [
            Related(file.key, Span.at(file.line, 0), f"`{SETTING}` is set here")]
        return f"`{SETTING}` of {where(file)}", related
    source = ws.config.source
    if source is None:
        return "Rulemap's `fileNames` option", []
    key = ws.key(source) if source.startswith(ws.root + "/") else None
    if key is None:
        return f"`fileNames` of {source}", []
    text = _line_text(ws, key, None)
    match = re.search(r"^[ \t]*fileNames[ \t]*=", text, re.M)
    line = text.count("\n", 0, match.start()) if match else 0
    return (f"`fileNames` of {key} (line {line + 1})",
            [Related(key, Span.at(line, 0), "`fileNames` is set here")])


def _line_text(ws: Workspace, key: str, line: int | None) -> str:
    """Line `line` of a workspace file (None: its whole text); '' when unreadable."""
    try:
        text = ws.reader.read_bytes(ws.abs(key)).decode("utf-8", errors="replace")
    except ReadError:
        return ""
    if line is None:
        return text
    lines = text.split("\n")
    return lines[line] if line < len(lines) else ""
