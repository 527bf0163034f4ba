"""Bad input never crashes: huge, binary, invalid UTF-8, long chains, cycles, symlink loops."""

import os

from core_helpers import make_ws

from rulemap import analysis
from rulemap.readers import LocalReader


def codes(ws):
    return sorted({f.code for f in analysis.check(ws)})


def test_huge_binary_and_invalid_utf8_files(tmp_path):
    (tmp_path / "AGENTS.md").write_bytes(b"x" * (50 * 1024 * 1024))
    (tmp_path / "CLAUDE.md").write_bytes(b"\x00\x01binary")
    (tmp_path / "CLAUDE.local.md").write_bytes(b"caf\xe9")
    ws = analysis.open_workspace(str(tmp_path))
    findings = [f for f in analysis.check(ws) if f.code == "unreadable-file"]
    messages = {f.path: f.message for f in findings}
    assert "MiB" in messages["AGENTS.md"]
    assert "binary" in messages["CLAUDE.md"]
    assert "UTF-8" in messages["CLAUDE.local.md"] and "line 1" in messages["CLAUDE.local.md"]
    assert analysis.explain(ws).files == []


def test_3000_file_import_chain_and_1000_file_cycle():
    files = {"AGENTS.md": "@c0.md"}
    for i in range(3000):
        files[f"c{i}.md"] = f"@c{i + 1}.md"
    files["c3000.md"] = "end"
    files["CLAUDE.md"] = "@y0.md"
    for i in range(1000):
        files[f"y{i}.md"] = f"@y{(i + 1) % 1000}.md"
    ws = make_ws(files, maxImportDepth=5000, maxChars=10**9)
    found = codes(ws)
    assert "import-cycle" in found
    cycle = next(f for f in analysis.check(ws) if f.code == "import-cycle")
    assert "more" in cycle.message  # long cycles are abbreviated
    assert len(analysis.explain(ws).files) == 3002 + 1001


def test_symlink_loop_on_disk(tmp_path):
    (tmp_path / "AGENTS.md").write_text("@loop/AGENTS.md @self.md")
    os.symlink(tmp_path, tmp_path / "loop")
    os.symlink(tmp_path / "self.md", tmp_path / "self.md")
    ws = analysis.open_workspace(str(tmp_path))
    analysis.check(ws)
    assert [f.path for f in analysis.explain(ws).files] == ["AGENTS.md"]


def test_local_reader_honours_gitignore_but_finds_ignored_instruction_files(tmp_path):
    (tmp_path / ".gitignore").write_text("dist/\nCLAUDE.local.md\n")
    (tmp_path / "dist").mkdir()
    (tmp_path / "dist" / "a.ts").write_text("")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "b.ts").write_text("")
    (tmp_path / "CLAUDE.local.md").write_text("mine")
    files = set(LocalReader(str(tmp_path)).list_files())
    assert "src/b.ts" in files and "dist/a.ts" not in files and "CLAUDE.local.md" not in files
    ws = analysis.open_workspace(str(tmp_path))
    assert [f.path for f in analysis.explain(ws).files] == ["CLAUDE.local.md"]


def test_directory_link_out_of_the_workspace_is_not_walked(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "AGENTS.md").write_text("secret")
    root = tmp_path / "root"
    root.mkdir()
    os.symlink(outside, root / "ext")
    assert list(LocalReader(str(root)).list_files()) == []


def test_directory_reached_through_a_link_after_its_target_is_still_listed(tmp_path):
    shared = tmp_path / ".shared"
    shared.mkdir()
    (shared / "r.md").write_text("rule")
    (tmp_path / ".claude").mkdir()
    os.symlink("../.shared", tmp_path / ".claude" / "rules")
    files = set(LocalReader(str(tmp_path)).list_files())
    assert {".shared/r.md", ".claude/rules/r.md"} <= files
    ws = analysis.open_workspace(str(tmp_path))
    assert [f.path for f in analysis.explain(ws).files] == [".claude/rules/r.md"]


def test_dangling_rules_link_is_reported(tmp_path):
    (tmp_path / "AGENTS.md").write_text("x")
    (tmp_path / ".claude").mkdir()
    os.symlink("../nowhere", tmp_path / ".claude" / "rules")
    os.symlink("gone.md", tmp_path / "CLAUDE.md")
    findings = {(f.path, f.code) for f in analysis.check(analysis.open_workspace(str(tmp_path)))}
    assert (".claude/rules", "unreadable-file") in findings
    assert ("CLAUDE.md", "unreadable-file") in findings


def test_git_ignored_files_count_for_rule_globs(tmp_path):
    (tmp_path / ".gitignore").write_text("dist/\n*.gen.ts\n")
    (tmp_path / "dist").mkdir()
    (tmp_path / "dist" / "a.js").write_text("")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "x.gen.ts").write_text("")
    rules = tmp_path / ".claude" / "rules"
    rules.mkdir(parents=True)
    (rules / "dist.md").write_text("---\npaths: ['dist/**', 'src/*.gen.ts']\n---\nnever edit\n")
    ws = analysis.open_workspace(str(tmp_path))
    assert [f.code for f in analysis.check(ws)] == []
    assert [f.reason for f in analysis.explain(ws, "dist/a.js").files] == ["scoped"]


def test_reader_answers_for_files_that_appear_after_the_walk(tmp_path):
    (tmp_path / ".gitignore").write_text("dist/\n*.log\n")
    reader = LocalReader(str(tmp_path))
    list(reader.list_files())
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    (tmp_path / "pkg" / ".gitignore").write_text("secret.md\n")
    (tmp_path / "pkg" / "sub" / "AGENTS.md").write_text("x")
    (tmp_path / "pkg" / "secret.md").write_text("x")
    assert reader.is_ignored("dist/a.js") and reader.is_ignored("x/y.log")
    assert reader.is_ignored("node_modules/p/AGENTS.md")
    assert not reader.is_ignored("pkg/sub/AGENTS.md")
    assert reader.is_ignored("pkg/secret.md")
    assert sorted(reader.files_under("pkg")) == ["pkg/.gitignore", "pkg/sub/AGENTS.md"]
