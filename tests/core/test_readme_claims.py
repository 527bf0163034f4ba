"""What README.md and the documentation claim is true of this repository, and stays true.

Every `rulemap COMMAND` the README and docs/ mention is a command (`--help` exits 0); every
command line the README shows in a transcript or a shell block parses; every link to a file of
the repository resolves (and its `#anchor` names a heading there); the GitHub Action and
pre-commit snippets pin a commit of this repository's history that holds the files they run;
the tools `make test` installs are the ones the README says it needs; and `make demo` leaves
the `rulemap` the quick start tells you to run."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import re
import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
DOCS = sorted([README, REPO / "benchmarks" / "README.md", *(REPO / "docs").glob("*.md")])


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _fences(markdown: str) -> list[tuple[str, str]]:
    """The fenced code blocks of a Markdown text: (info string, body)."""
    return re.findall(r"^```([^\n`]*)\n(.*?)^```", markdown, re.M | re.S)


def _commands_named() -> set[str]:
    names: set[str] = set()
    for doc in DOCS:
        # `rulemap X` in prose, code spans and blocks; not `rulemap.toml`, `rulemap/rulemap`
        names |= set(re.findall(r"(?<![\w./-])rulemap ([a-z][a-z-]*)\b(?![./])", _text(doc)))
    return names


def _run(argv: list[str]) -> tuple[int, str]:
    from rulemap.__main__ import main

    out, err = io.StringIO(), io.StringIO()
    code: int | str | None
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as stop:
            code = stop.code
    return (0 if code is None else int(code)), out.getvalue() + err.getvalue()


def test_the_documents_name_commands():
    # the scan finds what the README plainly shows, so an empty or odd set is the scan's bug
    assert {"check", "explain", "compare", "why", "reach", "serve"} <= _commands_named()


def _misspelt_examples() -> dict[str, str]:
    """The misspelt commands the documents show on purpose: `rulemap chek` → "did you mean
    `check`?" (each must behave as shown)."""
    found: dict[str, str] = {}
    for doc in DOCS:
        text = re.sub(r"\s+", " ", _text(doc))
        for typo, meant in re.findall(r"`rulemap ([a-z-]+)` → \"did you mean `([a-z-]+)`", text):
            found[typo] = meant
    return found


@pytest.mark.parametrize("command", sorted(_commands_named()))
def test_every_command_the_documents_name_has_help(command: str):
    code, out = _run([command, "--help"])
    meant = _misspelt_examples().get(command)
    if meant is not None:  # shown as a typo: refused with the did-you-mean the text quotes
        assert code == 2 and f"did you mean `{meant}`?" in out, out
        return
    assert code == 0, f"`rulemap {command} --help` exits {code}:\n{out}"
    assert "usage:" in out


def _readme_command_lines() -> list[list[str]]:
    """The `rulemap` command lines the README shows: `$ rulemap ...` transcript lines (with their
    `\\` continuations), the lines of shell blocks that run `rulemap` or `.venv/bin/rulemap`, and
    code spans that are a whole command line."""
    lines: list[list[str]] = []
    for info, body in _fences(_text(README)):
        joined = re.sub(r"\\\n\s*", " ", body)
        for line in joined.splitlines():
            if info.strip() in ("", "text") and line.startswith("$ rulemap "):
                lines.append(shlex.split(line[2:], comments=True))
            elif info.strip() == "sh" and re.match(r"(\.venv/bin/)?rulemap ", line):
                lines.append(shlex.split(line, comments=True))
    # code spans of prose that are whole command lines: not a command's bare name, nor a
    # synopsis with `[OPTIONAL]`, `<name>` or `...`
    prose = re.sub(r"^```.*?^```|^#[^\n]*$", "", _text(README), flags=re.M | re.S)
    for span in re.findall(r"`(rulemap [^`]+)`", prose):
        argv = shlex.split(span)
        if len(argv) > 2 and not re.search(r"[\[<]|\.\.\.|…", span):
            lines.append(argv)
    return lines


def test_the_readme_shows_command_lines():
    shown = _readme_command_lines()
    assert len(shown) >= 8
    assert ["rulemap", "check"] in shown


@pytest.mark.parametrize(
    "argv", _readme_command_lines(), ids=lambda argv: " ".join(argv[:2])
)
def test_every_command_line_the_readme_shows_parses(argv: list[str]):
    assert Path(argv[0]).name == "rulemap"
    from rulemap.cli.main import build_parser

    with contextlib.redirect_stderr(io.StringIO()) as err:
        try:
            args = build_parser().parse_args(argv[1:])
        except SystemExit:
            pytest.fail(f"`{shlex.join(argv)}` does not parse:\n{err.getvalue()}")
    assert args.command == argv[1]


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _anchors(markdown: str) -> set[str]:
    prose = re.sub(r"^```.*?^```", "", markdown, flags=re.M | re.S)
    seen: dict[str, int] = {}
    anchors = set()
    for heading in re.findall(r"^#{1,6} (.+)$", prose, re.M):
        slug = _slug(heading)
        anchors.add(slug if slug not in seen else f"{slug}-{seen[slug]}")
        seen[slug] = seen.get(slug, 0) + 1
    return anchors


