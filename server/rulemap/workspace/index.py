"""Which files are instruction files and rules, by name and place, per directory.

Names and the rules directory come from the workspace's `Layout`. Built from the walked file
list (plus the files git ignores: an agent knows nothing of git, so an ignored instruction file
still loads); rebuilt when a file is created or deleted whose name
matters. A directory the walk never listed (ignored, or not created yet) is probed through the
reader on demand."""

from __future__ import annotations

import sys

from rulemap.globs import FileIndex
from rulemap.readers.base import WalkingReader
from rulemap.workspace.layout import Layout
from rulemap.workspace.rule_scope import RuleInfo


class InstructionIndex:
    def __init__(self, files: FileIndex, reader: WalkingReader, layout: Layout):
        self._files = files
        self._reader = reader
        self._layout = layout
        names = layout.instruction_names
        self.names = names
        self._names_longest_first = sorted(names, key=len, reverse=True)
        self._basenames = frozenset(n.rsplit("/", 1)[-1] for n in names)
        self.directories: set[str] = {""}
        self.instruction_files: list[str] = []
        self.instruction_set: frozenset[str] = frozenset()
        self.rules: list[RuleInfo] = []
        self.documents: list[str] = []
        self._by_dir: dict[str, list[str]] = {}
        self._rules_by_owner: dict[str, list[str]] = {}
        self._rule_info: dict[str, RuleInfo] = {}
        self._probed: dict[str, list[str]] = {}
        self.rebuild()

    def rebuild(self) -> None:
        instruction: set[str] = set()
        rules: list[RuleInfo] = []
        directories: set[str] = {""}
        rule_scope = self._layout.rule_scope
        has_rules = bool(self._layout.rules_dir)
        basenames = self._basenames
        last = ""  # the previous file's directory: sorted, most files share it
        for path in self._files:
            slash = path.rfind("/")
            if slash > 0 and not (slash == len(last) and path.startswith(last)):
                parent = last = path[:slash]
                while parent and parent not in directories:
                    directories.add(sys.intern(parent))  # shared with `parent_dir`'s
                    cut = parent.rfind("/")
                    parent = parent[:cut] if cut > 0 else ""
            # most files are neither: a rule ends in `.md`, an instruction file has one of
            # few base names (the tests `rule_scope` and `instruction_dir` start with)
            if has_rules and path.endswith(".md"):
                scope = rule_scope(path)
                if scope is not None:
                    rules.append(RuleInfo(path, scope.owner))
                    continue
            if path[slash + 1:] in basenames and self.instruction_dir(path) is not None:
                instruction.add(path)
        # Instruction files load even when git ignores them (CLAUDE.local.md usually is).
        for path in self._reader.ignored_files():
            if self.instruction_dir(path) is not None:
                instruction.add(path)
        self.directories = directories
        self._probed = {}
        self.instruction_files = sorted(instruction)
        self.instruction_set = frozenset(instruction)
        self.rules = sorted(rules, key=lambda r: r.path)
        # Sorted once here, not per question: sorting 3,750 paths 400 levels deep compares
        # kilobytes of shared prefix, 4 ms a sort, and an edit that changes an import asked
        # for it three times before its document's diagnostics (benchmarks/README.md)
        self.documents = sorted(instruction.union(r.path for r in rules))
        self._by_dir = {}
        for rel in self.instruction_files:
            owner = self.instruction_dir(rel)
            assert owner is not None
            self._by_dir.setdefault(owner, []).append(rel)
        order = {name: index for index, name in enumerate(self.names)}
        for directory, rels in self._by_dir.items():
            rels.sort(key=lambda r: order[r[len(directory) + 1 :] if directory else r])
        self._rules_by_owner = {}
        for rule in self.rules:
            self._rules_by_owner.setdefault(rule.owner, []).append(rule.path)
        self._rule_info = {rule.path: rule for rule in self.rules}

    def forget_probes(self) -> None:
        self._probed.clear()

    def instruction_dir(self, path: str) -> str | None:
        """The directory whose instruction file `path` would be (by name), or None."""
        # most files are not instruction files: their base name settles it at once
        if path.rsplit("/", 1)[-1] not in self._basenames:
            return None
        # longest names first: `x/.claude/CLAUDE.md` is x's `.claude/CLAUDE.md`, not the
        # `CLAUDE.md` of a directory `x/.claude`
        for name in self._names_longest_first:
            if path == name:
                return ""
            if path.endswith("/" + name):
                return sys.intern(path[: -len(name) - 1])  # one copy of each directory
        return None

    def files_in(self, directory: str, abs_of: str) -> list[str]:
        """The instruction files of `directory` in `files` order (`abs_of`: its absolute path)."""
        found = self._by_dir.get(directory)
        if found is not None:
            return found
        if directory in self.directories:
            return []
        # A directory the index does not list (git-ignored, or not created yet): the agent
        # knows nothing of git, so look for the names there directly.
        probed = self._probed.get(directory)
        if probed is None:
            probed = []
            for name in self.names:
                rel = f"{directory}/{name}" if directory else name
                full = f"{abs_of}/{name}"
                if self._reader.exists(full) and not self._reader.is_dir(full):
                    probed.append(rel)
            self._probed[directory] = probed
        return probed

    def rules_of(self, owner: str) -> list[str]:
        return self._rules_by_owner.get(owner, [])

    def rule_info(self, path: str) -> RuleInfo | None:
        """The rule file `path` is, or None when it is none."""
        return self._rule_info.get(path)

    def affects(self, key: str) -> bool:
        """Whether creating or deleting `key` changes this index (by its name alone)."""
        return self._layout.rule_scope(key) is not None or self.instruction_dir(key) is not None
