"""`rulemap.repo_map`: the map's data (docs/map.md), its page, and `rulemap map --html`.

The data must be the engine's own answers — each node's reach is `rulemap reach`'s count, a
directory's loads are the profiles' explanations — aggregated by directory; the page embeds
it with nothing that reaches the network and nothing that can end its script early."""

from __future__ import annotations

import copy
import json
import posixpath
import re
from pathlib import Path
from typing import Any

from tests.cli_runner import RunCli, git_tree

from rulemap import analysis
from rulemap.analysis import new_workspace
from rulemap.profiles import get_profile
from rulemap.reach import reach
from rulemap.readers import MemoryReader
from rulemap.repo_map import build_map
from rulemap.repo_map.page import embedded_json, packed, render_page

LONG = "".join(f"line {i:04} of a long instruction file, past a byte budget at the end\n"
               for i in range(700))  # ~50 KB: over every shared budget
FILES = {
    "AGENTS.md": "# Project\n\nUse pnpm.\n\nSee @docs/style.md\n",
    "CLAUDE.md": "@AGENTS.md\n",
    "docs/style.md": "Four spaces.\n",
    ".claude/rules/api.md": '---\npaths: ["src/api/**"]\n---\nValidate input.\n',
    "src/api/a.ts": "",
    "src/api/b.ts": "",
    "src/web/c.ts": "",
    "src/web/AGENTS.md": "# Web\n",
    "big/AGENTS.md": LONG,
    "big/x.ts": "",
}
AGENTS = ("cogitator", "claude-code", "codex", "gemini")


def _map(files: dict[str, str], names: tuple[str, ...] = AGENTS) -> tuple[Any, dict[str, Any]]:
    ws = new_workspace(MemoryReader("/w", files))
    return ws, build_map(ws, [get_profile(n) for n in names], "")


def _dir(data: dict[str, Any], path: str) -> dict[str, Any]:
    [entry] = [d for d in data["tree"] if d["path"] == path]
    return entry  # type: ignore[no-any-return]


def _node(data: dict[str, Any], path: str) -> dict[str, Any]:
    [node] = [n for n in data["graph"]["nodes"] if n["id"] == path]
    return node  # type: ignore[no-any-return]


def test_each_node_reach_is_what_rulemap_reach_counts() -> None:
    ws, data = _map(FILES)
    profiles = [get_profile(n) for n in AGENTS]
    for path in ("AGENTS.md", "docs/style.md", ".claude/rules/api.md", "src/web/AGENTS.md",
                 "big/AGENTS.md"):
        node = _node(data, path)
        for agent in reach(ws, path, None, profiles, "").agents:
            got = node["reach"][agent.profile]
            assert (got["files"], got["cut"]) == (agent.files, agent.cut), (path, agent.profile)
            assert got["leftOut"] == (agent.left_out.count if agent.left_out else 0)
            if not agent.files and not agent.left_out:
                assert got["never"], (path, agent.profile)
    # the root file reaches every file for the default model; a scoped rule only its globs'
    assert _node(data, "AGENTS.md")["reach"]["cogitator"]["files"] == len(FILES)
    assert _node(data, ".claude/rules/api.md")["reach"]["cogitator"]["files"] == 2
    assert "does not read it" in _node(data, "CLAUDE.md")["reach"]["codex"]["never"]


def test_a_scoped_rule_says_where_its_matches_are() -> None:
    _, data = _map(FILES)
    rule = _node(data, ".claude/rules/api.md")
    assert rule["kind"] == "scoped-rule" and rule["globs"] == ["src/api/**"]
    assert rule["matched"] == {"files": 2, "under": "src/api", "every": True,
                               "areas": [["src/api/a.ts", 1], ["src/api/b.ts", 1]]}
    assert {"from": "AGENTS.md", "to": "docs/style.md", "kind": "import", "status": "ok",
            "line": 5} in data["graph"]["edges"]


def test_copilot_and_cursor_rules_say_where_their_globs_match_in_their_dialect() -> None:
    """`applyTo` and `.mdc` `globs` matched as Copilot and Cursor match them (their profiles'
    `rule_matches`), not as the workspace's `paths` rules: the page draws where they apply."""
    files = {".cursor/rules/api.mdc": "---\nglobs: api/**\n---\nValidate input.\n",
             ".github/instructions/web.instructions.md": '---\napplyTo: "web/**"\n---\nV\n',
             "api/server.ts": "", "api/x/y.ts": "", "web/app.tsx": ""}
    _, data = _map(files, ("cursor", "copilot"))
    cursor, copilot = (_node(data, p) for p in (".cursor/rules/api.mdc",
                                                 ".github/instructions/web.instructions.md"))
    assert (cursor["kind"], cursor["globs"], cursor["matched"]["files"]) == (
        "scoped-rule", ["api/**"], 2)
    assert cursor["matched"]["under"] == "api"
    assert (copilot["globs"], copilot["matched"]["files"], copilot["matched"]["under"]) == (
        ["web/**"], 1, "web")


