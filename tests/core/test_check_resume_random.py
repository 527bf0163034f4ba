"""Random edits, each followed by a cached `rulemap check`: its output is byte for byte that of
`rulemap check --no-cache` (docs/checks.md, "A check after an edit").

A seeded walk over a small generated workspace that every agent reads part of: text changed,
an import added or broken, a rule's glob changed, a file created or deleted, `.gitignore` or
`package.json` edited. After each edit the cached check — a hit, a check resumed from the
snapshot of the last whole check, or a whole check, whichever the cache decides — must print
what a check from scratch prints, and the check after it must be a hit printing the same.
Runs are in-process, as `rulemap.cli.main.entry` runs them (test_check_cache.py's fixtures).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest
from tests.core.test_check_cache import Check, cache_dir, check  # noqa: F401

# the workspace: every agent's files, rules with globs, imports, a script table, an ignore
FILES = {
    "AGENTS.md": "# Project\n\nSee @docs/style.md and @docs/testing.md.\n\n"
                 "Run `npm run test` before you push.\n",
    "CLAUDE.md": "@AGENTS.md\n\nKeep answers short.\n",
    "GEMINI.md": "# Gemini\n\nSee @docs/style.md\n",
    "docs/style.md": "Use tabs for indentation.\n",
    "docs/testing.md": "Write a test for each bug you fix.\n",
    "docs/deploy.md": "Deploy from the main branch only.\n",
    ".claude/rules/api.md": "---\npaths: [\"src/api/**\"]\n---\nValidate every input.\n",
    ".claude/rules/web.md": "---\npaths: [\"src/web/*.tsx\"]\n---\nUse hooks.\n",
    ".cursor/rules/py.mdc": "---\nglobs: lib/**/*.py\nalwaysApply: false\n---\nType hints.\n",
    ".github/copilot-instructions.md": "Prefer small functions.\n",
    ".github/instructions/ts.instructions.md": "---\napplyTo: \"**/*.ts\"\n---\nNo any.\n",
    "src/api/handler.ts": "export const handler = 1;\n",
    "src/web/page.tsx": "export default 1;\n",
    "lib/tool/run.py": "print(1)\n",
    "package.json": '{"scripts": {"test": "vitest", "lint": "eslint ."}}\n',
    ".gitignore": "dist/\n",
}

# text a check has something to say about: a missing path, a script that is not there, a
# paragraph written twice, a dangling link
PARAGRAPHS = (
    "Always run the whole test suite before you push a change to the main branch.",
    "See `src/gone/file.ts` and `docs/never-written.md` first.",
    "Run `npm run lint` and `npm run no-such-script`.",
    "Read [the guide](docs/missing-guide.md) before you start.",
    "Keep answers short.",
    "Use tabs for indentation.",
)
IMPORTS = ("@docs/style.md", "@docs/deploy.md", "@docs/nowhere.md", "@AGENTS.md",
           "@docs/new-0.md", "@./docs/testing.md", "@missing/dir/file.md")
GLOBS = ("src/api/**", "src/**", "src/web/*.tsx", "lib/**/*.py", "nothing/**", "**/*.ts",
         "src/{api,web}/**")
IGNORED = ("docs/deploy.md", "src/web/", "*.mdc", "lib/", "docs/new-*.md")
CREATED = ("docs/new-0.md", "docs/new-1.md", ".claude/rules/new.md", "src/api/new.ts",
           "src/extra/deep/file.ts", ".github/instructions/new.instructions.md")


def _documents(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() and p.suffix in (".md", ".mdc"))


def _text_changed(rng: random.Random, root: Path) -> None:
    path = rng.choice(_documents(root))
    text = path.read_text(encoding="utf-8")
    if rng.random() < 0.3 and "\n" in text.rstrip("\n"):
        lines = text.splitlines(keepends=True)
        del lines[rng.randrange(len(lines))]  # a line deleted: a frontmatter may break too
        path.write_text("".join(lines), encoding="utf-8")
    else:
        path.write_text(text + "\n" + rng.choice(PARAGRAPHS) + "\n", encoding="utf-8")


def _import_added(rng: random.Random, root: Path) -> None:
    path = rng.choice(_documents(root))
    path.write_text(path.read_text(encoding="utf-8") + f"\nSee {rng.choice(IMPORTS)}\n",
                    encoding="utf-8")


def _import_broken(rng: random.Random, root: Path) -> None:
    for path in rng.sample(_documents(root), k=len(_documents(root))):
        text = path.read_text(encoding="utf-8")
        if "@docs/" in text:
            path.write_text(text.replace("@docs/", "@docs/gone-", 1), encoding="utf-8")
            return
    _import_added(rng, root)


def _glob_changed(rng: random.Random, root: Path) -> None:
    rules = [p for p in _documents(root) if "rules" in p.parts or "instructions" in p.parts]
    if not rules:
        _file_created(rng, root)
        return
    path = rng.choice(rules)
    text = path.read_text(encoding="utf-8")
    glob = rng.choice(GLOBS)
    for field in ("paths: [", "globs: ", "applyTo: "):
        at = text.find(field)
        if at >= 0:
            end = text.index("\n", at)
            value = f'"{glob}"]' if field == "paths: [" else f'"{glob}"'
            path.write_text(text[:at] + field + value + text[end:], encoding="utf-8")
            return
    path.write_text(f"---\npaths: [\"{glob}\"]\n---\n" + text, encoding="utf-8")


def _file_created(rng: random.Random, root: Path) -> None:
    rel = rng.choice(CREATED)
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if rel.endswith(".ts"):
        path.write_text("export {};\n", encoding="utf-8")
    elif "rules" in rel or "instructions" in rel:
        field = "paths" if "rules" in rel else "applyTo"
        path.write_text(f"---\n{field}: \"{rng.choice(GLOBS)}\"\n---\n"
                        f"{rng.choice(PARAGRAPHS)}\n", encoding="utf-8")
    else:
        path.write_text(f"# New\n\n{rng.choice(PARAGRAPHS)}\n\nSee {rng.choice(IMPORTS)}\n",
                        encoding="utf-8")


def _file_deleted(rng: random.Random, root: Path) -> None:
    kept = {"AGENTS.md", "package.json", ".gitignore"}
    files = sorted(p for p in root.rglob("*") if p.is_file() and ".git" not in p.parts[-2:-1]
                   and p.relative_to(root).as_posix() not in kept)
    if files:
        rng.choice(files).unlink()


def _gitignore_edited(rng: random.Random, root: Path) -> None:
    path = root / ".gitignore"
    lines = path.read_text(encoding="utf-8").splitlines()
    line = rng.choice(IGNORED)
    lines = [x for x in lines if x != line] if line in lines else [*lines, line]
    path.write_text("".join(x + "\n" for x in lines), encoding="utf-8")


def _manifest_edited(rng: random.Random, root: Path) -> None:
    scripts = rng.sample(["test", "lint", "build", "no-such-script"], k=rng.randint(0, 3))
    body = ", ".join(f'"{s}": "true"' for s in sorted(scripts))
    (root / "package.json").write_text('{"scripts": {' + body + "}}\n", encoding="utf-8")


Edit = Callable[[random.Random, Path], None]
# the edits a session makes most, the bytes of a document, weighted as such
EDITS: tuple[tuple[Edit, int], ...] = (
    (_text_changed, 5), (_import_added, 2), (_import_broken, 2), (_glob_changed, 2),
    (_file_created, 1), (_file_deleted, 1), (_gitignore_edited, 1), (_manifest_edited, 1),
)
STEPS = 12


def _workspace(root: Path) -> None:
    (root / ".git").mkdir(parents=True)
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")


@pytest.mark.parametrize("seed", range(8))
def test_after_random_edits_a_cached_check_prints_what_a_check_from_scratch_prints(
    seed: int, check: Check, tmp_path: Path  # noqa: F811
) -> None:
    rng = random.Random(seed)
    root = tmp_path / "ws"
    _workspace(root)
    args = (str(root), *(("--format", "json") if seed % 2 else ()))
    first = check(*args)
    assert not first.hit and first.err == ""
    edits, weights = zip(*EDITS, strict=True)
    resumed = 0
    done: list[str] = []
    for _ in range(STEPS):
        edit = rng.choices(edits, weights)[0]
        edit(rng, root)
        done.append(edit.__name__)
        run = check(*args)
        fresh = check(*args, "--no-cache")
        assert (run.code, run.out, run.err) == (fresh.code, fresh.out, fresh.err), done
        again = check(*args)
        assert again.hit and (again.code, again.out) == (run.code, run.out), done
        resumed += run.resumed
    # the walk reached the snapshot's path, not only whole checks and hits
    assert resumed > 0, done
