"""Every view speaks the selected agent's terms (issue 17): sizes in its budget's unit, "no
shared budget" where it has none, its own name for the limit that cut a file, and its glob
dialect for `paths` verdicts — hover, code lens, inlay hints and glob completions agreeing
with `rulemap explain --profile …`."""

from __future__ import annotations

from feature_api import code_lenses, completion, hover, inlay_hints
from feature_helpers import P, hover_text, ws_of

from rulemap import analysis
from rulemap.profiles import PROFILES
from rulemap.profiles.base import parse_options
from rulemap.workspace import Workspace

FILES = {
    "AGENTS.md": "Project rules.\n@docs/guide.md\n",
    "docs/guide.md": "Guide é.\n",  # 9 characters, 10 bytes
    "CLAUDE.md": "Claude.\n",
    # Claude Code strips the trailing `/**` and matches without case: `src/a.ts` is in
    ".claude/rules/upper.md": '---\npaths: ["SRC/**"]\n---\nUpper rule.\n',
    "src/a.ts": "x\n",
    "lib/b.ts": "y\n",
}


def ws_for(**config: object) -> Workspace:
    return ws_of(FILES, **config)


def source_hover(ws: Workspace, profile: str) -> str:
    return hover_text(hover(ws, "src/a.ts", P(0, 0), settings={"profile": profile}))


def lens_title(ws: Workspace, key: str, profile: str) -> str:
    [lens] = code_lenses(ws, key, None, profile)
    assert lens.command is not None
    return lens.command.title


# ----- units and budgets ----------------------------------------------------------------------


def test_codex_hover_counts_bytes_of_its_byte_budget():
    ws = ws_for()
    text = source_hover(ws, "codex")
    explanation = analysis.explain(ws, "src/a.ts", profile="codex")
    used = sum(f.bytes or 0 for f in explanation.files)
    assert f"**{used:,} of 32,768 bytes** (0%)" in text
    assert "chars**" not in text
    # each loaded file in bytes too
    assert "— project instructions · 30 bytes" in text


def test_claude_code_hover_says_no_shared_budget_never_of_zero():
    ws = ws_for()
    text = source_hover(ws, "claude-code")
    assert "**20 chars · no shared budget**" in text
    assert " of 0 " not in text


def test_mastra_hover_counts_tokens_per_file_limit_named():
    ws = ws_for()
    text = source_hover(ws, "mastra")
    assert "**10 tokens · each file up to 1,000 tokens (maxTokens)**" in text
    assert " · 8 tokens" in text  # AGENTS.md, in Mastra's unit
    assert "nested: in the workspace root" in text


def test_cut_and_left_out_name_the_agents_own_limit():
    files = {"AGENTS.md": "a" * 30 + "\n", "src/AGENTS.md": "b" * 30 + "\n", "src/a.ts": "x\n"}
    codex = ws_of(files, profiles=["codex"], cwd="src")  # Codex reads root → cwd
    codex.profile_options = {
        "codex": parse_options(PROFILES["codex"], {"project_doc_max_bytes": 40,
                                                   "rootWithoutGit": "workspace"}, "test")
    }
    text = hover_text(hover(codex, "src/a.ts", P(0, 0), settings={"profile": "codex"}))
    assert "**cut** by project_doc_max_bytes" in text
    assert "maxChars" not in text
    cogitator = ws_of(files, maxChars=40)
    text = hover_text(hover(cogitator, "src/a.ts", P(0, 0)))
    assert "**cut** by maxChars" in text


def test_code_lens_and_inlay_hints_in_the_agents_unit():
    ws = ws_for()
    # docs/guide.md is 9 characters, 10 bytes (é is two), 2 tokens
    assert [h.label for h in inlay_hints(ws, "AGENTS.md", profile="codex")] == ["10 bytes"]
    assert [h.label for h in inlay_hints(ws, "AGENTS.md", profile="mastra")] == ["2 tokens"]
    assert [h.label for h in inlay_hints(ws, "AGENTS.md", profile="cogitator")] == ["9 chars"]
    assert lens_title(ws, "AGENTS.md", "codex").endswith("· 30 bytes")
    assert lens_title(ws, "AGENTS.md", "mastra").endswith("· 8 tokens")
    assert lens_title(ws, "AGENTS.md", "cogitator").endswith("· 30 chars")


def test_import_hover_in_the_agents_unit():
    ws = ws_for()
    text = hover_text(hover(ws, "AGENTS.md", P(1, 3), settings={"profile": "codex"}))
    assert "✓ exists · 10 bytes ·" in text


# ----- Claude Code's glob dialect -------------------------------------------------------------