def test_the_tree_is_every_directory_never_a_file_with_counts_summed_up() -> None:
    _, data = _map(FILES)
    tree = data["tree"]
    dirs = {""}
    for path in FILES:  # every directory above a file
        while path:
            path = posixpath.dirname(path)
            dirs.add(path)
    assert sorted(d["path"] for d in tree) == sorted(dirs)
    assert tree[0]["path"] == "" and tree[0]["files"] == len(FILES) == data["files"]
    for entry in tree:  # children listed by index, each the parent of its children
        for child in entry["children"]:
            assert posixpath.dirname(tree[child]["path"]) == entry["path"]
        assert entry["files"] == entry["own"] + sum(tree[c]["files"] for c in entry["children"])
    assert (_dir(data, "src")["own"], _dir(data, "src")["files"]) == (0, 4)
    assert _dir(data, "src/web")["docs"] == 1 and _dir(data, "")["docs"] == 2


def test_budget_use_by_directory_marks_where_it_overflows() -> None:
    _, data = _map(FILES)
    share, over, *_ = _dir(data, "big")["agents"]["cogitator"]
    assert share >= 1000 and over == 2  # both files of big/ load the long file, cut
    assert _dir(data, "")["agents"]["cogitator"][1] == 2  # counted up the tree
    share, over, *_ = _dir(data, "src/api")["agents"]["cogitator"]
    assert share < 500 and over == 0
    assert _dir(data, "src/api")["agents"]["claude-code"][0] is None  # no shared budget


def test_an_agent_without_a_budget_is_measured_by_what_it_loads() -> None:
    """Claude Code has no shared budget: a directory says the largest load of a file under
    it (in characters), the most files one loads, and how many files load a file past its
    40,000-character size warning (huge/CLAUDE.md, ~50,000): never nothing where it loads."""
    ws, data = _map({**FILES, "huge/CLAUDE.md": LONG, "huge/y.ts": ""})
    claude = get_profile("claude-code")
    [agent] = [a for a in data["agents"] if a["name"] == "claude-code"]
    assert agent["limit"] == 0 and agent["sizeWarning"] == 40_000 and agent["unit"] == "chars"
    _, _, _, size, loaded, warned = _dir(data, "src/api")["agents"]["claude-code"]
    load = claude.explain(ws, "src/api/a.ts", "")
    assert (size, loaded, warned) == (sum(f.chars for f in load.files), len(load.files), 0)
    assert loaded == 4  # CLAUDE.md, AGENTS.md it imports, the style it imports, the rule
    _, _, _, size, loaded, warned = _dir(data, "huge")["agents"]["claude-code"]
    assert warned == 2 and size > 40_000  # huge/CLAUDE.md and huge/y.ts load it
    root = _dir(data, "")["agents"]["claude-code"]
    assert root[3] == max(d["agents"]["claude-code"][3] for d in data["tree"])  # the largest
    assert root[5] == 2  # counted up the tree
    number = _dir(data, "huge")["loads"]["claude-code"][0][0]
    assert [data["paths"][p] for p in data["loads"]["claude-code"][number]["warned"]] == [
        "huge/CLAUDE.md"]
    # an agent with no documented warning marks nothing; the default model is measured by
    # its budget (its figures are there too)
    assert all(d["agents"]["gemini"][5] == 0 for d in data["tree"])
    assert [a["sizeWarning"] for a in data["agents"] if a["name"] != "claude-code"] == [
        None, None, None]
    assert _dir(data, "src/api")["agents"]["cogitator"][3] > 0


def test_nested_files_are_tied_to_what_they_load_after_per_agent() -> None:
    """What a directory inherits: an edge from the file a nested one loads after to it, for
    the agents whose loads say so — Gemini CLI's GEMINI.md hierarchy, the default model's
    nested AGENTS.md (Codex reads src/web/AGENTS.md only when it works there: no edge)."""
    files = {**FILES, "GEMINI.md": "# Root\n", "packages/cli/GEMINI.md": "# CLI\n",
             "packages/cli/src/main.ts": "", "packages/cli/deep/GEMINI.md": "# Deep\n",
             "packages/cli/deep/x.ts": ""}
    _, data = _map(files)
    nested = {(e["from"], e["to"]): e["agents"] for e in data["graph"]["nested"]}
    assert nested[("GEMINI.md", "packages/cli/GEMINI.md")] == ["gemini"]
    assert nested[("packages/cli/GEMINI.md", "packages/cli/deep/GEMINI.md")] == ["gemini"]
    # the default model loads the root's AGENTS.md, then CLAUDE.md, then the nested file
    assert "cogitator" in nested[("CLAUDE.md", "src/web/AGENTS.md")]
    assert "codex" not in nested[("CLAUDE.md", "src/web/AGENTS.md")]
    assert ("AGENTS.md", "src/web/AGENTS.md") not in nested
    assert ("GEMINI.md", "packages/cli/deep/GEMINI.md") not in nested  # the nearest only
    ids = {n["id"] for n in data["graph"]["nodes"]}
    assert all(a in ids and b in ids for a, b in nested)


