"""`Layout`: where a workspace's instruction documents are, as the composition root was told.

The workspace knows no agent: which names are instruction files, which directory holds rules,
how deep imports go and how a document writes them and scopes a rule are facts of the default
profile (`profiles/cogitator/settings.py`), handed in as this value when the workspace opens
(`analysis.new_workspace`)."""

from __future__ import annotations

from rulemap.documents import NO_SYNTAX, DocumentSyntax
from rulemap.records import record
from rulemap.workspace.rule_scope import ROOT_SCOPE, RuleScope


@record(frozen=True)
class Layout:
    # instruction file names per directory, in load order (`x/.claude/CLAUDE.md` is x's)
    instruction_names: tuple[str, ...] = ()
    # the directory of rules, relative to their owner ('' : no rules); a rule is a `.md`
    # file below some owner's `rules_dir`
    rules_dir: str = ""
    # import hops followed from an instruction file or rule, and the option that sets it (for
    # messages, in the agent's terms)
    max_import_depth: int = 0
    depth_setting: str = "the import depth limit"
    # its documents' import tokens and the frontmatter key of a rule's globs
    syntax: DocumentSyntax = NO_SYNTAX

    @property
    def rules_home(self) -> str:
        """The first segment of `rules_dir` (`.claude`): a rule's globs are relative to the
        directory that holds it."""
        return self.rules_dir.split("/", 1)[0]

    def rule_scope(self, path: str) -> RuleScope | None:
        """The scope of `path` when it is a rule (`.md` under some `rules_dir`), else None."""
        if not self.rules_dir or not path.endswith(".md"):
            return None
        prefix = self.rules_dir + "/"
        if path.startswith(prefix):
            return ROOT_SCOPE
        index = path.find("/" + prefix)
        if index < 0:
            return None
        return RuleScope(path[:index])

    def is_rules_dir(self, path: str) -> bool:
        """Whether `path` is some owner's rules directory itself."""
        return bool(self.rules_dir) and (
            path == self.rules_dir or path.endswith("/" + self.rules_dir)
        )
