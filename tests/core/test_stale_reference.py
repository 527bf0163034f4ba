"""stale-reference: repository paths an agent receives that name nothing (docs/checks.md)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from core_helpers import make_ws
from git_repos import git, write
from hypothesis import given, settings
from hypothesis import strategies as st

from rulemap import analysis
from rulemap.checks import document_findings
from rulemap.checks.hints import with_suggestions
from rulemap.model import Finding
from rulemap.profiles import get_profile
from rulemap.readers.git_renames import parse_renames
from rulemap.text.references import path_like

SOURCES = {"src/api/users.ts": "x", "docs/guide.md": "# g\n", "packages/web/src/app.ts": "x",
           "src/lib/utils.ts": "x"}


def stale(ws) -> list[Finding]:
    return [f for f in analysis.check(ws) if f.code == "stale-reference"]


def test_a_missing_backtick_path_is_information_and_a_missing_link_a_warning() -> None:
    ws = make_ws({**SOURCES, "AGENTS.md": (
        "Edit `src/api/users.ts` and `src/api/orders.ts`.\n"
        "See [guide](docs/guide.md) and [setup](docs/setup.md#install).\n")})
    found = {(f.span.start.line, f.span.start.col, f.severity) for f in stale(ws)}
    assert found == {(0, 29, "information"), (1, 39, "warning")}
    message = stale(ws)[0].message
    assert "`src/api/orders.ts`" in message


def test_what_is_not_a_repository_path_is_never_reported() -> None:
    text = "\n".join([
        "Run `npm run build` and `git push origin/main`; globs `src/**/*.ts`, `src/{a,b}.ts`.",
        "Placeholders `src/<name>.ts`, `$HOME/x.ts`, `{{x}}/y.ts`, `src/.../x.ts`.",
        "And `path/to/file.ts`.",
        "System `/usr/bin/env.sh`, `~/.config/x.toml`, URLs `https://e.com/x.md`, `@scope/pkg.js`.",
        "Bare names `package.json`, `Node.js`; numbers `1/2`; packages `react-dom/client`.",
        "Output `dist/app.js`, `node_modules/x/y.js`; secrets `src/.env.local`.",
        "Folders named in prose `src/nope/`; not a first folder of this repo `lib/x.ts`.",
        "Links [a](#anchor) [u](https://e.com/x.md) [slug](setup) [m](mailto:a@b.c).",
        "- ❌ `src/components/UserProfile.tsx` (wrong), e.g. `src/x/y.ts`.",
        "Create `src/api/new-thing.ts` for the endpoint.",
        "Versions as letters `src/api/limits-vV.toml`, `src/api/spec.vX.json`.",
        "| Hooks | `.tool/hooks/*.json` | `.tool/settings.json` | `.other/config.toml` |",
        "```sh", "cat src/api/in-a-fence.ts", "```",
        "<!-- `src/api/in-a-comment.ts` -->",
    ])
    ws = make_ws({**SOURCES, "AGENTS.md": text})
    assert stale(ws) == []


def test_a_version_letter_or_a_tool_settings_file_is_no_exception_elsewhere() -> None:
    # `v1`, a lower-case `vx` and a settings file below the top are paths like any other
    ws = make_ws({**SOURCES, "AGENTS.md": (
        "`src/api/limits-v1.toml`, `src/api/limits-vx.toml`, `src/api/.tool/settings.json`\n")})
    assert len(stale(ws)) == 3


def test_paths_resolve_from_the_folder_the_root_or_below_another_folder() -> None:
    ws = make_ws({**SOURCES, "packages/web/AGENTS.md": (
        "`src/app.ts`, `./src/app.ts`, `src/api/users.ts` and `src/lib/utils` all exist.\n"
        "`../../src/api/users.ts` too; `./src/gone.ts` does not.\n")})
    assert [(f.span.start.line, f.span.start.col) for f in stale(ws)] == [(1, 31)]
    root = make_ws({**SOURCES, "AGENTS.md": "In packages/web, `src/app.ts` is the entry.\n"})
    assert stale(root) == []  # it names packages/web/src/app.ts, relative to another folder


def test_fenced_code_counts_when_configured() -> None:
    files = {**SOURCES, "AGENTS.md": "```\nsee `src/gone.ts`\n```\n"}
    assert stale(make_ws(files)) == []
    assert len(stale(make_ws(files, referencesInFencedCode=True))) == 1


def test_frontmatter_of_a_rule_is_not_read() -> None:
    ws = make_ws({**SOURCES, ".claude/rules/r.md": (
        "---\npaths: ['src/**']\ndescription: see `src/gone.ts`\n---\nUse `src/api/gone.ts`.\n")})
    assert [f.span.start.line for f in stale(ws)] == [4]


def test_import_tokens_are_left_to_broken_import() -> None:
    ws = make_ws({**SOURCES, "AGENTS.md": "See @src/api/gone.ts\n"})
    codes = [f.code for f in analysis.check(ws)]
    assert "broken-import" in codes and "stale-reference" not in codes


def test_mentions_in_files_only_agents_without_imports_read() -> None:
    files = {**SOURCES, ".github/copilot-instructions.md": "Follow @src/api/gone.ts and "
             "@src/api/users.ts, ask @someone, use @scope/pkg.\n"}
    ws = make_ws(files)
    ws.selected_profiles = (get_profile("cogitator"), get_profile("copilot"))
    found = stale(ws)
    assert [(f.path, f.span.start.col) for f in found] == [
        (".github/copilot-instructions.md", 7)]
    assert "GitHub Copilot reads this file" in found[0].message


def test_mdc_links_are_cursors_own_in_its_rules_and_stale_elsewhere() -> None:
    rule = "---\nalwaysApply: true\n---\nSee [x](mdc:src/gone.ts).\n"
    files = {**SOURCES, ".cursor/rules/a.mdc": rule,
             ".claude/rules/b.md": "See [y](mdc:src/no.ts)\n"}
    ws = make_ws(files)
    ws.selected_profiles = (get_profile("cogitator"), get_profile("cursor"))
    found = analysis.check(ws)
    mdc = [(f.path, f.code) for f in found if "mdc:" in f.message]
    assert (".cursor/rules/a.mdc", "broken-import") in mdc
    assert (".claude/rules/b.md", "stale-reference") in mdc
    assert (".cursor/rules/a.mdc", "stale-reference") not in mdc  # reported once


def test_same_name_file_is_offered_as_an_unsafe_fix() -> None:
    ws = make_ws({**SOURCES, "AGENTS.md": "Edit `src/api/helpers.ts`.\n",
                  "server/helpers.ts": "x"})
    (finding,) = with_suggestions(ws, stale(ws))
    assert "Moved to `server/helpers.ts` (the only file of that name)?" in finding.message
    assert [(f.kind, f.new_text) for f in finding.fixes] == [("replace", "server/helpers.ts")]


def test_the_editor_recomputes_one_document() -> None:
    ws = make_ws({**SOURCES, "AGENTS.md": "`src/gone.ts`\n"})
    assert [f.code for f in document_findings(ws, "AGENTS.md")] == ["stale-reference"]


def test_parse_renames_follows_chains_newest_first() -> None:
    out = "R100\0b.ts\0c.ts\0R090\0a.ts\0b.ts\0R100\0x.ts\0y.ts\0R100\0x.ts\0z.ts\0"
    assert parse_renames(out) == {"b.ts": "c.ts", "a.ts": "c.ts", "x.ts": "y.ts"}


def test_path_like() -> None:
    assert path_like("src/api/users.ts:12", False) == "src/api/users.ts"
    assert path_like("./scripts/build.sh", False) == "./scripts/build.sh"
    assert path_like("docs/", False) == "docs/"
    for text in ("npm run x", "src/*.ts", "<a>/b.ts", "/usr/bin", "~/.x/y", "a:b/c.ts",
                 "package.json", "@scope/pkg"):
        assert path_like(text, False) is None, text


def test_git_rename_fix_and_check_cli(tmp_path: Path, cli) -> None:
    repo = tmp_path / "r"
    repo.mkdir()
    git(repo, "init", "-q")
    write(repo, {"AGENTS.md": "Edit `src/old.ts`.\n", "src/old.ts": "export const a = 1;\n",
                 "src/other.ts": "x\n"})
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "one")
    (repo / "lib").mkdir()
    git(repo, "mv", "src/old.ts", "lib/renamed.ts")
    git(repo, "commit", "-q", "-m", "two")
    code, out, _ = cli(["check", "--no-cache", "--profiles", "cogitator", str(repo)], tmp_path)
    assert code == 0
    assert "stale-reference" in out and "Moved to `lib/renamed.ts` (renamed in git)?" in out
    code, out, _ = cli(["check", "--no-cache", "--format", "json", "--suggest",
                        "--profiles", "cogitator", str(repo)], tmp_path)
    (diag,) = [d for d in json.loads(out)["diagnostics"] if d["code"] == "stale-reference"]
    assert diag["severity"] == "information"
    # `check --fix` leaves it: the fix is a guess (fix = "unsafe")
    code, out, _ = cli(["check", "--fix", "--profiles", "cogitator", str(repo)], tmp_path)
    assert (repo / "AGENTS.md").read_text() == "Edit `src/old.ts`.\n"


def test_diff_shows_a_new_stale_reference(tmp_path: Path, cli) -> None:
    repo = tmp_path / "r"
    repo.mkdir()
    git(repo, "init", "-q")
    write(repo, {"AGENTS.md": "Edit `src/a.ts`.\n", "src/a.ts": "a\n"})
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "one")
    git(repo, "rm", "-q", "src/a.ts")
    write(repo, {"src/b.ts": "b\n"})
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "two")
    code, out, err = cli(["diff", "HEAD~1", "HEAD", "--json", "--profiles", "cogitator"], repo)
    assert code == 0, err
    assert [f["code"] for f in json.loads(out)["findings"]["new"]] == ["stale-reference"]


def test_typescript_output_names_counter_examples_and_other_repositories() -> None:
    ws = make_ws({**SOURCES, "lib/index.ts": "x", "AGENTS.md": (
        "`lib/index.js` is the entry.\n"
        "Links are extension-less (`./docs/guide`, not `./docs/guide.mdx`).\n"
        "Operator setup: `docs/AUTH.md` in `owner/other-repo`.\n"
        "Exports to `src/api/issues.jsonl` after changes.\n"
        "Still `src/api/gone.ts`.\n")})
    assert [f.span.start.line for f in stale(ws)] == [4]


def test_a_symlinked_file_resolves_from_its_real_folder() -> None:
    ws = make_ws({**SOURCES, ".ai/rules/general.md": "See [f](./framework.md).\n",
                  ".ai/rules/framework.md": "x"},
                 symlinks={"AGENTS.md": ".ai/rules/general.md"})
    assert [f for f in stale(ws) if f.path == "AGENTS.md"] == []


def test_no_repository_no_renames() -> None:
    from rulemap.readers.git_renames import recent_renames

    assert recent_renames(make_ws({"AGENTS.md": "x"}).reader) == {}


# the code-span pattern as first written (a group first): the one in text/references.py must
# find the same spans, only faster (its branches start with a literal)
_SPEC = re.compile(
    r"(?P<ticks>`+)(?P<code>[^`\n]+?)(?P=ticks)(?!`)"
    r"|\]\((?:<(?P<angle>[^>\n]+)>|(?P<link>[^)\s]+))(?:\s+[\"'][^\"'\n]*[\"'])?\)")


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="`ab/ .\n](<>)\"x", max_size=60))
def test_the_fast_pattern_finds_what_the_written_one_does(text: str) -> None:
    from rulemap.text.references import _PATTERN

    def found(pattern: re.Pattern[str]) -> list[tuple[object, ...]]:
        return [(m.span(), m.group("code"), m.group("link"), m.group("angle"))
                for m in pattern.finditer(text)]

    assert found(_PATTERN) == found(_SPEC)


# ----- paths absent by design (issue #39, item 6) ------------------------------------------


def test_a_path_the_sentence_tells_the_agent_to_write_is_not_stale() -> None:
    ws = make_ws({**SOURCES, ".aiwg/planning/roadmap.md": "x", "AGENTS.md": "\n".join([
        "Update `.aiwg/activity.log` after each task.",
        "When work advances, update `.aiwg/planning/roadmap.md` and `.aiwg/planning/next.md`.",
        "Append a one-line summary of the session to `docs/sessions.md`.",
        "Log every deploy to `docs/deploys.log`; save the report as `docs/report.md`.",
        # still stale: read, see, another action's object, a second verb, a noun
        "Read `docs/decisions.md` first.",
        "See `docs/style.md` for names.",
        "Write tests for `src/api/parser.ts` first.",
        "Update the changelog, then check `docs/release.md`.",
        "The log in `docs/old.log` is kept.",
    ])})
    assert [f.span.start.line for f in stale(ws)] == [4, 5, 6, 7, 8]


def test_to_write_needs_the_path_as_the_verbs_object_in_its_clause() -> None:
    from rulemap.text.references import to_write

    assert to_write("update ") and to_write("Agents must append a single-line entry to ")
    assert to_write("update `a.md` and ") and to_write("Write a summary of each session to ")
    assert to_write("7. **Log event**: append a `check` event to ")
    for before in ("see ", "Audit ", "read ", "write tests for ", "copy the template from ",
                   "update the docs. See ", "update deps and run ", "the log in ",
                   "The update script lives in ", "save a copy of ", "update it with "):
        assert not to_write(before), before


def test_a_git_ignored_path_is_not_stale(tmp_path: Path, cli) -> None:
    write(tmp_path, {
        ".gitignore": ".aiwg/activity.log\n",
        ".aiwg/planning/roadmap.md": "x\n",
        "AGENTS.md": "Read `.aiwg/activity.log` to see what happened.\n"
                     "Read `.aiwg/planning/release.md` before a release.\n"})
    code, out, _ = cli(["check", "--no-cache", "--format", "json", "--profiles", "cogitator",
                        str(tmp_path)], tmp_path)
    found = [d for d in json.loads(out)["diagnostics"] if d["code"] == "stale-reference"]
    # the ignored log is absent by design; the missing file git does not ignore is stale
    assert [d["range"]["start"]["line"] for d in found] == [1]
    assert ".aiwg/planning/release.md" in found[0]["message"]


def test_the_workspaces_own_gitignores_are_read_where_the_reader_walks_none() -> None:
    # a commit's tree (`--ref`) or a memory reader ignores nothing itself: the .gitignore
    # files it holds say what is absent by design, each below its own folder
    ws = make_ws({**SOURCES, ".gitignore": "# state\n.aiwg/working/\n", ".aiwg/plan.md": "x",
                  "docs/.gitignore": "*.log\n", "AGENTS.md": "\n".join([
                      "Read `.aiwg/working/progress.md` first.",
                      "Read `docs/build.log` next.",
                      "Read `src/api/build.log` then.",
                      "Read `.aiwg/other.md` last."])})
    assert [f.span.start.line for f in stale(ws)] == [2, 3]
