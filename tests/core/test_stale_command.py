"""stale-command: scripts, targets and recipes that instructions run but task files lack."""

from __future__ import annotations

import json
from collections.abc import Mapping

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rulemap import analysis
from rulemap.checks import run_checks
from rulemap.checks.commands import Command, commands
from rulemap.checks.hints import with_suggestions
from rulemap.checks.manifests import tasks
from rulemap.checks.stale_command import resolution_at
from rulemap.diff import diff_workspaces
from rulemap.model import Document, Finding
from rulemap.readers import MemoryReader
from rulemap.workspace import Workspace


def ws_of(files: Mapping[str, str]) -> Workspace:
    return analysis.open_workspace("/w", reader=MemoryReader("/w", dict(files)))


def package(scripts: Mapping[str, str], name: str = "root", **more: object) -> str:
    return json.dumps({"name": name, "scripts": dict(scripts), **more})


ROOT = package({"test": "vitest run", "build": "tsc -b", "lint": "eslint ."},
               devDependencies={"vitest": "1"})


def stale(files: Mapping[str, str]) -> list[Finding]:
    ws = ws_of(files)
    return with_suggestions(ws, [f for f in run_checks(ws) if f.code == "stale-command"])


def names(files: Mapping[str, str]) -> list[tuple[int, str, str]]:
    return [(f.span.start.line, f.severity, f.message.split("`")[1]) for f in stale(files)]


def test_a_misspelt_npm_script_is_a_warning_with_a_did_you_mean_and_fix() -> None:
    [finding] = stale({"package.json": ROOT, "AGENTS.md": "# Dev\n\nRun `npm run tets`.\n"})
    assert finding.severity == "warning"
    assert (finding.span.start.line, finding.span.start.col, finding.span.end.col) == (2, 13, 17)
    assert "`package.json` does not define" in finding.message
    assert finding.message.endswith("did you mean `test`?")
    assert [(f.new_text, f.span) for f in finding.fixes] == [("test", finding.span)]


def test_defined_scripts_and_non_script_commands_are_quiet() -> None:
    text = ("```bash\n$ npm run build && npm test\nnpm run\nnpx tets\npnpm dlx tets\n"
            "npm install tets\nnpm run tets --if-present\npnpm tsc\nyarn vitest\n"
            "NODE_ENV=ci npm run lint\nnpm run \"$SCRIPT\"\n```\n")
    assert stale({"package.json": ROOT, "AGENTS.md": text}) == []


def test_the_shorthand_forms_report_only_names_that_read_as_scripts() -> None:
    text = "`pnpm typecheck`, `yarn test:unit`, `bun run dev`, `pnpm eslint`, `bun vitest`\n"
    assert names({"package.json": ROOT, "AGENTS.md": text}) == [
        (0, "information", "pnpm typecheck"), (0, "information", "yarn test:unit"),
        (0, "information", "bun run dev")]


@pytest.mark.parametrize("manifest", ["", "{", "[1]", "{\"scripts\": 3}"])
def test_an_empty_or_unparseable_package_json_is_unknown(manifest: str) -> None:
    assert stale({"package.json": manifest, "AGENTS.md": "`npm run tets`\n"}) == []


def test_no_package_json_at_all_is_unknown() -> None:
    assert stale({"AGENTS.md": "`npm run tets`\n"}) == []


def test_a_script_another_package_defines_is_not_reported() -> None:
    files = {"package.json": ROOT, "packages/web/package.json": package({"dev": "vite"}, "web"),
             "AGENTS.md": "Start the app with `pnpm run dev`.\n"}
    assert stale(files) == []
    # unless the command says where it runs
    files["AGENTS.md"] = "```sh\ncd packages/web\npnpm run storybook\n```\n"
    assert names(files) == [(2, "warning", "pnpm run storybook")]