def test_claude_code_glob_verdicts_agree_with_its_explain():
    ws = ws_for()
    explained = analysis.explain(ws, "src/a.ts", profile="claude-code")
    loaded = [f.path for f in explained.files]
    assert ".claude/rules/upper.md" in loaded  # what `rulemap explain --profile claude-code` says
    glob = hover_text(hover(ws, ".claude/rules/upper.md", P(1, 10),
                            settings={"profile": "claude-code"}))
    assert glob.startswith("**`SRC/**`** matches 1 file")
    assert "[`src/a.ts`]" in glob and "Claude Code" in glob
    # the source hover names the glob that matched, as Claude Code matched it
    assert "rule, `paths` matches `SRC/**`" in source_hover(ws, "claude-code")
    assert lens_title(ws, ".claude/rules/upper.md", "claude-code").startswith("matches 1 file ·")
    # the default model matches case-sensitively, `/**` kept: no file
    default = hover_text(hover(ws, ".claude/rules/upper.md", P(1, 10)))
    assert default.startswith("**`SRC/**`** matches 0 files")
    assert lens_title(ws, ".claude/rules/upper.md", "cogitator").startswith("matches 0 files")


def test_glob_hover_of_an_agent_that_does_not_read_the_rule():
    ws = ws_for()
    text = hover_text(hover(ws, ".claude/rules/upper.md", P(1, 10), settings={"profile": "codex"}))
    assert "OpenAI Codex CLI does not read this rule" in text
    assert "matches" not in text


def test_glob_completions_count_in_the_agents_dialect():
    files = {
        ".claude/rules/r.md": "---\npaths:\n  - \n---\nRule.\n",
        "src/a.ts": "x\n",
        "pkg/src/b.ts": "y\n",
    }
    ws = ws_of(files)

    def detail(profile: str | None) -> str | None:
        items = completion(ws, ".claude/rules/r.md", P(2, 4), profile=profile).items
        return next(i.detail for i in items if i.label == "src/**")

    # Claude Code's `src/**` is `src`, any `src` directory: both files
    assert detail("claude-code") == "2 files"
    assert detail(None) == "1 file"


def test_rules_scoped_by_another_key_say_which():
    """Copilot's `applyTo` and Cursor's `globs` are not `paths`: the hover says the agent's own
    key and glob, as its profile matched it."""
    files = {
        ".github/instructions/ts.instructions.md": '---\napplyTo: "src/**"\n---\nTS.\n',
        ".cursor/rules/a.mdc": "---\nglobs: src/**\nalwaysApply: false\n---\nA.\n",
        "src/a.ts": "x\n",
    }
    ws = ws_of(files)
    copilot = hover_text(hover(ws, "src/a.ts", P(0, 0), settings={"profile": "copilot"}))
    assert "— rule, `applyTo` matches `src/**` ·" in copilot
    cursor = hover_text(hover(ws, "src/a.ts", P(0, 0), settings={"profile": "cursor"}))
    assert "— rule, `globs` matches `src/**` ·" in cursor
    assert "no shared budget" in cursor


def test_claude_code_dialect_answers_what_its_loads_do():
    """For every file: a rule is in Claude Code's load exactly when the views' verdict (rule
    matches, load status count, first matching glob) says it matches."""
    files = {
        "CLAUDE.md": "root\n",
        ".claude/rules/upper.md": '---\npaths: ["SRC/**"]\n---\nU\n',
        ".claude/rules/braces.md": '---\npaths: ["lib/*.{ts,js}", "docs"]\n---\nB\n',
        ".claude/rules/tests.md": "---\npaths: tests/**/*.py\n---\nT\n",
        "pkg/.claude/rules/inner.md": '---\npaths: ["Src/**"]\n---\nI\n',
        "src/a.ts": "x\n", "pkg/src/b.ts": "y\n", "lib/c.js": "z\n", "lib/d.py": "w\n",
        "docs/e.md": "v\n", "tests/unit/f.py": "u\n", "other/src/g.ts": "t\n",
    }
    ws = ws_of(files, cwd="pkg")
    rules = [k for k in files if "/rules/" in k]
    targets = [k for k in files if "/rules/" not in k and not k.endswith("CLAUDE.md")]
    for rule in rules:
        matched = set(analysis.rule_matches(ws, rule, "claude-code"))
        status = analysis.load_status(ws, rule, "claude-code")
        for target in targets:
            explained = analysis.explain(ws, target, profile="claude-code")
            loaded = rule in {f.path for f in explained.files}
            assert loaded == (target in matched), (rule, target)
            first = analysis.first_matching_glob(ws, rule, target, "claude-code")
            assert (first is not None) == loaded, (rule, target, first)
        assert status.files == len(matched), rule


