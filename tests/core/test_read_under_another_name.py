"""A file read under another name (issue #39 item 9, docs/reach.md "A file read under another
name"): `reach`, `why`, `explain` and the host's per-path question answer for the text, and say
the other name an agent reads it under — a symlink either way, one wording (`aliases.Through`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.cli_runner import RunCli, git_tree

from rulemap.aliases import Through, entries_of, preferred, same_text
from rulemap.analysis import new_workspace
from rulemap.host.aliasing import load_names, read_as
from rulemap.host.snapshot import Snapshot
from rulemap.profiles import get_profile
from rulemap.reach import AgentReach, overview, reach
from rulemap.readers import MemoryReader
from rulemap.why import why

TEXT = "# Project\n\nUse pnpm.\n\n<!-- Maintainers: keep this short. -->\n"
ALL = ("cogitator", "claude-code", "codex", "gemini")
# the other name Claude Code reads AGENTS.md under, as JSON (`through`)
CLAUDE_VIA = {"path": "CLAUDE.md", "how": "symlink", "real": "AGENTS.md",
              "text": "reads its text as `CLAUDE.md` (a symlink to `AGENTS.md`)"}


def _ws(files: dict[str, str], links: dict[str, str]) -> Any:
    return new_workspace(MemoryReader("/w", {**files, "src/a.ts": ""}, symlinks=links))


def _reach(ws: Any, key: str, line: int | None = None,
           names: tuple[str, ...] = ALL) -> dict[str, AgentReach]:
    result = reach(ws, key, line, [get_profile(n) for n in names], "")
    return {a.profile: a for a in result.agents}


def test_the_wording_names_which_name_is_the_link() -> None:
    assert Through("CLAUDE.md", "AGENTS.md", "AGENTS.md").phrase() == \
        "`CLAUDE.md` (a symlink to `AGENTS.md`)"
    assert Through("AGENTS.md", "CLAUDE.md", "AGENTS.md").phrase() == \
        "`AGENTS.md` (`CLAUDE.md` is a symlink to it)"
    assert Through("GEMINI.md", "CLAUDE.md", "AGENTS.md").phrase() == \
        "`GEMINI.md` (a symlink to `AGENTS.md`, as `CLAUDE.md` is)"
    assert Through("CLAUDE.md", "AGENTS.md", "AGENTS.md").to_json() == CLAUDE_VIA


def test_two_names_of_one_file_are_one_text_and_the_real_name_is_preferred() -> None:
    ws = _ws({"AGENTS.md": TEXT}, {"CLAUDE.md": "AGENTS.md"})
    assert same_text(ws, "CLAUDE.md", "AGENTS.md") and not same_text(ws, "CLAUDE.md", "src/a.ts")
    assert preferred(ws, ["CLAUDE.md", "AGENTS.md"]) == "AGENTS.md"
    explanation = get_profile("claude-code").explain(ws, None, "")
    [(index, entry)] = entries_of(ws, explanation, "AGENTS.md")
    assert (index, entry.path) == (0, "CLAUDE.md")


def test_reach_of_the_target_says_claude_code_reads_it_as_the_link() -> None:
    """CLAUDE.md -> AGENTS.md (the demo): Claude Code reads AGENTS.md's text as CLAUDE.md at
    start-up — not "never" —; Codex and the default model by its own name."""
    ws = _ws({"AGENTS.md": TEXT}, {"CLAUDE.md": "AGENTS.md"})
    got = _reach(ws, "AGENTS.md")
    [way] = got["claude-code"].ways
    # every file of the workspace: AGENTS.md, its link and src/a.ts
    assert got["claude-code"].never is None and got["claude-code"].files == 3
    assert (way.reason, way.position, way.start_up) == ("project", 1, True)
    assert way.through == Through("CLAUDE.md", "AGENTS.md", "AGENTS.md")
    assert way.to_json()["through"] == CLAUDE_VIA
    for name in ("cogitator", "codex"):
        [way] = got[name].ways
        assert way.through is None and way.also == ()
    assert got["gemini"].never == "Gemini CLI does not read it"


def test_reach_of_the_link_says_the_others_read_its_text_as_the_target() -> None:
    """The reverse question: `reach CLAUDE.md` — Codex and the default model read its text as
    AGENTS.md (before: "never", "skips it: already loaded as AGENTS.md")."""
    ws = _ws({"AGENTS.md": TEXT}, {"CLAUDE.md": "AGENTS.md"})
    got = _reach(ws, "CLAUDE.md")
    for name in ("cogitator", "codex"):
        [way] = got[name].ways
        assert got[name].never is None and way.start_up
        assert way.through == Through("AGENTS.md", "CLAUDE.md", "AGENTS.md")
        assert way.through.phrase() == "`AGENTS.md` (`CLAUDE.md` is a symlink to it)"
    [way] = got["claude-code"].ways
    assert way.through is None


def test_the_link_in_the_other_direction() -> None:
    """AGENTS.md -> CLAUDE.md (CLAUDE.md the real file): Claude Code reads CLAUDE.md by its
    name, Codex AGENTS.md by its; each answers for the other name through the link."""
    ws = _ws({"CLAUDE.md": TEXT}, {"AGENTS.md": "CLAUDE.md"})
    got = _reach(ws, "CLAUDE.md")
    [codex] = got["codex"].ways
    assert codex.through == Through("AGENTS.md", "CLAUDE.md", "CLAUDE.md")
    assert codex.through.phrase() == "`AGENTS.md` (a symlink to `CLAUDE.md`)"
    got = _reach(ws, "AGENTS.md")
    [claude] = got["claude-code"].ways
    assert claude.through == Through("CLAUDE.md", "AGENTS.md", "CLAUDE.md")
    assert claude.through.phrase() == "`CLAUDE.md` (`AGENTS.md` is a symlink to it)"


def test_a_stripped_line_is_said_once_for_the_text_whichever_name_is_asked() -> None:
    """Line 5 is an HTML comment: Claude Code and the default model remove it, Codex does
    not — the same answer asked as AGENTS.md or as CLAUDE.md."""
    ws = _ws({"AGENTS.md": TEXT}, {"CLAUDE.md": "AGENTS.md"})
    for key in ("AGENTS.md", "CLAUDE.md"):
        got = _reach(ws, key, 4)
        assert got["claude-code"].stripped and not got["claude-code"].seen
        assert got["cogitator"].stripped and not got["cogitator"].seen
        assert not got["codex"].stripped and got["codex"].seen == got["codex"].files


def test_copilots_instructions_linked_to_agents_md_are_read_twice_and_said_so() -> None:
    """`.github/copilot-instructions.md -> ../AGENTS.md`: Copilot's coding agent lists both
    names (docs/profiles/copilot.md), so the same load reads the text again."""
    ws = _ws({"AGENTS.md": TEXT}, {".github/copilot-instructions.md": "../AGENTS.md"})
    [way] = _reach(ws, "AGENTS.md", names=("copilot",))["copilot"].ways
    assert way.through is None and way.also == (".github/copilot-instructions.md",)
    assert way.to_json()["alsoAs"] == [".github/copilot-instructions.md"]
    [way] = _reach(ws, ".github/copilot-instructions.md", names=("copilot",))["copilot"].ways
    assert way.also == ("AGENTS.md",)


def test_gemini_md_linked_to_agents_md() -> None:
    ws = _ws({"AGENTS.md": TEXT}, {"GEMINI.md": "AGENTS.md"})
    [way] = _reach(ws, "AGENTS.md", names=("gemini",))["gemini"].ways
    assert way.through == Through("GEMINI.md", "AGENTS.md", "AGENTS.md")


def test_an_import_of_the_same_file_is_the_file_itself() -> None:
    """CLAUDE.md holding `@AGENTS.md`: Claude Code reads AGENTS.md as itself, imported."""
    ws = _ws({"AGENTS.md": TEXT, "CLAUDE.md": "@AGENTS.md\n"}, {})
    [way] = _reach(ws, "AGENTS.md", names=("claude-code",))["claude-code"].ways
    assert (way.reason, way.imported_by, way.through) == ("import", "CLAUDE.md", None)
    [verdict] = why(ws, "Use pnpm", None, [get_profile("claude-code")], "").agents
    assert verdict.seen and verdict.through is None
    assert "(imported by `CLAUDE.md`)" in verdict.why


def test_why_answers_for_the_text_and_names_the_link_once() -> None:
    ws = _ws({"AGENTS.md": TEXT}, {"CLAUDE.md": "AGENTS.md"})
    profiles = [get_profile(n) for n in ("claude-code", "codex")]
    result = why(ws, "Use pnpm", None, profiles, "")
    assert [p.path for p in result.places] == ["AGENTS.md"]
    claude, codex = result.agents
    assert claude.seen and claude.place.path == "AGENTS.md"
    assert claude.why == ("reaches the model at start-up: `AGENTS.md` line 3, read as "
                          "`CLAUDE.md` (a symlink to `AGENTS.md`), the 1st file of the load "
                          "(project)")
    assert claude.to_json()["through"] == CLAUDE_VIA
    assert codex.seen and codex.through is None
    claude, codex = why(ws, "Maintainers: keep", None, profiles, "").agents
    assert not claude.seen and claude.why == (
        "stripped: line 5 of `AGENTS.md`, which Claude Code reads as `CLAUDE.md` (a symlink "
        "to `AGENTS.md`), is inside an HTML comment, which Claude Code removes before the "
        "model sees the file")
    assert codex.seen


def test_why_finds_the_text_in_the_real_file_when_the_link_sorts_first() -> None:
    """AGENTS.md -> CLAUDE.md: the place is CLAUDE.md, the real file, though `AGENTS.md`
    sorts first; Codex reads it as AGENTS.md."""
    ws = _ws({"CLAUDE.md": TEXT}, {"AGENTS.md": "CLAUDE.md"})
    result = why(ws, "Use pnpm", None, [get_profile("codex")], "")
    assert [p.path for p in result.places] == ["CLAUDE.md"]
    [codex] = result.agents
    assert codex.through == Through("AGENTS.md", "CLAUDE.md", "CLAUDE.md")


def test_the_overview_gives_the_other_name_its_glimpse() -> None:
    """The editor's lens and hover read the overview: AGENTS.md gets CLAUDE.md's glimpse for
    Claude Code, saying the name; a file no name of which loads gets none."""
    ws = _ws({"AGENTS.md": TEXT, "docs/x.md": "x\n"}, {"CLAUDE.md": "AGENTS.md"})
    glimpses = overview(ws, get_profile("claude-code"), "")
    assert glimpses is not None
    assert glimpses["AGENTS.md"].files == glimpses["CLAUDE.md"].files == 4
    assert glimpses["AGENTS.md"].through == Through("CLAUDE.md", "AGENTS.md", "AGENTS.md")
    assert glimpses["AGENTS.md"].strips is True
    assert glimpses["CLAUDE.md"].through is None and "docs/x.md" not in glimpses


def test_the_host_says_the_name_the_snapshots_agent_loads_and_the_loads_links() -> None:
    ws = _ws({"AGENTS.md": TEXT}, {"CLAUDE.md": "AGENTS.md"})
    claude = Snapshot(ws, "claude-code")
    found = read_as(claude, "AGENTS.md")
    assert found is not None and found.status.loads and found.status.files == 3
    assert found.through == Through("CLAUDE.md", "AGENTS.md", "AGENTS.md")
    assert read_as(claude, "CLAUDE.md") is None  # it loads by its own name
    assert read_as(Snapshot(ws, "codex"), "AGENTS.md") is None
    found = read_as(Snapshot(ws, "codex"), "CLAUDE.md")
    assert found is not None and found.through.path == "AGENTS.md"
    [link] = load_names(claude, claude.explain(None))
    assert (link.asked, link.path) == ("CLAUDE.md", "AGENTS.md")
    assert load_names(Snapshot(ws, "codex"), Snapshot(ws, "codex").explain(None)) == ()


def _json(cli: RunCli, root: Path, *args: str) -> dict[str, Any]:
    code, out, err = cli([*args, "--json"], root)
    assert code in (0, 1), (args, out, err)
    data: dict[str, Any] = json.loads(out)
    return data


def test_the_cli_reach_why_and_explain_agree(cli: RunCli, tmp_path: Path) -> None:
    """On disk, through the command line: reach, why and explain say the same name."""
    root = git_tree(tmp_path, {"AGENTS.md": TEXT})
    (root / "CLAUDE.md").symlink_to("AGENTS.md")
    profiles = ("--profiles", "claude-code,codex")
    code, out, _ = cli(["reach", "AGENTS.md", *profiles], root)
    assert code == 0
    flat = " ".join(out.split())
    assert ("Claude Code (claude-code): 2 files · no shared budget every file (2): reads its "
            "text as `CLAUDE.md` (a symlink to `AGENTS.md`): project file, at start-up") in flat
    assert "never" not in flat
    data = _json(cli, root, "reach", "AGENTS.md", *profiles)
    claude = next(a for a in data["agents"] if a["profile"] == "claude-code")
    assert claude["ways"][0]["through"] == CLAUDE_VIA
    data = _json(cli, root, "why", "keep this short", *profiles)
    claude = next(a for a in data["agents"] if a["profile"] == "claude-code")
    assert claude["path"] == "AGENTS.md" and claude["through"]["path"] == "CLAUDE.md"
    data = _json(cli, root, "explain", "--profile", "claude-code")
    assert data["readAs"] == [{"path": "CLAUDE.md", "how": "symlink", "real": "AGENTS.md"}]
    assert "readAs" not in _json(cli, root, "explain", "--profile", "codex")
    code, out, _ = cli(["explain", "--profile", "claude-code"], root)
    assert "CLAUDE.md: the text of `AGENTS.md` (`CLAUDE.md` is a symlink to it)" in \
        " ".join(out.split())


def test_a_cursor_rule_linked_to_agents_md_is_its_text() -> None:
    """`.cursor/rules/x.mdc -> ../../AGENTS.md` (bun's `init` proposed it, oven-sh/bun#28910):
    the link has AGENTS.md's text and so no frontmatter, so it is no always-applied rule; the
    text still reaches Cursor, which reads the root AGENTS.md — `reach` of the rule says so."""
    ws = _ws({"AGENTS.md": TEXT}, {".cursor/rules/x.mdc": "../../AGENTS.md"})
    got = _reach(ws, ".cursor/rules/x.mdc", names=("cursor",))["cursor"]
    [way] = got.ways
    assert got.never is None and way.start_up
    assert way.through == Through("AGENTS.md", ".cursor/rules/x.mdc", "AGENTS.md")
    [way] = _reach(ws, "AGENTS.md", names=("cursor",))["cursor"].ways
    assert way.through is None and way.also == ()  # the link itself never loads


def test_the_lines_a_budget_cuts_are_said_for_the_text_and_the_name_read() -> None:
    """AGENTS.md -> CLAUDE.md, a file past Codex's 32 KiB: the lines of CLAUDE.md Codex never
    sees (the editor's marks, `rulemap/unseenLines`) are said with the name it reads them by."""
    from rulemap.unseen import agent_unseen

    long = "".join(f"line {i:04} of a long CLAUDE.md, past Codex's budget at the end\n"
                   for i in range(700))
    ws = _ws({"CLAUDE.md": long}, {"AGENTS.md": "CLAUDE.md"})
    codex = get_profile("codex")
    glimpses = overview(ws, codex, "")
    assert glimpses is not None
    unseen = agent_unseen(ws, codex, "CLAUDE.md", glimpses["CLAUDE.md"], "")
    [cut] = unseen.ranges
    assert cut.kind == "cut" and unseen.never is None
    assert cut.why.startswith("OpenAI Codex CLI stops reading `CLAUDE.md` (read as `AGENTS.md`) "
                              f"at line {cut.start + 1} for every file that load it")


def test_an_import_of_a_link_brings_the_text_under_the_links_name() -> None:
    """CLAUDE.md holds `@docs/shared.md`, a symlink to AGENTS.md: Claude Code reads AGENTS.md's
    text as `docs/shared.md`, imported by CLAUDE.md — reach and why say both."""
    ws = _ws({"AGENTS.md": TEXT, "CLAUDE.md": "@docs/shared.md\n"},
             {"docs/shared.md": "../AGENTS.md"})
    [way] = _reach(ws, "AGENTS.md", names=("claude-code",))["claude-code"].ways
    assert (way.reason, way.imported_by, way.position) == ("import", "CLAUDE.md", 2)
    assert way.through == Through("docs/shared.md", "AGENTS.md", "AGENTS.md")
    [verdict] = why(ws, "Use pnpm", None, [get_profile("claude-code")], "").agents
    assert verdict.seen and verdict.place.path == "AGENTS.md"
    assert verdict.why.endswith("read as `docs/shared.md` (a symlink to `AGENTS.md`), the 2nd "
                                "file of the load (imported by `CLAUDE.md`)")


def test_a_file_below_a_linked_directory_is_said_so(tmp_path: Path) -> None:
    """`.claude/rules -> ../shared/rules`: the rule is no symlink itself; its name leads to
    `shared/rules/style.md` through a linked directory, and the wording says that."""
    from rulemap.analysis import open_workspace

    root = git_tree(tmp_path, {"AGENTS.md": TEXT, "shared/rules/style.md": "Four spaces.\n"})
    (root / ".claude").mkdir()
    (root / ".claude/rules").symlink_to("../shared/rules")
    ws = open_workspace(str(root))
    [way] = _reach(ws, "shared/rules/style.md", names=("claude-code",))["claude-code"].ways
    assert way.through is not None and way.through.how == "linked-directory"
    assert way.through.phrase() == ("`.claude/rules/style.md` (the same file as "
                                    "`shared/rules/style.md`, through a linked directory)")
    claude = Snapshot(ws, "claude-code")
    links = load_names(claude, claude.explain(None))
    assert [(t.asked, t.how) for t in links] == [(".claude/rules/style.md", "linked-directory")]


def test_a_git_ref_follows_the_link_in_its_tree(cli: RunCli, tmp_path: Path) -> None:
    """`--ref`: the names are one file as the commit's tree links them (the git reader's
    identity), not as the working tree does — here the working tree has no link any more."""
    import subprocess

    root = tmp_path / "repo"
    root.mkdir()
    (root / "AGENTS.md").write_text(TEXT)
    (root / "CLAUDE.md").symlink_to("AGENTS.md")
    git = ["git", "-C", str(root), "-c", "user.email=t@example.com", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "link"], check=True)
    (root / "CLAUDE.md").unlink()
    (root / "CLAUDE.md").write_text("# Claude only\n")
    data = _json(cli, root, "reach", "AGENTS.md", "--ref", "HEAD", "--profiles", "claude-code")
    [claude] = data["agents"]
    assert claude["ways"][0]["through"] == CLAUDE_VIA
    data = _json(cli, root, "reach", "AGENTS.md", "--profiles", "claude-code")
    assert data["agents"][0]["never"] is not None  # the working tree's CLAUDE.md is its own
