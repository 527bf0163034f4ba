"""The default model's facts and options: its file names, rules directory, budget, import
syntax and depth, and the frontmatter key of a rule's globs (docs/semantics.md; the first
seed's `ProjectInstructionsConfig`).

Its options are also the top-level keys of rulemap.toml (`files`, `maxChars`, …), which came
first; `[profiles.cogitator]` sets the same ones. `layout` hands the workspace where its
documents are, since the workspace knows no agent.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Final

from rulemap.derived import Key, KeyFamily
from rulemap.documents import DocumentSyntax
from rulemap.profiles.base import Option, parse_option_values
from rulemap.records import record
from rulemap.text.markdown import ImportSyntax
from rulemap.workspace.layout import Layout

if TYPE_CHECKING:
    from collections.abc import Mapping

    from rulemap.workspace import Workspace

NAME: Final = "cogitator"
# the seed's DEFAULT_FILES, in load order within a directory
FILES: Final = ("AGENTS.md", "CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md")
RULES_DIR: Final = ".claude/rules"
MAX_CHARS: Final = 32000
MAX_IMPORT_DEPTH: Final = 4
# an import: `@` then a path up to the next unescaped whitespace (`\ ` is an escaped space)
IMPORTS: Final = ImportSyntax("@", re.compile(r"@((?:\\ |[^\s])+)"), "\\ ")
# a rule's frontmatter key: the globs of the files it loads for (none: every file)
GLOBS_KEY: Final = "paths"
SYNTAX: Final = DocumentSyntax(IMPORTS, GLOBS_KEY)


def _not_empty(value: Any) -> str | None:
    return "is empty, so nothing would ever load" if not value else None


OPTIONS: Final[tuple[Option, ...]] = (
    Option("files", (list,), list(FILES),
           "instruction file names per directory, in load order", top_level=True,
           check=_not_empty),
    Option("maxChars", (int,), MAX_CHARS,
           "characters of instructions loaded in all; past it files are cut or left out",
           top_level=True),
    Option("maxImportDepth", (int,), MAX_IMPORT_DEPTH,
           "`@import` hops followed from an instruction file or rule", top_level=True),
    Option("rules", (bool,), True, f"load `{RULES_DIR}/*.md`", top_level=True),
    Option("nested", (bool,), True,
           "load the instruction files of directories below the cwd when a file there is "
           "read", top_level=True),
)


@record(frozen=True)
class Settings:
    files: tuple[str, ...]
    max_chars: int
    max_import_depth: int
    rules: bool
    nested: bool


_SETTINGS: Final[Key[Settings]] = KeyFamily[Settings]("cogitator-settings").key()


def parse(options: Mapping[str, Any]) -> Settings:
    return Settings(
        files=tuple(options["files"]),
        max_chars=options["maxChars"],
        max_import_depth=options["maxImportDepth"],
        rules=options["rules"],
        nested=options["nested"],
    )


def settings_of(ws: Workspace) -> Settings:
    """The workspace's settings of the default model (its options were checked when the
    workspace opened; kept until a file is created or deleted, then parsed again)."""
    cached = ws.derived.get(_SETTINGS)
    if cached is None:
        options = ws.profile_options.get(NAME)
        if options is None:
            options = parse_option_values(
                NAME, OPTIONS, ws.config.profile_options.get(NAME, {}),
                ws.config.source or "configuration", ws.config.top_level,
            )
        cached = parse(options)
        ws.derived.put(_SETTINGS, cached, reads=())
    return cached


def layout(options: Mapping[str, Any]) -> Layout:
    settings = parse(options)
    return Layout(settings.files, RULES_DIR, settings.max_import_depth, "maxImportDepth", SYNTAX)
