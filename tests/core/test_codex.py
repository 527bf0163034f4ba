"""The codex profile, pinned against Codex CLI 0.169.0 (docs/profiles/codex.md#facts-and-sources:
openai/codex `codex-rs/core/src/agents_md.rs`, `codex-rs/codex-home/src/instructions/mod.rs`,
checked with `codex debug prompt-input`) — through the core, on in-memory workspaces."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rulemap.analysis import new_workspace
from rulemap.model import Finding
from rulemap.profiles import PROFILES, get_profile
from rulemap.profiles.base import parse_options
from rulemap.readers import MemoryReader
from rulemap.readers.local import LocalReader
from rulemap.workspace import Workspace

PROFILE = get_profile("codex")


def make(
    files: Mapping[str, str | bytes],
    symlinks: Mapping[str, str] | None = None,
    *,
    profiles: tuple[str, ...] = ("codex",),
    home: Any = None,
    git: bool = True,
    **options: Any,
) -> Workspace:
    files = {**files, ".git/HEAD": "ref: main\n"} if git else dict(files)
    return new_workspace(
        MemoryReader("/w", files, symlinks),
        home="/home/u",
        profiles=tuple(get_profile(p) for p in profiles),
        profile_options={"codex": parse_options(PROFILE, options, "test")},
        home_reader=home,
    )


def loaded(ws: Workspace, cwd: str = ".", target: str | None = None) -> list[tuple[Any, ...]]:
    e = PROFILE.explain(ws, target, cwd)
    return [(f.path, f.reason, f.chars, f.bytes, f.cut, f.cut_line) for f in e.files]


def paths(ws: Workspace, cwd: str = ".") -> list[str]:
    return [f.path for f in PROFILE.explain(ws, None, cwd).files]


def found(ws: Workspace, code: str) -> list[Finding]:
    return [f for f in PROFILE.findings(ws) if f.code == code]


# ----- which files ---------------------------------------------------------------------------


def test_one_file_per_directory_root_down_to_cwd():
    ws = make({"AGENTS.md": "root\n", "pkg/AGENTS.override.md": "over\n", "pkg/AGENTS.md": "no",
               "pkg/api/AGENTS.md": "api\n", "other/AGENTS.md": "o", "pkg/api/x/AGENTS.md": "b"})
    assert paths(ws, "pkg/api") == ["AGENTS.md", "pkg/AGENTS.override.md", "pkg/api/AGENTS.md"]
    e = PROFILE.explain(ws, None, "pkg/api")
    assert [(s.path, s.code) for s in e.skipped] == [("pkg/AGENTS.md", "instructions-shadowed")]
    assert e.budget.to_json() == {"kind": "shared", "unit": "bytes", "limit": 32768}
    assert e.notice is None and all(f.reason == "project" and f.depth == 0 for f in e.files)


def test_an_empty_override_still_hides_agents_md():
    ws = make({"AGENTS.override.md": "", "AGENTS.md": "hidden"})
    e = PROFILE.explain(ws, None, ".")
    assert e.files == []
    assert {s.path: s.code for s in e.skipped} == {
        "AGENTS.md": "instructions-shadowed", "AGENTS.override.md": "empty-instructions"}
    (finding,) = found(ws, "instructions-shadowed")
    assert finding.path == "AGENTS.md" and "empty" in finding.message
    assert [r.path for r in finding.related] == ["AGENTS.override.md"]


def test_fallback_filenames_come_last():
    ws = make({"TEAM.md": "hidden", "AGENTS.md": "a", "pkg/TEAM.md": "t", "pkg/GUIDE.md": "g"},
              fallbackFilenames=["TEAM.md", "GUIDE.md", "bad/name"])
    assert paths(ws, "pkg") == ["AGENTS.md", "pkg/TEAM.md"]
    assert {f.path for f in found(ws, "instructions-shadowed")} == {"TEAM.md", "pkg/GUIDE.md"}
    assert any("bad/name" in n for n in PROFILE.explain(ws, None, ".").notes)


def test_project_root_is_the_nearest_git_dir_or_file():
    files = {"AGENTS.md": "root", "sub/.git": "gitdir: ../.git/modules/sub", "sub/AGENTS.md": "s",
             "sub/x/AGENTS.md": "x", "repo/.git/HEAD": "h", "repo/AGENTS.md": "r"}
    ws = make(files)
    assert paths(ws, "sub/x") == ["sub/AGENTS.md", "sub/x/AGENTS.md"]
    assert paths(ws, "repo") == ["repo/AGENTS.md"]
    assert paths(ws, ".") == ["AGENTS.md"]
    assert any("`sub`" in n for n in PROFILE.explain(ws, None, "sub/x").notes)


def test_without_a_marker_only_cwd_is_read():
    files = {"AGENTS.md": "root", "pkg/AGENTS.md": "p"}
    assert paths(make(files, git=False), "pkg") == ["pkg/AGENTS.md"]
    assert any("reads cwd only" in n for n in PROFILE.explain(make(files, git=False), None,
                                                              "pkg").notes)
    # the older Rulemap default, kept as an option: the workspace root stands for the root
    assert paths(make(files, git=False, rootWithoutGit="workspace"), "pkg") == [
        "AGENTS.md", "pkg/AGENTS.md"]
    assert paths(make(files, rootWithoutGit="cwd"), "pkg") == ["AGENTS.md", "pkg/AGENTS.md"]


def test_a_marker_above_the_workspace_lets_its_root_stand_in():
    reader = MemoryReader("/repo/w", {"AGENTS.md": "a" * 20, "pkg/AGENTS.md": "b" * 20})
    reader.files["/repo/.git/HEAD"] = b"ref: main\n"

    def workspace(**options: Any) -> Workspace:
        return new_workspace(reader, profiles=(PROFILE,),
                             profile_options={"codex": parse_options(PROFILE, options, "test")})

    ws = workspace(project_doc_max_bytes=30)
    assert paths(ws, "pkg") == ["AGENTS.md", "pkg/AGENTS.md"]
    assert any("`/repo` holds one" in n for n in PROFILE.explain(ws, None, "pkg").notes)
    assert [f.path for f in found(ws, "budget-overflow")] == ["pkg/AGENTS.md"]
    assert paths(workspace(rootWithoutGit="cwd"), "pkg") == ["pkg/AGENTS.md"]
    alone = {f.path: f.message for f in found(workspace(rootWithoutGit="cwd",
                                                        project_doc_max_bytes=10),
                                              "budget-overflow")}
    assert "starts in `pkg`, its" in alone["pkg/AGENTS.md"]  # not "or below": cwd only


def test_project_root_markers_name_the_root():
    files = {".hg": "", "AGENTS.md": "root", "sub/.git": "gitdir: x", "sub/AGENTS.md": "s",
             "sub/x/AGENTS.md": "x"}
    assert paths(make(files, git=False), "sub/x") == ["sub/AGENTS.md", "sub/x/AGENTS.md"]
    assert paths(make(files, git=False, project_root_markers=[".hg"]), "sub/x") == [
        "AGENTS.md", "sub/AGENTS.md", "sub/x/AGENTS.md"]
    # the nearest directory holding any of the markers wins
    assert paths(make(files, git=False, project_root_markers=[".hg", ".git"]), "sub/x") == [
        "sub/AGENTS.md", "sub/x/AGENTS.md"]
    ws = make(files, git=False, project_root_markers=[".hg"])
    assert {f.path for f in found(make(files, git=False, project_root_markers=[".hg"],
                                       project_doc_max_bytes=5), "budget-overflow")} == {
        "sub/x/AGENTS.md"}
    assert any("with .hg" in n for n in PROFILE.explain(ws, None, "sub/x").notes)


def test_empty_project_root_markers_read_cwd_only():
    ws = make({"AGENTS.md": "root", "pkg/AGENTS.md": "p"}, project_root_markers=[])
    assert paths(ws, "pkg") == ["pkg/AGENTS.md"]
    assert any("project_root_markers = []" in n for n in PROFILE.explain(ws, None, "pkg").notes)


def test_a_target_adds_nothing():
    ws = make({"AGENTS.md": "root", "pkg/AGENTS.md": "p"})
    e = PROFILE.explain(ws, "pkg/x.ts", ".")
    assert [f.path for f in e.files] == ["AGENTS.md"] and e.target == "pkg/x.ts"
    assert any("the target adds nothing" in n and "--cwd pkg" in n for n in e.notes)


def test_a_dangling_symlink_or_a_directory_does_not_take_the_place():
    ws = make({"AGENTS.md": "a", "q/AGENTS.md": "q", "r/AGENTS.override.md/x": "d",
               "r/AGENTS.md": "r"}, {"q/AGENTS.override.md": "missing.md"})
    assert paths(ws, "q") == ["AGENTS.md", "q/AGENTS.md"]
    assert paths(ws, "r") == ["AGENTS.md", "r/AGENTS.md"]


def test_no_read_once_a_symlinked_file_is_read_twice():
    ws = make({"AGENTS.md": "shared\n"}, {"pkg/AGENTS.md": "../AGENTS.md"})
    assert loaded(ws, "pkg") == [("AGENTS.md", "project", 7, 7, False, None),
                                 ("pkg/AGENTS.md", "project", 7, 7, False, None)]


def test_no_imports_no_comment_stripping():
    text = "<!-- note -->\nSee @docs/a.md\n"
    ws = make({"AGENTS.md": text, "docs/a.md": "a"})
    (entry,) = PROFILE.explain(ws, None, ".").files
    assert entry.text == text and entry.chars == len(text)


# ----- the byte budget -----------------------------------------------------------------------


def test_cut_at_the_byte_without_marker_deeper_files_dropped():
    ws = make({"AGENTS.md": "a" * 29 + "\n", "pkg/AGENTS.md": "line one\nline two\n",
               "pkg/x/AGENTS.md": "x\n"}, project_doc_max_bytes=42)
    e = PROFILE.explain(ws, None, "pkg/x")
    assert loaded(ws, "pkg/x") == [("AGENTS.md", "project", 30, 30, False, None),
                                   ("pkg/AGENTS.md", "project", 12, 12, True, 1)]
    assert e.files[1].text == "line one\nlin"
    assert e.left_out == ["pkg/x/AGENTS.md"] and e.notice is None
    assert e.render() == "a" * 29 + "\n\nline one\nlin"  # no marker where it stops


def test_bytes_not_characters_and_a_split_character():
    ws = make({"AGENTS.md": "ééé\n", "pkg/AGENTS.md": "éa"}, project_doc_max_bytes=8)
    assert loaded(ws, "pkg") == [("AGENTS.md", "project", 4, 7, False, None),
                                 ("pkg/AGENTS.md", "project", 1, 1, True, 0)]
    # the half of `é` Codex keeps decodes to U+FFFD
    assert PROFILE.explain(ws, None, "pkg").files[1].text == "\ufffd"


def test_a_bom_reaches_the_model_and_counts():
    ws = make({"AGENTS.md": b"\xef\xbb\xbfhi\n"})
    assert loaded(ws) == [("AGENTS.md", "project", 4, 6, False, None)]
    assert PROFILE.explain(ws, None, ".").files[0].text == "\ufeffhi\n"


def test_emptiness_is_rusts_trim():
    # Rust's `trim` strips Unicode White_Space only: a byte-order mark or U+001C is text
    ws = make({"AGENTS.md": b"\xef\xbb\xbf", "pkg/AGENTS.md": "\x1c\n",
               "pkg/x/AGENTS.md": " \u3000\u2029\n"})
    assert paths(ws, "pkg/x") == ["AGENTS.md", "pkg/AGENTS.md"]
    skipped = PROFILE.explain(ws, None, "pkg/x").skipped
    assert [(s.path, s.code) for s in skipped] == [("pkg/x/AGENTS.md", "empty-instructions")]


def test_whitespace_only_file_uses_no_budget():
    ws = make({"AGENTS.md": " \n\n", "pkg/AGENTS.md": "123456789\n"}, project_doc_max_bytes=10)
    assert loaded(ws, "pkg") == [("pkg/AGENTS.md", "project", 10, 10, False, None)]


def test_zero_budget_reads_nothing():
    ws = make({"AGENTS.md": "a", "pkg/AGENTS.md": "p"}, project_doc_max_bytes=0)
    e = PROFILE.explain(ws, None, "pkg")
    assert e.files == [] and e.left_out == ["AGENTS.md", "pkg/AGENTS.md"]
    assert {f.path for f in found(ws, "budget-overflow")} == {"AGENTS.md", "pkg/AGENTS.md"}


def test_budget_findings_show_the_line_and_byte():
    ws = make({"AGENTS.md": "a" * 29 + "\n", "pkg/AGENTS.md": "line one\nline two\n",
               "pkg/x/AGENTS.md": "x\n", "pkg/y/AGENTS.override.md": "   \n"},
              project_doc_max_bytes=42)
    by_path = {f.path: f for f in found(ws, "budget-overflow")}
    assert set(by_path) == {"pkg/AGENTS.md", "pkg/x/AGENTS.md"}  # not the empty override
    cut = by_path["pkg/AGENTS.md"]
    assert (cut.span.start.line, cut.span.start.col, cut.span.end.col) == (1, 3, 8)
    assert "cut at byte 12 (line 2), with no marker" in cut.message
    assert "total 48 bytes, over project_doc_max_bytes 42" in cut.message
    dropped = by_path["pkg/x/AGENTS.md"]
    assert "read first: `AGENTS.md`, `pkg/AGENTS.md`" in dropped.message
    assert "`pkg/x`" in dropped.message


def test_budget_of_a_nested_repository_starts_again():
    ws = make({"AGENTS.md": "a" * 20, "lib/.git": "gitdir: x", "lib/AGENTS.md": "b" * 20},
              project_doc_max_bytes=30)
    assert found(ws, "budget-overflow") == []
    assert loaded(ws, "lib") == [("lib/AGENTS.md", "project", 20, 20, False, None)]


def test_unreadable_override_is_reported():
    ws = new_workspace(
        MemoryReader("/w", {".git/HEAD": "h", "AGENTS.override.md": "x" * 100, "AGENTS.md": "a"},
                     max_bytes=50),
        profiles=(PROFILE,),
        profile_options={"codex": parse_options(PROFILE, {}, "test")},
    )
    e = PROFILE.explain(ws, None, ".")
    assert e.files == [] and {s.code for s in e.skipped} == {"unreadable-file",
                                                             "instructions-shadowed"}
    assert [f.path for f in found(ws, "unreadable-file")] == ["AGENTS.override.md"]


# ----- user-level files ----------------------------------------------------------------------


def test_global_override_else_agents_md_outside_the_budget(tmp_path: Path):
    (tmp_path / ".codex").mkdir()
    (tmp_path / ".codex/AGENTS.override.md").write_text("global override\n")
    (tmp_path / ".codex/AGENTS.md").write_text("global\n")
    home = LocalReader(str(tmp_path))
    ws = make({"AGENTS.md": "123456789\n"}, home=home, project_doc_max_bytes=10)
    assert loaded(ws) == [(f"{home.root}/.codex/AGENTS.override.md", "user", 15, 16, False, None),
                          ("AGENTS.md", "project", 10, 10, False, None)]
    # an empty global override falls through to the global AGENTS.md
    (tmp_path / ".codex/AGENTS.override.md").write_text("\n")
    ws = make({"AGENTS.md": "a"}, home=LocalReader(str(tmp_path)))
    assert paths(ws) == [f"{home.root}/.codex/AGENTS.md", "AGENTS.md"]
    assert not any("--home" in n for n in PROFILE.explain(ws, None, ".").notes)


def test_the_global_file_is_trimmed():
    home = MemoryReader("/home/u", {".codex/AGENTS.md": "\n  global rules\n\n"})
    (entry, _) = PROFILE.explain(make({"AGENTS.md": "a"}, home=home), None, ".").files
    assert (entry.text, entry.chars, entry.bytes) == ("global rules", 12, 17)


def test_no_global_file_without_home():
    ws = make({"AGENTS.md": "a"})
    assert paths(ws) == ["AGENTS.md"]
    assert any("--home" in n for n in PROFILE.explain(ws, None, ".").notes)
    memory_home = MemoryReader("/home/u", {".codex/AGENTS.md": "g"})
    assert paths(make({"AGENTS.md": "a"}, home=memory_home)) == ["/home/u/.codex/AGENTS.md",
                                                                  "AGENTS.md"]


# ----- imports the agent does not follow -----------------------------------------------------


def test_import_not_followed_only_when_no_selected_reader_follows_imports():
    files = {"AGENTS.md": "See @docs/a.md and @alice\n", "docs/a.md": "a"}
    (finding,) = found(make(files), "import-not-followed")
    assert (finding.span.start.col, finding.span.end.col) == (4, 14)
    assert finding.severity == "information" and "plain text" in finding.message
    assert found(make(files, profiles=("cogitator", "codex")), "import-not-followed") == []
    # cogitator reads no AGENTS.override.md: only Codex reads it
    override = {"AGENTS.override.md": "@docs/a.md", "docs/a.md": "a"}
    assert len(found(make(override, profiles=("cogitator", "codex")), "import-not-followed")) == 1


def test_import_not_followed_is_said_once_by_the_first_agent_without_imports():
    files = {"AGENTS.md": "@docs/a.md", "docs/a.md": "a"}
    assert found(make(files, profiles=("mastra", "codex")), "import-not-followed") == []
    (finding,) = found(make(files, profiles=("codex", "mastra")), "import-not-followed")
    assert "Mastra" in finding.message


def test_each_profile_declares_whether_it_follows_imports():
    followers = {p.name for p in PROFILES.values() if p.follows_imports}
    assert followers == {"cogitator", "claude-code", "gemini"}


# ----- the protocol --------------------------------------------------------------------------


def test_detect_and_reads():
    assert not PROFILE.detect(make({"CLAUDE.md": "c"}))
    assert PROFILE.detect(make({"pkg/AGENTS.override.md": "o"}))
    ws = make({"AGENTS.override.md": "o", "AGENTS.md": "a", "pkg/AGENTS.md": "p"})
    assert PROFILE.reads(ws, "AGENTS.override.md") and PROFILE.reads(ws, "pkg/AGENTS.md")
    assert not PROFILE.reads(ws, "AGENTS.md") and not PROFILE.reads(ws, "CLAUDE.md")


def test_findings_follow_edits():
    ws = make({"AGENTS.md": "a" * 40, "pkg/AGENTS.md": "p"}, project_doc_max_bytes=30)
    assert [f.path for f in found(ws, "budget-overflow")] == ["AGENTS.md", "pkg/AGENTS.md"]
    ws.reader.files["/w/AGENTS.md"] = b"short\n"
    ws.update(changed=["AGENTS.md"])
    assert found(ws, "budget-overflow") == []
    assert paths(ws, "pkg") == ["AGENTS.md", "pkg/AGENTS.md"]


def test_random_edits_match_a_fresh_workspace():
    """Cached loads and findings, after any sequence of edits, equal a fresh workspace's."""
    import random

    rng = random.Random(5)
    names = ["AGENTS.md", "AGENTS.override.md", "pkg/AGENTS.md", "pkg/AGENTS.override.md",
             "pkg/sub/AGENTS.md", "pkg/sub/TEAM.md", "docs/a.md"]
    bodies = ["x" * 25 + "\n", "@docs/a.md\n", "", "  \n", "line\n" * 4, "é" * 9]

    def snapshot(ws: Workspace) -> tuple[object, ...]:
        found = sorted((f.path, f.code, f.span, f.message) for f in PROFILE.findings(ws))
        loads = [PROFILE.explain(ws, None, c).to_json() for c in (".", "pkg", "pkg/sub")]
        return found, loads

    options = {"project_doc_max_bytes": 40, "fallbackFilenames": ["TEAM.md"]}
    ws = make({name: rng.choice(bodies) for name in names}, **options)
    snapshot(ws)
    for _ in range(40):
        name = rng.choice(names)
        path = "/w/" + name
        if path in ws.reader.files and rng.random() < 0.2:
            del ws.reader.files[path]
            ws.update(deleted=[name])
        elif path not in ws.reader.files:
            ws.reader.files[path] = rng.choice(bodies).encode()
            ws.update(created=[name])
        else:
            ws.reader.files[path] = rng.choice(bodies).encode()
            ws.update(changed=[name])
        fresh = make({k[3:]: v for k, v in ws.reader.files.items() if k != "/w/.git/HEAD"},
                     **options)
        assert snapshot(ws) == snapshot(fresh)