def test_a_directory_says_what_its_files_load() -> None:
    ws, data = _map(FILES)
    [[number, count]] = _dir(data, "src/api")["loads"]["cogitator"]
    load = data["loads"]["cogitator"][number]
    paths = [data["paths"][data["entries"][e][0]] for e in load["files"]]
    explained = analysis.explain(ws, "src/api/a.ts", "", "cogitator")
    assert count == 2 and paths == [f.path for f in explained.files]
    assert ".claude/rules/api.md" in paths
    reasons = {data["paths"][data["entries"][e][0]]: data["entries"][e][1] for e in load["files"]}
    assert reasons[".claude/rules/api.md"] == "scoped"
    [[number, _]] = _dir(data, "big")["loads"]["cogitator"]
    big = data["loads"]["cogitator"][number]
    cut = [data["entries"][e] for e in big["files"] if data["entries"][e][5]]
    assert big["over"] and cut and cut[0][4] is not None  # the line where reading stops


def test_an_agent_without_load_groups_is_explained_once_per_directory() -> None:
    files = {**FILES, "GEMINI.md": "# Gemini\n", "src/web/GEMINI.md": "# Web gemini\n"}
    ws = new_workspace(MemoryReader("/w", files))
    # the agent as a profile without load groups would be
    sampled = copy.copy(get_profile("gemini"))
    sampled.load_groups = lambda ws, cwd: None  # type: ignore[method-assign]
    data = build_map(ws, [get_profile("cogitator"), sampled], "")
    [gemini] = [a for a in data["agents"] if a["name"] == "gemini"]
    [cogitator] = [a for a in data["agents"] if a["name"] == "cogitator"]
    assert gemini["sampled"] and not cogitator["sampled"]
    assert len(data["loads"]["gemini"]) == len({posixpath.dirname(p) for p in files})
    assert _node(data, "GEMINI.md")["reach"]["gemini"]["files"] == len(files)


def test_the_findings_are_rulemap_checks() -> None:
    files = {**FILES, "AGENTS.md": FILES["AGENTS.md"] + "And @docs/missing.md\n"}
    ws, data = _map(files)
    found = analysis.check(ws)
    assert data["findingsTotal"] == len(found) > 0
    assert [(f["path"], f["code"]) for f in data["findings"]] == [(f.path, f.code) for f in found]
    assert any(f["code"] == "broken-import" for f in data["findings"])


def test_the_page_holds_everything_and_nothing_reaches_the_network() -> None:
    files = {**FILES, "docs/</script><!--x.md": "# odd\n"}
    files["AGENTS.md"] += "See @docs/</script><!--x.md\n"
    _, data = _map(files)
    page = render_page(data)
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", page, re.IGNORECASE)
    assert "<link" not in page and "@import" not in re.sub(r"<script.*?</script>", "", page,
                                                            flags=re.S)
    # one JSON block, which ends where it should and reads back as the data
    start = page.index('id="rulemap-data">') + len('id="rulemap-data">')
    end = page.index("</script>", start)
    assert json.loads(page[start:end]) == packed(data)  # the tree as rows, nothing else changed
    assert "<!--" not in page[start:end]
    assert page.count("</script>") == 3  # the data, the graph library, the page's script
    assert "Copyright (c) 2016-" in page  # cytoscape.js with its licence
    assert embedded_json({"a": "</b><!--"}) == '{"a":"<\\/b>\\u003c!--"}'


# ----- rulemap map --html ----------------------------------------------------------------------