def test_cd_prefix_filter_and_workspace_name_the_package() -> None:
    web = package({"dev": "vite", "storybook": "sb"}, "@acme/web")
    files = {"package.json": ROOT, "packages/web/package.json": web, "AGENTS.md": (
        "```sh\ncd packages/web && npm run storybok\nnpm --prefix packages/web run dev\n```\n"
        "`pnpm --filter @acme/web run lint` and `yarn workspace @acme/web run dev` and "
        "`npm -w @acme/web run lintt` and `pnpm -C packages/web run dev`\n")}
    found = stale(files)
    assert [(f.span.start.line, f.message.split("`")[1]) for f in found] == [
        (1, "npm run storybok"), (4, "pnpm --filter @acme/web run lint"),
        (4, "npm -w @acme/web run lintt")]
    assert found[0].message.endswith("did you mean `storybook`?")
    assert "`packages/web/package.json` does not define" in found[1].message


def test_a_nested_file_resolves_its_own_package_json() -> None:
    files = {"package.json": ROOT, "packages/web/package.json": package({"dev": "vite"}, "web"),
             "packages/web/AGENTS.md": "`pnpm run dev` then `pnpm run deploy`\n"}
    found = stale(files)
    assert [(f.path, f.message.split("`")[1]) for f in found] == [
        ("packages/web/AGENTS.md", "pnpm run deploy")]
    assert "`packages/web/package.json`" in found[0].message


def test_only_the_text_agents_receive_is_read() -> None:
    text = ("<!--\n`npm run tets`\n-->\n```python\nnpm run tets\n```\n"
            "```console\n$ npm run build\nnpm run tets\n```\n    npm run tets\n"
            "Plain prose: npm run tets.\n")
    assert stale({"package.json": ROOT, "AGENTS.md": text}) == []


MAKEFILE = (
    "include common.mk\n"
    "VAR := 1\nCC ?= cc\n\n"
    ".PHONY: test docs\n"
    "test: build\n\tpytest\n"
    "docs build:\n\tmkdocs build\n"
    "%.o: %.c\n\t$(CC) -c $<\n"
    "define HELP\nnot-a-target: x\nendef\n"
)


def test_make_targets_by_their_rule_lines() -> None:
    files = {"Makefile": MAKEFILE, "common.mk": "lint:\n\truff check\n", "dist/x": "",
             "AGENTS.md": ("```sh\nmake test docs VAR=2 -j 4 lint\nmake foo.o\nmake dist\n"
                           "make tset\nmake not-a-target\nmake -C sub test\n```\n")}
    assert names(files) == [(4, "information", "make tset"),
                            (5, "information", "make not-a-target")]
    ws = ws_of(files)
    parsed = tasks(ws, "Makefile", "make")
    assert parsed is not None and parsed.complete and parsed.names["test"] == "pytest"
    assert parsed.reads == ("Makefile", "common.mk")


@pytest.mark.parametrize("makefile", [
    "include missing.mk\ntest:\n\tx\n",  # an include that cannot be read
    "include $(ROOT)/x.mk\ntest:\n\tx\n",
    "$(TARGETS):\n\tx\ntest:\n\tx\n",  # targets made of a variable
    "%:\n\tx\n",  # match-anything
    "$(eval $(call rules))\n",
])
def test_a_makefile_whose_targets_cannot_all_be_known_reports_nothing(makefile: str) -> None:
    files = {"Makefile": makefile, "empty.mk": "", "AGENTS.md": "`make tset`\n"}
    assert stale(files) == []


def test_just_recipes_with_parameters_attributes_aliases_and_modules() -> None:
    justfile = ("set shell := [\"bash\", \"-c\"]\nversion := \"1\"\n\n[group('dev')]\n"
                "fmt check='no' *args:\n    cargo fmt\nalias f := fmt\nmod docs\n"
                "@quiet:\n    echo\n")
    files = {"justfile": justfile, "AGENTS.md": (
        "`just fmt yes` `just f` `just quiet` `just docs build` `just --list` `just` "
        "`just version` `just fromat`\n")}
    found = stale(files)
    assert [f.message.split("`")[1] for f in found] == ["just version", "just fromat"]
    assert found[1].message.endswith("did you mean `fmt`?")


