"""Cursor's light facts: its names, its options, and what detection, `reads` and its own
`mdc:` links answer (`CursorFacts`, which `CursorProfile` inherits). A check of a workspace
without Cursor's files asks them of every agent (the registry's `facts`): importing them
must not import its profile, its rules' reader (`rules.py`) or its AGENTS.md and link reader
(`agents_md.py`): its names and places are `places.py`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rulemap.profiles.base import Facts, Option, options_of, shallowest
from rulemap.profiles.cursor.places import (
    LEGACY,
    LINK_SCHEME,
    RULES,
    agents_folder,
    exists,
    owner_of,
    rule_paths,
)
from rulemap.text.references import PathRef

# rules.py (a rule's header, kind and globs) and agents_md.py (the AGENTS.md files and `mdc:`
# links) are imported by what reads a rule or a link: detection and `reads` need names only
if TYPE_CHECKING:
    from rulemap.workspace import Workspace


class CursorFacts(Facts):
    """Cursor's light facts (`Facts`): its profile class inherits them."""

    name = "cursor"
    title = "Cursor"
    description = (
        "Cursor: .cursor/rules/*.mdc (always, auto-attached by globs, agent-requested, manual; "
        "nested folders scoped to themselves), AGENTS.md (the root's, and nested ones for their "
        "folder) and the legacy .cursorrules; no budget."
    )
    options: tuple[Option, ...] = (
        Option("includeRequested", (bool,), True,
               "list agent-requested rules (description only) as loaded: the agent may pull "
               "them in"),
        Option("legacyCursorrules", (bool,), True, "read the root's legacy `.cursorrules`"),
        Option("mdRules", (bool,), False,
               "also read `.md` files in `.cursor/rules` as rules (unconfirmed: Cursor's rule "
               "files are `.mdc`)"),
        Option("agentsMd", (bool,), True, "read the root's `AGENTS.md` for every file"),
        Option("nestedAgentsMd", (bool,), True,
               "read an `AGENTS.md` of a subfolder for the files below it (Cursor 1.6 and "
               "later; false: the root's only)"),
        Option("mdcLinks", (bool,), False,
               "list the files a loaded rule links as `[x](mdc:path)` as loaded with it "
               "(unconfirmed)"),
    )

    def detected_by(self, ws: Workspace) -> str | None:
        # AGENTS.md alone does not select Cursor: many agents read it
        if rule_paths(ws) or ws.reader.is_dir(ws.abs(RULES.rstrip("/"))):
            return shallowest(rule_paths(ws)) or RULES.rstrip("/")
        return LEGACY if exists(ws, LEGACY) else None

    def reads(self, ws: Workspace, key: str) -> bool:
        opts = options_of(ws, self)
        if key == LEGACY:
            return bool(opts["legacyCursorrules"])
        folder = agents_folder(key)
        if folder is not None:
            return bool(opts["nestedAgentsMd"] if folder else opts["agentsMd"])
        if owner_of(key) is None:
            return False
        return key.endswith(".mdc") or (bool(opts["mdRules"]) and key.endswith(".md"))

    def checks_links(self, ws: Workspace, key: str) -> bool:
        # `findings` reports the `mdc:` links of every rule file it reads (broken_links)
        return owner_of(key) is not None and self.reads(ws, key)

    def own_links(self, ws: Workspace, key: str) -> list[tuple[PathRef, tuple[str, ...]]]:
        doc = ws.document(key)
        if doc.unreadable or LINK_SCHEME not in doc.text:
            return []
        from rulemap.profiles.cursor.agents_md import mdc_links

        return [
            (PathRef("agent-link", LINK_SCHEME + link.written, link.written.split("#", 1)[0],
                     link.span), tuple(link.candidates()))
            for link in mdc_links(ws, key) if link.target is not None  # None: it leaves
        ]
