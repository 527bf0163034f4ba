"""Heuristics of the import and frontmatter checks, each taken from a real repository of the
corpus (`../shared/corpus`, docs/corpus.md) where the first version of the check was wrong."""

from rulemap import analysis
from rulemap.analysis import new_workspace
from rulemap.readers import MemoryReader


def make_ws(files):
    return new_workspace(MemoryReader("/w", files), home="/home/u")


def found(ws, code=None):
    return [
        (f.path, f.span.start.line, f.code, f.severity)
        for f in analysis.check(ws)
        if code is None or f.code == code
    ]


def only(ws, code):
    (finding,) = [f for f in analysis.check(ws) if f.code == code]
    return finding


# ----- imports ----------------------------------------------------------------------------


def test_at_slash_alias_is_low_severity_broken_import_not_outside_workspace():
    # takerun2002/Lp_builder_pro: "import from @/components/ui" (Next.js `@/` alias)
    ws = make_ws({"AGENTS.md": "Import UI from @/components/ui in pages.\n"})
    f = only(ws, "broken-import")
    assert (f.severity, f.span.start.col) == ("information", 15)
    assert "alias" in f.message and "backticks" in f.message
    assert found(ws, "import-outside-workspace") == []


def test_absolute_import_to_an_existing_top_directory_still_warns_outside():
    ws = make_ws({"AGENTS.md": "See @/home/u/notes.md\n", "/home/u/notes.md": "n"})
    assert found(ws) == [("AGENTS.md", 0, "import-outside-workspace", "warning")]


def test_home_import_message_reads_into_home():
    # mkarrmann/dotfiles: `@~/.claude/CLAUDE.local.md`
    ws = make_ws({"claude_config/CLAUDE.md": "@~/.claude/CLAUDE.local.md\n"})
    assert "points into your home directory" in only(ws, "import-outside-workspace").message


def test_root_relative_import_explains_relative_to_importer():
    # xsynaptic/spectralcodex: .claude/CLAUDE.md imports `@.claude/conventions.md`
    ws = make_ws(
        {
            ".claude/CLAUDE.md": "@.claude/conventions.md\n@.claude/tasks/gone.md\n",
            ".claude/conventions.md": "c",
        }
    )
    first, second = sorted(
        (f for f in analysis.check(ws) if f.code == "broken-import"),
        key=lambda f: f.span.start.line,
    )
    assert first.severity == "error"
    assert "not the workspace root, where `.claude/conventions.md` exists" in first.message
    # the closest path is worked out where the finding is shown, not by the check
    assert "did you mean" not in first.message and first.hint is not None
    shown = analysis.with_suggestions(ws, [first])[0]
    assert "did you mean `@conventions.md`?" in shown.message
    assert [f.title for f in shown.fixes] == [
        "Change to `@conventions.md`", "Create `.claude/.claude/conventions.md`"]
    assert "workspace root" not in second.message  # stale: exists nowhere


def test_dot_slash_root_relative_import_explained():
    # edfactor/encyclo-mapoli: `@./ai-templates/...` in .claude/rules/shared (.github/instructions)
    ws = make_ws(
        {
            ".claude/rules/shared/ui.md": "@./ai-templates/front-end.md\n",
            "ai-templates/front-end.md": "f",
        }
    )
    assert "where `ai-templates/front-end.md` exists" in only(ws, "broken-import").message


def test_decorators_scopes_mentions_are_information():
    text = (
        "Use @field_validator or @model_validator) here.\n"
        "Use @mcp.tool() and @apply, ask @octocat. Uses @tldraw/state.\n"
    )
    ws = make_ws({"AGENTS.md": text})
    assert {f[3] for f in found(ws, "broken-import")} == {"information"}
    assert len(found(ws, "broken-import")) == 6


# ----- frontmatter ------------------------------------------------------------------------


def test_foreign_key_meaning_every_file_is_fine():
    # Cratis/Chronicle: 8 rules with only `applyTo: "**/*"` -- meant to load everywhere
    ws = make_ws(
        {
            ".claude/rules/all.md": '---\napplyTo: "**/*"\n---\nx',
            ".claude/rules/always.md": "---\nglobs: src/**\nalwaysApply: true\n---\nx",
            ".claude/rules/empty.md": "---\nglobs:\nalwaysApply: false\n---\nx",
            ".claude/rules/scoped.md": "---\napplyTo: 'src/**/*.ts'\n---\nx",
            "src/a.ts": "",
        }
    )
    assert found(ws, "invalid-frontmatter") == [
        (".claude/rules/scoped.md", 1, "invalid-frontmatter", "warning")
    ]


def test_dead_glob_beside_live_ones_is_information():
    # Cratis `**/for_*/**/*.tsx` next to `**/for_*/**/*.ts`; baglett `*.yaml` next to `*.yml`
    ws = make_ws(
        {
            ".claude/rules/docker.md": "---\npaths:\n  - '**/docker-compose*.yml'\n"
            "  - '**/docker-compose*.yaml'\n---\nx",
            ".claude/rules/dead.md": "---\npaths:\n  - 'tests/**/*'\n---\nx",
            "docker-compose.yml": "",
        }
    )
    assert found(ws, "unmatched-glob") == [
        (".claude/rules/dead.md", 2, "unmatched-glob", "warning"),
        (".claude/rules/docker.md", 3, "unmatched-glob", "information"),
    ]
    assert "never loads" in [f for f in analysis.check(ws) if f.path.endswith("dead.md")][0].message
    docker = [f for f in analysis.check(ws) if f.path.endswith("docker.md")]
    assert "still loads" in docker[0].message


def test_near_match_needs_a_similar_last_directory():
    # takerun2002: `src/components/features/canvas/**/*` was "fixed" to `.../research/**/*`
    ws = make_ws(
        {
            ".claude/rules/canvas.md": "---\npaths:\n  - src/components/features/magic-pen/**/*\n"
            "  - src/components/features/canvas/**/*\n---\nx",
            "src/components/magic-pen/a.tsx": "",
            "src/components/research/b.tsx": "",
        }
    )
    dead = [f for f in analysis.check(ws) if f.code == "unmatched-glob"]
    assert all("Did you mean" not in f.message for f in dead)  # pending until shown
    messages = sorted(
        (f.span.start.line, f.message) for f in analysis.with_suggestions(ws, dead)
    )
    assert "Did you mean `src/components/magic-pen/**/*`?" in messages[0][1]
    assert "Did you mean" not in messages[1][1]


def test_trailing_period_on_a_file_that_loads_anyway_is_information():
    # sotayamashita/claude-code-statusline CLAUDE.md: "…defined in @AGENTS.md." and "@CLAUDE.md."
    ws = make_ws(
        {
            "AGENTS.md": "a",
            "CLAUDE.md": "Rules live in @AGENTS.md.\nTools look for @CLAUDE.md.\n",
            "docs/guide.md": "g",
            "pkg/AGENTS.md": "Read @../docs/guide.md. And @../AGENTS.md.\n",
        }
    )
    got = sorted(
        (f.path, f.span.start.line, f.severity, f.message)
        for f in analysis.check(ws)
        if f.code == "suspicious-import"
    )
    assert [g[:3] for g in got] == [
        ("CLAUDE.md", 0, "information"),
        ("CLAUDE.md", 1, "information"),
        ("pkg/AGENTS.md", 0, "information"),  # the root AGENTS.md loads anyway
        ("pkg/AGENTS.md", 0, "warning"),  # docs/guide.md is lost: still a warning
    ]
    assert "loads anyway" in got[0][3]
    assert "this file itself" in got[1][3]