def test_commands_are_found_with_their_directories() -> None:
    ws = ws_of({"AGENTS.md": "```\ncd a/b\nnpm run x; (cd ..) && make y\ncd /abs\njust z\n```\n"})
    found = commands(ws.document("AGENTS.md"))
    assert [(c.tool, c.name, c.cwd) for c in found] == [("npm", "x", "a/b"), ("make", "y", "a")]


def test_an_edit_of_the_package_json_rechecks_the_instructions() -> None:
    files = {"package.json": ROOT, "AGENTS.md": "`npm run deploy`\n"}
    ws = ws_of(files)
    assert [f.code for f in run_checks(ws)] == ["stale-command"]
    ws.reader.files[ws.abs("package.json")] = package({"deploy": "x"}).encode()  # type: ignore[attr-defined]
    ws.update(changed=["package.json"])
    assert [f.code for f in run_checks(ws)] == []


def test_a_rule_resolves_from_its_owner_and_a_hover_question_is_answered() -> None:
    files = {"package.json": ROOT, ".claude/rules/dev.md": "Run `npm run build`.\n"}
    ws = ws_of(files)
    found = resolution_at(ws, ".claude/rules/dev.md", 0, 14)
    assert found is not None and found.status == "found"
    assert (found.manifest, found.runs) == ("package.json", "tsc -b")


def test_rulemap_diff_shows_a_new_stale_command() -> None:
    base = {"package.json": ROOT, "AGENTS.md": "`npm run test`\n"}
    head = {**base, "package.json": package({"check": "vitest"})}
    d = diff_workspaces(ws_of(base), ws_of(head), profiles=["cogitator"])
    assert [(f.code, f.path) for f in d.new_findings] == [("stale-command", "AGENTS.md")]


