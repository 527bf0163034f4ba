"""The live instruction graph of one workspace root (see core.py for how its parts compose)."""

from rulemap.workspace.core import Workspace
from rulemap.workspace.layout import Layout
from rulemap.workspace.rule_scope import RuleInfo, RuleScope

__all__ = ["Layout", "RuleInfo", "RuleScope", "Workspace"]