def test_copilot_and_cursor_glob_hovers_in_their_dialects():
    """A glob of Copilot's `applyTo` (root-relative; a slash-less one at the root only) and of
    a nested Cursor rule's `globs` (relative to the folder holding `.cursor`) hovers with the
    files it matches as that agent matches them — and not for an agent that does not read the
    file."""
    files = {
        ".github/instructions/ts.instructions.md": '---\napplyTo: "*.ts, src/**/*.ts"\n---\nT\n',
        "pkg/.cursor/rules/a.mdc": "---\nglobs: lib/*.ts\nalwaysApply: false\n---\nA.\n",
        "top.ts": "", "src/a.ts": "", "src/deep/b.ts": "", "pkg/lib/x.ts": "", "lib/y.ts": "",
    }
    ws = ws_of(files)
    rule = ".github/instructions/ts.instructions.md"
    slashless = hover_text(hover(ws, rule, P(1, 10), settings={"profile": "copilot"}))
    assert slashless.startswith("**`*.ts`** matches 1 file (relative to the workspace root)"
                                " · GitHub Copilot"), slashless
    assert "top.ts" in slashless and "src/a.ts" not in slashless
    deep = hover_text(hover(ws, rule, P(1, 20), settings={"profile": "copilot"}))
    assert deep.startswith("**`src/**/*.ts`** matches 2 files"), deep
    assert "All `applyTo` globs of this rule together match 3 files." in deep
    cursor = hover_text(hover(ws, "pkg/.cursor/rules/a.mdc", P(1, 9),
                              settings={"profile": "cursor"}))
    assert cursor.startswith("**`lib/*.ts`** matches 1 file (relative to `pkg/`) · Cursor")
    assert "pkg/lib/x.ts" in cursor and "`lib/y.ts`" not in cursor
    # the default model reads neither file as a rule: no glob hover there
    assert hover(ws, rule, P(1, 10)) is None


def test_an_import_hover_asks_the_agents_own_load():
    """The import of a rule only Claude Code loads (`SRC/**` folds to `src/`) is read in
    Claude Code's load, and in none of the default model's: each hover says so."""
    files = {
        "CLAUDE.md": "root\n", "src/a.ts": "x\n", "docs/guide.md": "guide\n",
        ".claude/rules/upper.md": '---\npaths: ["SRC/**"]\n---\nSee @../../docs/guide.md\n',
    }
    ws = ws_of(files)
    claude = hover_text(hover(ws, ".claude/rules/upper.md", P(3, 6),
                              settings={"profile": "claude-code"}))
    assert "import hop 1 (`.claude/rules/upper.md` → `docs/guide.md`)" in claude
    default = hover_text(hover(ws, ".claude/rules/upper.md", P(3, 6)))
    assert "`.claude/rules/upper.md` itself never loads from the cwd" in default


def test_glob_completion_in_copilots_and_cursors_own_keys():
    """Inside Copilot's `applyTo` and a nested Cursor rule's `globs`, the glob completions are
    those of `paths:` — relative to where the agent reads them, counted in its dialect — and
    the default model, which reads neither file as a rule, offers none."""
    files = {
        ".github/instructions/ts.instructions.md": '---\napplyTo: "src/"\n---\nT\n',
        "pkg/.cursor/rules/a.mdc": "---\nglobs: lib/\nalwaysApply: false\n---\nA.\n",
        "src/a.ts": "", "src/deep/b.ts": "", "top.ts": "", "pkg/lib/x.ts": "", "lib/y.ts": "",
    }
    ws = ws_of(files)
    rule = ".github/instructions/ts.instructions.md"
    copilot = {i.label: i.detail for i in completion(ws, rule, P(1, 14), profile="copilot").items}
    assert copilot == {"src/**/*.ts": "2 files", "src/**": "2 files", "src/deep/**": "1 file",
                       "src/deep/": "1 file", "src/a.ts": "file"}
    assert completion(ws, rule, P(1, 14)).items == []
    cursor = {i.label: i.detail
              for i in completion(ws, "pkg/.cursor/rules/a.mdc", P(1, 11), profile="cursor").items}
    assert cursor == {"lib/**/*.ts": "1 file", "lib/**": "1 file", "lib/x.ts": "file"}


def test_code_lenses_of_copilot_and_cursor_rules_speak_their_load():
    """A Copilot instructions file matches the files its `applyTo` matches, or never loads
    without one; a Cursor rule by its kind — auto-attached by globs, manual, always applied in
    its folder. (The default model reads none of these files as instructions.)"""
    files = {
        ".github/instructions/ts.instructions.md": '---\napplyTo: "src/**/*.ts"\n---\nT\n',
        ".github/instructions/none.instructions.md": "No apply\n",
        "pkg/.cursor/rules/a.mdc": "---\nglobs: lib/*.ts\nalwaysApply: false\n---\nA.\n",
        "pkg/.cursor/rules/m.mdc": "Manual\n",
        "src/a.ts": "", "src/deep/b.ts": "", "pkg/lib/x.ts": "", "pkg/other.ts": "",
    }
    ws = ws_of(files)

    def lens(key: str, profile: str | None) -> list[str]:
        return [lens.command.title for lens in code_lenses(ws, key, None, profile=profile)]

    assert lens(".github/instructions/ts.instructions.md", "copilot") == [
        "matches 2 files · 33 chars"]
    assert lens(".github/instructions/none.instructions.md", "copilot") == [
        "never loaded: no `applyTo`: Copilot applies it only when it is attached by hand · "
        "9 chars"]
    assert lens("pkg/.cursor/rules/a.mdc", "cursor") == ["matches 1 file · 46 chars"]
    assert lens("pkg/.cursor/rules/m.mdc", "cursor") == [
        "never loaded: a manual rule: attached only when @-mentioned · 7 chars"]
    assert lens(".github/instructions/ts.instructions.md", None) == []
