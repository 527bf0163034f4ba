"""`rulemap.reach`: who loads a file, per agent — the reverse of `explain` — and the CLI's
`rulemap reach PATH[:LINE]` (docs/reach.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.cli_runner import RunCli, git_tree

from rulemap.analysis import new_workspace
from rulemap.profiles import get_profile
from rulemap.reach import AgentReach, reach
from rulemap.readers import MemoryReader
from rulemap.why import Place, Verdict, find, why

LONG = "".join(f"line {i:04} of a long AGENTS.md, past Codex's budget at the end\n"
               for i in range(700))  # ~45 KB: Codex reads 32 KiB of it
FILES = {
    "AGENTS.md": "# Project\n\nUse pnpm.\n\nSee @docs/style.md\n",
    "CLAUDE.md": "@AGENTS.md\n",
    "docs/style.md": "Four spaces.\n",
    ".claude/rules/api.md": '---\npaths: ["src/api/**"]\n---\nValidate input.\n',
    "src/api/a.ts": "",
    "src/api/b.ts": "",
    "src/web/c.ts": "",
    "src/web/AGENTS.md": "# Web\n",
}
ALL = ("cogitator", "claude-code", "codex", "gemini")


def _reach(files: dict[str, str], key: str, line: int | None = None, cwd: str = "",
           names: tuple[str, ...] = ALL) -> dict[str, AgentReach]:
    ws = new_workspace(MemoryReader("/w", files))
    result = reach(ws, key, line, [get_profile(n) for n in names], cwd)
    assert result.files == len(ws.files)
    return {a.profile: a for a in result.agents}


def test_the_root_file_reaches_every_file_at_start_up_for_each_agent_reading_it() -> None:
    got = _reach(FILES, "AGENTS.md")
    for name in ("cogitator", "codex"):
        [way] = got[name].ways
        assert (way.reason, way.position, way.before, way.start_up) == ("project", 1, 0, True)
        assert way.where.every and way.where.count == len(FILES)
    # Claude Code reads it through CLAUDE.md's import, after CLAUDE.md's 11 characters
    [way] = got["claude-code"].ways
    assert (way.reason, way.imported_by, way.position, way.before) == (
        "import", "CLAUDE.md", 2, len(FILES["CLAUDE.md"]))
    assert got["gemini"].never == "Gemini CLI does not read it" and not got["gemini"].ways


def test_an_imported_file_names_its_importer_and_what_comes_before_it() -> None:
    [way] = _reach(FILES, "docs/style.md")["cogitator"].ways
    assert (way.reason, way.imported_by, way.position) == ("import", "AGENTS.md", 2)
    assert way.before == len(FILES["AGENTS.md"])


def test_a_scoped_rule_reaches_the_files_its_globs_match() -> None:
    got = _reach(FILES, ".claude/rules/api.md")
    for name in ("cogitator", "claude-code"):
        [way] = got[name].ways
        assert way.reason == "scoped" and way.where.under == "src/api" and way.where.every
        assert got[name].files == 2 and way.example == "src/api/a.ts"
    assert got["codex"].never is not None


def test_a_nested_file_reaches_its_directory_and_codex_says_which_cwd_loads_it() -> None:
    got = _reach(FILES, "src/web/AGENTS.md")
    [way] = got["cogitator"].ways
    assert way.reason == "nested" and way.where.under == "src/web" and got["cogitator"].files == 2
    assert got["codex"].never == ("not with OpenAI Codex CLI working in `.`: it loads at start-up "
                                  "when the agent works in `src/web` (--cwd src/web)")
    [way] = _reach(FILES, "src/web/AGENTS.md", cwd="src/web")["codex"].ways
    assert way.start_up and way.reason == "project" and way.where.every


def test_a_line_past_codexs_budget_is_cut_and_one_before_it_is_read() -> None:
    files = {**FILES, "AGENTS.md": LONG}
    early = _reach(files, "AGENTS.md", line=3, names=("codex",))["codex"]
    [way] = early.ways
    assert way.cut_line is not None and 3 < way.cut_line < 699
    assert way.size == 32 * 1024 and early.unit == "bytes"
    assert early.seen == early.files == len(files)
    late = _reach(files, "AGENTS.md", line=690, names=("codex",))["codex"]
    assert late.files == len(files) and late.seen == 0 and not late.ways[0].seen


def test_load_groups_and_one_explanation_per_file_give_the_same_reach(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A profile without load groups is explained file by file: the same answer."""
    for name in ("cogitator", "claude-code", "codex"):
        for key in ("AGENTS.md", "docs/style.md", ".claude/rules/api.md", "src/web/AGENTS.md"):
            ws = new_workspace(MemoryReader("/w", FILES))
            profile = get_profile(name)
            grouped = reach(ws, key, None, [profile], "").to_json()
            monkeypatch.setattr(type(profile), "load_groups", lambda self, ws, cwd: None)
            monkeypatch.setattr(type(profile), "load_groups_for",
                                lambda self, ws, cwd, key: None)
            single = reach(new_workspace(MemoryReader("/w", FILES)), key, None, [profile],
                           "").to_json()
            monkeypatch.undo()
            assert single == grouped, (name, key)


