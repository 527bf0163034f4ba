"""`RuleScope`: where a rule's globs are rooted — the directory that holds its rules directory
(`Layout.rule_scope` finds it).

One value instead of stripping `owner + "/"` by hand at every site that matches a glob."""

from __future__ import annotations

from rulemap.records import record


@record(frozen=True)
class RuleScope:
    owner: str  # the directory holding the rules directory ('' = the root)

    @property
    def prefix(self) -> str:
        """What a path inside the scope starts with ('' at the root)."""
        return self.owner + "/" if self.owner else ""

    def contains(self, path: str) -> bool:
        return not self.owner or path.startswith(self.owner + "/")

    def relative(self, path: str) -> str | None:
        """`path` as the rule's globs see it (relative to the owner); None outside the scope."""
        if not self.owner:
            return path
        if path.startswith(self.owner + "/"):
            return path[len(self.owner) + 1 :]
        return None

    def within(self, path: str) -> str:
        """`path` relative to the owner, for a path known to be inside the scope."""
        return path[len(self.owner) + 1 :] if self.owner else path

    def join(self, relative: str) -> str:
        """A path relative to the owner, as a workspace key."""
        return f"{self.owner}/{relative}" if self.owner else relative


ROOT_SCOPE = RuleScope("")


@record(frozen=True)
class RuleInfo:
    path: str
    owner: str  # the directory holding the rules directory ('' = root)

    @property
    def scope(self) -> RuleScope:
        return RuleScope(self.owner) if self.owner else ROOT_SCOPE