def test_the_cli_reports_it_with_its_suggestion_and_fix_leaves_it(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from tests.core.test_cli import run

    (tmp_path / "package.json").write_text(ROOT)
    (tmp_path / "AGENTS.md").write_text("# Dev\n\nRun `npm run tets`.\n")
    result = run(["check", str(tmp_path), "--format", "json", "--suggest"], tmp_path)
    [finding] = [f for f in json.loads(result.stdout)["diagnostics"]
                 if f["code"] == "stale-command"]
    assert finding["severity"] == "warning" and "did you mean `test`?" in finding["message"]
    text = run(["check", str(tmp_path)], tmp_path).stdout
    assert "stale-command" in text and "did you mean `test`?" in text
    # the did-you-mean is a guess: `check --fix` does not apply it
    run(["check", str(tmp_path), "--fix"], tmp_path)
    assert "npm run tets" in (tmp_path / "AGENTS.md").read_text()


def test_positions_are_the_original_lines_after_stripped_comments_and_frontmatter() -> None:
    files = {"package.json": ROOT,
             "AGENTS.md": "<!--\nhidden\n-->\n# Dev\n```sh\nnpm run tets\n```\n",
             ".claude/rules/dev.md": "---\npaths: ['src/**']\n---\n\nRun `npm run buidl`.\n",
             "src/a.ts": ""}
    found = stale(files)
    assert [(f.path, f.span.start.line, f.span.start.col) for f in found] == [
        (".claude/rules/dev.md", 4, 13), ("AGENTS.md", 5, 8)]
    assert found[0].message.endswith("did you mean `build`?")


def _commands_line_by_line(doc: Document) -> list[Command]:
    """The scan as first written, one line at a time: the oracle for `commands`, which visits
    only the lines with code marks."""
    from rulemap.checks import commands as c

    text = doc.brought
    kept = doc.kept_lines
    out: list[Command] = []
    fence: tuple[str, int] | None = None
    shell = output = False
    cwd: str | None = ""
    for number, line in enumerate(text.splitlines()):
        opening = c._FENCE_OPEN.match(line) if "``" in line or "~~" in line else None
        if fence is not None:
            if (opening is not None and opening.group(1)[0] == fence[0]
                    and len(opening.group(1)) >= fence[1] and not line.strip("`~ \t")):
                fence = None
            elif shell and c._READ_IN_BLOCK.search(line):
                prompt = c._PROMPT.match(line)
                if not output or prompt is not None:
                    cwd = c._parse(line, prompt.end() if prompt else 0,
                                   kept[number] if kept else number, cwd, out)
            continue
        if opening is not None and not (opening.group(1)[0] == "`" and "`" in line[
                opening.end(1):]):
            fence = (opening.group(1)[0], len(opening.group(1)))
            language = opening.group(2).lower()
            shell, output, cwd = (language in c.SHELL_LANGUAGES,
                                  language in c._OUTPUT_LANGUAGES, "")
            continue
        if "`" not in line or not c._TOOLS_IN_TEXT.search(line) or c._NOT_TO_RUN.search(line):
            continue
        for body_start, body_end in c._code_spans(line):
            body = line[body_start:body_end]
            if c._TOOLS_IN_TEXT.search(body):
                content = " " * body_start + body
                prompt = c._PROMPT.match(content)
                c._parse(content, prompt.end() if prompt else 0,
                         kept[number] if kept else number, "", out)
    return out


_LINES = ["```bash", "```", "~~~sh", "~~~", "````", "```console", "```python", "   ```sh",
          "$ npm run build", "npm run tets", "cd web", "cd web && make docs", "pushd api",
          "Run `pnpm lint` and `yarn test:unit` now.", "Don't run `npm run old`.",
          "`make -C docs html`", "``just fmt``", "", "prose with make and just words",
          "<!-- `npm run hidden` -->", "bun run dev", "uv run task", "\tnpm run tab",
          "x\ry `npm run cr`", "`npm run a` `npm run b`"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_LINES), max_size=14), st.sampled_from(["\n", "\r\n"]))
def test_visiting_only_marked_lines_finds_what_a_line_by_line_scan_does(
        lines: list[str], newline: str) -> None:
    ws = ws_of({"AGENTS.md": newline.join(lines) + newline, "package.json": ROOT})
    doc = ws.document("AGENTS.md")
    assert commands(doc) == _commands_line_by_line(doc)


def test_the_nearest_task_file_is_right_whichever_directory_asks_first() -> None:
    # the table of nearest task files fills as directories are asked: a deep one first, then
    # its parent, then a sibling below a nearer package.json
    files = {"package.json": ROOT,
             "a/b/package.json": package({"lint": "x"}, name="b"),
             "a/b/c/d/AGENTS.md": "Run `npm run tets`.\n",
             "a/AGENTS.md": "Run `npm run tets`.\n",
             "a/b/e/AGENTS.md": "Run `npm run tets`.\n"}
    assert [(f.path, f.message.split("`")[5]) for f in stale(files)] == [
        ("a/AGENTS.md", "package.json"), ("a/b/c/d/AGENTS.md", "a/b/package.json"),
        ("a/b/e/AGENTS.md", "a/b/package.json")]


def test_lines_are_numbered_as_the_document_numbers_them() -> None:
    # `str.splitlines` would also break at the form feed and the 0x1c: the finding would sit
    # two lines too low in the editor
    for text in ("Intro\fmore\x1cstill\nRun `npm run tets`.\n",
                 "<!-- a comment -->\nIntro\fmore\x1cstill\nRun `npm run tets`.\n"):
        found = stale({"AGENTS.md": text, "package.json": ROOT})
        assert [f.span.start.line for f in found] == [text.count("\n") - 1]