# ----- the CLI ------------------------------------------------------------------------------

def test_the_cli_prints_each_agents_reach(cli: RunCli, tmp_path: Path) -> None:
    root = git_tree(tmp_path, FILES)
    code, out, err = cli(["reach", "AGENTS.md:3", "--profiles", "cogitator,codex,gemini"], root)
    # which agents answered, and why (on stderr: the result stays on stdout)
    assert (code, err) == (0, "agents: cogitator (--profiles), codex (--profiles), gemini "
                              "(--profiles)\n")
    assert out.splitlines()[0] == f"AGENTS.md, line 3 — who loads it ({len(FILES)} files in the " \
        "workspace, cwd .)"
    assert (f"Cogitator (default) (cogitator): {len(FILES)} files · maxChars 32,000 chars; "
            "line 3 reaches it for all") in out
    assert f"  every file ({len(FILES)}): project file, at start-up; 1st in the load, 0 chars " \
        "before it" in out
    assert "Gemini CLI (gemini): never — Gemini CLI does not read it" in out


def test_the_cli_json_and_usage_errors(cli: RunCli, tmp_path: Path) -> None:
    root = git_tree(tmp_path, FILES)
    code, out, _ = cli(["reach", "docs/style.md", "--json", "--profiles", "cogitator"], root)
    data = json.loads(out)
    assert code == 0 and data["path"] == "docs/style.md" and data["line"] is None
    [agent] = data["agents"]
    assert agent["files"] == len(FILES) and agent["ways"][0]["importedBy"] == "AGENTS.md"
    for args, message in (
        (["reach", "nope.md"], "nope.md: no such file in the workspace"),
        (["reach", "AGENTS.md:99"], "AGENTS.md: line 99 is past its end (it has 5 lines)"),
        (["reach", "AGENTS.md:0"], "AGENTS.md:0: lines are numbered from 1"),
        (["reach", "."], "PATH is the workspace root"),
    ):
        code, _, err = cli(args, root)
        assert code == 2 and message in err, (args, err)



# ----- rulemap why ---------------------------------------------------------------------------

WHY_FILES = {**FILES, "AGENTS.md": "# Project\n\nUse pnpm.\n\n<!--\nOld: use npm.\n-->\n\n"
             "See @docs/style.md\n"}


def _why(files: dict[str, str], text: str, target: str | None = None,
         names: tuple[str, ...] = ("cogitator", "claude-code", "codex")) -> dict[str, Verdict]:
    ws = new_workspace(MemoryReader("/w", files))
    result = why(ws, text, target, [get_profile(n) for n in names], "")
    return {v.profile: v for v in result.agents}


def test_why_a_sentence_at_start_up_reaches_each_agent_that_loads_its_file() -> None:
    got = _why(WHY_FILES, "Use pnpm")
    assert all(v.seen and v.place == Place("AGENTS.md", 2, True) for v in got.values())
    assert got["claude-code"].why == ("reaches the model at start-up: `AGENTS.md` line 3, the "
                                      "2nd file of the load (imported by `CLAUDE.md`)")


def test_why_whitespace_runs_count_as_one_space() -> None:
    ws = new_workspace(MemoryReader("/w", WHY_FILES))
    assert find(ws, "Use    pnpm.") == [Place("AGENTS.md", 2, False)]
    assert find(ws, "nowhere at all") == []


def test_why_a_line_inside_an_html_comment_is_stripped_for_the_agents_that_strip_it() -> None:
    got = _why(WHY_FILES, "Old: use npm")
    for name in ("cogitator", "claude-code"):
        assert not got[name].seen and got[name].why.startswith(
            "stripped: line 6 of `AGENTS.md` is inside an HTML comment")
    assert got["codex"].seen