def _links(doc: Path) -> list[str]:
    prose = re.sub(r"^```.*?^```", "", _text(doc), flags=re.M | re.S)
    prose = re.sub(r"`[^`\n]*`", "", prose)  # `[x](path)` in a code span is an example
    return re.findall(r"\]\(([^)\s]+)\)", prose)


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.relative_to(REPO).as_posix())
def test_every_link_to_a_file_of_the_repository_resolves(doc: Path):
    broken = []
    for link in _links(doc):
        if re.match(r"[a-z]+:", link):
            continue  # a web address
        target, _, anchor = link.partition("#")
        path = (doc.parent / target).resolve() if target else doc
        if not path.exists():
            broken.append(f"{link}: no {target}")
        elif anchor and path.suffix == ".md" and anchor not in _anchors(_text(path)):
            broken.append(f"{link}: no heading #{anchor} in {target or doc.name}")
    assert not broken, f"{doc.relative_to(REPO)}: " + "; ".join(broken)


def test_a_heading_anchor_is_spelled_as_github_spells_it():
    assert _slug("Memory at 10×, and the deep tree (2026-12-05, evening)") == (
        "memory-at-10-and-the-deep-tree-2026-12-05-evening"
    )
    assert _slug("Who loads a file: `rulemap reach`") == "who-loads-a-file-rulemap-reach"
    assert _anchors("# A\n## A\n") == {"a", "a-1"}


def _git(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "-C", str(REPO), *args], capture_output=True, text=True, check=False
    )


def _pins() -> dict[str, str]:
    readme = _text(README)
    action = re.search(r"uses: rulemap/rulemap@(\S+)", readme)
    hook = re.search(r"repo: https://github.com/rulemap/rulemap\n\s+rev: (\S+)", readme)
    assert action and hook, "the README's Action and pre-commit snippets are gone"
    return {"action": action.group(1), "pre-commit": hook.group(1)}


# What the pin was checked to hold, recorded when it was set: the hashes of the hook files
# at the pinned commit. Checked against today's files in every copy of the repository; a
# checkout with the pinned commit in its history also checks the record against git.
PINNED = REPO / "tests" / "core" / "pinned_hooks.json"


def _pinned() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(PINNED.read_text(encoding="utf-8"))
    return data


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.mark.parametrize(("snippet", "holds"), [
    ("action", "action.yml"),
    ("pre-commit", ".pre-commit-hooks.yaml"),
])
def test_the_snippets_pin_the_commit_that_holds_todays_file(snippet: str, holds: str):
    pin = _pins()[snippet]
    # a full sha: no tag or branch of this repository exists to pin
    assert re.fullmatch(r"[0-9a-f]{40}", pin), pin
    record = _pinned()
    assert pin == record["rev"], f"the README pins {pin[:12]}, {PINNED.name} {record['rev'][:12]}"
    # the README describes today's file: what the pin runs must be it, or the snippet drifts
    assert _sha256((REPO / holds).read_bytes()) == record["files"][holds], (
        f"{holds} changed since {pin[:12]}: pin the README's snippets to a commit that has "
        f"it as it is now (`git log -1 --format=%H -- action.yml .pre-commit-hooks.yaml`, "
        f"once committed) and record its hashes in {PINNED.name}"
    )


def test_the_pin_record_is_true_of_the_pinned_commit():
    """Where the pinned commit is in this copy's history (not an unpacked archive or a
    shallow clone), it is an ancestor of HEAD and holds the recorded files."""
    record = _pinned()
    pin = record["rev"]
    if _git("cat-file", "-e", f"{pin}^{{commit}}").returncode == 0:
        assert _git("merge-base", "--is-ancestor", pin, "HEAD").returncode == 0, (
            f"{pin} is not a commit of this branch's history"
        )
        for holds, digest in record["files"].items():
            pinned = subprocess.run(
                ["git", "-C", str(REPO), "show", f"{pin}:{holds}"], capture_output=True,
                check=False,
            )
            assert pinned.returncode == 0 and _sha256(pinned.stdout) == digest, (
                f"{holds} at {pin[:12]} is not what {PINNED.name} records"
            )
    else:  # no history to ask: the record must at least name a commit and both files
        assert re.fullmatch(r"[0-9a-f]{40}", pin)
        assert set(record["files"]) == {"action.yml", ".pre-commit-hooks.yaml"}


