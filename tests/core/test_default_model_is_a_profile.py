"""The default model is a profile like the others (issue "Seven agents, one engine", item 1).

Its facts — file names, rules directory, budget, import depth — are its options
(`profiles/cogitator/settings.py`); `rulemap.toml`'s top-level keys are aliases of them; the
workspace is handed a `Layout` and knows no agent; the registry, not the configuration, names
the default; a check's agents are the profiles that declare its code.
"""

from __future__ import annotations

import pytest

from rulemap import analysis
from rulemap.analysis import new_workspace, open_workspace
from rulemap.checks.registry import CHECKS, EVERY_AGENT
from rulemap.config import Config, ConfigError, parse_config
from rulemap.model import Explanation, Finding
from rulemap.profiles import DEFAULT_PROFILE, PROFILES, register_profile
from rulemap.profiles.base import Profile
from rulemap.profiles.cogitator.settings import SYNTAX
from rulemap.readers import MemoryReader
from rulemap.workspace import Layout, Workspace


def _open(files: dict[str, str]) -> Workspace:
    return open_workspace("/w", reader=MemoryReader("/w", files))


def test_the_configuration_knows_no_agent_option() -> None:
    config = parse_config({"maxChars": 5, "files": ["A.md"], "cwd": "src"}, "t")
    assert config.top_level == {"maxChars": 5, "files": ["A.md"]}
    assert config.cwd == "src" and config.profile is None
    assert not hasattr(config, "max_chars") and not hasattr(Config(), "files")


def test_top_level_keys_are_aliases_of_the_default_models_options() -> None:
    text = "x" * 300
    top = _open({"rulemap.toml": "maxChars = 100\n", "AGENTS.md": text})
    table = _open({"rulemap.toml": "[profiles.cogitator]\nmaxChars = 100\n", "AGENTS.md": text})
    for ws in (top, table):
        explanation = analysis.explain(ws)
        assert explanation.budget.limit == 100 and explanation.total_chars == 100


def test_an_option_set_both_ways_is_an_error() -> None:
    with pytest.raises(ConfigError, match="`maxChars` is set both at the top level and in "
                                          r"\[profiles.cogitator\]; keep one"):
        _open({"rulemap.toml": "maxChars = 1\n[profiles.cogitator]\nmaxChars = 2\n"})


def test_an_unknown_top_level_key_names_the_nearest_known_one() -> None:
    with pytest.raises(ConfigError, match="unknown key `maxChar` .did you mean `maxChars`"):
        _open({"rulemap.toml": "maxChar = 1\n"})


@pytest.mark.parametrize("toml, problem", [
    ("files = []\n", "`files` is empty, so nothing would ever load"),
    ("maxChars = -1\n", "`maxChars` must not be negative"),
    ('nested = "yes"\n', "`nested` .true/false"),
])
def test_the_options_are_checked_where_they_are_declared(toml: str, problem: str) -> None:
    with pytest.raises(ConfigError, match=problem):
        _open({"rulemap.toml": toml})


def test_the_workspace_classifies_by_the_layout_it_is_handed() -> None:
    """No agent in the workspace: another layout, other instruction files, rules and depth."""
    reader = MemoryReader("/w", {
        "GUIDE.txt": "@one.md", "one.md": "@two.md", "two.md": "x",
        "AGENTS.md": "not an instruction file here",
        ".agent/rules/r.md": "---\npaths: ['src/**']\n---\nrule", "src/a.ts": "",
        ".claude/rules/c.md": "not a rule here",
    })
    ws = Workspace(reader, Layout(("GUIDE.txt",), ".agent/rules", 1, syntax=SYNTAX))
    assert ws.instruction_files == ["GUIDE.txt"]
    assert [r.path for r in ws.rules] == [".agent/rules/r.md"]
    assert ws.rule_matches(".agent/rules/r.md") == ["src/a.ts"]
    assert ws.rule_scope(".claude/rules/c.md") is None
    ws.selected_profiles = ()
    too_deep = [(f.path, f.message) for f in analysis.check(ws) if f.code == "import-too-deep"]
    assert too_deep == [("one.md", "`@two.md` would be import hop 2, past the import depth "
                                   "limit 1: `two.md` is never loaded through this chain")]


def test_the_default_models_layout_comes_from_its_options() -> None:
    ws = _open({"rulemap.toml": 'files = ["GUIDE.md"]\nmaxImportDepth = 2\n',
                "GUIDE.md": "g", "AGENTS.md": "a"})
    assert ws.layout == Layout(("GUIDE.md",), ".claude/rules", 2, "maxImportDepth", SYNTAX)
    assert ws.instruction_files == ["GUIDE.md"]


def test_the_registry_names_the_default() -> None:
    ws = new_workspace(MemoryReader("/w", {"AGENTS.md": "a"}))
    assert ws.config.profile is None
    assert analysis.active_profile(ws).name == DEFAULT_PROFILE == analysis.default_profile_name()
    named = _open({"rulemap.toml": 'profile = "codex"\n', "AGENTS.md": "a"})
    assert analysis.active_profile(named).name == "codex"


class _Coded(Profile):
    name = "coded-toy"
    title = "Coded toy"
    description = "declares duplicate-load as its own"
    options = ()
    check_codes = ("duplicate-load",)

    def detect(self, ws: Workspace) -> bool:
        return False

    def explain(self, ws: Workspace, target: str | None, cwd: str) -> Explanation:
        raise NotImplementedError

    def findings(self, ws: Workspace) -> list[Finding]:
        return []

    def reads(self, ws: Workspace, key: str) -> bool:
        return False


def test_a_checks_agents_are_the_profiles_that_declare_its_code() -> None:
    assert CHECKS["duplicate-load"].agents == ("cogitator",)
    assert CHECKS["broken-import"].agents == EVERY_AGENT
    register_profile(_Coded())
    try:
        assert CHECKS["duplicate-load"].agents == ("cogitator", "coded-toy")
    finally:
        del PROFILES["coded-toy"]


def test_an_unmatched_glob_names_the_agents_it_holds_for() -> None:
    """Claude Code folds case: `SRC/**` loads its rule for `src/a.ts`, the default model's
    matcher matches nothing — the finding says so instead of telling a Claude Code user the
    rule never loads."""
    files = {".claude/rules/r.md": '---\npaths: ["SRC/**"]\n---\nrule\n', "src/a.ts": "x",
             "CLAUDE.md": "c"}
    both = [f for f in analysis.check(_open(files)) if f.code == "unmatched-glob"]
    assert [(f.severity, f.profile, f.message) for f in both] == [(
        "warning", "cogitator",
        "cogitator: `SRC/**` matches no file in the workspace as Cogitator (default) matches "
        "globs (relative to the root); Claude Code matches it. No glob of this rule matches "
        "for Cogitator (default), so it never loads there.",
    )]
    only = open_workspace("/w", reader=MemoryReader("/w", files), profiles=["cogitator"])
    [alone] = [f for f in analysis.check(only) if f.code == "unmatched-glob"]
    assert alone.profile is None and alone.message.startswith("`SRC/**` matches no file")