def test_why_an_import_codex_does_not_follow_and_a_rule_that_does_not_match() -> None:
    got = _why(WHY_FILES, "Four spaces")
    assert got["cogitator"].seen and not got["codex"].seen
    assert got["codex"].why.startswith("`AGENTS.md` imports it, but OpenAI Codex CLI does not "
                                       "follow that import at start-up")
    start = _why(WHY_FILES, "Validate input")["cogitator"]
    assert not start.seen and "never at start-up" in start.why
    other = _why(WHY_FILES, "Validate input", "src/web/c.ts")["cogitator"]
    assert other.why == ("`.claude/rules/api.md` is a rule whose globs do not match "
                         "`src/web/c.ts` (a glob such as `src/web/**` would)")
    assert _why(WHY_FILES, "Validate input", "src/api/a.ts")["cogitator"].seen


def test_why_a_line_past_codexs_budget_is_cut() -> None:
    files = {**FILES, "AGENTS.md": LONG}
    got = _why(files, "line 0690 of a long", names=("codex",))["codex"]
    assert not got.seen and got.why.startswith("cut: OpenAI Codex CLI stops reading `AGENTS.md` "
                                               "at line ")
    assert "project_doc_max_bytes (32,768 bytes)" in got.why
    assert _why(files, "line 0003 of a long", names=("codex",))["codex"].seen


def test_why_on_the_command_line_exits_1_when_an_agent_misses_it(cli: RunCli,
                                                                  tmp_path: Path) -> None:
    root = git_tree(tmp_path, WHY_FILES)
    code, out, err = cli(["why", "Use pnpm", "--profiles", "cogitator,codex"], root)
    assert err == "agents: cogitator (--profiles), codex (--profiles)\n"
    assert code == 0 and out.startswith("'Use pnpm' — found in AGENTS.md:3; at "
                                                     "start-up (cwd .)")
    assert "yes  OpenAI Codex CLI: reaches the model at start-up" in out
    code, out, _ = cli(["why", "Four spaces", "--json", "--profiles", "cogitator,codex"], root)
    data = json.loads(out)
    assert code == 1 and data["seenByAll"] is False
    assert [a["seen"] for a in data["agents"]] == [True, False]
    code, _, err = cli(["why", "not written anywhere"], root)
    assert code == 2 and "'not written anywhere' is in no instruction file" in err


def test_the_overview_counts_what_reach_counts_for_every_file() -> None:
    """The editor's lens reads one overview per agent (every file at once): the same files,
    cuts and left-outs as `reach` for each file."""
    from rulemap.reach import overview

    files = {**FILES, "CLAUDE.md": "@AGENTS.md\n", "docs/big.md": LONG,
             "src/web/AGENTS.md": "# Web\n\n@../../docs/big.md\n"}
    ws = new_workspace(MemoryReader("/w", files))
    for name in ("cogitator", "claude-code", "codex", "gemini", "copilot", "cursor", "mastra"):
        profile = get_profile(name)
        glimpses = overview(ws, profile, "")
        assert glimpses is not None
        for key in ("AGENTS.md", "docs/style.md", ".claude/rules/api.md", "src/web/AGENTS.md",
                    "docs/big.md"):
            [agent] = reach(ws, key, None, [profile], "").agents
            glimpse = glimpses.get(key)
            got = (glimpse.files, glimpse.cut, glimpse.left_out) if glimpse else (0, 0, 0)
            left = agent.left_out.count if agent.left_out else 0
            assert got == (agent.files, agent.cut, left), (name, key)


def test_a_cut_counted_in_characters_is_placed_at_its_line() -> None:
    """Cogitator cuts by characters and names no line: reach and why place the cut where
    the brought text ends (line 0640 of a file cut at 32,000 characters is not read)."""
    files = {**FILES, "AGENTS.md": LONG}
    [way] = _reach(files, "AGENTS.md", line=690, names=("cogitator",))["cogitator"].ways
    assert way.cut_line is not None and 400 < way.cut_line < 690 and not way.seen
    got = _why(files, "line 0690 of a long", names=("cogitator",))["cogitator"]
    assert not got.seen and got.why.startswith("cut: Cogitator (default) stops reading "
                                               "`AGENTS.md` at line ")


def test_a_line_inside_an_html_comment_reaches_no_agent_that_strips_it() -> None:
    files = {**FILES, "AGENTS.md": "# Project\n\n<!-- for people only -->\nUse pnpm.\n"}
    got = _reach(files, "AGENTS.md", 2, names=("cogitator", "codex"))
    assert got["cogitator"].stripped and got["cogitator"].seen == 0
    assert got["cogitator"].to_json()["stripped"] is True
    assert not got["codex"].stripped and got["codex"].seen == len(files)  # bytes as they are
    # the line after it reaches both
    after = _reach(files, "AGENTS.md", 3, names=("cogitator", "codex"))
    assert not after["cogitator"].stripped and after["cogitator"].seen == len(files)


