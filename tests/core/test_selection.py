"""One agent selection, said out loud (issue 36): which agents a workspace is looked at for and
why each (`host/selection.py`), the lead agent a view answers for when nobody picked one, and
the line every command prints (`cli/agents_line.py`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.cli_runner import RunCli, git_tree

from rulemap.analysis import new_workspace, open_workspace
from rulemap.config import Config, ConfigError
from rulemap.host import AnalysisHost
from rulemap.host.selection import Lead, lead_agent, selection, selection_json
from rulemap.readers import MemoryReader

GEMINI_ONLY = {"GEMINI.md": "# Project\n\nUse tabs.\n", "src/a.ts": ""}
MIXED = {"AGENTS.md": "Rules.\n", "CLAUDE.md": "@AGENTS.md\n", "GEMINI.md": "Tabs.\n",
         "src/a.ts": ""}


def snap_of(files: dict[str, str], config: Config | None = None) -> AnalysisHost:
    return AnalysisHost(new_workspace(MemoryReader("/w", files), config))


def whys(files: dict[str, str], config: Config | None = None) -> list[tuple[str, str]]:
    return [(c.name, c.why) for c in selection(snap_of(files, config).snapshot())]


# ----- the selection and its reasons ---------------------------------------------------------

MASTRA_PACKAGE = '{"name": "agent", "devDependencies": {"@mastra/core": "^1.0.0"}}'


def test_the_default_model_and_each_detected_agent_with_the_file_that_selected_it() -> None:
    assert whys(MIXED) == [("cogitator", "the default model"), ("claude-code", "CLAUDE.md"),
                           ("codex", "AGENTS.md"), ("gemini", "GEMINI.md")]
    # the file nearest the root names an agent with several
    nested = {"pkg/deep/GEMINI.md": "", "pkg/GEMINI.md": "", ".cursor/rules/b.mdc": "",
              ".cursor/rules/a.mdc": "", ".github/instructions/x.instructions.md": "",
              "docs/CONTEXT.md": "", "apps/agent/package.json": MASTRA_PACKAGE,
              "apps/web/package.json": '{"dependencies": {"react": "19"}}'}
    assert whys(nested) == [("cogitator", "the default model"),
                            ("mastra", "apps/agent/package.json: @mastra/core"),
                            ("gemini", "pkg/GEMINI.md"), ("copilot", ".github/instructions"),
                            ("cursor", ".cursor/rules/a.mdc")]


def test_the_configuration_and_the_command_line_say_they_chose(tmp_path: Path) -> None:
    assert whys(MIXED, Config(profiles=("gemini", "codex"), source="/w/rulemap.toml")) == [
        ("gemini", "rulemap.toml `profiles`"), ("codex", "rulemap.toml `profiles`")]
    assert whys(MIXED, Config(profile="claude-code", source="/w/pyproject.toml"))[:2] == [
        ("cogitator", "the default model"), ("claude-code", "pyproject.toml `profile`")]
    root = git_tree(tmp_path, MIXED)
    host = AnalysisHost(open_workspace(str(root), profiles=["codex"]))
    assert selection_json(host.snapshot()) == [
        {"name": "codex", "title": "OpenAI Codex CLI", "why": "--profiles"}]


def test_an_editor_setting_is_named_as_the_editors_not_the_files(tmp_path: Path) -> None:
    """The editor's `rulemap.profile` / `rulemap.profiles` lie over rulemap.toml: the reason
    names the setting, never the file that did not choose."""
    root = git_tree(tmp_path, {**MIXED, "rulemap.toml": 'profiles = ["codex"]\n'})
    filed = AnalysisHost(open_workspace(str(root))).snapshot()
    assert [c.why for c in selection(filed)] == ["rulemap.toml `profiles`"]
    edited = AnalysisHost(open_workspace(
        str(root), overrides={"profiles": ["gemini"], "profile": "gemini"})).snapshot()
    assert [(c.name, c.why) for c in selection(edited)] == [
        ("gemini", "the rulemap.profiles setting")]
    assert lead_agent(edited).why == "the rulemap.profile setting"


def test_all_selects_every_registered_agent(tmp_path: Path) -> None:
    from rulemap.host.catalog import agent_names

    root = git_tree(tmp_path, GEMINI_ONLY)
    every = [c.name for c in selection(AnalysisHost(open_workspace(
        str(root), profiles=["all"])).snapshot())]
    assert every == list(agent_names())
    (root / "rulemap.toml").write_text('profiles = ["all"]\n')
    chosen = selection(AnalysisHost(open_workspace(str(root))).snapshot())
    assert [c.name for c in chosen] == list(agent_names())
    assert {c.why for c in chosen} == {"rulemap.toml `profiles`"}
    (root / "rulemap.toml").write_text('profiles = ["al"]\n')
    with pytest.raises(ConfigError, match="unknown profile `al`"):
        open_workspace(str(root))


# ----- the lead agent ------------------------------------------------------------------------

def test_the_default_model_leads_wherever_it_reads_a_file() -> None:
    assert lead_agent(snap_of(MIXED).snapshot()) == Lead("cogitator", "the default model")
    # even for a target it loads nothing new for: its start-up load is not empty
    assert lead_agent(snap_of(MIXED).snapshot(), "src/a.ts").note is None


def test_an_agent_whose_files_alone_are_here_leads_with_a_note() -> None:
    lead = lead_agent(snap_of(GEMINI_ONLY).snapshot())
    assert (lead.name, lead.why) == ("gemini", "GEMINI.md")
    assert lead.note == ("cogitator, the default model, reads no instruction file here: "
                         "answering for gemini (GEMINI.md); pick cogitator to see the default "
                         "model's load.")
    # the first selected agent that reads a file, in the registry's order
    both = {"GEMINI.md": "", ".cursorrules": "", "x.ts": ""}
    assert lead_agent(snap_of(both).snapshot()).name == "gemini"


def test_a_pick_or_the_configured_profile_leads_and_an_empty_load_names_who_loads() -> None:
    snap = snap_of(GEMINI_ONLY).snapshot()
    picked = lead_agent(snap, "src/a.ts", chosen="cogitator")
    assert (picked.name, picked.why) == ("cogitator", "--profile")
    assert picked.note == "cogitator loads nothing for src/a.ts; gemini does: pick gemini to " \
        "see its load."
    configured = lead_agent(snap_of(GEMINI_ONLY, Config(profile="cogitator")).snapshot())
    assert (configured.name, configured.note) == ("cogitator", None)


def test_no_agent_reading_anything_leaves_the_default_model() -> None:
    assert lead_agent(snap_of({"src/a.ts": ""}).snapshot()) == Lead(
        "cogitator", "the default model")


# ----- the agents line -----------------------------------------------------------------------

def test_the_agents_line_wraps_without_breaking_a_name() -> None:
    from rulemap.cli.agents_line import agents_line

    snap = snap_of({**MIXED, ".cursor/rules/some-long-rule-name.mdc": ""}).snapshot()
    one = agents_line(snap, None)
    assert one == ("agents: cogitator (the default model), claude-code (CLAUDE.md), codex "
                   "(AGENTS.md), gemini (GEMINI.md), cursor "
                   "(.cursor/rules/some-long-rule-name.mdc)")
    for width in (40, 60, 80, 120):
        lines = agents_line(snap, width).split("\n")
        # no line runs past the width: a file name too long for a line loses its middle
        assert all(len(line) <= width and line == line.rstrip() for line in lines), lines
        said = " ".join(" ".join(lines).split())
        if width >= len("  (.cursor/rules/some-long-rule-name.mdc)"):
            assert said == one  # nothing lost, no word cut
        else:
            assert said == one.replace(".cursor/rules/", ".cursor/…/")
        assert all(line.startswith("  ") for line in lines[1:])


def test_mastra_is_selected_by_a_package_that_depends_on_it_not_by_context_md() -> None:
    """Mastra is a library (issue #39): CONTEXT.md alone does not select it; a package.json
    naming `@mastra/core` in any dependency table does, and nothing else in one does."""
    context = {"AGENTS.md": "", "CONTEXT.md": "", "docs/CONTEXT.md": ""}
    assert "mastra" not in dict(whys(context))
    for table in ("dependencies", "devDependencies", "peerDependencies",
                  "optionalDependencies"):
        manifest = f'{{"{table}": {{"@mastra/core": "1.0.0"}}}}'
        assert dict(whys({**context, "package.json": manifest}))["mastra"] == (
            "package.json: @mastra/core")
    for manifest in ('{"description": "works with @mastra/core"}',  # named, not depended on
                     '{"dependencies": {"@mastra/memory": "1"}}', '{"dependencies": ',
                     '["@mastra/core"]'):
        assert "mastra" not in dict(whys({**context, "package.json": manifest})), manifest


# ----- every command names its agents --------------------------------------------------------

AGENTS_LINE = "agents: cogitator (the default model), codex (AGENTS.md), gemini (GEMINI.md)"
FILES = {"AGENTS.md": "Use pnpm.\n", "GEMINI.md": "Use tabs.\n", "src/a.ts": ""}


@pytest.mark.parametrize("args", [
    ["explain", "src/a.ts"],
    ["compare", "src/a.ts"],
    ["reach", "AGENTS.md"],
    ["why", "Use pnpm"],
    ["session", "read:src/a.ts"],
    ["graph", "--format", "mermaid"],
])
def test_text_output_says_the_agents_on_stderr_and_json_as_data(
    cli: RunCli, tmp_path: Path, args: list[str]
) -> None:
    root = git_tree(tmp_path, FILES)
    code, out, err = cli(args, root)
    assert code in (0, 1) and out
    assert err.splitlines()[0] == AGENTS_LINE
    json_args = ["graph", "--format", "json"] if args[0] == "graph" else [*args, "--json"]
    code, out, err = cli(json_args, root)
    data = json.loads(out)
    # one key in every command's JSON (`reach` and `why` answer per agent under `agents`)
    assert [(a["name"], a["why"]) for a in data["selection"]] == [
        ("cogitator", "the default model"), ("codex", "AGENTS.md"), ("gemini", "GEMINI.md")]
    assert err == ""


def test_check_says_the_agents_in_its_summary_and_in_each_format(
    cli: RunCli, tmp_path: Path
) -> None:
    root = git_tree(tmp_path, FILES)
    code, out, err = cli(["check", "--no-cache"], root)
    assert out.splitlines()[-2:] == [
        AGENTS_LINE,
        "All checks passed: no findings in 2 files (instruction files, rules and imports).",
    ]
    code, out, _ = cli(["check", "--no-cache", "--format", "json"], root)
    assert [a["name"] for a in json.loads(out)["selection"]] == ["cogitator", "codex", "gemini"]
    code, out, _ = cli(["check", "--no-cache", "--format", "sarif"], root)
    run = json.loads(out)["runs"][0]
    assert [a["why"] for a in run["properties"]["selection"]] == [
        "the default model", "AGENTS.md", "GEMINI.md"]


def test_explain_answers_for_the_lead_agent_and_says_so(cli: RunCli, tmp_path: Path) -> None:
    root = git_tree(tmp_path, GEMINI_ONLY)
    code, out, err = cli(["explain", "src/a.ts"], root)
    assert code == 0 and out.startswith("gemini: loaded for src/a.ts")
    assert err == (
        "agents: cogitator (the default model), gemini (GEMINI.md)\n"
        "note: cogitator, the default model, reads no instruction file here: answering\n"
        "  for gemini (GEMINI.md); pick cogitator to see the default model's load.\n")
    code, out, err = cli(["explain", "src/a.ts", "--json"], root)
    data = json.loads(out)
    assert data["profile"] == "gemini" and [f["path"] for f in data["files"]] == ["GEMINI.md"]
    assert data["answeredFor"]["name"] == "gemini" and err == ""
    # a pick of the default model: its empty load, and which agent does load
    code, out, err = cli(["explain", "src/a.ts", "--profile", "cogitator"], root)
    assert out.startswith("cogitator: loaded for src/a.ts")
    assert "note: cogitator loads nothing for src/a.ts; gemini does: pick gemini to see" in err
    # --profiles all is accepted where --profiles is
    code, out, err = cli(["compare", "src/a.ts", "--profiles", "all"], root)
    assert code == 0 and err.startswith("agents: cogitator (--profiles), mastra (--profiles),")