def test_both_snippets_pin_the_same_commit():
    pins = _pins()
    assert pins["action"] == pins["pre-commit"]


def _section(markdown: str, heading: str) -> str:
    return markdown.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]


def test_the_readme_names_every_package_make_test_installs():
    development = _section(_text(README), "Development")
    ci = _text(REPO / ".ci" / "run")
    installed = set(re.findall(r"need\+=\((\S+)\)", ci))
    code_server = _text(REPO / "client-vscode" / "scripts" / "install-code-server.sh")
    apt = re.search(r'^APT_PKGS="([^"]+)"', code_server, re.M)
    assert apt is not None and installed
    installed |= set(apt.group(1).split()) - {"python3"}
    installed |= {"chromium"}  # client-vscode/scripts/setup-e2e.sh and `make test-browser`
    assert "chromium" in _text(REPO / "client-vscode" / "scripts" / "setup-e2e.sh")
    missing = sorted(p for p in installed if f"`{p}`" not in development)
    assert not missing, f"README's Development section does not name {missing}"
    node = re.search(r"grep -q '\^v(\d+)", code_server)
    assert node is not None and f"Node {node.group(1)}" in development
    assert "needs nothing outside" not in _text(README)


def test_make_demo_leaves_the_rulemap_the_quick_start_runs():
    makefile = _text(REPO / "Makefile")
    venv = re.search(r"^VENV\s*:=\s*(\S+)", makefile, re.M)
    assert venv is not None
    # `make demo` depends on setup, which installs this project (its console scripts) there
    assert re.search(r"^demo: setup\b", makefile, re.M)
    assert "-m pip install --quiet -e '.[dev]'" in makefile
    assert 'rulemap = "rulemap.__main__:entry"' in _text(REPO / "pyproject.toml")
    quick = _section(_text(README), "Quick start")
    assert f"{venv.group(1)}/bin/rulemap " in quick
    assert f"source {venv.group(1)}/bin/activate" in quick


def test_the_readme_code_blocks_read_at_80_columns():
    readme = _text(README)
    # the command line's synopsis is a grammar, rewrapped with the flags every command shares
    synopsis = _fences(_section(readme, "The command line"))[0][1]
    long = [
        line for _, body in _fences(readme) if body != synopsis
        for line in body.splitlines() if len(line) > 80
    ]
    assert not long, long


def test_every_file_of_this_repository_the_readme_names_exists():
    named = set(re.findall(
        r"`((?:server|tests|scripts|client-vscode|benchmarks|\.ci|examples)/[^`\s*<…]*)`",
        _text(README),
    ))
    assert len(named) > 10
    built = {"client-vscode/rulemap.vsix"}  # what `make package` writes
    missing = sorted(p for p in named - built if not (REPO / p).exists())
    assert not missing, missing


def _ms(seconds: float) -> str:
    ms = seconds * 1000
    return f"{round(ms):,} ms" if ms >= 100 else f"{ms:.1f} ms"


def test_the_performance_table_is_the_measurement_it_names():
    performance = _section(_text(README), "Performance")
    named = re.search(r"`(benchmarks/results/[\w.-]+\.json)`", performance)
    assert named is not None
    measured = json.loads((REPO / named.group(1)).read_text(encoding="utf-8"))
    assert measured["date"].startswith(re.search(r"\((\d{4}-\d\d-\d\d),", performance)[1])
    expected = []
    for shape, rows in measured["shapes"].items():
        (row,) = [r for r in rows if r["scale"] == 10]
        stats = row["stats"]
        expected.append([
            _ms(stats["rulemap"]["wall_s"]["median"]),
            _ms(stats["rulemap warm"]["wall_s"]["median"]),
            _ms(stats["agnix"]["wall_s"]["median"]),
            f"{round(measured['verdicts'][shape]['peak_rss_mb_largest'])} MB",
        ])
    table = [
        [cell.strip() for cell in line.strip("|").split("|")]
        for line in performance.splitlines() if re.match(r"\| \d", line)
    ]
    # each row: shape, cold, warm, agnix, peak RSS, in the measurement's order of shapes
    assert [row[1:] for row in table] == expected


def test_the_language_server_figures_are_the_measurement_they_name():
    performance = _section(_text(README), "Performance")
    measured = json.loads(
        (REPO / "benchmarks" / "results" / "lsp.json").read_text(encoding="utf-8")
    )["results"]
    start = _ms(measured["first_publish_from_start_cache_s"]["median"])
    edit = _ms(measured["edit_to_publish_s"]["p95"])
    hover = _ms(measured["hover_first_s"]["p95"])
    said = " ".join(performance.split())
    assert f"`benchmarks/results/lsp.json`): its first diagnostics {start} after" in said
    assert f"an edit's diagnostics p95 {edit};" in said
    assert f"a first hover on a source file p95 {hover}." in said
