"""A cogitator load in progress: a chain of links, each file followed by its imports, and the
budget's verdict per link (`BudgetPass`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rulemap.model import ImportStatus, LoadedFile, Reason, Skipped
from rulemap.profiles.cogitator.settings import settings_of
from rulemap.profiles.links import ImportChain, Linked, on_chain
from rulemap.records import record

if TYPE_CHECKING:
    from rulemap.workspace import Workspace

_STATUS_WHY = {
    ImportStatus.MISSING: ("not found", "broken-import"),
    ImportStatus.OUTSIDE: (
        "outside the workspace and not under allowImportsFrom",
        "import-outside-workspace",
    ),
    ImportStatus.HOME: (
        "in the home directory, which is outside the workspace",
        "import-outside-workspace",
    ),
    ImportStatus.DIRECTORY: ("a directory, not a file", "broken-import"),
}


@record(frozen=True)
class BudgetPass:
    """What the shared budget does to one link of a load, given everything before it: the
    same as `apply_shared_budget` over the whole load, computed link by link so that loads
    sharing a parent share its pass (the budget check stays linear in the workspace)."""

    used: int  # characters kept up to the end of this link
    stopped: bool  # something was left out by then: everything after is left out too
    cut: tuple[tuple[str, int], ...]  # files of this link cut at the limit, with chars kept
    left_out: tuple[str, ...]  # files of this link left out
    overflowed: bool  # this link or one before it cut or left out something


class Load(Linked["Load"]):
    """One load in progress: the order, what was read, what was skipped.

    A load that starts from another (a nested directory's from its parent's, a target's from
    its directory's) keeps a link to it instead of a copy: a workspace with hundreds of nested
    `AGENTS.md` below a root that imports 3,000 files would otherwise copy those 3,000 entries
    once per directory and per rule. A parent is never changed once a child is made from it
    (loads are cached and shared)."""

    def __init__(self, ws: Workspace, parent: Load | None = None):
        super().__init__(parent)
        self.ws = ws
        self.chars: int = parent.chars if parent is not None else 0  # requested, in all
        self._passes: dict[int, BudgetPass] = {}

    def child(self) -> Load:
        """A load that goes on from this one."""
        return Load(self.ws, self)

    def budget_pass(self, max_chars: int) -> BudgetPass:
        """This link's `BudgetPass` (call once the load is complete; cached)."""
        missing = [link for link in self.links() if max_chars not in link._passes]
        for link in missing:
            before = link.parent._passes[max_chars] if link.parent is not None else None
            used = before.used if before else 0
            stopped = before.stopped if before else False
            cut: list[tuple[str, int]] = []
            left_out: list[str] = []
            for entry in link.own_files:  # the rules of apply_shared_budget, file by file
                if stopped or used >= max_chars and entry.chars > 0:
                    left_out.append(entry.path)
                    stopped = True
                elif used + entry.chars <= max_chars:
                    used += entry.chars
                else:
                    cut.append((entry.path, max_chars - used))
                    used = max_chars
            overflowed = bool(cut or left_out) or (before.overflowed if before else False)
            link._passes[max_chars] = BudgetPass(used, stopped, tuple(cut), tuple(left_out),
                                                 overflowed)
        return self._passes[max_chars]

    def add(self, key: str, reason: Reason) -> None:
        """Load `key` for `reason`, then its imports depth first (iteratively: chains are long)."""
        ws = self.ws
        max_depth = settings_of(ws).max_import_depth
        # (key, reason, importer, depth, import line, the importer chain as linked
        # (identity, rest) pairs: a child shares its parent's, so a 3,000-deep chain is not
        # 3,000 growing copies; it is walked only for a file already loaded)
        stack: list[tuple[str, Reason, str | None, int, int | None, ImportChain]] = [
            (key, reason, None, 0, None, None)
        ]
        while stack:
            path, why, importer, depth, line, chain = stack.pop()
            self.add_reads(path)
            identity = ws.identity(path)
            first = self.first_loaded(identity)
            if first is not None:
                if on_chain(chain, identity):
                    self.add_skip(
                        Skipped(
                            path,
                            f"import cycle: {first} is already loading",
                            "import-cycle",
                            importer,
                            line,
                        )
                    )
                else:
                    same = "" if first == path else f" as {first}"
                    self.add_skip(
                        Skipped(path, f"already loaded{same}", "duplicate-load", importer, line)
                    )
                continue
            doc = ws.document(path)
            if doc.unreadable:
                self.add_skip(
                    Skipped(
                        path, f"unreadable: {doc.unreadable}", "unreadable-file", importer, line
                    )
                )
                continue
            if doc.rule_skip:
                self.add_skip(
                    Skipped(
                        path,
                        f"rule skipped: {doc.rule_skip}",
                        "invalid-frontmatter",
                        importer,
                        line,
                    )
                )
                continue
            self.chars += doc.chars
            self.add_file(
                LoadedFile(
                    path, why, importer, depth, doc.chars, import_line=line, text=doc.brought
                ),
                identity,
            )
            children = []
            for ref, resolved in ws.imports(path):
                self.add_reads(resolved.target)
                if resolved.status is not ImportStatus.OK:
                    text, code = _STATUS_WHY[resolved.status]
                    self.add_skip(
                        Skipped(resolved.target, text, code, path, ref.span.start.line)
                    )
                    continue
                if depth + 1 > max_depth:
                    self.add_skip(
                        Skipped(
                            resolved.target,
                            f"import hop {depth + 1} is past maxImportDepth {max_depth}",
                            "import-too-deep",
                            path,
                            ref.span.start.line,
                        )
                    )
                    continue
                children.append(
                    (
                        resolved.target,
                        "import",
                        path,
                        depth + 1,
                        ref.span.start.line,
                        (identity, chain),
                    )
                )
            stack.extend(reversed(children))  # type: ignore[arg-type]