def test_reach_text_says_a_comment_line_is_removed(cli: RunCli, tmp_path: Path) -> None:
    root = git_tree(tmp_path, {**FILES, "AGENTS.md": "# P\n\n<!-- note -->\nBody.\n"})
    code, out, _ = cli(["reach", "AGENTS.md:3", "--profiles", "cogitator"], root)
    assert code == 0
    assert "line 3 is inside an HTML comment, which it removes: it reaches none" in out


def test_why_over_a_session_names_the_step_a_rule_joins_at() -> None:
    from rulemap.profiles.steps import ToolStep
    from rulemap.why import why_in_session

    ws = new_workspace(MemoryReader("/w", FILES))
    profiles = [get_profile(n) for n in ("cogitator", "claude-code", "codex")]
    steps = [ToolStep("read", ("src/web/c.ts",)), ToolStep("read", ("src/api/a.ts",))]
    got = {v.profile: v for v in why_in_session(ws, "Validate input", steps, profiles,
                                                "").agents}
    for name in ("cogitator", "claude-code"):
        assert got[name].seen, got[name]
        assert got[name].why.endswith("it joins at step 2 (read `src/api/a.ts`)")
    assert not got["codex"].seen and got["codex"].why.startswith("OpenAI Codex CLI does not "
                                                                 "read it")
    # a run that never touches src/api: the rule's globs match no step's file
    result = why_in_session(ws, "Validate input", steps[:1], profiles, "")
    assert result.session == 1 and result.to_json()["sessionSteps"] == 1
    claude = next(v for v in result.agents if v.profile == "claude-code")
    assert not claude.seen and claude.why == ("`.claude/rules/api.md` is a scoped rule whose "
                                              "globs match no file a step of the session "
                                              "reads or edits")
    # the start-up file joins at step 0
    [start] = why_in_session(ws, "Use pnpm", steps, profiles[:1], "").agents
    assert start.seen and start.why.endswith("it joins at start-up")


def test_why_session_on_the_command_line(cli: RunCli, tmp_path: Path) -> None:
    root = git_tree(tmp_path, FILES)
    (root / "run.json").write_text(json.dumps([{"kind": "read", "paths": ["src/api/a.ts"]}]))
    code, out, err = cli(["why", "Validate input", "--session", "run.json",
                          "--profiles", "claude-code"], root)
    assert (code, err) == (0, "agents: claude-code (--profiles)\n")
    assert out.startswith("'Validate input' — found in .claude/rules/api.md:4; over the "
                          "session's 1 step (cwd .)")
    assert "it joins at step 1 (read `src/api/a.ts`)" in out
    code, _, err = cli(["why", "Validate input", "src/api/a.ts", "--session", "run.json"], root)
    assert code == 2 and "give TARGET or --session, not both" in err
    code, _, err = cli(["why", "Validate input", "--session", "missing.json"], root)
    assert code == 2 and "--session missing.json: no such file" in err


def test_a_file_no_load_reaches_says_why_by_its_importer() -> None:
    """An import past the depth limit is named as such; a file behind it points at its
    importer; an agent that does not follow imports says so."""
    chain = {f"docs/{a}.md": f"@{b}.md\n" for a, b in zip("abcde", "bcdef", strict=True)}
    files = {"AGENTS.md": "# P\n\n@docs/a.md\n", **chain, "docs/f.md": "deep\n", "x.ts": ""}
    got = _reach(files, "docs/e.md", names=("cogitator", "codex"))
    assert got["cogitator"].never == ("Cogitator (default) skips it at start-up: import hop 5 "
                                      "is past maxImportDepth 4 (imported by `docs/d.md`)")
    # Codex never gets to docs/d.md: nothing to say of its import
    assert got["codex"].never == "OpenAI Codex CLI does not read it"
    first = _reach(files, "docs/a.md", names=("codex",))["codex"].never
    assert first == ("`AGENTS.md` imports it, but OpenAI Codex CLI does not follow `@` "
                     "imports; OpenAI Codex CLI does not read it")
    behind = _reach(files, "docs/f.md", names=("cogitator",))["cogitator"].never
    assert behind is not None and behind.startswith(
        "`docs/e.md` imports it, but no load of Cogitator (default) follows that import")