def test_the_cli_writes_one_page(cli: RunCli, tmp_path: Path) -> None:
    root = git_tree(tmp_path, FILES)
    out = tmp_path / "site" / "map.html"
    out.parent.mkdir()
    code, stdout, err = cli(["map", "--html", str(out), "--profiles", "cogitator,codex"], root)
    assert (code, err) == (0, "agents: cogitator (--profiles), codex (--profiles)\n")
    said = " ".join(stdout.split())  # wrapped at 80 columns
    assert said.startswith(f"rulemap: wrote {out} (") and f"{len(FILES)} files" in said
    page = out.read_text(encoding="utf-8")
    start = page.index('id="rulemap-data">') + len('id="rulemap-data">')
    data = json.loads(page[start:page.index("</script>", start)])
    assert [a["name"] for a in data["agents"]] == ["cogitator", "codex"]
    assert [a["why"] for a in data["agents"]] == ["--profiles", "--profiles"]
    assert data["lead"] == {"name": "cogitator", "why": "--profiles"}  # the page opens on it
    assert data["files"] == len(FILES) and data["root"] == "repo"
    assert not list(out.parent.glob(".*tmp"))  # the temporary file was renamed, not left
    # written again over the old page, from a subdirectory with --root and --cwd
    code, _, err = cli(["map", "--html", str(out), "--root", str(root), "--cwd", "."],
                       root / "src")
    assert code == 0 and err.startswith("agents: cogitator (the default model), ")
    page = out.read_text(encoding="utf-8")
    data = json.loads(page[start:page.index("</script>", start)])
    assert data["cwd"] == "src" and len(data["agents"]) >= 2


def test_the_page_packs_the_directories_as_rows_losing_nothing() -> None:
    """The page's data holds the tree as rows in the order of its agents (page.py `packed`;
    map.js unpacks them): every figure of every directory is there, the names derivable."""
    _, data = _map(FILES)
    page = render_page(data, nonce="n" * 22)
    start = page.index('id="rulemap-data">') + len('id="rulemap-data">')
    embedded = json.loads(page[start:page.index("</script>", start)])
    tree = embedded["tree"]
    assert tree["agents"] == [a["name"] for a in data["agents"]] == list(AGENTS)
    assert len(tree["rows"]) == len(data["tree"])
    for row, entry in zip(tree["rows"], data["tree"], strict=True):
        path, files, own, docs, children, figures, loads = row
        assert (path, files, own, docs, children) == (
            entry["path"], entry["files"], entry["own"], entry["docs"], entry["children"])
        assert entry["name"] == (posixpath.basename(path) or ".")
        assert {n: f for n, f in zip(tree["agents"], figures, strict=True) if f} == entry["agents"]
        assert {n: ld for n, ld in zip(tree["agents"], loads, strict=True) if ld} \
            == entry["loads"]
    assert len(json.dumps(tree)) < len(json.dumps(data["tree"])) * 0.75


def test_the_cli_counts_in_words_of_their_number(cli: RunCli, tmp_path: Path) -> None:
    """"1 finding", "1 directory": never "1 findings"."""
    root = git_tree(tmp_path, {"AGENTS.md": "See @missing.md\n"})  # one broken import
    out = tmp_path / "map.html"
    code, stdout, _ = cli(["map", "--html", str(out), "--profiles", "cogitator"], root)
    said = " ".join(stdout.split())
    assert code == 0 and "1 file in 1 directory, 1 instruction file or rule, 1 finding;" in said


def test_the_cli_refuses_what_is_not_a_page_s_place(cli: RunCli, tmp_path: Path) -> None:
    root = git_tree(tmp_path, FILES)
    (root / "out.html").mkdir()
    (root / "link.html").symlink_to(root / "AGENTS.md")
    before = (root / "AGENTS.md").read_text()
    for args, message in (
        (["--html", "nowhere/map.html"], "no directory"),
        (["--html", "AGENTS.md"], "must end in .html"),
        (["--html", "out.html"], "is a directory"),
        (["--html", "link.html"], "is a symlink"),
        (["--html", ".git/map.html"], "inside a .git directory"),
        (["--html", "map.html", "--root", "nope"], "is not a directory"),
        (["--html", "map.html", "--cwd", str(tmp_path)], "outside the workspace root"),
    ):
        code, _, err = cli(["map", *args], root)
        assert code == 2 and message in err, (args, err)
    assert (root / "AGENTS.md").read_text() == before
    assert not (root / "map.html").exists()


def test_the_page_s_own_files_spell_no_agent_fact() -> None:
    """The page shows the engine's data; its script, template and style never name an agent's
    files or the agents themselves (tests/core/test_agent_facts.py, for the assets)."""
    from tests.core.test_agent_facts import NAMES, PROFILE_NAMES

    assets = Path(__file__).resolve().parents[2] / "server" / "rulemap" / "repo_map" / "assets"
    for name in ("map.js", "map.html", "map.css"):
        words = set(re.split(r"[\s/`'\"(),:;=*~<>{}\[\]+!?&|]+", (assets / name).read_text()))
        facts = words & NAMES if name.endswith(".css") else words & (NAMES | PROFILE_NAMES)
        assert not facts, (name, facts)  # (CSS has `cursor: pointer`, a property)
